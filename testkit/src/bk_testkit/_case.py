"""Conformance cases: the registry, and `Trial`, the helper every case receives.

A case is a function `case(t: Trial) -> None` registered for one feature id. It converts NumPy
inputs with `t.tensor`, calls the feature under test on `t.b`, and compares with a float64
NumPy/SciPy reference through `t.check`. It signals:

- a mismatch: `t.check` (and the edge cases' `check_result`) records it in `t.failures` and lets the
  case go on, so that one run reports every failing check of a case; `t.fail`, `t.expect` and a
  plain `AssertionError` end the case;
- that the backend does not provide the feature by letting `NotImplementedError` propagate, or
  by `t.implemented(result)` when the reference allows returning `NotImplemented`;
- that it cannot run here (no GPU, no float64) by raising `SkipCase`.

Dtypes the backend lacks (`Backend.unsupported_dtypes`, `float64_supported`, and bfloat16 without
`ml_dtypes`) are never swept, and a case that asks for one explicitly (`t.tensor`, `t.np`,
`t.need`) is skipped with the reason: a missing dtype is a fact to report, not a failure.

Lazy backends (`Backend.compute_count()` is not `None`): results are computed only where the
testkit compares (`t.check`, `t.to_numpy`, or an explicit `t.b.numpy(...)` in a case); those
computes are the testkit's own (`Trial.computes`). Any other compute during a case is the
operation's, and fails the case unless its feature is in `Backend.computing_operations`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, NoReturn

import numpy as np

import bk
from bk import Backend, DType

__all__ = ["CATALOGUE", "Case", "SkipCase", "Trial", "Unsupported", "case"]


class SkipCase(Exception):
    """Raised by a case that cannot run on this machine or this backend configuration."""


class Unsupported(Exception):
    """Raised when a backend answers `NotImplemented` where the reference allows it."""


@dataclass(frozen=True)
class Case:
    """One conformance check of one feature.

    Args:
        feature: The feature id it certifies.
        name: Short name, unique within the feature.
        function: `function(trial)`; raises as described in the module docstring.
        description: One line saying what it checks.
    """

    feature: str
    name: str
    function: Callable[[Trial], None]
    description: str = ""

    @property
    def id(self) -> str:
        """The stable case id, `feature/name`."""
        return f"{self.feature}/{self.name}"


CATALOGUE: Final[dict[str, list[Case]]] = {}
"""Feature id -> its cases, in registration order."""


def case(*features: str, name: str | None = None) -> Callable[[Callable[[Trial], None]], Callable[[Trial], None]]:
    """Registers the decorated function as a case of each of `features`."""

    def register(function: Callable[[Trial], None]) -> Callable[[Trial], None]:
        doc = (function.__doc__ or "").strip().splitlines()
        for feature in features:
            add_case(feature, name or function.__name__.lstrip("_").replace("_", "-"), function, doc[0] if doc else "")
        return function

    return register


def add_case(feature: str, name: str, function: Callable[[Trial], None], description: str = "") -> Case:
    """Registers one case; raises `ValueError` for an unknown feature id or a duplicate name."""
    if feature not in Backend.features():
        raise ValueError(f"unknown feature id {feature!r} for case {name!r}")
    cases = CATALOGUE.setdefault(feature, [])
    if any(c.name == name for c in cases):
        raise ValueError(f"duplicate case {feature}/{name}")
    new = Case(feature, name, function, description)
    cases.append(new)
    return new


# ---------------------------------------------------------------- tolerances

_RTOL: Final = {16: 5e-3, 32: 2e-5, 64: 1e-10}
_ATOL: Final = {16: 2e-3, 32: 2e-6, 64: 1e-12}
_BF16: Final = (3e-2, 3e-2)


ACCURACY: Final[contextvars.ContextVar[Mapping[DType, DType]]] = contextvars.ContextVar("bk_testkit_accuracy", default=MappingProxyType({}))
"""The accuracy the backend declares for the operation of the case running, per result dtype
(`Backend.precision_deficits`, `bk._rules.gaps.precision_deficit`): set by the runner for each case."""


def tolerance(dtype: DType, scale: float = 1.0) -> tuple[float, float]:
    """`(rtol, atol)` for results of `dtype`, multiplied by `scale`: those of the dtype whose accuracy the
    backend declares for the case's operation (`ACCURACY`: float64 `sin` at float32 accuracy is compared at
    float32's), else of `dtype`."""
    dtype = ACCURACY.get().get(dtype, dtype)
    if dtype.kind is complex:
        dtype = DType(float, dtype.bits // 2)  # type: ignore[operator]
    if dtype.kind is not float:
        return 0.0, 0.0
    if dtype.brain:
        return _BF16[0] * scale, _BF16[1] * scale
    bits = dtype.bits or 64
    return _RTOL[bits] * scale, _ATOL[bits] * scale


def first_lines(lines: Sequence[str], shown: int = 4) -> str:
    """The first `shown` of `lines` for a failure message, each on its own indented line, and how many more there are."""
    more = f"\n  ... and {len(lines) - shown} more" if len(lines) > shown else ""
    return "".join(f"\n  {line}" for line in lines[:shown]) + more


def short(value: Any, limit: int = 160) -> str:
    """A one-line, truncated rendering of a value for failure messages."""
    if isinstance(value, np.ndarray):
        text = np.array2string(value, threshold=12, edgeitems=3, precision=6, max_line_width=10_000)
        text = f"{text} ({value.dtype}, shape {value.shape})"
    else:
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ---------------------------------------------------------------- dtypes a backend lacks

BFLOAT16: Final = DType(float, 16, brain=True)
_LEGACY_FLAGS: Final = {"float16_supported": DType(float, 16), "bfloat16_supported": BFLOAT16}


def lacking_dtypes(backend: Backend) -> dict[DType, str]:
    """Dtype -> the reason no case can use it with `backend`.

    The backend's `unsupported_dtypes` ("framework lacks uint16"); the older flags
    `float16_supported` / `bfloat16_supported` set False, read for plugins that still declare them;
    and bfloat16 when NumPy cannot represent it here (`ml_dtypes` is not installed).
    """
    lacking = {d: f"{backend.name} lacks {d.name} (declared in unsupported_dtypes)" for d in getattr(backend, "unsupported_dtypes", ())}
    for flag, dtype in _LEGACY_FLAGS.items():
        if not getattr(backend, flag, True):
            lacking.setdefault(dtype, f"{backend.name} lacks {dtype.name} ({flag} is False)")
    try:
        bk.to_numpy_dtype(BFLOAT16)
    except TypeError:
        lacking.setdefault(BFLOAT16, "bfloat16 needs the ml_dtypes package, which is not installed here (pip install ml_dtypes)")
    return lacking


# ---------------------------------------------------------------- the trial


ALL_FLOATS: Final = (DType(float, 16), DType(float, 32), DType(float, 64))
ALL_INTS: Final = (DType(int, 32), DType(int, 64))
ALL_COMPLEX: Final = (DType(complex, 64), DType(complex, 128))


class Trial:
    """What a case gets: the backend under test and helpers to make inputs and compare results.

    Args:
        backend: The backend under test.
        precisions: The precision settings that precision-aware cases sweep (`None` = keep inputs').
    """

    def __init__(self, backend: Backend, precisions: Sequence[int | None] = (None, 32, 64)) -> None:
        self.b = backend
        self.float64 = bool(getattr(backend, "float64_supported", True))
        self.lacking: dict[DType, str] = lacking_dtypes(backend)
        """Dtype -> why no case can use it here (the backend lacks it, or bfloat16 lacks ml_dtypes)."""
        self.float16 = DType(float, 16) not in self.lacking
        self.bfloat16 = BFLOAT16 not in self.lacking
        self.precisions = tuple(p for p in precisions if p != 64 or self.float64) or (32,)
        self.rng = np.random.default_rng(1234)
        self.computes = 0
        """How many times the testkit itself evaluated lazy values of this trial (its comparisons)."""
        self.failures: list[str] = []
        """The failing checks recorded so far (`check`, `record`): the case fails with all of them."""

    # ------------------------------------------------------------ dtypes

    def floats(self, half: bool = True) -> tuple[DType, ...]:
        """The float dtypes to sweep: float16 (if `half` and supported), float32, and float64 where supported."""
        return tuple(d for d in ALL_FLOATS if ((half and self.float16) or d.bits != 16) and (d.bits != 64 or self.float64) and d not in self.lacking)

    def complexes(self) -> tuple[DType, ...]:
        """complex64, and complex128 where float64 is supported; neither where the backend lacks it."""
        return tuple(d for d in ALL_COMPLEX if (d.bits != 128 or self.float64) and d not in self.lacking)

    def need(self, *dtypes: DType | str | np.dtype[Any] | None) -> None:
        """Skips the case when the backend lacks one of `dtypes` (`DType`s or NumPy dtypes; `None` is ignored)."""
        for dtype in dtypes:
            if dtype is None:
                continue
            if not isinstance(dtype, DType):
                try:
                    dtype = bk.from_numpy_dtype(np.dtype(dtype))
                except TypeError:
                    continue
            reason = self.lacking.get(dtype)
            if reason is not None:
                raise SkipCase(reason)

    def need_float64(self) -> None:
        """Skips the case when the backend does not compute in float64."""
        if not self.float64:
            raise SkipCase(f"{self.b.name} does not support float64 (float64_supported is False)")

    def result_float(self, dtype: DType) -> DType:
        """The float dtype an operation on `dtype` inputs returns under the current precision."""
        p = bk.get_precision()
        if p is None:
            return dtype
        if dtype.kind is complex:
            return DType(complex, 2 * p)
        return DType(float, p) if dtype.kind is float else dtype

    @contextmanager
    def precision(self, p: int | None) -> Iterator[None]:
        """`with bk.precision(p):`."""
        with bk.precision(p):
            yield

    # ------------------------------------------------------------ inputs

    def np(self, values: Any, dtype: DType | str | None = None) -> np.ndarray:
        """`values` as a NumPy array of `dtype` (a `DType` or a NumPy dtype name); skips the case when
        the backend lacks that dtype."""
        if isinstance(dtype, DType):
            self.need(dtype)
            dtype = bk.to_numpy_dtype(dtype)
        array = np.asarray(values, dtype=dtype)
        self.need(array.dtype)
        return array

    def tensor(self, values: Any, dtype: DType | str | None = None) -> Any:
        """A native tensor of `values`: `as_tensor`, then `cast` to the intended dtype if needed.

        The intended dtype is `dtype`, or the NumPy array's own, converted to the current precision
        for floats as `as_tensor` does.
        """
        array = self.np(values, dtype)
        tensor = self.b.as_tensor(array)
        want = self.result_float(bk.from_numpy_dtype(array.dtype))
        if not self.float64 and want.bits == 64 and want.kind is float:
            want = DType(float, 32)
        if not self.float64 and want.bits == 128:
            want = DType(complex, 64)
        if self.b.dtype(tensor) != want:
            tensor = self.b.cast(tensor, want)
        return tensor

    def uniform(self, shape: Sequence[int], low: float = -2.0, high: float = 2.0) -> np.ndarray:
        """Reproducible float64 random values."""
        return self.rng.uniform(low, high, size=tuple(shape))

    def implemented(self, result: Any) -> Any:
        """`result`, or raises `Unsupported` if it is `NotImplemented`."""
        if result is NotImplemented:
            raise Unsupported("returned NotImplemented")
        return result

    # ------------------------------------------------------------ checks

    def to_numpy(self, tensor: Any) -> np.ndarray:
        """`backend.numpy(tensor)` as an ndarray (dense for SciPy sparse results)."""
        value = self.b.numpy(tensor)
        if hasattr(value, "toarray"):
            value = value.toarray()
        return np.asarray(value)

    def check(
        self,
        actual: Any,
        expected: Any,
        what: str,
        dtype: DType | type | None = None,
        scale: float = 1.0,
        inputs: dict[str, Any] | None = None,
        tol_dtype: DType | None = None,
    ) -> np.ndarray:
        """Compares a native result with the reference; records a mismatch in `failures` and goes on.

        Args:
            actual: The backend's result (a native tensor).
            expected: The reference values.
            what: What was computed, such as `"cos(float32 (2, 3))"`.
            dtype: The expected `DType`, or only a kind (`int`, `float`, ...), or `None` to not check it.
            scale: Multiplies the tolerance (for ill-conditioned operations).
            inputs: Shown in the failure message.
            tol_dtype: The dtype whose tolerance applies (default: the result's).

        Returns:
            The actual values as NumPy (also after a mismatch, so that the case can go on).
        """
        if isinstance(dtype, DType):
            self.need(dtype)  # the result would have a dtype the backend lacks
        got_dtype = self.b.dtype(actual)
        if isinstance(dtype, DType) and got_dtype != dtype:
            self.record(what, f"dtype {got_dtype}, expected {dtype}", inputs)
        if isinstance(dtype, type) and got_dtype.kind is not dtype:
            self.record(what, f"dtype {got_dtype}, expected kind {dtype.__name__}", inputs)
        values = self.to_numpy(actual)
        expected = np.asarray(expected)
        if values.shape != expected.shape:
            self.record(what, f"shape {values.shape}, expected {expected.shape}; actual {short(values)}", inputs)
            return values
        if self.b.compute_count() is not None:
            self.check_inferred(actual, values, what, got_dtype, inputs)
        self.compare(values, expected, what, tol_dtype or got_dtype, scale, inputs)
        return values

    def check_inferred(self, actual: Any, values: np.ndarray, what: str, got_dtype: DType, inputs: dict[str, Any] | None = None) -> None:
        """For lazy backends: the shape and dtype known before computing equal those of the computed value.

        `staticshape` may give `None` for a size that depends on the data.
        """
        static = tuple(self.b.staticshape(actual))
        if len(static) != values.ndim or any(s is not None and s != v for s, v in zip(static, values.shape, strict=False)):
            self.record(what, f"staticshape {static} before computing, but the computed value has shape {values.shape}", inputs)
        if values.dtype != object and bk.from_numpy_dtype(values.dtype) != got_dtype:
            self.record(what, f"dtype {got_dtype} before computing, but the computed value is {values.dtype}", inputs)

    def compare(self, values: np.ndarray, expected: np.ndarray, what: str, dtype: DType, scale: float = 1.0, inputs: dict[str, Any] | None = None) -> None:
        """Compares NumPy values (NaN equals NaN, infinities must match) within the tolerance of `dtype`
        (`tolerance`: the declared accuracy of the case's operation); records a mismatch in `failures`."""
        rtol, atol = tolerance(dtype, scale)
        if values.dtype.kind in "biu" and expected.dtype.kind in "biu" and rtol == 0:
            ok = np.array_equal(values, expected)
        else:
            with np.errstate(all="ignore"):
                ok = values.shape == expected.shape and bool(
                    np.all(np.isclose(values.astype(np.complex128), expected.astype(np.complex128), rtol=rtol, atol=atol, equal_nan=True))
                )
        if not ok:
            self.record(what, f"values differ (rtol={rtol:g}, atol={atol:g})\n  expected {short(expected)}\n  actual   {short(values)}", inputs)

    def fail(self, what: str, problem: str, inputs: dict[str, Any] | None = None) -> NoReturn:
        """Ends the case: raises `AssertionError` with the inputs, the problem, the expected and actual values."""
        raise AssertionError(failure_text(what, problem, inputs))

    def record(self, what: str, problem: str, inputs: dict[str, Any] | None = None) -> None:
        """Records a failing check in `failures` and lets the case go on (it fails at its end)."""
        text = failure_text(what, problem, inputs)
        if text not in self.failures:  # hypothesis examples may repeat one failure
            self.failures.append(text)

    def expect(self, condition: bool, what: str, problem: str) -> None:
        """Records the failing check `problem` unless `condition` holds (the case goes on)."""
        if not condition:
            self.record(what, problem)


def failure_text(what: str, problem: str, inputs: dict[str, Any] | None = None) -> str:
    """`what: problem`, then one line per input."""
    shown = "".join(f"\n  {k} = {short(v)}" for k, v in (inputs or {}).items())
    return f"{what}: {problem}{shown}"


def label(name: str, *arrays: np.ndarray) -> str:
    """`name(float32 (2, 3), int64 ())` for failure messages."""
    return f"{name}({', '.join(f'{a.dtype} {a.shape}' for a in arrays)})"
