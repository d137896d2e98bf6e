"""Shared tools of the edge-case cases (`edges_*.py`): hypothesis strategies, inputs, checks.

The edge cases check the rules of `docs/semantics.md`. They generate inputs with `hypothesis`,
derandomized and without a database, so every run of `testkit certify` tries the same examples:
a case calls an `@explore(...)` function, which runs it once per example. Shrinking is off: a
failing example is reported as found, which keeps a failing run as fast as a passing one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import bk
from bk import DType

from .._case import SkipCase, Trial, short, tolerance

__all__ = [
    "ALL_DTYPES",
    "available",
    "check_raises",
    "check_result",
    "dtypes",
    "explore",
    "layout",
    "make_values",
    "shapes",
]

_SETTINGS: Final = settings(
    derandomize=True,
    database=None,
    max_examples=8,
    deadline=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=list(HealthCheck),
    report_multiple_bugs=False,
    print_blob=False,
)

BOOL: Final = DType(bool)
SIGNED: Final = tuple(DType(int, b) for b in (8, 16, 32, 64))
UNSIGNED: Final = tuple(DType(int, b, signed=False) for b in (8, 16, 32, 64))
FLOATS: Final = (DType(float, 16), DType(float, 16, brain=True), DType(float, 32), DType(float, 64))
COMPLEX: Final = (DType(complex, 64), DType(complex, 128))
ALL_DTYPES: Final = (BOOL, *SIGNED, *UNSIGNED, *FLOATS, *COMPLEX)
INT64: Final = DType(int, 64)
LAYOUTS: Final = ("contiguous", "transposed", "negative-strides", "big-endian")


EXAMPLES_SCALE: Final = 0.15
"""Scales every case's example count: each new shape and dtype costs a compile on JAX and TensorFlow,
and the edge cases of one backend must run well inside a minute on a 2-core CI machine."""


def explore(*strategies: st.SearchStrategy[Any], examples: int = 8) -> Callable[[Callable[..., None]], Callable[[], None]]:
    """Decorates a function of the drawn values; calling it runs it on derandomized examples.

    Args:
        examples: The example count before `EXAMPLES_SCALE` (at least 4 remain).
    """

    def wrap(function: Callable[..., None]) -> Callable[[], None]:
        count = max(3, round(examples * EXAMPLES_SCALE))
        return settings(_SETTINGS, max_examples=count)(given(*strategies)(function))  # type: ignore[no-any-return]

    return wrap


# ---------------------------------------------------------------- strategies


def dtypes(t: Trial, *groups: Sequence[DType]) -> st.SearchStrategy[DType]:
    """One of the dtypes of `groups` (all when none given) that the backend can compute in; skips the
    case when it has none of them."""
    groups = groups or (ALL_DTYPES,)
    chosen = available(t, *groups)
    if not chosen:
        t.need(*(d for g in groups for d in g))  # raises SkipCase with the reason
        raise SkipCase(f"{t.b.name} has none of the dtypes {', '.join(d.name for g in groups for d in g)}")
    return st.sampled_from(chosen)


def available(t: Trial, *groups: Sequence[DType]) -> list[DType]:
    """The dtypes of `groups` the backend has: without float64 and complex128 where
    `float64_supported` is False, and without the dtypes it lacks (`Trial.lacking`:
    `Backend.unsupported_dtypes`, bfloat16 without ml_dtypes)."""
    chosen = [d for g in groups for d in g]
    if not t.float64:
        chosen = [d for d in chosen if d not in (DType(float, 64), DType(complex, 128))]
    return [d for d in chosen if d not in t.lacking]


SHAPES: Final = (
    (),
    (0,),
    (1,),
    (3,),
    (2, 3),
    (3, 1),
    (0, 2),
    (1, 1),
    (2, 1, 3),
    (2, 0, 1),
    (1, 3, 2),
    (2, 1, 2, 1),
    (1, 2, 0, 2),
    (2, 1, 1, 2, 1),
)
"""The shapes the edge cases draw from: 0-d, empty, size-1 dimensions, up to rank 5. A fixed pool, so
that JAX and TensorFlow compile each operation for few distinct shapes."""


def shapes(min_rank: int = 0, max_rank: int = 5, min_side: int = 0, max_side: int = 3) -> st.SearchStrategy[tuple[int, ...]]:
    """One of `SHAPES` with a rank in `[min_rank, max_rank]` and sizes in `[min_side, max_side]`."""
    pool = [s for s in SHAPES if min_rank <= len(s) <= max_rank and all(min_side <= n <= max_side for n in s)]
    return st.sampled_from(pool)


# ---------------------------------------------------------------- inputs


def make_values(dtype: DType, shape: Sequence[int], seed: int, special: bool = True, low: int = -3, high: int = 3) -> np.ndarray:
    """Reproducible values of `dtype`: small numbers, and for floats some NaN, +inf and -inf if `special`."""
    rng = np.random.default_rng(seed)
    shape = tuple(shape)
    try:
        np_dtype = bk.to_numpy_dtype(dtype)
    except TypeError as error:  # bfloat16 without ml_dtypes: a missing optional package skips, never fails
        raise SkipCase(f"{dtype.name} values need NumPy to represent it: {error}") from None
    if dtype.kind is bool:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind is int:
        lo = max(low, 0) if not dtype.signed else low
        return rng.integers(lo, high + 1, shape).astype(np_dtype)
    values = np.round(rng.uniform(low, high, shape), 2)
    if dtype.kind is complex:
        values = values + 1j * np.round(rng.uniform(low, high, shape), 2)
    if special and values.size:
        flat = values.reshape(-1)
        for position, value in zip(rng.integers(0, flat.size, 3), (np.nan, np.inf, -np.inf), strict=True):
            if rng.random() < 0.5:
                flat[position] = value
    return values.astype(np_dtype)


def layout(array: np.ndarray, kind: str) -> np.ndarray:
    """The same values in another memory layout: a transposed view, negative strides or big-endian bytes."""
    if kind == "transposed" and array.ndim >= 2:
        return np.ascontiguousarray(array.T).T
    if kind == "negative-strides" and array.ndim >= 1:
        return np.flip(np.flip(array).copy())
    if kind == "big-endian" and array.dtype.kind in "iufc" and array.dtype.itemsize > 1 and array.dtype.byteorder != "|":
        return array.astype(array.dtype.newbyteorder(">"))
    return array


def tensor(t: Trial, array: np.ndarray) -> Any:
    """`as_tensor(array)`, which must keep the NumPy dtype (no precision is set in edge cases); skips
    the case when the backend lacks that dtype."""
    t.need(array.dtype)
    result = t.b.as_tensor(array)
    want = bk.from_numpy_dtype(array.dtype)
    got = t.b.dtype(result)
    if got != want:
        t.record(f"as_tensor({array.dtype} {array.shape})", f"dtype {got}, expected {want} (as_tensor keeps the dtype of NumPy arrays)")
    return result


# ---------------------------------------------------------------- checks


def check_result(
    t: Trial,
    actual: Any,
    expected: Any,
    what: str,
    dtype: DType | None,
    inputs: dict[str, Any] | None = None,
    scale: float = 1.0,
    dynamic: bool = False,
    tol_dtype: DType | None = None,
) -> np.ndarray:
    """Checks dtype, shape, `staticshape` and values of a native result against the reference; records
    each mismatch in `t.failures` and goes on (the values are returned also after a mismatch).

    Args:
        dynamic: The result's size depends on the data (`unique`, `nonzero`, boolean masks): lazy
            backends may report `None` for such sizes in `staticshape`.
    """
    expected = np.asarray(expected)
    t.need(dtype)  # the result would have a dtype the backend lacks
    if dtype is not None:
        got_dtype = t.b.dtype(actual)
        if got_dtype != dtype:
            t.record(what, f"dtype {got_dtype}, expected {dtype}", inputs)
    static = tuple(t.b.staticshape(actual))
    ok = len(static) == expected.ndim and all(s == e or (s is None and dynamic) for s, e in zip(static, expected.shape, strict=False))
    if not ok:
        t.record(what, f"staticshape {static}, expected {expected.shape}", inputs)
    values = t.to_numpy(actual)
    if values.shape != expected.shape:
        t.record(what, f"shape {values.shape}, expected {expected.shape}; actual {short(values)}", inputs)
        return values
    compare_dtype = tol_dtype or dtype or t.b.dtype(actual)
    if compare_dtype.kind is bool or (values.dtype.kind in "biu" and expected.dtype.kind in "biu"):
        if not np.array_equal(values, expected):
            t.record(what, f"values differ\n  expected {short(expected)}\n  actual   {short(values)}", inputs)
        return values
    rtol, atol = tolerance(compare_dtype, scale)
    with np.errstate(all="ignore"):
        a = values.astype(np.complex128)
        e = expected.astype(np.complex128)
        close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    if not bool(np.all(close)):
        t.record(what, f"values differ (rtol={rtol:g}, atol={atol:g})\n  expected {short(expected)}\n  actual   {short(values)}", inputs)
    return values


def check_raises(t: Trial, error: type[BaseException] | tuple[type[BaseException], ...], function: Callable[[], Any], what: str, op: str | None = None) -> None:
    """Checks that `function()` raises `error` (checked with `isinstance`); a bk exception class must name `op`.

    Records a failing check in `t.failures` and goes on."""
    try:
        result = function()
        t.b.numpy(result) if t.b.is_tensor(result, only_native=True) else None  # lazy backends: compute it
    except error as raised:
        bk_classes = (bk.AxisError, bk.ShapeMismatchError, bk.IndexOutOfRangeError, bk.ArgumentTypeError)
        if op is not None and isinstance(raised, bk_classes) and not _names_operation(str(raised), op):
            t.record(what, f"raised {type(raised).__name__} as it should, but its message does not name the operation {op!r}: {raised}")
        return
    except SkipCase:  # the call needed a dtype the backend lacks
        raise
    except Exception as raised:
        names = error.__name__ if isinstance(error, type) else " or ".join(e.__name__ for e in error)
        t.record(what, f"raised {type(raised).__module__}.{type(raised).__name__} ({str(raised)[:200]}), expected {names} (docs/semantics.md)")
        return
    names = error.__name__ if isinstance(error, type) else " or ".join(e.__name__ for e in error)
    t.record(what, f"returned {short(result) if not t.b.is_tensor(result, only_native=True) else short(t.to_numpy(result))} instead of raising {names} (docs/semantics.md)")


def _names_operation(message: str, op: str) -> bool:
    """Whether `message` names `op`, or starts with the catalogue operation that a generic default of `op` delegated to."""
    return op in message or message.split(":", 1)[0].strip() in bk.Backend.features()


def reference_float(x: np.ndarray) -> np.ndarray:
    """`x` in float64 (complex128 for complex), the precision of every float reference."""
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def default_float() -> DType:
    """The float type of new values: float32, or the set precision."""
    return DType(float, bk.get_precision() or 32)


def describe(name: str, *arrays: np.ndarray, **kwargs: Any) -> str:
    """`name(int8 (2, 3), axis=-1)` for failure messages."""
    parts = [f"{bk.from_numpy_dtype(a.dtype).name} {a.shape}" for a in arrays] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"
