"""`testkit diff A B`: the generated calls of every operation on two installed backends, and every
call on which they disagree (error class, dtype, shape or values).

A disagreement is *declared* when either backend lists the call's generated case (`OP/generated`
or `OP/generated-invalid`) in the expected-failure table with a reason, or when the call's inputs
fall under one of the `DECLARED_DIFFERENCES` (values docs/semantics.md leaves to each framework,
such as `cast` of NaN to an int); a call that one backend
refuses with `NotImplementedError` for an operation it does not claim in `supports()` is
*unsupported*. Everything else is undeclared, and makes `testkit diff` exit with status 1.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

import bk
from bk import DType
from bk.rules import int_range

from ._expected import EXPECTED_FAILURES
from ._generated import Arr, Call, Disagreement, calls, complex_order_refused, diff_outcomes, execute
from ._strategies import OPERATIONS

__all__ = ["DECLARED_DIFFERENCES", "DeclaredDifference", "DiffReport", "declared_difference", "diff_backends"]


@dataclass(frozen=True)
class DeclaredDifference:
    """A class of calls on which backends may disagree by bk's rules: the values are left to each framework.

    Args:
        name: Short name, shown by `testkit diff`.
        reason: Why, with the rule of docs/semantics.md that says so.
        applies: `applies(call, backend_names)`: whether a call falls under it.
    """

    name: str
    reason: str
    applies: Callable[[Call, tuple[str, ...]], bool]


_TO_INT: Final = frozenset(("cast", "to_int32", "to_int64"))
_COMPLEX_INF_EXACT: Final = frozenset(
    ("abs", "isinf", "isnan", "isfinite", "real", "imag", "conj", "copy", "stop_gradient", "flatten", "reshape", "transpose",
     "zeros_like", "ones_like", "expm1", "log1p", "cast", "to_complex", "negative", "where", "concat", "stack", "flip", "tile",
     "gather", "gather_1d", "multi_slice", "boolean_mask", "pad", "pad_to", "repeat", "tile_to", "expand_dims", "unstack",
     "get_diagonal", "equal", "not_equal")
)  # fmt: skip
"""Operations whose values bk defines for complex infinities too (moved, compared or fixed by the core's special values)."""


def _arrays(call: Call) -> list[np.ndarray]:
    found: list[np.ndarray] = []

    def walk(value: Any) -> None:
        if isinstance(value, Arr):
            found.append(value.array)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)

    walk(call.args)
    walk(tuple(call.kwargs.values()))
    return found


def _float_to_int_outside(call: Call, names: tuple[str, ...]) -> bool:
    if call.op == "full" and len(call.args) > 2:  # a float fill of an int tensor: a cast of the fill value
        return _float_to_int_outside(Call("cast", (call.args[1], call.args[2])), names)
    if call.op not in _TO_INT or not call.args:
        return False
    target = call.args[1] if call.op == "cast" and len(call.args) > 1 else DType(int, 32 if call.op == "to_int32" else 64)
    source = call.args[0]
    if not isinstance(target, DType) or target.kind is not int:
        return False
    values = source.array if isinstance(source, Arr) else np.asarray(source) if isinstance(source, (float, complex)) else None
    if values is None or values.dtype.kind not in "fc":
        return False
    real = np.real(values).astype(np.float64)
    low, high = int_range(target)
    with np.errstate(invalid="ignore"):
        return bool(np.any(~np.isfinite(real) | (real <= low - 1) | (real >= high + 1)))


def _complex_infinity(call: Call, names: tuple[str, ...]) -> bool:
    if call.op in _COMPLEX_INF_EXACT:
        return False
    return any(a.dtype.kind == "c" and bool(np.any(np.isinf(a))) for a in _arrays(call))


def _subnormal(call: Call, names: tuple[str, ...]) -> bool:
    if not {"jax", "tf"} & set(names):
        return False
    for a in _arrays(call):
        if a.dtype.kind in "fc" and a.size:
            tiny = np.finfo(a.dtype).tiny
            magnitude = np.abs(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
            if bool(np.any((magnitude > 0) & (magnitude < tiny))):
                return True
    return False


def _unsorted_edges(call: Call, names: tuple[str, ...]) -> bool:
    if call.op != "histogram1d" or len(call.args) < 3 or not isinstance(call.args[2], Arr):
        return False
    edges = call.args[2].array.astype(np.float64)
    with np.errstate(invalid="ignore"):
        return bool(np.any(np.isnan(edges)) or np.any(np.diff(edges, axis=-1) < 0))


DECLARED_DIFFERENCES: Final[tuple[DeclaredDifference, ...]] = (
    DeclaredDifference(
        "float-to-int-outside",
        "docs/semantics.md: cast (to_int32, to_int64, a float fill of full) of NaN, infinities and floats outside the target int's range "
        "is left to each framework (C's undefined behaviour: NumPy gives INT_MIN or wraps, XLA saturates, ...)",
        _float_to_int_outside,
    ),
    DeclaredDifference(
        "complex-infinity",
        "docs/semantics.md: elementwise functions of complex values with an infinite part follow each framework "
        "(C99 Annex G is implementation-defined); bk fixes abs, expm1 and log1p",
        _complex_infinity,
    ),
    DeclaredDifference(
        "unsorted-bin-edges",
        "docs/semantics.md: histogram1d of bin_edges that decrease or hold NaN is undefined (each backend searches them as "
        "sorted; checking would read the data on every call)",
        _unsorted_edges,
    ),
    DeclaredDifference(
        "subnormal-flush",
        "docs/semantics.md: JAX (XLA) and TensorFlow flush subnormal floats to zero on the CPU; NumPy and PyTorch keep them",
        _subnormal,
    ),
)
"""The calls on which backends may disagree by bk's rules, each with its reason. Unique only up to signs,
phases and order, eigenvectors and singular vectors are never compared (`eig`, `eigh`, `svd`, `qr`: the
generated layer compares eigenvalues sorted and singular values, and checks factors by reconstruction)."""


def declared_difference(call: Call, names: tuple[str, ...]) -> DeclaredDifference | None:
    """The declared difference `call` falls under on the backends `names`, or `None`."""
    for declared in DECLARED_DIFFERENCES:
        if declared.applies(call, names):
            return declared
    return None


@dataclass
class DiffReport:
    """What `diff_backends` found."""

    a: str
    b: str
    calls: int = 0
    seconds: float = 0.0
    disagreements: list[Disagreement] = field(default_factory=list)
    declared: list[tuple[Disagreement, str]] = field(default_factory=list)
    unsupported: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "calls": self.calls,
            "seconds": round(self.seconds, 3),
            "disagreements": [d.to_dict() for d in self.disagreements],
            "declared": [{**d.to_dict(), "reason": reason} for d, reason in self.declared],
            "unsupported": self.unsupported,
            "skipped": self.skipped,
        }

    def operations(self) -> dict[str, int]:
        """Operation -> number of undeclared disagreements."""
        counts: dict[str, int] = {}
        for d in self.disagreements:
            counts[d.call.op] = counts.get(d.call.op, 0) + 1
        return counts


def _lacks(backend: bk.Backend, call: Call) -> str | None:
    """Why `backend` cannot hold the call's inputs (a dtype in `Backend.unsupported_dtypes`, float64,
    float16 or bfloat16 not supported, bfloat16 without ml_dtypes), or `None`."""
    from . import _case

    declared = getattr(_case, "lacking_dtypes", None)
    lacking = declared(backend) if declared is not None else {}
    for dtype in call.dtypes():
        if dtype in lacking:
            return lacking[dtype]
        if dtype.kind is float and dtype.bits == 64 and not getattr(backend, "float64_supported", True):
            return "float64"
        if dtype.kind is complex and dtype.bits == 128 and not getattr(backend, "float64_supported", True):
            return "complex128"
        if dtype.kind is float and dtype.bits == 16 and not dtype.brain and not getattr(backend, "float16_supported", True):
            return "float16"
        if dtype.brain and not getattr(backend, "bfloat16_supported", True):
            return "bfloat16"
    return None


def _declared(backend: bk.Backend, call: Call) -> str | None:
    table = EXPECTED_FAILURES.get(backend.name, {})
    case = f"{call.op}/generated" if call.valid else f"{call.op}/generated-invalid"
    return table.get(case)


def diff_backends(
    a: bk.Backend,
    b: bk.Backend,
    operations: Sequence[str] | None = None,
    examples: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> DiffReport:
    """Runs the generated calls of `operations` (all with a strategy by default) on `a` and `b`.

    Args:
        examples: Valid calls drawn per operation (invalid ones: a third as many, at least 2);
            `None` for the current default (see `set_thorough`).
    """
    report = DiffReport(a.name, b.name)
    start = time.perf_counter()
    chosen = [op for op in (operations if operations is not None else OPERATIONS) if op in OPERATIONS]
    for index, op in enumerate(chosen):
        if progress is not None:
            progress(op, index, len(chosen))
        valid = calls(op, "valid", examples)
        invalid = calls(op, "invalid", None if examples is None else max(2, examples // 3))
        for call in (*valid, *invalid):
            lacking = _lacks(a, call) or _lacks(b, call)
            if lacking:
                report.skipped.setdefault(op, f"{lacking} is not supported by one of the backends")
                continue
            report.calls += 1
            first, second = execute(a, call), execute(b, call)
            for backend, outcome in ((a, first), (b, second)):
                if isinstance(outcome.error, NotImplementedError) and not backend.supports(op):
                    report.unsupported[f"{backend.name}:{op}"] = f"{backend.name} does not claim {op} in supports()"
            if any(isinstance(o.error, NotImplementedError) for o in (first, second)) and not (a.supports(op) and b.supports(op)):
                continue
            found = diff_outcomes(call, first, second, OPERATIONS[op].compare)
            if found is None:
                continue
            reason = _declared(a, call) or _declared(b, call)
            if not reason:
                declared = declared_difference(call, (a.name, b.name))
                reason = None if declared is None else f"{declared.name}: {declared.reason}"
            if not reason and (complex_order_refused(call, first.error) or complex_order_refused(call, second.error)):
                reason = "docs/semantics.md: a framework without an order of complex values raises ArgumentTypeError"
            if reason:
                report.declared.append((found, reason))
            else:
                report.disagreements.append(found)
    report.seconds = time.perf_counter() - start
    return report


def format_diff(report: DiffReport, limit: int = 400) -> str:
    """The readable listing of a diff report."""
    lines = [
        f"testkit diff {report.a} {report.b}: {report.calls} calls over {len(set(OPERATIONS))} operations in {report.seconds:.1f} s"
    ]
    for d in report.disagreements[:limit]:
        lines += [
            f"\n{d.call.op} [{d.what}] {'' if d.call.valid else '(invalid input) '}{d.call!r}",
            f"  {report.a}: {d.a}",
            f"  {report.b}: {d.b}",
        ]
    if len(report.disagreements) > limit:
        lines.append(f"\n... and {len(report.disagreements) - limit} more (see --json)")
    if report.declared:
        lines.append(f"\nDeclared (expected-failure table): {len(report.declared)}")
        for d, reason in report.declared[:50]:
            lines.append(f"  {d.call.op}: {reason[:160]}")
    if report.unsupported:
        lines.append("\nUnsupported: " + ", ".join(sorted(report.unsupported)))
    if report.skipped:
        lines.append("Skipped: " + "; ".join(f"{op} ({why})" for op, why in sorted(report.skipped.items())))
    ops = report.operations()
    lines.append(
        f"\n{len(report.disagreements)} undeclared disagreements over {len(ops)} operations"
        + (f": {', '.join(f'{k} {v}' for k, v in sorted(ops.items()))}" if ops else "")
    )
    return "\n".join(lines)
