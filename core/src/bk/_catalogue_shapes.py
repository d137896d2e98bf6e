"""Array API standard operations of the catalogue, continued: shape and data (`moveaxis`, `concat`,
`cumulative_sum`, `diff`, `matmul`'s shapes, ...) and the NumPy and PyTorch extras.

As `_catalogue_standard.py` (creation and elementwise operations, whose helpers these share): each public
function is an operation of the catalogue, a method of `Backend` (`bk._operations`); most are generic
defaults built only from other catalogue operations, so every backend gets them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from ._axes import int_argument as _int_arg
from ._axes import normalize_axes, normalize_axis
from ._axes import shape_argument as _shape_arg
from ._catalogue_dtypes import is_python_number
from ._catalogue_standard import _inexact_operand, _rank_at_least, _std_tensor
from ._dtype import DType
from ._errors import ArgumentTypeError, ShapeMismatchError, check_tensor_argument
from ._features import generic
from ._rules.indices import index_needs_cast
from ._rules.reductions import accumulation_type

__all__: list[str] = []  # the operations are collected by the registry (bk._operations)

Tensor = Any

_BOOL: Final = DType(bool)
_INT64: Final = DType(int, 64)


def _broadcast_two(a: tuple[Any, ...], b: tuple[Any, ...], op: str) -> tuple[Any, ...]:
    result = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x == 1 or x == y:
            result.append(y)
        elif y == 1:
            result.append(x)
        elif x is None or y is None:
            result.append(x if y is None else y)
        else:
            raise ShapeMismatchError(f"{op}: shapes {tuple(a)} and {tuple(b)} do not broadcast (sizes {x} and {y})")
    return tuple(reversed(result))


def _slice_axis(self: Any, x: Tensor, axis: int, ndim: int, start: int | None, stop: int | None) -> Tensor:
    return self.multi_slice(x, tuple(slice(start, stop) if i == axis else slice(None) for i in range(ndim)))


# ------------------------------------------------------------ shape and data


@generic("staticshape", "transpose")
def moveaxis(self: Any, x: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    """`x` with the axes `source` moved to the positions `destination`; the others keep their order.

    Raises:
        AxisError: for an axis out of range or named twice.
        ValueError: when `source` and `destination` have different lengths.
    """
    x = _std_tensor(self, x, "moveaxis")
    ndim = len(self.staticshape(x))
    src = _axis_list(self, source, ndim, "moveaxis")
    dst = _axis_list(self, destination, ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} must name as many axes")
    order = [n for n in range(ndim) if n not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return x if order == list(range(ndim)) else self.transpose(x, order)


def _axis_list(self: Any, axes: Any, ndim: int, op: str) -> list[int]:
    listed = list(axes) if isinstance(axes, Sequence) and not isinstance(axes, (str, bytes)) else [axes]
    result = [normalize_axis(a, ndim, op) for a in listed]
    if len(set(result)) != len(result):
        from ._errors import AxisError

        raise AxisError(f"{op}: {axes!r} names the same axis twice")
    return result


@generic("staticshape", "dtype", "cast", "reshape", "multi_slice", "concat")
def roll(self: Any, x: Tensor, shift: int | Sequence[int], axis: int | Sequence[int] | None = None) -> Tensor:
    """`x` shifted by `shift` places along `axis` (elements that leave one end come back at the other).

    Args:
        x: The tensor.
        shift: An int, or one int per axis; negative shifts roll toward the start.
        axis: An int or a tuple of ints (an int `shift` applies to each); `None` rolls the
            flattened tensor and restores the shape.

    Raises:
        AxisError: for an axis out of range.
        ValueError: when `shift` and `axis` are sequences of different lengths.
    """
    x = _std_tensor(self, x, "roll")
    shape = tuple(self.staticshape(x))
    shifts = list(shift) if isinstance(shift, Sequence) else [shift]
    shifts = [_int_arg(s, "roll", "shift") for s in shifts]
    if axis is None:
        return self.reshape(self.roll(self.reshape(x, (-1,)), sum(shifts), 0), shape)
    axes = [normalize_axis(a, len(shape), "roll") for a in (axis if isinstance(axis, Sequence) else [axis])]
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    elif len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift {shift!r} and axis {axis!r} must have the same length")
    dtype = self.dtype(x)
    total = dict.fromkeys(axes, 0)
    for a, s in zip(axes, shifts, strict=True):
        total[a] += s
    for a, s in total.items():
        size = shape[a]
        if size is None:
            raise ValueError(f"roll: the size of axis {a} must be known, got shape {shape}")
        cut = size - s % size if size else size
        if 0 < cut < size:
            x = self.concat([_slice_axis(self, x, a, len(shape), cut, None), _slice_axis(self, x, a, len(shape), 0, cut)], a)
    return self.cast(x, dtype)  # concat applies a set precision


@generic("staticshape", "transpose")
def matrix_transpose(self: Any, x: Tensor) -> Tensor:
    """The matrices in the last two axes of `x` transposed (no complex conjugate).

    Raises:
        ShapeMismatchError: for a tensor of rank below 2.
    """
    x = _std_tensor(self, x, "matrix_transpose")
    ndim = len(_rank_at_least(self, x, 2, "matrix_transpose", "matrices in the last two axes"))
    return self.transpose(x, [*range(ndim - 2), ndim - 1, ndim - 2])


@generic("staticshape", "reshape")
def squeeze(self: Any, x: Tensor, axis: int | Sequence[int] | None = None) -> Tensor:
    """`x` without the size-1 axes `axis` (every size-1 axis for `None`, as NumPy).

    Raises:
        AxisError: for an axis out of range or named twice.
        ShapeMismatchError: for an axis whose size is not 1.
    """
    x = _std_tensor(self, x, "squeeze")
    shape = tuple(self.staticshape(x))
    axes = normalize_axes(axis, len(shape), "squeeze")
    if axes is None:
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
    for a in axes:
        if shape[a] != 1:
            raise ShapeMismatchError(f"squeeze: axis {a} has size {shape[a]}, not 1, in shape {shape}")
    if not axes:
        return x
    kept = [-1 if n is None else n for i, n in enumerate(shape) if i not in axes]
    return self.reshape(x, tuple(kept))


@generic()
def broadcast_shapes(self: Any, *shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape that tensors of `shapes` broadcast to (a pure shape function; no tensor is made).

    Raises:
        ShapeMismatchError: for shapes that do not broadcast.
    """
    result: tuple[Any, ...] = ()
    for shape in shapes:
        result = _broadcast_two(result, _shape_arg(shape, "broadcast_shapes"), "broadcast_shapes")
    return result


@generic("staticshape", "reshape", "tile")
def broadcast_to(self: Any, x: Tensor, shape: Sequence[int]) -> Tensor:
    """`x` repeated along its size-1 (and new leading) axes to `shape`.

    Raises:
        ShapeMismatchError: when `x` does not broadcast to `shape`.
    """
    x = _std_tensor(self, x, "broadcast_to")
    target = _shape_arg(shape, "broadcast_to")
    current = tuple(self.staticshape(x))
    if len(current) > len(target) or _broadcast_two(current, target, "broadcast_to") != target:
        raise ShapeMismatchError(f"broadcast_to: a tensor of shape {current} does not broadcast to {target}")
    padded = (1,) * (len(target) - len(current)) + current
    if padded != current:
        x = self.reshape(x, padded)
    multiples = [t if n == 1 else 1 for n, t in zip(padded, target, strict=True)]
    return x if all(m == 1 for m in multiples) else self.tile(x, multiples)


@generic("staticshape", "broadcast_shapes", "broadcast_to")
def broadcast_arrays(self: Any, *arrays: Tensor) -> tuple[Tensor, ...]:
    """The tensors broadcast to their common shape, each keeping its dtype.

    Raises:
        ShapeMismatchError: for shapes that do not broadcast.
    """
    tensors = [_std_tensor(self, a, "broadcast_arrays") for a in arrays]
    shape = self.broadcast_shapes(*[tuple(self.staticshape(t)) for t in tensors])
    return tuple(self.broadcast_to(t, shape) for t in tensors)


@generic("cast", "sum")
def count_nonzero(self: Any, x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
    """The number (int64) of elements of `x` along `axis` that are not zero (NaN counts).

    Raises:
        AxisError: for an axis out of range or named twice.
    """
    x = _std_tensor(self, x, "count_nonzero")
    normalize_axes(axis, len(self.staticshape(x)), "count_nonzero")
    return self.sum(self.cast(x, _BOOL), axis, keepdims=keepdims)


def _cumulative_axis(backend: Any, x: Tensor, axis: Any, op: str) -> int:
    ndim = len(backend.staticshape(x))
    if axis is None:
        if ndim != 1:
            from ._errors import AxisError

            raise AxisError(f"{op}: axis=None needs a 1-D tensor; give the axis for a tensor of rank {ndim}")
        return 0
    return normalize_axis(axis, ndim, op)


@generic("cumsum", "sum", "zeros_like", "concat")
def cumulative_sum(self: Any, x: Tensor, axis: int | None = None, include_initial: bool = False) -> Tensor:
    """Cumulative sums along `axis` (may be `None` for a 1-D tensor), as `cumsum`; with
    `include_initial` the result starts with a 0 (one element longer along `axis`).

    Bools and narrow ints widen to 64 bits, as `sum`.

    Raises:
        AxisError: for an axis out of range, or `None` for a tensor that is not 1-D.
    """
    x = _std_tensor(self, x, "cumulative_sum")
    axis = _cumulative_axis(self, x, axis, "cumulative_sum")
    result = self.cumsum(x, axis)
    if include_initial:
        result = self.concat([self.zeros_like(self.sum(result, axis, keepdims=True)), result], axis)
    return result


@generic("staticshape", "dtype", "cast", "to_float", "to_complex", "multi_slice", "concat", "ones_like", "mul", "sum")
def cumulative_prod(self: Any, x: Tensor, axis: int | None = None, include_initial: bool = False) -> Tensor:
    """Cumulative products along `axis` (may be `None` for a 1-D tensor); with `include_initial`
    the result starts with a 1.

    Bools and narrow ints widen to 64 bits (unsigned to uint64), as `prod`; integers wrap.

    Raises:
        AxisError: for an axis out of range, or `None` for a tensor that is not 1-D.
    """
    x = _std_tensor(self, x, "cumulative_prod")
    axis = _cumulative_axis(self, x, axis, "cumulative_prod")
    shape = tuple(self.staticshape(x))
    dtype = self.dtype(x)
    x = (
        self.to_float(x)
        if dtype.kind is float
        else self.to_complex(x)
        if dtype.kind is complex
        else self.cast(x, accumulation_type(dtype))
    )
    size = shape[axis]
    if size is None:
        raise ValueError(f"cumulative_prod: the size of axis {axis} must be known, got shape {shape}")
    step = 1
    while step < size:  # Hillis-Steele scan: log2(size) products of shifted copies
        lead = self.ones_like(_slice_axis(self, x, axis, len(shape), 0, step))
        x = self.mul(x, self.concat([lead, _slice_axis(self, x, axis, len(shape), 0, size - step)], axis))
        step *= 2
    if include_initial:
        x = self.concat([self.ones_like(self.sum(x, axis, keepdims=True)), x], axis)
    return x


@generic("staticshape", "dtype", "multi_slice", "sub", "not_equal", "concat", "broadcast_to", "auto_cast")
def diff(self: Any, x: Tensor, axis: int = -1, n: int = 1, prepend: Tensor | None = None, append: Tensor | None = None) -> Tensor:
    """The `n`-th discrete difference `x[i + 1] - x[i]` along `axis`, as `numpy.diff`.

    Args:
        x: The tensor (rank 1 or more).
        axis: The axis.
        n: How many times to take differences; 0 returns `x`.
        prepend: Values put before `x` along `axis` first: a tensor of the shape of `x` except
            along `axis`, or a number or 0-d tensor (broadcast to one slice). Python numbers are weak.
        append: The same, after `x`.

    Returns:
        The differences in the (common) type of `x`; bools give `x[i + 1] != x[i]`, as NumPy.
        The size along `axis` shrinks by `n` (to 0 at least).

    Raises:
        AxisError: for an axis out of range (a 0-d tensor has none).
        ValueError: for a negative `n`.
    """
    x = _std_tensor(self, x, "diff")
    shape = tuple(self.staticshape(x))
    axis = normalize_axis(axis, len(shape), "diff")
    n = _int_arg(n, "diff", "n")
    if n < 0:
        raise ValueError(f"diff: n must be 0 or more, got {n}")
    parts = [_diff_edge(self, p, x, shape, axis) for p in (prepend, append)]
    if parts[0] is not None or parts[1] is not None:
        values = [p for p in (parts[0], x, parts[1]) if p is not None]
        values = self.auto_cast(*values)
        x = self.concat(values, axis)
    for _ in range(n):
        size = self.staticshape(x)[axis]
        later = _slice_axis(
            self, x, axis, len(shape), 1 if size != 0 else 0, None
        )  # strict namespaces refuse a start past the end
        earlier = _slice_axis(self, x, axis, len(shape), None, max(size - 1, 0) if size is not None else -1)
        x = self.not_equal(later, earlier) if self.dtype(x).kind is bool else self.sub(later, earlier)
    return x


def _diff_edge(self: Any, edge: Any, x: Tensor, shape: tuple[Any, ...], axis: int) -> Any:
    if edge is None or is_python_number(edge):
        if is_python_number(edge):  # weak, as in every binary operation: broadcast a 0-d tensor of the type of x
            return self.broadcast_to(self.auto_cast(x, edge)[1], tuple(1 if i == axis else n for i, n in enumerate(shape)))
        return None
    edge = _std_tensor(self, edge, "diff", "prepend or append")
    if not self.staticshape(edge):
        return self.broadcast_to(edge, tuple(1 if i == axis else n for i, n in enumerate(shape)))
    return edge


@generic("as_tensor", "reshape", "expand_dims", "equal", "any", "invert")
def isin(self: Any, x: Tensor, test_elements: Tensor, invert: bool = False) -> Tensor:
    """Whether each element of `x` equals an element of `test_elements` (any shape), as bools of the
    shape of `x`; NaN is in nothing. With `invert`, whether it equals none.
    """
    x = _std_tensor(self, x, "isin")
    pool = self.reshape(_std_tensor(self, test_elements, "isin", "test_elements"), (-1,))
    found = self.any(self.equal(self.expand_dims(x, -1), pool), -1)
    return self.invert(found) if invert else found


@generic("auto_cast", "staticshape", "dtype", native=("__matmul__",))
def matmul(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
    """The matrix product, as `numpy.matmul` (the `@` operator): matrices in the last two axes,
    batch axes broadcast; a 1-D first (second) argument is a row (column) vector whose axis is
    dropped from the result.

    Raises:
        ShapeMismatchError: for a 0-d argument, inner sizes that differ, or batch shapes that do
            not broadcast.
        ArgumentTypeError: for bools (the standard's matmul takes numbers).
    """
    x1, x2 = self.auto_cast(_std_tensor(self, x1, "matmul", "x1"), _std_tensor(self, x2, "matmul", "x2"))
    if self.dtype(x1).kind is bool:
        raise ArgumentTypeError("matmul: takes numbers, not bools; cast them to an integer type first")
    _matmul_shape(self, tuple(self.staticshape(x1)), tuple(self.staticshape(x2)))
    try:
        return x1 @ x2
    except Exception as error:  # the native type lacks the operator, or refuses the dtype
        self._operator_failed("matmul", error, x1)
        raise


def _matmul_shape(self: Any, s1: tuple[Any, ...], s2: tuple[Any, ...]) -> tuple[Any, ...]:
    """The shape of `matmul` of tensors of shapes `s1` and `s2`; raises ShapeMismatchError."""
    if not s1 or not s2:
        raise ShapeMismatchError(f"matmul: needs tensors of rank 1 or more, got shapes {s1} and {s2}; use mul() for scalars")
    inner1, inner2 = s1[-1], s2[-2] if len(s2) > 1 else s2[0]
    if inner1 is not None and inner2 is not None and inner1 != inner2:
        raise ShapeMismatchError(f"matmul: the inner sizes of shapes {s1} and {s2} differ ({inner1} and {inner2})")
    batch = _broadcast_two(s1[:-2], s2[:-2], "matmul")
    return (*batch, *s1[-2:-1], *(s2[-1:] if len(s2) > 1 else ()))


@generic("staticshape", "dtype", "moveaxis", "broadcast_to", "reshape", "batched_gather_1d")
def take_along_axis(self: Any, x: Tensor, indices: Tensor, axis: int = -1) -> Tensor:
    """The elements of `x` at `indices` along `axis`, as `numpy.take_along_axis`.

    Args:
        x: The tensor.
        indices: Integer indices of the rank of `x`; their other axes broadcast with those of `x`.
            Negative indices count from the end.
        axis: The axis to pick along.

    Raises:
        AxisError: for an axis out of range (a 0-d tensor has none).
        ShapeMismatchError: when the ranks differ or the other axes do not broadcast.
        ArgumentTypeError: for indices that are not integers.
        IndexOutOfRangeError: for an index outside `[-n, n)`.
    """
    x, indices = _std_tensor(self, x, "take_along_axis"), _std_tensor(self, indices, "take_along_axis", "indices")
    shape, index_shape = tuple(self.staticshape(x)), tuple(self.staticshape(indices))
    axis = normalize_axis(axis, len(shape), "take_along_axis")
    if index_needs_cast(self.dtype(indices), math.prod(index_shape) if None not in index_shape else None, "take_along_axis"):
        indices = self.cast(indices, DType(int, 64))
    if len(index_shape) != len(shape):
        raise ShapeMismatchError(f"take_along_axis: indices of shape {index_shape} must have the rank of x, shape {shape}")
    x, indices = self.moveaxis(x, axis, -1), self.moveaxis(indices, axis, -1)
    batch = _broadcast_two(tuple(self.staticshape(x))[:-1], tuple(self.staticshape(indices))[:-1], "take_along_axis")
    size, count = shape[axis], index_shape[axis]
    x = self.broadcast_to(x, (*batch, size))
    indices = self.broadcast_to(indices, (*batch, count))
    flat = self.batched_gather_1d(self.reshape(x, (math.prod(batch), size)), self.reshape(indices, (math.prod(batch), count)))
    return self.moveaxis(self.reshape(flat, (*batch, count)), -1, axis)


@generic("std", "mul")
def var(self: Any, x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
    """Population variance over `axis` (the square of `std`), as floats; complex values give real variances."""
    deviation = self.std(x, axis, keepdims=keepdims)
    return self.mul(deviation, deviation)


# ------------------------------------------------------------ NumPy and PyTorch extras


@generic("staticshape", "reshape", "mul")
def kron(self: Any, a: Tensor, b: Tensor) -> Tensor:
    """The Kronecker product, as `numpy.kron`: the lower rank is padded with leading size-1 axes,
    and axis i of the result has size `a.shape[i] * b.shape[i]`."""
    a, b = _std_tensor(self, a, "kron", "a"), _std_tensor(self, b, "kron", "b")
    sa, sb = tuple(self.staticshape(a)), tuple(self.staticshape(b))
    rank = max(len(sa), len(sb))
    sa, sb = (1,) * (rank - len(sa)) + sa, (1,) * (rank - len(sb)) + sb
    if any(n is None for n in sa + sb):
        raise ValueError(f"kron: the shapes must be known, got {sa} and {sb}")
    wide_a = self.reshape(a, tuple(n for size in sa for n in (size, 1)))
    wide_b = self.reshape(b, tuple(n for size in sb for n in (1, size)))
    return self.reshape(self.mul(wide_a, wide_b), tuple(x * y for x, y in zip(sa, sb, strict=True)))


@generic(
    "auto_cast",
    "dtype",
    "staticshape",
    "sub",
    "abs",
    "mul",
    "add",
    "greater_or_equal",
    "equal",
    "isfinite",
    "isnan",
    "and_",
    "or_",
)
def isclose(self: Any, a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Where `|a - b| <= atol + rtol * |b|`, as `numpy.isclose`: bools of the broadcast shape.

    Infinities are close only to themselves; NaN is close to nothing, or to NaN with `equal_nan`.

    Raises:
        ShapeMismatchError: for shapes that do not broadcast.
    """
    check_tensor_argument(a, "isclose", "a")
    check_tensor_argument(b, "isclose", "b")
    a, b = self.auto_cast(a, b, bool_to_int=True, int_to_float=True)
    _broadcast_two(tuple(self.staticshape(a)), tuple(self.staticshape(b)), "isclose")  # ShapeMismatchError naming isclose
    finite = self.and_(self.isfinite(a), self.isfinite(b))
    near = self.greater_or_equal(self.add(self.mul(self.abs(b), rtol), atol), self.abs(self.sub(a, b)))
    close = self.or_(self.equal(a, b), self.and_(finite, near))
    return self.or_(close, self.and_(self.isnan(a), self.isnan(b))) if equal_nan else close


@generic("isclose", "all")
def allclose(self: Any, a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Whether all of `isclose(a, b, ...)` holds, as a 0-d bool tensor (lazy and traced backends
    cannot give a Python bool without computing; `bool(...)` of the result does)."""
    return self.all(self.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


@generic(
    "as_tensor", "dtype", "to_float", "staticshape", "max", "isfinite", "where", "sub", "exp", "sum", "log", "add", "reshape"
)
def logsumexp(self: Any, x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
    """`log(sum(exp(x), axis))` without overflow, as `scipy.special.logsumexp`; `-inf` for no elements.

    Raises:
        ArgumentTypeError: for complex values.
        AxisError: for an axis out of range or named twice.
    """
    x = _inexact_operand(self, x, "logsumexp", complex_ok=False)
    shape = tuple(self.staticshape(x))
    axes = normalize_axes(axis, len(shape), "logsumexp")
    reduced = tuple(range(len(shape))) if axes is None else axes
    if any(shape[a] == 0 for a in reduced):  # no elements: no maximum to shift by, and exp of nothing sums to 0
        return self.log(self.sum(self.exp(x), axis, keepdims=keepdims))
    top = self.max(x, axes, keepdims=True)
    shift = self.where(self.isfinite(top), top, 0)
    total = self.log(self.sum(self.exp(self.sub(x, shift)), axes, keepdims=keepdims))
    if not keepdims:
        shift = self.reshape(shift, tuple(-1 if n is None else n for i, n in enumerate(shape) if i not in reduced))
    return self.add(total, shift)
