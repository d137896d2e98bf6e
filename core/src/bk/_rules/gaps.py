"""What a backend's framework lacks, declared once on its class and read by the core (docs/write-a-plugin.md,
"What your framework lacks").

The declaration is a handful of class attributes of `bk.Backend`, each a table:

- `unsupported_dtypes`: dtypes the framework has not at all (no tensor of them). The core never casts to
  one, builds no constant of one, and refuses a call whose result would be one with
  `bk.UnsupportedDtypeError` ("unsupported for dtype complex128"); the testkit skips such cases.
- `lacking_kernels`: per operation (`"*"`: every operation), the dtypes, or whole kinds (`bool`, `int`,
  `float`, `complex`), that the framework has no kernel for. The core computes such a call in the next
  dtype of the fill ladder (`fill_dtype`) and casts the result back; with no rung left the call raises
  `bk.UnsupportedDtypeError` with the reason.
- `complex_unordered`: the ordering operations (`bk.rules.ORDERING`) the framework cannot apply to complex
  values. The core computes them in NumPy's order from real and imaginary parts (`bk._rules.order`).
- `nan_unordered`: the ordering operations (`sort`, `argsort`, `searchsorted`, `unique`, `argmax`,
  `argmin`, `max`, `min`) whose framework puts NaN elsewhere than NumPy (NaN last in a sort, the first
  NaN wins a reduction). The core computes them from `isnan`/`where` composites.
- `precision_deficits`: per operation (`"*"`: every operation), `{dtype: accuracy}`: results of `dtype`
  computed only at the accuracy of another dtype ("float64 `sin` at float32 accuracy"). The core computes
  as before (the result keeps its dtype); the testkit compares at the declared accuracy and the
  certificate shows it.

`declared_gaps` lists every entry with its reason, for the certificate, `testkit certify`'s summary and
the docs' matrix.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

from .._dtype import DType

__all__ = ["KINDS", "Gap", "declared_accuracy", "declared_gaps", "fill_dtype", "kernel_gaps", "lacks_kernel", "precision_deficit"]

KINDS: Final = (bool, int, float, complex)
"""The kinds `lacking_kernels` may name instead of single dtypes."""

_F16, _BF16, _F32, _F64 = DType(float, 16), DType(float, 16, brain=True), DType(float, 32), DType(float, 64)
_C64, _C128 = DType(complex, 64), DType(complex, 128)
_SIGNED: Final = tuple(DType(int, b) for b in (8, 16, 32, 64))
_UNSIGNED: Final = tuple(DType(int, b, signed=False) for b in (8, 16, 32, 64))
MODULAR: Final = frozenset(
    ("add", "sub", "mul", "negative", "and_", "or_", "xor", "invert", "shift_bits_left", "cumsum", "cumulative_sum", "sum", "prod", "equal", "not_equal")
)  # fmt: skip
"""Operations whose integer results are the same modulo 2**bits in any wider or signed int (and equalities,
which a modular cast keeps): a uint64 call of one of them computes in int64 (two's complement) and casts
back. uint64 orders go through int64's order-preserving image instead (`bk._rules.order.signed_image`)."""


@dataclass(frozen=True)
class Gap:
    """One declared gap of a backend: `kind` is `'dtype'`, `'kernel'`, `'complex order'`, `'NaN order'` or
    `'precision'`; `operation` is `'*'` for every operation; `dtype` the dtype (or kind) it concerns;
    `filled` how the core fills it (or why it cannot)."""

    kind: str
    operation: str
    dtype: str
    filled: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.operation} {self.dtype} ({self.filled})"


def kernel_gaps(cls: type, op: str) -> frozenset[Any]:
    """The dtypes and kinds `cls` declares it has no kernel of `op` for (its `lacking_kernels`)."""
    lacking: Mapping[str, Any] = getattr(cls, "lacking_kernels", {}) or {}
    if not lacking:
        return frozenset()
    return frozenset(lacking.get(op, ())) | frozenset(lacking.get("*", ()))


def lacks_kernel(missing: frozenset[Any], dtype: DType) -> bool:
    """Whether `dtype` is in `missing`, itself or through its kind."""
    return dtype in missing or dtype.kind in missing


def _ladder(dtype: DType, op: str) -> tuple[DType, ...]:
    """The dtypes a call of `dtype` may be computed in, nearest first: one size up in the same kind, then
    another kind (bool through int8, ints in floats, half floats through float32); unsigned ints through
    the next wider signed int (exact), uint64 through int64 for the operations whose results are modular
    (`MODULAR`: two's complement gives the same bits)."""
    if dtype.kind is bool:
        return (*_SIGNED, _F32, _F64)
    if dtype.kind is int and dtype.signed:
        return (*_SIGNED[_SIGNED.index(dtype) + 1 :], _F64, _F32) if dtype in _SIGNED else ()
    if dtype.kind is int:
        index = _UNSIGNED.index(dtype) if dtype in _UNSIGNED else len(_UNSIGNED)
        wider = (*_SIGNED[index + 1 :], *_UNSIGNED[index + 1 :])
        modular = (_SIGNED[-1],) if op in MODULAR and dtype.bits == 64 else ()
        return (*wider, *modular, _F64, _F32) if cast(int, dtype.bits) < 64 else modular  # an int DType always has bits
    if dtype.kind is float:
        if dtype.bits == 16:
            return (_F32, _F64)
        return (_F64,) if dtype == _F32 else ()
    if dtype.kind is complex:
        return (_C128,) if dtype == _C64 else ()
    return ()


def fill_dtype(cls: type, op: str, dtype: DType) -> DType | None:
    """The dtype a call of `op` whose operands are `dtype` computes in on `cls`, which lacks its kernel:
    the first rung of the ladder that `cls` has a kernel of and does not lack altogether; None when none is
    left (the call is unsupported for that dtype)."""
    missing = kernel_gaps(cls, op)
    absent = frozenset(getattr(cls, "unsupported_dtypes", ()) or ())
    if not getattr(cls, "float64_supported", True):
        absent = absent | {_F64, _C128}
    for candidate in _ladder(dtype, op):
        if candidate not in absent and not lacks_kernel(missing, candidate):
            return candidate
    return None


def precision_deficit(cls: type, op: str, dtype: DType) -> DType | None:
    """The dtype whose accuracy `cls` declares for results of `op` in `dtype` (its `precision_deficits`), or None."""
    deficits: Mapping[str, Mapping[Any, Any]] = getattr(cls, "precision_deficits", {}) or {}
    for key in (op, "*"):
        accuracy = deficits.get(key, {}).get(dtype)
        if accuracy is not None:
            return accuracy  # type: ignore[no-any-return]
    return None


def declared_accuracy(cls: type, op: str) -> dict[DType, DType]:
    """`{result dtype: accuracy}` that `cls` declares for `op` (`precision_deficits`), including the deficits of
    the operations a generic default of `op` is computed with (`logsumexp` of a float32-accurate `exp`)."""
    deficits: Mapping[str, Mapping[Any, Any]] = getattr(cls, "precision_deficits", {}) or {}
    if not deficits:
        return {}
    found: dict[DType, DType] = {}
    _collect_accuracy(cls, op, deficits, found, set())
    return found


def _collect_accuracy(cls: type, op: str, deficits: Mapping[str, Mapping[Any, Any]], found: dict[DType, DType], seen: set[str]) -> None:
    if op in seen:
        return
    seen.add(op)
    for key in (op, "*"):
        for dtype, accuracy in deficits.get(key, {}).items():
            current = found.get(dtype)
            if current is None or (accuracy.bits or 0) < (current.bits or 0):
                found[dtype] = accuracy
    from .._features import uses_of
    from .._kernels import core_backend

    base = getattr(core_backend(), op, None)
    if base is None or getattr(cls, op, None) is not base:
        return  # the backend's own kernel: its own declaration only
    for used in uses_of(base) or ():
        _collect_accuracy(cls, used, deficits, found, seen)


def _name(dtype: Any) -> str:
    return dtype.__name__ if isinstance(dtype, type) else str(getattr(dtype, "name", dtype))


def declared_gaps(cls: type) -> tuple[Gap, ...]:
    """Every gap `cls` declares, with how the core fills it: the certificate's and the matrix's list."""
    gaps: list[Gap] = []
    for dtype in sorted(getattr(cls, "unsupported_dtypes", ()) or (), key=_name):
        gaps.append(Gap("dtype", "*", _name(dtype), "not filled: no tensor of it; cases that need it are skipped"))
    if not getattr(cls, "float64_supported", True):
        gaps.append(Gap("dtype", "*", "float64, complex128", "not filled: float64_supported is False"))
    lacking: Mapping[str, Any] = getattr(cls, "lacking_kernels", {}) or {}
    for op in sorted(lacking):
        for dtype in sorted(lacking[op], key=_name):
            kinds = [dtype] if isinstance(dtype, DType) else _of_kind(dtype)
            from .order import IMAGE_ORDERED

            fills = {d.name: fill_dtype(cls, op, d) for d in kinds}
            image = {"uint64"} if op in IMAGE_ORDERED else set()
            text = ", ".join(
                f"{d} in {f.name}" if f is not None else f"{d} through int64's order-preserving image" if d in image else f"{d}: unsupported" for d, f in fills.items()
            )
            gaps.append(Gap("kernel", op, _name(dtype), f"computed {text}" if text else "no dtype"))
    from .order import COMPLEX_FILLED

    unordered = frozenset(getattr(cls, "complex_unordered", ()) or ())
    if unordered & COMPLEX_FILLED:
        gaps.append(Gap("complex order", ", ".join(sorted(unordered & COMPLEX_FILLED)), "complex", "filled: NumPy's order from real and imaginary parts"))
    unfilled = unordered - COMPLEX_FILLED - {"quantile"}  # complex quantiles: refused by the rule on every backend
    if unfilled:
        gaps.append(Gap("complex order", ", ".join(sorted(unfilled)), "complex", "not filled: unsupported for complex dtypes"))
    nan_unordered = frozenset(getattr(cls, "nan_unordered", ()) or ())
    if nan_unordered:
        gaps.append(Gap("NaN order", ", ".join(sorted(nan_unordered)), "float, complex", "filled: NumPy's NaN order from isnan/where"))
    deficits: Mapping[str, Mapping[Any, Any]] = getattr(cls, "precision_deficits", {}) or {}
    for op in sorted(deficits):
        for dtype, accuracy in deficits[op].items():
            gaps.append(Gap("precision", op, _name(dtype), f"at {_name(accuracy)} accuracy; compared at it"))
    return tuple(gaps)


def _of_kind(kind: type) -> tuple[DType, ...]:
    if kind is bool:
        return (DType(bool),)
    if kind is int:
        return (*_SIGNED, *_UNSIGNED)
    if kind is float:
        return (_F16, _BF16, _F32, _F64)
    if kind is complex:
        return (_C64, _C128)
    return ()
