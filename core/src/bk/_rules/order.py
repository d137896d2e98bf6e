"""NumPy's order of complex values and of NaN, as composites of real operations, for a framework that
lacks them (declared in `Backend.complex_unordered` and `Backend.nan_unordered`; see `bk._rules.gaps`).

Complex values (NumPy's `CGT`/`CGE` and its sort order):

- comparisons: `x > y` when `x.real > y.real` and neither imaginary part is NaN, or the real parts are
  equal and `x.imag > y.imag`; NaN anywhere else makes a comparison false;
- `maximum`/`minimum`: `x` where `x` holds a NaN or `x >= y` (`x <= y`), else `y` (NaN propagates);
- `argmax`/`argmin`/`max`/`min`: the first element holding a NaN, else the first greatest (least) in the
  lexicographic order; `clip` is `minimum(maximum(x, low), high)` of these;
- `sort`/`argsort`/`searchsorted`: NumPy's sort order, `[R + Rj, R + nanj, nan + Rj, nan + nanj]`, each
  group by real part, then imaginary part (three stable sorts of real keys); `unique` of elements in that
  order, the NaN-holding ones collapsed into one.

NaN of real values (NumPy): a sort puts NaN last (`argsort` of NaN-holding values keeps their order);
`searchsorted` counts NaN above `+inf`; `argmax`/`argmin`/`max`/`min` give the first NaN.

Every function takes the backend and native tensors and calls the backend's catalogue operations (each
through its own plan), never a framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import numpy as np

from .._dtype import DType

if TYPE_CHECKING:
    from collections.abc import Callable

    from .._backend import Backend

__all__ = ["COMPLEX_FILLED", "NAN_FILLED", "NEEDS", "complex_composite", "missing_for", "nan_composite"]

Tensor = Any
_INT8: Final = DType(int, 8)

COMPLEX_FILLED: Final = frozenset(
    ("greater_than", "greater_or_equal", "maximum", "minimum", "clip", "max", "min", "argmax", "argmin", "sort", "argsort", "searchsorted", "unique")
)  # fmt: skip
"""The ordering operations whose complex order the core fills (`quantile` of complex values it cannot; `unique`
of complex elements, not of slices)."""
NAN_FILLED: Final = frozenset(("sort", "argsort", "searchsorted", "argmax", "argmin", "max", "min", "unique"))
"""The ordering operations whose NaN order the core fills."""


# ---------------------------------------------------------------- elementwise


def _or(b: Backend, x: Tensor, y: Tensor) -> Tensor:
    return b.where(x, True, y)


def _and(b: Backend, x: Tensor, y: Tensor) -> Tensor:
    return b.where(x, y, False)


def _not(b: Backend, x: Tensor) -> Tensor:
    return b.where(x, False, True)


def complex_nan(b: Backend, x: Tensor) -> Tensor:
    """Where a complex value holds a NaN (either part)."""
    return _or(b, b.isnan(b.real(x)), b.isnan(b.imag(x)))


def complex_greater(b: Backend, x: Tensor, y: Tensor, equal: bool = False) -> Tensor:
    """NumPy's `x > y` (`x >= y` with `equal`) of complex values."""
    xr, xi, yr, yi = b.real(x), b.imag(x), b.real(y), b.imag(y)
    imag_ok = _not(b, _or(b, b.isnan(xi), b.isnan(yi)))
    first = _and(b, b.greater_than(xr, yr), imag_ok)
    second = _and(b, b.equal(xr, yr), (b.greater_or_equal if equal else b.greater_than)(xi, yi))
    return _or(b, first, second)


def complex_extreme(b: Backend, x: Tensor, y: Tensor, largest: bool) -> Tensor:
    """NumPy's `maximum` (`largest`) or `minimum` of complex values: NaN propagates, `x` first."""
    keep = complex_greater(b, x, y, equal=True) if largest else complex_greater(b, y, x, equal=True)
    return b.where(_or(b, complex_nan(b, x), keep), x, y)


# ---------------------------------------------------------------- reductions


def _ordering(b: Backend, op: str) -> Any:
    """The backend's `op` for keys without NaN: its raw kernel where `op` itself is filled for NaN (the
    plan cannot see that the keys hold none), else the operation with its plan."""
    if op in type(b).nan_unordered:
        from .._kernels import raw_kernel

        return raw_kernel(b, op)
    return getattr(b, op)


def _first_true(b: Backend, mask: Tensor, axis: int, keepdims: bool) -> Tensor:
    """The index of the first true element along `axis` (0 where there is none)."""
    return b.argmax(b.cast(mask, _INT8), axis, keepdims)


def _arg_extreme(b: Backend, x: Tensor, axis: int, keepdims: bool, largest: bool, nan: Tensor, r: Tensor, i: Tensor | None) -> Tensor:
    """The first NaN along `axis` (`nan`), else the first greatest (least) value, `r` (then `i`) the keys."""
    reduce = _ordering(b, "max" if largest else "min")
    bound = -np.inf if largest else np.inf
    clean = _not(b, nan)
    best_r = reduce(b.where(nan, bound, r), axis, True)
    target = _and(b, b.equal(r, best_r), clean)
    if i is not None:
        best_i = reduce(b.where(target, i, bound), axis, True)
        target = _and(b, target, b.equal(i, best_i))
    pick = b.where(b.any(nan, axis, True), nan, target)
    return _first_true(b, pick, axis, keepdims)


def arg_extreme(b: Backend, x: Tensor, axis: int, keepdims: bool, largest: bool) -> Tensor:
    """NumPy's `argmax` (`largest`) or `argmin` of complex or real values: the first NaN, else the first extreme."""
    if b.dtype(x).kind is complex:
        r, i = b.real(x), b.imag(x)
        return _arg_extreme(b, x, axis, keepdims, largest, complex_nan(b, x), r, i)
    return _arg_extreme(b, x, axis, keepdims, largest, b.isnan(x), x, None)


def extreme(b: Backend, x: Tensor, axis: Any, keepdims: bool, largest: bool) -> Tensor:
    """NumPy's `max` (`largest`) or `min` over `axis` (None, an int or a tuple): the first NaN-holding element
    in C order, else the extreme; one axis at a time, the last first (the first NaN of the last axis, then
    the first row holding one, is the first in C order)."""
    shape = tuple(b.staticshape(x))
    rank = len(shape)
    axes = tuple(range(rank)) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(sorted({a % rank if rank else 0 for a in axes}, reverse=True))
    value = x
    for a in axes:
        index = arg_extreme(b, value, a, True, largest)
        size = tuple(b.staticshape(value))[a]
        iota = np.arange(size, dtype=np.int32).reshape([size if k == a else 1 for k in range(rank)])  # type: ignore[arg-type, misc]  # a size unknown under tracing (None) is passed on unchecked, as before
        one = b.equal(b.as_tensor(iota), index)
        zero = complex(-0.0, -0.0) if b.dtype(value).kind is complex else -0.0
        value = b.sum(b.where(one, value, zero), a, True)  # x + (-0.0) is x, the -0.0 in the dtype of x (weak)
    if not keepdims:
        value = b.reshape(value, tuple(n for k, n in enumerate(shape) if k not in axes))  # type: ignore[misc]  # a size unknown under tracing (None) is passed on unchecked, as before
    return b.cast(value, b.dtype(x)) if b.dtype(value) != b.dtype(x) else value


# ---------------------------------------------------------------- sorting


def _sort_keys(b: Backend, x: Tensor) -> list[Tensor]:
    """The real keys of NumPy's sort order of `x`, most significant first; every sort keeps NaN last."""
    if b.dtype(x).kind is complex:
        r, i = b.real(x), b.imag(x)
        rn, i_n = b.isnan(r), b.isnan(i)
        group = b.add(b.mul(b.cast(rn, _INT8), 2), b.cast(i_n, _INT8))  # R+Rj, R+nanj, nan+Rj, nan+nanj
        return [group, b.where(rn, 0.0, r), b.where(i_n, 0.0, i)]
    nan = b.isnan(x)
    return [b.cast(nan, _INT8), b.where(nan, 0.0, x)]


def sort_permutation(b: Backend, x: Tensor, axis: int) -> Tensor:
    """The indices that sort `x` along `axis` in NumPy's order (stable): stable sorts of its real keys,
    the least significant first."""
    keys = _sort_keys(b, x)
    argsort = _ordering(b, "argsort")
    permutation = argsort(keys[-1], axis)
    for key in reversed(keys[:-1]):
        step = argsort(b.take_along_axis(key, permutation, axis), axis)
        permutation = b.take_along_axis(permutation, step, axis)
    return permutation


def sort(b: Backend, x: Tensor, axis: int) -> Tensor:
    return b.take_along_axis(x, sort_permutation(b, x, axis), axis)


def _before(b: Backend, x: Tensor, y: Tensor) -> Tensor:
    """Where `x` comes before `y` in NumPy's sort order (NaN last; complex values by `_sort_keys`)."""
    result = None
    for kx, ky in reversed(list(zip(_sort_keys(b, x), _sort_keys(b, y), strict=True))):
        less = b.greater_than(ky, kx)
        result = less if result is None else _or(b, less, _and(b, b.equal(kx, ky), result))
    return result


def searchsorted(b: Backend, sequence: Tensor, values: Tensor, side: str, dtype: DType) -> Tensor:
    """NumPy's `searchsorted` of `values` into the last axis of `sequence`, by counting: `left` counts the
    elements before a value in the sort order, `right` those a value does not come before."""
    s_shape, v_shape = tuple(b.staticshape(sequence)), tuple(b.staticshape(values))
    s = b.reshape(sequence, (*s_shape[:-1], 1, s_shape[-1]))  # type: ignore[arg-type]  # a size unknown under tracing (None) is passed on unchecked, as before
    v = b.reshape(values, (*v_shape, 1))  # type: ignore[arg-type]
    below = _before(b, s, v) if side == "left" else _not(b, _before(b, v, s))
    return b.cast(b.sum(b.cast(below, DType(int, 64)), -1), dtype)


def unique(b: Backend, kernel: Any, x: Tensor, return_inverse: bool, return_counts: bool, axis: Any) -> tuple[Tensor, ...]:
    """NumPy's `unique` of complex or float values (flattened, or along the axis of a 1-D tensor): sorted in
    NumPy's order, NaN-holding values collapsed into one, last. The sorted values get group ids (a new id
    where a value differs from the one before it); the backend's `unique` of those ids gives the counts, its
    `searchsorted` the first element of each group, and the ids in the input's order are the inverse. Slices
    (`axis` of a tensor of more dimensions): the kernel's, for real values."""
    from .._errors import UnsupportedDtypeError

    shape = tuple(b.staticshape(x))
    is_complex = b.dtype(x).kind is complex
    if axis is not None and len(shape) != 1:
        if not is_complex:
            return kernel(b, x, return_inverse, return_counts, axis)  # type: ignore[no-any-return]
        raise UnsupportedDtypeError(f"unique: unsupported for dtype {b.dtype(x).name}: {b.name} cannot order complex values, and the core orders complex elements, not slices")
    size = int(np.prod(shape))  # type: ignore[arg-type]  # a size unknown under tracing (None) is passed on unchecked, as before
    flat = b.reshape(x, (size,))
    permutation = sort_permutation(b, flat, 0)
    ordered = b.take_along_axis(flat, permutation, 0)
    previous = b.take_along_axis(ordered, b.as_tensor(np.maximum(np.arange(size) - 1, 0)), 0)
    isnan: Callable[[Tensor], Tensor] = (lambda v: complex_nan(b, v)) if is_complex else b.isnan
    nan, previous_nan = isnan(ordered), isnan(previous)
    new = b.where(nan, _not(b, previous_nan), b.not_equal(ordered, previous))  # NaN-holding values: one group
    new = b.where(b.as_tensor(np.arange(size) == 0), True, new)
    ids = b.sub(b.cumsum(b.cast(new, DType(int, 64)), 0), 1)
    groups = b.unique(ids, False, return_counts, None)  # type: ignore[arg-type]  # None: flattened, as the spec allows (the catalogue annotates int)
    first = b.searchsorted(ids, groups[0], "left", DType(int, 64))
    parts = [b.take_along_axis(ordered, first, 0)]
    if return_inverse:
        parts.append(b.take_along_axis(ids, b.argsort(permutation, 0), 0))
    if return_counts:
        parts.append(groups[1])
    return tuple(parts)


# ---------------------------------------------------------------- uint64 through int64


IMAGE_ORDERED: Final = frozenset(("maximum", "minimum", "greater_than", "greater_or_equal"))
"""The ordering operations of uint64 that the core computes through int64 where the framework has no uint64
kernel: on the order-preserving signed image (the top bit flipped: `x ^ -2**63` of the bits as int64)."""
_UINT64, _INT64 = DType(int, 64, signed=False), DType(int, 64)


def _image(b: Backend, x: Tensor) -> Tensor:
    """The int64 whose order is the order of the uint64 `x`: its bits as int64 (a modular cast), top bit flipped."""
    return b.xor(b.cast(x, _INT64), -(2**63))


def signed_image(b: Backend, op: str, dtype: DType) -> Any:
    """`composite(backend, kernel, x, y)` computing the uint64 ordering operation `op` by the kernel's int64
    one on the operands' order-preserving images (`maximum`'s result mapped back), or None."""
    if dtype != _UINT64 or op not in IMAGE_ORDERED or not (b.supports("xor") and b.supports("cast")):
        return None
    if op.startswith("greater"):
        return lambda b, kernel, x, y: kernel(b, _image(b, x), _image(b, y))
    return lambda b, kernel, x, y: b.cast(b.xor(kernel(b, _image(b, x), _image(b, y)), -(2**63)), _UINT64)


# ---------------------------------------------------------------- the composites of a plan

_ELEMENTWISE: Final = ("real", "imag", "isnan", "where", "equal", "greater_than", "greater_or_equal")
_REDUCING: Final = (*_ELEMENTWISE, "argmax", "max", "min", "any", "cast")
_SORTING: Final = (*_ELEMENTWISE, "argsort", "take_along_axis", "add", "mul", "cast")
NEEDS: Final = {
    **dict.fromkeys(("greater_than", "greater_or_equal", "maximum", "minimum", "clip"), _ELEMENTWISE),
    **dict.fromkeys(("argmax", "argmin"), _REDUCING),
    **dict.fromkeys(("max", "min"), (*_REDUCING, "sum", "reshape")),
    **dict.fromkeys(("sort", "argsort"), _SORTING),
    "searchsorted": (*_ELEMENTWISE, "add", "mul", "cast", "reshape", "sum", "minimum"),
    "unique": (*_SORTING, "reshape", "not_equal", "sub", "cumsum", "unique", "searchsorted"),
}
"""The catalogue operations each composite uses: a backend that lacks one gets `bk.UnsupportedDtypeError`."""


def missing_for(b: Backend, op: str) -> list[str]:
    """The operations the composite of `op` needs that `b` does not support."""
    return [n for n in NEEDS.get(op, ()) if not b.supports(n)]



def complex_composite(op: str) -> Any:
    """`composite(backend, kernel, *args)` computing `op` of complex values in NumPy's order, or None."""
    if op in ("greater_than", "greater_or_equal"):
        return lambda b, kernel, x, y: complex_greater(b, x, y, equal=op == "greater_or_equal")
    if op in ("maximum", "minimum"):
        return lambda b, kernel, x, y: complex_extreme(b, x, y, op == "maximum")
    if op in ("argmax", "argmin"):
        return lambda b, kernel, x, axis, keepdims=False: arg_extreme(b, x, axis, keepdims, op == "argmax")
    if op in ("max", "min"):
        return lambda b, kernel, x, axis=None, keepdims=False: extreme(b, x, axis, keepdims, op == "max")
    if op == "sort":
        return lambda b, kernel, x, axis=-1: sort(b, x, axis)
    if op == "argsort":
        return lambda b, kernel, x, axis=-1: sort_permutation(b, x, axis)
    if op == "searchsorted":
        return lambda b, kernel, s, v, side, dtype=DType(int, 32): searchsorted(b, s, v, side, dtype)
    if op == "unique":
        return lambda b, kernel, x, return_inverse, return_counts, axis: unique(b, kernel, x, return_inverse, return_counts, axis)
    return None


def nan_searchsorted(b: Backend, kernel: Any, sequence: Tensor, values: Tensor, side: str, dtype: DType) -> Tensor:
    """NumPy's `searchsorted` of float values with NaN (NaN after `+inf`) through a framework's kernel that
    orders NaN otherwise: the kernel searches the sequence with its NaNs (last, as sorted) read as `+inf`;
    a NaN value goes where the sequence's NaNs begin (`left`) or to its end (`right`); no other value goes
    past the sequence's numbers."""
    int64 = DType(int, 64)
    shape = tuple(b.staticshape(sequence))
    sequence_nan, values_nan = b.isnan(sequence), b.isnan(values)
    numbers = b.sum(b.cast(_not(b, sequence_nan), int64), -1, len(shape) > 1)  # where the NaNs begin
    found = kernel(b, b.where(sequence_nan, np.inf, sequence), b.where(values_nan, np.inf, values), side, int64)
    found = b.minimum(b.cast(found, int64), numbers)
    return b.cast(b.where(values_nan, numbers if side == "left" else shape[-1], found), dtype)


def nan_composite(op: str) -> Any:
    """`composite(backend, kernel, *args)` computing `op` of float values in NumPy's NaN order, or None:
    `searchsorted` around the kernel, the others as the complex order's composites (`_sort_keys` and
    `arg_extreme` treat NaN as NumPy)."""
    if op == "searchsorted":
        return lambda b, kernel, s, v, side, dtype=DType(int, 32): nan_searchsorted(b, kernel, s, v, side, dtype)
    return complex_composite(op)
