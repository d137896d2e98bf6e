"""The generated layer: every catalogue operation called on generated inputs, checked against the
operation's spec and the NumPy/SciPy reference, and compared between two backends.

`_strategies.py` draws, for each operation, backend-independent calls (`Call`): NumPy arrays in
several memory layouts (`Arr`), Python scalars of each kind, axes, shapes and flags. This module
runs a call on a backend (`execute`), and judges the outcome:

- **certification** (`check_call`, the cases `OP/generated` and `OP/generated-invalid`): the
  result's error class, dtype and shape must be what the spec says (`bk.op_spec(op).infer`,
  where the core has a spec for the operation), or else what bk-numpy, the reference backend,
  gives on the same inputs; its values must equal the reference's within the tolerance of the
  result's dtype, where the reference computes in float64 (inputs upcast) for operations whose
  values are smooth in their inputs;
- **differential runs** (`diff_call`, `testkit diff A B`): the same call on two backends must
  give the same error class, or the same dtype, shape and values.

Calls are drawn with `hypothesis`, derandomized, without a database and without shrinking, so
every run draws the same calls: a few per operation by default (`EXAMPLES`), many more with
`set_thorough(True)` (`testkit certify --thorough`).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings

import bk
from bk import DType

from ._case import short, tolerance

__all__ = [
    "Arr",
    "Call",
    "Outcome",
    "calls",
    "check_call",
    "diff_call",
    "error_class",
    "execute",
    "set_thorough",
]

EXAMPLES: Final[dict[str, int]] = {"valid": 3, "invalid": 1}
"""Examples drawn per operation by default (a few: `make test` certifies seven backends)."""
THOROUGH: Final[dict[str, int]] = {"valid": 60, "invalid": 20}
"""Examples per operation with `testkit certify --thorough` and in `testkit diff`."""

_mode = {"thorough": False}


def set_thorough(thorough: bool) -> None:
    """Draws `THOROUGH` examples per operation instead of `EXAMPLES` from now on."""
    _mode["thorough"] = bool(thorough)


def example_count(kind: str) -> int:
    """How many calls of `kind` (`valid` or `invalid`) are drawn per operation now."""
    return (THOROUGH if _mode["thorough"] else EXAMPLES)[kind]


# ---------------------------------------------------------------- calls


@dataclass(frozen=True, eq=False)
class Arr:
    """A tensor argument: NumPy values, and the memory layout `as_tensor` receives them in."""

    array: np.ndarray
    layout: str = "contiguous"

    def laid_out(self, array: np.ndarray | None = None) -> np.ndarray:
        """The values in this layout: a transposed view, negative strides or big-endian bytes."""
        array = self.array if array is None else array
        if self.layout == "transposed" and array.ndim >= 2:
            return np.ascontiguousarray(array.T).T
        if self.layout == "negative-strides" and array.ndim >= 1:
            return np.flip(np.flip(array).copy())
        if (
            self.layout == "big-endian"
            and array.dtype.kind in "iufc"
            and array.dtype.itemsize > 1
            and array.dtype.byteorder != "|"
        ):
            return array.astype(array.dtype.newbyteorder(">"))
        return array

    @property
    def dtype(self) -> DType:
        return bk.from_numpy_dtype(self.array.dtype)

    def __repr__(self) -> str:
        where = "" if self.layout == "contiguous" else f" {self.layout}"
        return f"{self.dtype.name}{list(self.array.shape)}{where} {short(self.array, 100)}"


@dataclass(eq=False)
class Call:
    """One generated call of a catalogue operation: `backend.<op>(*args, **kwargs)`.

    `Arr` arguments (also inside lists and tuples) become tensors of the backend under test.
    """

    op: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    valid: bool = True

    def __repr__(self) -> str:
        parts = [_show(a) for a in self.args] + [f"{k}={_show(v)}" for k, v in self.kwargs.items()]
        return f"{self.op}({', '.join(parts)})"

    def dtypes(self) -> set[DType]:
        """Every dtype of the call's arrays."""
        found: set[DType] = set()
        _walk(self.args, found)
        _walk(tuple(self.kwargs.values()), found)
        return found


def _show(value: Any) -> str:
    if isinstance(value, Arr):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, tuple) and any(isinstance(v, Arr) for v in value):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    if isinstance(value, DType):
        return value.name
    return repr(value)


def _walk(value: Any, found: set[DType]) -> None:
    if isinstance(value, Arr):
        found.add(value.dtype)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _walk(v, found)
    elif isinstance(value, DType):
        found.add(value)


# ---------------------------------------------------------------- drawing calls

_DRAW_SETTINGS: Final = settings(
    derandomize=True,
    database=None,
    deadline=None,
    phases=(Phase.generate,),
    suppress_health_check=list(HealthCheck),
    report_multiple_bugs=False,
    print_blob=False,
)


@functools.cache
def _drawn(op: str, kind: str, count: int) -> tuple[Call, ...]:
    from ._strategies import OPERATIONS

    spec = OPERATIONS[op]
    strategy = spec.valid if kind == "valid" else spec.invalid
    if strategy is None or count <= 0:
        return ()
    found: list[Call] = []

    @settings(_DRAW_SETTINGS, max_examples=count)
    @given(strategy)
    def collect(call: Call) -> None:
        found.append(call)

    collect()
    unique: dict[str, Call] = {}
    for c in found:
        unique.setdefault(repr(c), c)
    return tuple(unique.values())


def calls(op: str, kind: str = "valid", count: int | None = None) -> tuple[Call, ...]:
    """The generated calls of `op` (the same on every run): `kind` is `valid` or `invalid`."""
    return _drawn(op, kind, example_count(kind) if count is None else count)


# ---------------------------------------------------------------- running a call


@dataclass
class Outcome:
    """What a backend did with a call: raised `error`, or returned tensors (`parts`)."""

    error: BaseException | None = None
    values: list[np.ndarray] = field(default_factory=list)
    dtypes: list[DType] = field(default_factory=list)
    static: list[tuple[int | None, ...]] = field(default_factory=list)
    several: bool = False

    def describe(self) -> str:
        if self.error is not None:
            return f"raised {error_class(self.error)}: {str(self.error).splitlines()[0][:200] if str(self.error) else ''}"
        shown = [f"{d.name}{list(v.shape)} {short(v, 120)}" for d, v in zip(self.dtypes, self.values, strict=True)]
        return ("(" + ", ".join(shown) + ")") if self.several else shown[0]


ERROR_ORDER: Final[tuple[type[BaseException], ...]] = (
    bk.AxisError,
    bk.IndexOutOfRangeError,
    bk.ShapeMismatchError,
    bk.ArgumentTypeError,
    NotImplementedError,
    OverflowError,
    ValueError,
    TypeError,
    IndexError,
)
"""The exception classes of docs/semantics.md, most specific first."""


def error_class(error: BaseException) -> str:
    """The documented class an exception belongs to (`AxisError`, ..., `TypeError`), or
    `raw module.Name` for an exception of no documented class (a framework's own)."""
    for cls in ERROR_ORDER:
        if isinstance(error, cls):
            return cls.__name__
    return f"raw {type(error).__module__}.{type(error).__name__}"


def _convert(backend: bk.Backend, value: Any, upcast: bool) -> Any:
    if isinstance(value, Arr):
        array = value.laid_out()
        if (upcast and array.dtype.kind == "f") or (upcast and array.dtype.name == "bfloat16"):
            array = array.astype(np.float64)
        elif upcast and array.dtype.kind == "c":
            array = array.astype(np.complex128)
        return backend.as_tensor(array)
    if isinstance(value, list):
        return [_convert(backend, v, upcast) for v in value]
    if isinstance(value, tuple) and any(isinstance(v, Arr) for v in value):
        return tuple(_convert(backend, v, upcast) for v in value)
    return value


def execute(backend: bk.Backend, call: Call, upcast: bool = False) -> Outcome:
    """Runs `call` on `backend` (lazy results are computed) and records what happened.

    Args:
        upcast: Converts float arrays to float64 and complex to complex128 first (the reference).
    """
    try:
        args = [_convert(backend, a, upcast) for a in call.args]
        kwargs = {k: _convert(backend, v, upcast) for k, v in call.kwargs.items()}
    except Exception as error:  # a backend that cannot even hold the inputs
        return Outcome(error=error)
    try:
        # invalid values (log(-1)) warn in some frameworks; the values are what is checked
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            result = getattr(backend, call.op)(*args, **kwargs)
            several = isinstance(result, (tuple, list))
            parts = list(result) if several else [result]
            outcome = Outcome(several=several)
            for part in parts:
                outcome.dtypes.append(backend.dtype(part))
                outcome.static.append(tuple(backend.staticshape(part)))
                value = backend.numpy(part)
                outcome.values.append(np.asarray(value.toarray() if hasattr(value, "toarray") else value))
    except Exception as error:
        return Outcome(error=error)
    return outcome


# ---------------------------------------------------------------- judging

Expectation = tuple[str | None, list[Any] | None]  # (error class, templates)


DATA_ERRORS: Final = (bk.IndexOutOfRangeError, ValueError)
"""Mistakes that depend on the values, which a spec (templates only) cannot see: an index out of range,
a negative value in bincount, a flat index outside the array. `AxisError` and `ShapeMismatchError`
(ValueError subclasses) are the spec's to decide, and are excluded in `check_call`."""


def spec_expectation(call: Call) -> Expectation | None:
    """What the core's spec of the operation says the call gives: `(error class, None)` or
    `(None, [ShapeDtype, ...])`; `None` where the core has no spec for the operation."""
    op_spec = getattr(bk, "op_spec", None)
    if op_spec is None:
        return None
    try:
        spec = op_spec(call.op)
    except (KeyError, ValueError, LookupError, AttributeError):
        return None
    args = [_template(a) for a in call.args]
    kwargs = {k: _template(v) for k, v in call.kwargs.items()}
    try:
        with np.errstate(all="ignore"):
            inferred = spec.infer(*args, **kwargs)
    except NotImplementedError:
        return None
    except Exception as error:
        return error_class(error), None
    if isinstance(inferred, (tuple, list)):
        return None, list(inferred)
    return None, [inferred]


def _template(value: Any) -> Any:
    if isinstance(value, Arr):
        return value.laid_out()  # anything with shape and dtype; small, so the array itself
    if isinstance(value, list):
        return [_template(v) for v in value]
    if isinstance(value, tuple) and any(isinstance(v, Arr) for v in value):
        return tuple(_template(v) for v in value)
    return value


@functools.lru_cache(maxsize=1)
def reference_backend() -> bk.Backend:
    """bk-numpy, the reference backend."""
    return bk.backend("numpy")


def _compatible(expected: str, actual: BaseException) -> bool:
    """Whether `actual` is of the documented class `expected` (a subclass is fine)."""
    for cls in ERROR_ORDER:
        if cls.__name__ == expected:
            return isinstance(actual, cls)
    return False


@dataclass
class Verdict:
    """The judgement of one call: `problem` is `None` when it passed."""

    call: Call
    problem: str | None = None
    not_implemented: bool = False


ORDERING: Final = frozenset(
    (
        "maximum",
        "minimum",
        "max",
        "min",
        "argmax",
        "argmin",
        "sort",
        "argsort",
        "searchsorted",
        "unique",
        "greater_than",
        "greater_or_equal",
    )
)
"""Operations that order values: docs/semantics.md lets a framework without an order of complex values
(PyTorch, the Array API) raise `ArgumentTypeError` for complex inputs instead of NumPy's order."""


def complex_order_refused(call: Call, error: BaseException | None) -> bool:
    """Whether `error` is the documented refusal to order complex values (see `ORDERING`)."""
    if call.op not in ORDERING or not isinstance(error, bk.ArgumentTypeError):
        return False
    return any(d.kind is complex for d in call.dtypes()) or _has_python_complex(call.args)


def _has_python_complex(values: Any) -> bool:
    return any(isinstance(v, complex) or (isinstance(v, (list, tuple)) and _has_python_complex(v)) for v in values)


def check_call(backend: bk.Backend, call: Call) -> Verdict:
    """Runs `call` on `backend` and checks error class, dtype, shape and values against the spec
    and the reference (see the module docstring)."""
    from ._strategies import OPERATIONS

    spec = OPERATIONS[call.op]
    actual = execute(backend, call)
    ref_backend = reference_backend()
    exact = actual if backend is ref_backend else execute(ref_backend, call)
    inferred = spec_expectation(call)
    # the expected error class: the spec's; else one of the reference that depends on the data (an index
    # out of range, a negative count: ValueError, IndexOutOfRangeError), or any where the core has no spec
    expected_error = inferred[0] if inferred is not None and inferred[0] is not None else None
    if expected_error is None and exact.error is not None:
        data = isinstance(exact.error, DATA_ERRORS) and not isinstance(exact.error, (bk.AxisError, bk.ShapeMismatchError))
        if inferred is None or data:
            expected_error = error_class(exact.error)
        elif backend is ref_backend:
            return Verdict(call, f"{actual.describe()}; the spec says {_expected_text(inferred, exact)}")
    if actual.error is not None:
        if complex_order_refused(call, actual.error):
            return Verdict(call)
        if isinstance(actual.error, NotImplementedError) and expected_error != "NotImplementedError":
            return Verdict(call, f"raised NotImplementedError: {actual.error}", not_implemented=True)
        if expected_error is None:
            expected = _expected_text(inferred, exact)
            return Verdict(call, f"{actual.describe()}; expected {expected}")
        if not _compatible(expected_error, actual.error):
            return Verdict(call, f"{actual.describe()}; expected {expected_error}")
        return Verdict(call)
    if expected_error is not None:
        return Verdict(call, f"returned {actual.describe()}; expected {expected_error} (docs/semantics.md)")
    # templates: the spec's, or the reference's dtypes and shapes
    if inferred is not None and inferred[1] is not None:
        templates = [(t.dtype, tuple(t.shape)) for t in inferred[1]]
        source = "the spec"
    else:
        templates = [(d, v.shape) for d, v in zip(exact.dtypes, exact.values, strict=True)]
        source = "bk-numpy"
    if len(templates) != len(actual.values):
        return Verdict(call, f"returned {len(actual.values)} results, {source} says {len(templates)}")
    for i, ((dtype, shape), got_dtype, value, static) in enumerate(
        zip(templates, actual.dtypes, actual.values, actual.static, strict=True)
    ):
        part = f" (result {i})" if actual.several else ""
        if dtype is not None and got_dtype != dtype:
            return Verdict(call, f"dtype {got_dtype.name}{part}, {source} says {dtype.name}")
        if len(shape) != value.ndim or any(s is not None and s != v for s, v in zip(shape, value.shape, strict=False)):
            return Verdict(call, f"shape {value.shape}{part}, {source} says {tuple(shape)}")
        if len(static) != value.ndim or any(s is not None and s != v for s, v in zip(static, value.shape, strict=False)):
            return Verdict(call, f"staticshape {static}{part} but the values have shape {value.shape}")
        if value.dtype.kind in "OSU":
            return Verdict(call, f"a result of NumPy dtype {value.dtype}{part}: {short(value)}")
        if bk.from_numpy_dtype(value.dtype) != got_dtype:
            return Verdict(call, f"dtype() says {got_dtype.name}{part} but numpy() gives {value.dtype}")
    # values: against the reference in float64 where the operation is smooth, else on the same inputs
    reference = execute(ref_backend, call, upcast=True) if spec.smooth else exact
    if reference.error is not None or len(reference.values) != len(actual.values):
        reference = exact
    if reference.error is not None:
        return Verdict(call)
    problem = spec.compare(actual, reference, spec.scale, call)
    return Verdict(call, problem)


def _expected_text(inferred: Expectation | None, exact: Outcome) -> str:
    if inferred is not None and inferred[1] is not None:
        return ", ".join(f"{t.dtype.name}{list(t.shape)}" for t in inferred[1]) + " (the spec)"
    return exact.describe() + " (bk-numpy)"


def compare_values(
    actual: Outcome, reference: Outcome, scale: float = 1.0, call: Call | None = None, parts: Sequence[int] | None = None
) -> str | None:
    """`None` if the values of `actual` match `reference` (cast to the actual dtype first, so an
    overflow to inf is expected where the result's dtype overflows) within the tolerance of the
    actual dtype; else the problem."""
    chosen = range(len(actual.values)) if parts is None else parts
    for i in chosen:
        problem = compare_arrays(actual.values[i], reference.values[i], actual.dtypes[i], scale)
        if problem:
            return problem + (f" (result {i})" if actual.several else "")
    return None


def compare_arrays(got: np.ndarray, want: np.ndarray, dtype: DType, scale: float = 1.0) -> str | None:
    """`None` if equal within the tolerance of `dtype`, else the problem."""
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if got.dtype.kind in "OSUV" and got.dtype.name != "bfloat16":
        return f"a result of NumPy dtype {got.dtype}: {short(got)}"
    if want.dtype.kind in "OSUV" and want.dtype.name != "bfloat16":
        return None  # the reference itself has no numeric answer
    if got.dtype.name == "bfloat16":
        got = got.astype(np.float32)
    if want.dtype.name == "bfloat16":
        want = want.astype(np.float32)
    with np.errstate(all="ignore"):
        if dtype.kind is bool or (got.dtype.kind in "biu" and want.dtype.kind in "biu"):
            ok = np.array_equal(
                got.astype(np.int64) if got.dtype.kind == "b" else got, want.astype(np.int64) if want.dtype.kind == "b" else want
            )
            return None if ok else f"values differ\n    expected {short(want)}\n    actual   {short(got)}"
        if dtype.kind is int and want.dtype.kind in "fc":
            want = want.real if want.dtype.kind == "c" else want
            ok = bool(np.all(np.isnan(want) | (got == want))) if want.size else True
            return None if ok else f"values differ\n    expected {short(want)}\n    actual   {short(got)}"
        if dtype.kind in (float, complex) and want.dtype.kind in "fc":
            target = bk.to_numpy_dtype(dtype)
            want = want.astype(target).astype(np.complex128 if dtype.kind is complex else np.float64)
        rtol, atol = tolerance(dtype, scale)
        a = got.astype(np.complex128)
        e = want.astype(np.complex128)
        close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        # complex NaN: any NaN part counts as NaN
        nan = np.isnan(a) & np.isnan(e)
        ok = bool(np.all(close | nan))
    if ok:
        return None
    return f"values differ (rtol={rtol:g}, atol={atol:g})\n    expected {short(want)}\n    actual   {short(got)}"


# ---------------------------------------------------------------- differential runs


@dataclass
class Disagreement:
    """One call on which two backends disagree."""

    call: Call
    what: str
    a: str
    b: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "operation": self.call.op,
            "call": repr(self.call),
            "valid": self.call.valid,
            "what": self.what,
            "a": self.a,
            "b": self.b,
        }


def diff_call(a: bk.Backend, b: bk.Backend, call: Call) -> Disagreement | None:
    """Runs `call` on both backends; the disagreement, or `None` when they agree."""
    from ._strategies import OPERATIONS

    first, second = execute(a, call), execute(b, call)
    return diff_outcomes(call, first, second, OPERATIONS[call.op].compare)


def diff_outcomes(
    call: Call, first: Outcome, second: Outcome, compare: Callable[..., str | None] = compare_values
) -> Disagreement | None:
    """The disagreement between two outcomes of `call`, or `None`."""
    if first.error is not None or second.error is not None:
        if first.error is not None and second.error is not None:
            ea, eb = error_class(first.error), error_class(second.error)
            if ea == eb and not ea.startswith("raw "):
                return None
            return Disagreement(call, "error class", first.describe(), second.describe())
        return Disagreement(call, "one raises", first.describe(), second.describe())
    if len(first.values) != len(second.values):
        return Disagreement(call, "number of results", first.describe(), second.describe())
    for da, db, va, vb in zip(first.dtypes, second.dtypes, first.values, second.values, strict=True):
        if da != db:
            return Disagreement(call, "dtype", first.describe(), second.describe())
        if va.shape != vb.shape:
            return Disagreement(call, "shape", first.describe(), second.describe())
    # the coarser dtype's tolerance; compare in both directions' float64 view
    problem = compare(second, _as_reference(first), 1.0, call) or compare(first, _as_reference(second), 1.0, call)
    if problem:
        return Disagreement(call, "values: " + problem.splitlines()[0], first.describe(), second.describe())
    return None


def _as_reference(outcome: Outcome) -> Outcome:
    values = [
        v.astype(np.complex128 if v.dtype.kind == "c" else np.float64)
        if v.dtype.kind in "fc" or v.dtype.name == "bfloat16"
        else v
        for v in outcome.values
    ]
    return Outcome(values=values, dtypes=outcome.dtypes, static=outcome.static, several=outcome.several)
