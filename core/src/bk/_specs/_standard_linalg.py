"""Specs of the Array API standard's `linalg` and `fft` operations (`bk._catalogue_linalg`)."""

from __future__ import annotations

import math
from typing import Any, Final

from .._axes import normalize_axes
from .._context import get_precision
from .._dtype import combine_types
from .._errors import ArgumentTypeError, AxisError, ShapeMismatchError
from .._rules.linalg import FFT_NORMS, check_empty_matrix_norm, check_fft_norm, check_vector_norm_ord, fft_sizes, reduced_size
from ._base import (
    INT64,
    ShapeDtype,
    as_dtype_arg,
    at_precision,
    broadcast_shapes,
    complex_of,
    default_float,
    float_of,
    int_argument,
    op_spec,
    real_of,
    reduce_shape,
    specifies,
    strong,
)

Tensor = Any
Axes = Any
Axis = Any
DTypeLike = Any

_FLOAT: Final = "bool and ints give the default float; float16 and bfloat16 compute in float32 and keep their dtype; floats and complex values keep theirs, or take the set precision"
_REAL: Final = "real: the float of the input's precision for complex values"
_MATRIX: Final = "Fewer than 2 axes, or a matrix that is not square, raise ShapeMismatchError."
_NORM: Final = f"norm is one of {', '.join(FFT_NORMS)} (else ValueError)"


def _matrices(op: str, x: Any, square: bool = False, name: str = "x") -> ShapeDtype:
    t = strong(x, op, name)
    if t.ndim < 2:
        raise ShapeMismatchError(f"{op}: {name} must be a matrix or a stack of matrices (at least 2 dimensions) but has shape {t.shape}")
    m, n = t.shape[-2:]
    if square and m is not None and n is not None and m != n:
        raise ShapeMismatchError(f"{op}: {name} must hold square matrices but its last two dimensions are {(m, n)}")
    return t


def _min(m: int | None, n: int | None) -> int | None:
    return None if m is None or n is None else min(m, n)


def _negative_axis(op: str, axis: Any, *ranks: int) -> int:
    index = int_argument(axis, op, "axis")
    if not -min(ranks) <= index < 0:
        raise AxisError(f"{op}: axis must be negative and within the ranks {' and '.join(map(str, ranks))} but is {index}")
    return index


def _without(shape: tuple[int | None, ...], axis: int) -> tuple[int | None, ...]:
    return shape[:axis] + shape[axis + 1 :] if axis != -1 else shape[:-1]


# ---------------------------------------------------------------- decompositions


@specifies("cholesky", f"Cholesky factors of (..., n, n) Hermitian positive-definite matrices, same shape: {_FLOAT}. {_MATRIX} A matrix that is not positive definite raises ValueError (when computed).")
def _cholesky(x: Tensor, upper: bool = False) -> ShapeDtype:
    t = _matrices("cholesky", x, square=True)
    return ShapeDtype(t.shape, float_of(t.dtype))


@specifies("qr", f"A tuple (Q, R) of (..., m, n) matrices, k = min(m, n): mode 'reduced' gives Q (..., m, k), R (..., k, n); 'complete' Q (..., m, m), R (..., m, n); {_FLOAT}. Another mode raises ValueError, fewer than 2 axes ShapeMismatchError.")
def _qr(x: Tensor, mode: str = "reduced") -> tuple[ShapeDtype, ShapeDtype]:
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete' but got {mode!r}")
    t = _matrices("qr", x)
    *batch, m, n = t.shape
    k = m if mode == "complete" else _min(m, n)
    dtype = float_of(t.dtype)
    return ShapeDtype((*batch, m, k), dtype), ShapeDtype((*batch, k, n), dtype)


@specifies("eigh", f"A tuple (eigenvalues (..., n) ascending, {_REAL}; eigenvectors (..., n, n) as columns) of Hermitian matrices: {_FLOAT}. {_MATRIX}")
def _eigh(x: Tensor) -> tuple[ShapeDtype, ShapeDtype]:
    t = _matrices("eigh", x, square=True)
    dtype = float_of(t.dtype)
    return ShapeDtype(t.shape[:-1], real_of(dtype)), ShapeDtype(t.shape, dtype)


@specifies("eigvalsh", f"Eigenvalues (..., n) of Hermitian matrices, ascending, {_REAL} ({_FLOAT}). {_MATRIX}")
def _eigvalsh(x: Tensor) -> ShapeDtype:
    t = _matrices("eigvalsh", x, square=True)
    return ShapeDtype(t.shape[:-1], real_of(float_of(t.dtype)))


@specifies("svdvals", f"Singular values (..., min(m, n)) of (..., m, n) matrices, descending, {_REAL} ({_FLOAT}). Fewer than 2 axes raise ShapeMismatchError.")
def _svdvals(x: Tensor) -> ShapeDtype:
    t = _matrices("svdvals", x)
    return ShapeDtype((*t.shape[:-2], _min(*t.shape[-2:])), real_of(float_of(t.dtype)))


# ---------------------------------------------------------------- inverses and solvers


@specifies("inv", f"Inverses of (..., n, n) matrices, same shape: {_FLOAT}. {_MATRIX} A singular matrix raises ValueError (when computed).")
def _inv(x: Tensor) -> ShapeDtype:
    t = _matrices("inv", x, square=True)
    return ShapeDtype(t.shape, float_of(t.dtype))


@specifies(
    "solve",
    f"Solves x1 @ result = x2 for (..., n, n) x1: a 1-D x2 (n,) gives (..., n); an x2 (..., n, k) gives (broadcast batch..., n, k). The dtype is the common float type ({_FLOAT}). Rows that do not fit or batches that do not broadcast raise ShapeMismatchError; a singular matrix ValueError (when computed).",
)
def _solve(x1: Tensor, x2: Tensor) -> ShapeDtype:
    a = _matrices("solve", x1, square=True, name="x1")
    b = strong(x2, "solve", "x2")
    dtype = combine_types(float_of(a.dtype), float_of(b.dtype), fp_precision=get_precision())
    n = a.shape[-1]
    rows = b.shape[-1] if b.ndim == 1 else (b.shape[-2] if b.ndim >= 2 else -1)
    if b.ndim == 0 or (rows is not None and n is not None and rows != n):
        raise ShapeMismatchError(f"solve: x2 {b.shape} does not fit matrices {a.shape}: it needs {n} rows")
    if b.ndim == 1:
        return ShapeDtype(a.shape[:-1], dtype)
    batch = broadcast_shapes("solve", a.shape[:-2], b.shape[:-2])
    return ShapeDtype((*batch, *b.shape[-2:]), dtype)


@specifies("det", f"Determinants (...) of (..., n, n) matrices: {_FLOAT}. {_MATRIX}")
def _det(x: Tensor) -> ShapeDtype:
    t = _matrices("det", x, square=True)
    return ShapeDtype(t.shape[:-2], float_of(t.dtype))


@specifies("slogdet", f"A tuple (sign, logabsdet), each (...), of (..., n, n) matrices: sign of the float type ({_FLOAT}), logabsdet {_REAL}. {_MATRIX}")
def _slogdet(x: Tensor) -> tuple[ShapeDtype, ShapeDtype]:
    t = _matrices("slogdet", x, square=True)
    dtype = float_of(t.dtype)
    return ShapeDtype(t.shape[:-2], dtype), ShapeDtype(t.shape[:-2], real_of(dtype))


@specifies("pinv", f"Pseudo-inverses (..., n, m) of (..., m, n) matrices: {_FLOAT}. Fewer than 2 axes raise ShapeMismatchError.")
def _pinv(x: Tensor, rtol: Any = None) -> ShapeDtype:
    t = _matrices("pinv", x)
    return ShapeDtype((*t.shape[:-2], t.shape[-1], t.shape[-2]), float_of(t.dtype))


@specifies("matrix_rank", "int64 ranks (...) of (..., m, n) matrices. Fewer than 2 axes raise ShapeMismatchError.")
def _matrix_rank(x: Tensor, rtol: Any = None) -> ShapeDtype:
    t = _matrices("matrix_rank", x)
    return ShapeDtype(t.shape[:-2], INT64)


@specifies(
    "matrix_power",
    "x to the integer power n, same shape and dtype (integer matrices stay integers for n >= 0; floats take the set precision). n that is not an int, or a negative n with bool or integer matrices, raises ArgumentTypeError; non-square matrices ShapeMismatchError.",
)
def _matrix_power(x: Tensor, n: int) -> ShapeDtype:
    n = int_argument(n, "matrix_power", "n")
    t = _matrices("matrix_power", x, square=True)
    if n < 0 and t.dtype.kind in (bool, int):
        raise ArgumentTypeError(f"matrix_power: negative powers need float matrices but x is {t.dtype}")
    return ShapeDtype(t.shape, at_precision(t.dtype))


# ---------------------------------------------------------------- norms


@specifies(
    "vector_norm",
    f"Vector norms over axis (None: all; an int or a tuple), keepdims keeps the reduced axes with size 1; {_REAL} ({_FLOAT}). ord is a number (else ValueError); ord=-inf over no elements raises ValueError; an axis out of range raises AxisError.",
)
def _vector_norm(x: Tensor, axis: Axes = None, keepdims: bool = False, ord: Any = 2) -> ShapeDtype:
    check_vector_norm_ord(ord)
    t = strong(x, "vector_norm", "x")
    shape, axes = reduce_shape("vector_norm", t.shape, axis, keepdims)
    if ord == -math.inf and reduced_size(t.shape, axes) == 0:
        raise ValueError(f"vector_norm: ord=-inf of no elements (shape {t.shape}) is the minimum of nothing, which has no identity")
    return ShapeDtype(shape, real_of(float_of(t.dtype)))


@specifies(
    "matrix_norm",
    f"Matrix norms (...) of (..., m, n) matrices ((..., 1, 1) with keepdims); {_REAL} ({_FLOAT}). ord is 'fro', 'nuc', 1, -1, 2, -2, inf or -inf (else ValueError); matrices without elements raise ValueError where the norm is a minimum of nothing (ord -2; -1 without columns; -inf without rows); fewer than 2 axes raise ShapeMismatchError.",
)
def _matrix_norm(x: Tensor, keepdims: bool = False, ord: Any = "fro") -> ShapeDtype:
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf) or isinstance(ord, bool):
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf but got {ord!r}")
    t = _matrices("matrix_norm", x)
    if 0 in t.shape[-2:]:
        check_empty_matrix_norm(ord, t.shape)
    return ShapeDtype((*t.shape[:-2], *((1, 1) if keepdims else ())), real_of(float_of(t.dtype)))


# ---------------------------------------------------------------- products and diagonals


@specifies("outer", "Outer product (n, m) of 1-D vectors (n,) and (m,), in the dtype mul gives them. Other ranks raise ShapeMismatchError.")
def _outer(x1: Tensor, x2: Tensor) -> ShapeDtype:
    a, b = strong(x1, "outer", "x1"), strong(x2, "outer", "x2")
    if a.ndim != 1 or b.ndim != 1:
        raise ShapeMismatchError(f"outer: x1 and x2 must be 1-D vectors but have shapes {a.shape} and {b.shape}")
    dtype = op_spec("mul").infer(ShapeDtype((a.shape[0], 1), a.dtype), ShapeDtype((1, b.shape[0]), b.dtype)).dtype
    return ShapeDtype((a.shape[0], b.shape[0]), dtype)


@specifies(
    "cross",
    "Cross products of 3-element vectors along a negative axis (the other axes broadcast): the broadcast shape, in the dtype mul and sub give. A size other than 3 raises ShapeMismatchError, a non-negative axis or one beyond a rank AxisError.",
)
def _cross(x1: Tensor, x2: Tensor, axis: Axis = -1) -> ShapeDtype:
    a, b = strong(x1, "cross", "x1"), strong(x2, "cross", "x2")
    axis = _negative_axis("cross", axis, a.ndim, b.ndim)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ShapeMismatchError(f"cross: x1 {a.shape} and x2 {b.shape} must both have 3 elements along axis {axis}")
    product = op_spec("mul").infer(ShapeDtype(_without(a.shape, axis), a.dtype), ShapeDtype(_without(b.shape, axis), b.dtype))
    dtype = op_spec("sub").infer(product, product).dtype
    shape = list(product.shape)
    shape.insert(len(shape) + axis + 1, 3)
    return ShapeDtype(tuple(shape), dtype)


@specifies("diagonal", "Diagonals (..., k) of (..., m, n) matrices at offset (0 main, positive above, negative below; k is 0 past the edge), in x's dtype (floats take the set precision). Fewer than 2 axes raise ShapeMismatchError.")
def _diagonal(x: Tensor, offset: int = 0) -> ShapeDtype:
    t = _matrices("diagonal", x)
    offset = int_argument(offset, "diagonal", "offset")
    m, n = t.shape[-2:]
    count = None if m is None or n is None else max(0, min(m + min(offset, 0), n - max(offset, 0)))
    return ShapeDtype((*t.shape[:-2], count), at_precision(t.dtype))


@specifies("trace", "Sums (...) of the diagonals at offset of (..., m, n) matrices: the dtype sum gives (bool and narrow ints widen to int64), or dtype when given (cast first).")
def _trace(x: Tensor, offset: int = 0, dtype: DTypeLike = None) -> ShapeDtype:
    diagonal = _diagonal(x, offset)
    if dtype is not None:
        diagonal = ShapeDtype(diagonal.shape, as_dtype_arg(dtype, "trace"))
    result: ShapeDtype = op_spec("sum").infer(diagonal, axis=-1)
    return result


@specifies(
    "vecdot",
    "Dot products sum(conj(x1) * x2) along a negative axis (the other axes broadcast): the common dtype (bk.combine_types, integers keep their width). Lengths that differ raise ShapeMismatchError, an axis that is not negative or beyond a rank AxisError.",
)
def _vecdot(x1: Tensor, x2: Tensor, axis: Axis = -1) -> ShapeDtype:
    a, b = strong(x1, "vecdot", "x1"), strong(x2, "vecdot", "x2")
    axis = _negative_axis("vecdot", axis, a.ndim, b.ndim)
    if a.shape[axis] is not None and b.shape[axis] is not None and a.shape[axis] != b.shape[axis]:
        raise ShapeMismatchError(f"vecdot: x1 {a.shape} and x2 {b.shape} have different lengths along axis {axis}")
    full = broadcast_shapes("vecdot", a.shape, b.shape)
    return ShapeDtype(_without(full, axis), combine_types(a.dtype, b.dtype, fp_precision=get_precision()))


# ---------------------------------------------------------------- FFT


def _transform(op: str, x: Any, s: Any, axes: Any, norm: str, kind: str) -> ShapeDtype:
    check_fft_norm(norm, op)
    t = strong(x, op, "x")
    if kind == "real" and t.dtype.kind is complex:
        raise ArgumentTypeError(f"{op}: x must be real but is {t.dtype}; use fftn for complex values")
    chosen, sizes = fft_sizes(t.shape, s, axes, op)
    shape = list(t.shape)
    for axis, n in zip(chosen, sizes, strict=True):
        shape[axis] = n
    complex_type = complex_of(float_of(t.dtype)) if kind == "real" else complex_of(t.dtype)
    if kind == "real" and chosen:
        shape[chosen[-1]] = sizes[-1] // 2 + 1
    if kind == "inverse-real":
        if chosen and (s is None or tuple(s)[-1] == -1):
            last = t.shape[chosen[-1]]
            shape[chosen[-1]] = None if last is None else 2 * (last - 1)
            if last is not None and 2 * (last - 1) < 1:
                raise ValueError(f"{op}: the output length {2 * (last - 1)} along axis {chosen[-1]} must be positive; pass s")
        return ShapeDtype(shape, real_of(complex_type))
    return ShapeDtype(shape, complex_type)


_SIZES: Final = "s gives the lengths of the transformed axes (zero-padded or trimmed; -1 keeps one; lengths below 1 raise ValueError), axes the axes (None: all, or the last len(s)); an axis out of range raises AxisError"


@specifies("fftn", f"n-dimensional FFT: x's shape with the lengths s at axes, complex of x's precision (bool, ints and float32 and narrower give complex64; a set precision applies). {_SIZES}; {_NORM}.")
def _fftn(x: Tensor, s: Any = None, axes: Axes = None, norm: str = "backward") -> ShapeDtype:
    return _transform("fftn", x, s, axes, norm, "complex")


@specifies("ifftn", f"n-dimensional inverse FFT: x's shape with the lengths s at axes, complex of x's precision. {_SIZES}; {_NORM}.")
def _ifftn(x: Tensor, s: Any = None, axes: Axes = None, norm: str = "backward") -> ShapeDtype:
    return _transform("ifftn", x, s, axes, norm, "complex")


@specifies("rfftn", f"n-dimensional FFT of real values: as fftn, but the last transformed axis keeps n//2 + 1 frequencies; complex of x's precision (ints give the default complex). Complex x raises ArgumentTypeError. {_SIZES}; {_NORM}.")
def _rfftn(x: Tensor, s: Any = None, axes: Axes = None, norm: str = "backward") -> ShapeDtype:
    return _transform("rfftn", x, s, axes, norm, "real")


@specifies("irfftn", f"Inverse of rfftn: the lengths s (default: the input's, and 2 (m - 1) for the last transformed axis), real of x's precision. {_SIZES}; {_NORM}.")
def _irfftn(x: Tensor, s: Any = None, axes: Axes = None, norm: str = "backward") -> ShapeDtype:
    return _transform("irfftn", x, s, axes, norm, "inverse-real")


def _one(n: Any) -> Any:
    return None if n is None else (n,)


@specifies("rfft", f"1-D FFT of real values along axis, n//2 + 1 frequencies (n: the transform length, default the axis's), complex of x's precision. Complex x raises ArgumentTypeError; {_NORM}.")
def _rfft(x: Tensor, n: Any = None, axis: Axis = -1, norm: str = "backward") -> ShapeDtype:
    return _transform("rfft", x, _one(n), (axis,), norm, "real")


@specifies("irfft", f"Inverse of rfft along axis: n real values (default 2 (m - 1)), real of x's precision; {_NORM}.")
def _irfft(x: Tensor, n: Any = None, axis: Axis = -1, norm: str = "backward") -> ShapeDtype:
    return _transform("irfft", x, _one(n), (axis,), norm, "inverse-real")


@specifies("hfft", f"FFT of a Hermitian-symmetric signal given by its first half, along axis: n real values (default 2 (m - 1)), real of x's precision; {_NORM}.")
def _hfft(x: Tensor, n: Any = None, axis: Axis = -1, norm: str = "backward") -> ShapeDtype:
    return _transform("hfft", x, _one(n), (axis,), norm, "inverse-real")


@specifies("ihfft", f"Inverse of hfft along axis: n//2 + 1 complex values of real x's precision. Complex x raises ArgumentTypeError; {_NORM}.")
def _ihfft(x: Tensor, n: Any = None, axis: Axis = -1, norm: str = "backward") -> ShapeDtype:
    return _transform("ihfft", x, _one(n), (axis,), norm, "real")


def _frequencies(op: str, n: Any, size: int, dtype: Any) -> ShapeDtype:
    if n < 1:
        raise ValueError(f"{op}: n must be positive but is {n}")
    result = default_float() if dtype is None else as_dtype_arg(dtype, op)
    if result.kind is not float:
        raise ArgumentTypeError(f"{op}: dtype must be a real float type but got {result}")
    return ShapeDtype((size,), result)


@specifies("fftfreq", "Sample frequencies (n,) of an n-point FFT with spacing d, of dtype (default: the default float). n below 1 raises ValueError, a dtype that is not a real float ArgumentTypeError.")
def _fftfreq(n: int, d: float = 1.0, dtype: DTypeLike = None) -> ShapeDtype:
    n = int_argument(n, "fftfreq", "n")
    return _frequencies("fftfreq", n, n, dtype)


@specifies("rfftfreq", "Non-negative sample frequencies (n//2 + 1,) of rfft of n points with spacing d, of dtype (default: the default float). n below 1 raises ValueError.")
def _rfftfreq(n: int, d: float = 1.0, dtype: DTypeLike = None) -> ShapeDtype:
    n = int_argument(n, "rfftfreq", "n")
    return _frequencies("rfftfreq", n, n // 2 + 1, dtype)


def _shift(op: str, x: Any, axes: Any) -> ShapeDtype:
    t = strong(x, op, "x")
    normalize_axes(axes, t.ndim, op)
    return ShapeDtype(t.shape, at_precision(t.dtype))


@specifies("fftshift", "x rolled by half its length along axes (None: all), same shape and dtype (floats take the set precision). An axis out of range raises AxisError.")
def _fftshift(x: Tensor, axes: Axes = None) -> ShapeDtype:
    return _shift("fftshift", x, axes)


@specifies("ifftshift", "The inverse of fftshift, same shape and dtype. An axis out of range raises AxisError.")
def _ifftshift(x: Tensor, axes: Axes = None) -> ShapeDtype:
    return _shift("ifftshift", x, axes)

