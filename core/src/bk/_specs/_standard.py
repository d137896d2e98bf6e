"""Specs of the Array API standard's operations of `bk._catalogue_standard`: creation, elementwise,
shape and data, and NumPy's everyday extras (`kron`, `isclose`, `allclose`, `logsumexp`).

The dtype queries (`result_type`, `can_cast`, `finfo`, `iinfo`, `isdtype`) and `broadcast_shapes`
compute no tensor; they are listed in `NO_SPEC`.
"""

from __future__ import annotations

import numbers
from typing import Any, Final

from .._axes import normalize_axes, normalize_axis
from .._dtype import DType
from .._errors import ArgumentTypeError, AxisError, ShapeMismatchError
from .._rules.indices import index_needs_cast
from ._base import (
    BOOL,
    INT64,
    ShapeDtype,
    Weak,
    as_dtype_arg,
    as_operand,
    as_shape,
    as_tensor_dtype,
    at_precision,
    broadcast_shapes,
    check_int_range,
    int_argument,
    promote,
    real_of,
    reduce_shape,
    specifies,
    strong,
)
from ._blocks import BOOL_RESULT, FLOAT_RESULT, SAME, WIDEN, binary, reduction, unary

Tensor = Any
Axis = Any
Axes = Any
Shape = Any
DTypeLike = Any

_KEEP: Final = "The dtype is the input's."
_REAL: Final = frozenset({bool, int, float})
_FLOAT: Final = frozenset({float})
_NO_BOOL: Final = frozenset({int, float, complex})


# ---------------------------------------------------------------- creation


@specifies("eye", "A (n_rows, n_cols) matrix (n_cols defaults to n_rows) with ones on diagonal k and zeros elsewhere, of dtype (the float type of the precision by default). Sizes and k must be ints (ArgumentTypeError); a negative size raises ValueError.")
def _eye(n_rows: int, n_cols: int | None = None, k: int = 0, dtype: DTypeLike = None) -> ShapeDtype:
    rows = int_argument(n_rows, "eye", "n_rows")
    cols = rows if n_cols is None else int_argument(n_cols, "eye", "n_cols")
    int_argument(k, "eye", "k")
    if rows < 0 or cols < 0:
        raise ValueError(f"eye: sizes must be 0 or more, got n_rows={rows}, n_cols={cols}")
    return ShapeDtype((rows, cols), as_dtype_arg(dtype, "eye"))


def _fill_dtype(fill_value: Any, dtype: Any, op: str) -> DType:
    if not isinstance(fill_value, numbers.Number):
        raise ArgumentTypeError(f"{op}: fill_value must be a bool, int, float or complex number, got {type(fill_value).__name__} {fill_value!r}")
    if dtype is None:
        operand = as_operand(fill_value, op, "fill_value")
        return as_tensor_dtype(operand) if isinstance(operand, Weak) else at_precision(operand.dtype)
    result = as_dtype_arg(dtype, op)
    if isinstance(fill_value, int) and not isinstance(fill_value, bool) and result.kind is int:
        check_int_range(op, result, [Weak(fill_value)])
    return result


@specifies("full", "A tensor of shape filled with fill_value (a number; ArgumentTypeError otherwise), of dtype; by default the dtype as_tensor(fill_value) has (bool, int64, the float or complex type of the precision). A Python int outside the range of an integer dtype raises OverflowError; a negative size ValueError.")
def _full(shape: Shape, fill_value: Any, dtype: DTypeLike = None) -> ShapeDtype:
    sizes = as_shape(shape, "full")
    return ShapeDtype(sizes, _fill_dtype(fill_value, dtype, "full"))


@specifies("full_like", "A tensor of the shape of x filled with fill_value, of dtype (by default that of x). A Python int outside the range of an integer dtype raises OverflowError.")
def _full_like(x: Tensor, fill_value: Any, dtype: DTypeLike = None) -> ShapeDtype:
    operand = strong(x, "full_like", "x")
    return ShapeDtype(operand.shape, _fill_dtype(fill_value, dtype if dtype is not None else operand.dtype, "full_like"))


@specifies("empty", "A tensor of shape with unspecified values, of dtype (the float type of the precision by default); a negative size raises ValueError.")
def _empty(shape: Shape, dtype: DTypeLike = None) -> ShapeDtype:
    return ShapeDtype(as_shape(shape, "empty"), as_dtype_arg(dtype, "empty"))


@specifies("empty_like", "A tensor of the shape of x with unspecified values, of dtype (by default that of x).")
def _empty_like(x: Tensor, dtype: DTypeLike = None) -> ShapeDtype:
    operand = strong(x, "empty_like", "x")
    return ShapeDtype(operand.shape, operand.dtype if dtype is None else as_dtype_arg(dtype, "empty_like"))


def _matrices(x: Tensor, op: str) -> ShapeDtype:
    operand = strong(x, op, "x")
    if operand.ndim < 2:
        raise ShapeMismatchError(f"{op}: needs a tensor of rank 2 or more (matrices in the last two axes), got shape {operand.shape}")
    return operand


@specifies("tril", f"x with the elements above diagonal k of the matrices in its last two axes set to zero; same shape. Rank below 2 raises ShapeMismatchError. {_KEEP}")
def _tril(x: Tensor, k: int = 0) -> ShapeDtype:
    int_argument(k, "tril", "k")
    return _matrices(x, "tril")


@specifies("triu", f"x with the elements below diagonal k of the matrices in its last two axes set to zero; same shape. Rank below 2 raises ShapeMismatchError. {_KEEP}")
def _triu(x: Tensor, k: int = 0) -> ShapeDtype:
    int_argument(k, "triu", "k")
    return _matrices(x, "triu")


@specifies("diag", f"Square matrices (..., n + |k|, n + |k|) with the vectors (..., n) of x on diagonal k. A 0-d x raises ShapeMismatchError. {_KEEP}")
def _diag(x: Tensor, k: int = 0) -> ShapeDtype:
    operand = strong(x, "diag", "x")
    offset = abs(int_argument(k, "diag", "k"))
    if operand.ndim < 1:
        raise ShapeMismatchError("diag: needs a tensor of rank 1 or more (vectors in the last axis), got shape ()")
    size = None if operand.shape[-1] is None else operand.shape[-1] + offset
    return ShapeDtype((*operand.shape[:-1], size, size), operand.dtype)


# ---------------------------------------------------------------- elementwise

unary("log1p", FLOAT_RESULT, "log(1 + x), accurate near 0, elementwise; bool and int give the default float.")
unary("expm1", FLOAT_RESULT, "exp(x) - 1, accurate near 0, elementwise; bool and int give the default float.")
unary("reciprocal", FLOAT_RESULT, "1 / x elementwise; bool and int give the default float.")
binary("hypot", "sqrt(x1**2 + x2**2) without overflow in the squares, elementwise with broadcasting, in the common float type (bool and int give the default float; Python numbers weak). Complex values raise ArgumentTypeError.", kinds=_FLOAT, int_to_float=True, names=("x1", "x2"))
binary("logaddexp", "log(exp(x1) + exp(x2)) without overflow, elementwise with broadcasting, in the common float type. Complex values raise ArgumentTypeError.", kinds=_FLOAT, int_to_float=True, names=("x1", "x2"))
binary("copysign", "The magnitude of x1 with the sign bit of x2, elementwise with broadcasting, in the common float type. Complex values raise ArgumentTypeError.", kinds=_FLOAT, int_to_float=True, names=("x1", "x2"))
binary("nextafter", "The next float after x1 toward x2, elementwise with broadcasting, in the common float type. Complex values raise ArgumentTypeError.", kinds=_FLOAT, int_to_float=True, names=("x1", "x2"))
unary("signbit", BOOL_RESULT, "Whether the sign bit of x is set (negative values, -0.0, -inf, NaN with the sign bit); x < 0 for ints, false for bools. Complex values raise ArgumentTypeError.", kinds=_REAL)
unary("trunc", SAME, "x rounded toward zero; bools and ints unchanged, floats keep their type (or take the set precision). Complex values raise ArgumentTypeError.", kinds=_REAL)
unary("square", lambda dtype: DType(int, 8) if dtype.kind is bool else at_precision(dtype), "x * x in the type of x (ints wrap; floats take the set precision); bools give int8, as NumPy.")
unary("negative", SAME, "-x in the type of x (unsigned ints wrap; floats take the set precision). Bools raise ArgumentTypeError.", kinds=_NO_BOOL)


# ---------------------------------------------------------------- shape and data


def _axis_list(axes: Any, ndim: int, op: str) -> list[int]:
    listed = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    result = [normalize_axis(a, ndim, op) for a in listed]
    if len(set(result)) != len(result):
        raise AxisError(f"{op}: {axes!r} names the same axis twice")
    return result


@specifies("moveaxis", f"x with the axes source moved to the positions destination (ints or sequences of the same length; ValueError otherwise), the other axes in order. An axis out of range or named twice raises AxisError. {_KEEP}")
def _moveaxis(x: Tensor, source: Axes, destination: Axes) -> ShapeDtype:
    operand = strong(x, "moveaxis", "x")
    src, dst = _axis_list(source, operand.ndim, "moveaxis"), _axis_list(destination, operand.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} must name as many axes")
    order = [n for n in range(operand.ndim) if n not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        order.insert(d, s)
    return ShapeDtype(tuple(operand.shape[a] for a in order), operand.dtype)


@specifies("roll", f"x shifted cyclically by shift along axis (None: the flattened tensor), same shape. An axis out of range raises AxisError; shift and axis sequences of different lengths (neither of length 1) ValueError. {_KEEP}")
def _roll(x: Tensor, shift: Any, axis: Axes = None) -> ShapeDtype:
    operand = strong(x, "roll", "x")
    shifts = shift if isinstance(shift, (list, tuple)) else (shift,)
    for s in shifts:
        int_argument(s, "roll", "shift")
    axes = () if axis is None else axis if isinstance(axis, (list, tuple)) else (axis,)
    for a in axes:
        normalize_axis(a, operand.ndim, "roll")
    if axis is not None and len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise ValueError(f"roll: {len(shifts)} shifts for {len(axes)} axes; give one shift per axis, or one for all")
    return operand


@specifies("matrix_transpose", f"x with its last two axes swapped. Rank below 2 raises ShapeMismatchError. {_KEEP}")
def _matrix_transpose(x: Tensor) -> ShapeDtype:
    operand = _matrices(x, "matrix_transpose")
    return ShapeDtype((*operand.shape[:-2], operand.shape[-1], operand.shape[-2]), operand.dtype)


@specifies("squeeze", f"x without the size-1 axes axis (None: every size-1 axis). An axis whose size is not 1 raises ShapeMismatchError, one out of range or named twice AxisError. {_KEEP}")
def _squeeze(x: Tensor, axis: Axes = None) -> ShapeDtype:
    operand = strong(x, "squeeze", "x")
    axes = normalize_axes(axis, operand.ndim, "squeeze")
    if axes is None:
        axes = tuple(i for i, n in enumerate(operand.shape) if n == 1)
    for a in axes:
        if operand.shape[a] not in (1, None):
            raise ShapeMismatchError(f"squeeze: axis {a} has size {operand.shape[a]}, not 1, in shape {operand.shape}")
    return ShapeDtype(tuple(n for i, n in enumerate(operand.shape) if i not in axes), operand.dtype)


def _broadcast_to_shape(operand: ShapeDtype, target: tuple[int, ...], op: str) -> ShapeDtype:
    fits = operand.ndim <= len(target) and all(n in (1, t, None) for n, t in zip(reversed(operand.shape), reversed(target), strict=False))
    if not fits:
        raise ShapeMismatchError(f"{op}: a tensor of shape {operand.shape} does not broadcast to {target}")
    return ShapeDtype(target, operand.dtype)


@specifies("broadcast_to", f"x repeated along its size-1 and new leading axes to shape. A shape x does not broadcast to raises ShapeMismatchError. {_KEEP}")
def _broadcast_to(x: Tensor, shape: Shape) -> ShapeDtype:
    return _broadcast_to_shape(strong(x, "broadcast_to", "x"), as_shape(shape, "broadcast_to"), "broadcast_to")


@specifies("broadcast_arrays", "A tuple of the tensors broadcast to their common shape, each keeping its dtype. Shapes that do not broadcast raise ShapeMismatchError.")
def _broadcast_arrays(*arrays: Tensor) -> tuple[ShapeDtype, ...]:
    operands = [strong(a, "broadcast_arrays", "arrays") for a in arrays]
    shape = broadcast_shapes("broadcast_arrays", *[o.shape for o in operands]) if operands else ()
    return tuple(ShapeDtype(shape, o.dtype) for o in operands)


reduction("count_nonzero", lambda dtype: INT64, "The number (int64) of elements along axis that are not zero; NaN counts.", argument="x")


def _cumulative(op: str, x: Tensor, axis: Axis, include_initial: bool) -> ShapeDtype:
    operand = strong(x, op, "x")
    if axis is None:
        if operand.ndim != 1:
            raise AxisError(f"{op}: axis=None needs a 1-D tensor; give the axis for a tensor of rank {operand.ndim}")
        axis = 0
    position = normalize_axis(axis, operand.ndim, op)
    size = operand.shape[position]
    if include_initial:
        size = None if size is None else size + 1
    return ShapeDtype(tuple(size if i == position else n for i, n in enumerate(operand.shape)), WIDEN(operand.dtype))


def _widened(x: Tensor, *args: Any, **kwargs: Any) -> Any:
    """The dtype a cumulative sum or product computes in: the wide type of its result (int8 sums in int64)."""
    return WIDEN(strong(x, "cumulative_sum", "x").dtype)


@specifies("cumulative_sum", "Cumulative sums along axis (None only for 1-D x; AxisError otherwise), one element longer with include_initial. Bool and narrow ints widen to 64 bits, as sum.", operands=_widened)
def _cumulative_sum(x: Tensor, axis: Axis = None, include_initial: bool = False) -> ShapeDtype:
    return _cumulative("cumulative_sum", x, axis, include_initial)


@specifies("cumulative_prod", "Cumulative products along axis (None only for 1-D x; AxisError otherwise), one element longer with include_initial. Bool and narrow ints widen to 64 bits, as prod.", operands=_widened)
def _cumulative_prod(x: Tensor, axis: Axis = None, include_initial: bool = False) -> ShapeDtype:
    return _cumulative("cumulative_prod", x, axis, include_initial)


@specifies("diff", "The n-th difference along axis, after prepend and append (tensors or numbers, weak) are joined to x: the size along axis shrinks by n (to 0 at least). The common type of the parts, at the set precision when anything is computed; bools give bools (x[i + 1] != x[i]). A 0-d x raises AxisError, a negative n ValueError.")
def _diff(x: Tensor, axis: Axis = -1, n: int = 1, prepend: Any = None, append: Any = None) -> ShapeDtype:
    operand = strong(x, "diff", "x")
    position = normalize_axis(axis, operand.ndim, "diff")
    count = int_argument(n, "diff", "n")
    if count < 0:
        raise ValueError(f"diff: n must be 0 or more, got {count}")
    size = operand.shape[position]
    parts = [operand]
    for edge in (prepend, append):
        if edge is None:
            continue
        part = as_operand(edge, "diff", "prepend or append")
        if isinstance(part, Weak) or part.ndim == 0:
            extra: int | None = 1
        else:
            extra = part.shape[position] if part.ndim == operand.ndim else None
            if part.ndim != operand.ndim:
                raise ShapeMismatchError(f"diff: prepend/append of shape {part.shape} must have the rank of x, shape {operand.shape}")
        size = None if size is None or extra is None else size + extra
        parts.append(part)  # type: ignore[arg-type]
    dtype = promote("diff", parts, check_overflow=False) if len(parts) > 1 else operand.dtype
    if count and dtype.kind is not bool:
        dtype = at_precision(dtype)
    if count:
        size = None if size is None else max(size - count, 0)
    return ShapeDtype(tuple(size if i == position else s for i, s in enumerate(operand.shape)), dtype)


@specifies("isin", "Bools of the shape of x: whether each element equals an element of test_elements (any shape); NaN is in nothing.")
def _isin(x: Tensor, test_elements: Tensor, invert: bool = False) -> ShapeDtype:
    operand = strong(x, "isin", "x")
    strong(test_elements, "isin", "test_elements")
    return ShapeDtype(operand.shape, BOOL)


@specifies("matmul", "The matrix product as numpy.matmul: matrices in the last two axes, batch axes broadcast, a 1-D argument is a vector whose axis is dropped; the common type (bools raise ArgumentTypeError). A 0-d argument, different inner sizes or batches that do not broadcast raise ShapeMismatchError.")
def _matmul(x1: Tensor, x2: Tensor) -> ShapeDtype:
    a, b = strong(x1, "matmul", "x1"), strong(x2, "matmul", "x2")
    dtype = promote("matmul", (a, b))
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeMismatchError(f"matmul: needs tensors of rank 1 or more, got shapes {a.shape} and {b.shape}")
    if dtype.kind is bool:
        raise ArgumentTypeError("matmul: takes numbers, not bools; cast them to an integer type first")
    inner = b.shape[-2] if b.ndim > 1 else b.shape[0]
    if a.shape[-1] is not None and inner is not None and a.shape[-1] != inner:
        raise ShapeMismatchError(f"matmul: the inner sizes of shapes {a.shape} and {b.shape} differ")
    batch = broadcast_shapes("matmul", a.shape[:-2], b.shape[:-2])
    return ShapeDtype((*batch, *a.shape[-2:-1], *(b.shape[-1:] if b.ndim > 1 else ())), dtype)


@specifies("take_along_axis", f"The elements of x at indices (integers of the rank of x; negative from the end) along axis; the other axes broadcast. Different ranks or axes that do not broadcast raise ShapeMismatchError, float indices ArgumentTypeError, an index outside [-n, n) IndexOutOfRangeError. {_KEEP}")
def _take_along_axis(x: Tensor, indices: Tensor, axis: Axis = -1) -> ShapeDtype:
    operand = strong(x, "take_along_axis", "x")
    index = strong(indices, "take_along_axis", "indices")
    position = normalize_axis(axis, operand.ndim, "take_along_axis")
    index_needs_cast(index.dtype, index.size, "take_along_axis")
    if index.ndim != operand.ndim:
        raise ShapeMismatchError(f"take_along_axis: indices of shape {index.shape} must have the rank of x, shape {operand.shape}")
    others = [s for i, s in enumerate(operand.shape) if i != position]
    index_others = [s for i, s in enumerate(index.shape) if i != position]
    batch = broadcast_shapes("take_along_axis", tuple(others), tuple(index_others))
    return ShapeDtype((*batch[:position], index.shape[position], *batch[position:]), operand.dtype)


reduction("var", lambda dtype: real_of(FLOAT_RESULT(dtype)), "Population variance over axis, as floats (bool and int give the default float); complex values give real variances.", argument="x", compute=FLOAT_RESULT)


# ---------------------------------------------------------------- extras


@specifies("kron", "The Kronecker product as numpy.kron: the lower rank is padded with leading size-1 axes; axis i has size a.shape[i] * b.shape[i]. The common type of a and b.")
def _kron(a: Tensor, b: Tensor) -> ShapeDtype:
    left, right = strong(a, "kron", "a"), strong(b, "kron", "b")
    dtype = promote("kron", (left, right))
    rank = max(left.ndim, right.ndim)
    sa = (1,) * (rank - left.ndim) + left.shape
    sb = (1,) * (rank - right.ndim) + right.shape
    return ShapeDtype(tuple(None if x is None or y is None else x * y for x, y in zip(sa, sb, strict=True)), dtype)


@specifies("isclose", "Bools of the broadcast shape: |a - b| <= atol + rtol * |b|, infinities close only to themselves, NaN to nothing (to NaN with equal_nan). Shapes that do not broadcast raise ShapeMismatchError.")
def _isclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> ShapeDtype:
    left, right = as_operand(a, "isclose", "a"), as_operand(b, "isclose", "b")
    promote("isclose", (left, right), check_overflow=False)
    shapes = [o.shape for o in (left, right) if isinstance(o, ShapeDtype)]
    return ShapeDtype(broadcast_shapes("isclose", *shapes) if shapes else (), BOOL)


@specifies("allclose", "A 0-d bool: whether isclose(a, b, rtol, atol, equal_nan) holds everywhere (true for no elements).")
def _allclose(a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> ShapeDtype:
    _isclose(a, b)
    return ShapeDtype((), BOOL)


@specifies("logsumexp", "log(sum(exp(x), axis)) without overflow, as floats (bool and int give the default float); -inf for no elements. Complex values raise ArgumentTypeError.")
def _logsumexp(x: Tensor, axis: Axes = None, keepdims: bool = False) -> ShapeDtype:
    operand = strong(x, "logsumexp", "x", _REAL)
    shape, _ = reduce_shape("logsumexp", operand.shape, axis, keepdims)
    return ShapeDtype(shape, FLOAT_RESULT(operand.dtype))

