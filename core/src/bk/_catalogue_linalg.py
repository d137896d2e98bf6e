"""Array API standard linear algebra and FFT operations of the catalogue (`linalg` and `fft` extensions).

Every public function is an operation of the catalogue, a method of `Backend` (`bk._operations`) (see `_features.py`), either a generic
default built from other catalogue operations or an optional feature a plugin overrides.

Where the reference (`phiml.backend`) already has an operation under another name, bk keeps the
reference's: the standard's `linalg.svd` is `svd`, `linalg.tensordot` is `tensordot`, and the
standard's 1-D `fft`/`ifft` are `fftn`/`ifftn` with one axis (bk's `fft`/`ifft` are the
reference's n-dimensional transforms without sizes or normalisation).

The rules every backend follows (docs/semantics.md, "Linear algebra and FFT"):

- Matrices are the last two axes; leading axes are a batch. An input with fewer than two axes, or
  a non-square matrix where a square one is needed, raises `bk.ShapeMismatchError`.
- Integer and bool inputs compute in the default float (the current precision, float32 when it
  is `None`); float16 and bfloat16 compute in float32 and give their own dtype back.
- A singular matrix (`inv`, `solve`) or one that is not positive definite (`cholesky`) raises
  `ValueError` naming the operation, as NumPy's `LinAlgError` (a `ValueError`).
- Results that are real by definition (`eigvalsh`, `svdvals`, norms, `slogdet`'s logarithm) are
  real of the input's precision for complex inputs.

Plugins call the helpers of `bk._rules.linalg` (`matrix_operand`, `result_of`, ..., in `bk.rules`) in their
kernels so that every backend checks and converts the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ._axes import normalize_axes
from ._context import get_precision
from ._dtype import DType
from ._errors import ArgumentTypeError, AxisError, ShapeMismatchError, check_tensor_argument
from ._features import generic, optional
from ._rules.linalg import (
    check_empty_matrix_norm,
    check_fft_norm,
    check_vector_norm_ord,
    compute_dtype,
    fft_sizes,
    matrix_operand,
    real_dtype,
    reduced_size,
    result_of,
)  # fmt: skip

if TYPE_CHECKING:
    from ._backend import Backend

__all__: list[str] = []  # the operations are collected by the registry (bk._operations)

Tensor = Any

_INDEXING: Final = ("__getitem__",)
_BATCH: Final = "abcdefghlmnopqrstuvwxyz"  # einsum letters of batch axes (without i, j, k)
_F32: Final = DType(float, 32)


def _fft_factor(norm: str, sizes: Sequence[int], inverse: bool) -> float | None:
    """The factor that turns an unnormalised (forward) or 1/n-normalised (inverse) transform into `norm`."""
    n = math.prod(sizes)
    if norm == "backward" or n == 0:
        return None
    if norm == "ortho":
        return math.sqrt(n) if inverse else 1 / math.sqrt(n)
    return float(n) if inverse else 1 / n  # 'forward'


# ------------------------------------------------------------ decompositions


@optional
def cholesky(self: Any, x: Tensor, upper: bool = False) -> Tensor:
    """Cholesky factor of symmetric (Hermitian) positive-definite `(..., n, n)` matrices.

    Args:
        x: `(..., n, n)` matrices; only the lower triangle (upper when `upper`) is read.
        upper: Return the upper factor `U` with `x = U^H U` instead of the lower `L` with `x = L L^H`.

    Returns:
        The triangular factors, of `x`'s float type (see the module docstring).

    Raises:
        ValueError: for a matrix that is not positive definite.
        bk.ShapeMismatchError: for non-square or fewer than 2 dimensions.
    """
    raise NotImplementedError(f"{self} does not implement cholesky")


@optional
def qr(self: Any, x: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
    """QR decomposition `x = Q R` of `(..., m, n)` matrices.

    Args:
        x: `(..., m, n)` matrices.
        mode: 'reduced' (`Q` is `(..., m, k)`, `R` `(..., k, n)` with `k = min(m, n)`) or
            'complete' (`Q` is `(..., m, m)`, `R` `(..., m, n)`).

    Returns:
        `(Q, R)`: `Q` with orthonormal columns, `R` upper triangular.

    Raises:
        ValueError: for another mode.
    """
    raise NotImplementedError(f"{self} does not implement qr")


@optional
def eigh(self: Any, x: Tensor) -> tuple[Tensor, Tensor]:
    """Eigenvalues and eigenvectors of symmetric (Hermitian) `(..., n, n)` matrices.

    Only the lower triangle is read. Eigenvectors are unique only up to sign (phase).

    Returns:
        `(eigenvalues, eigenvectors)`: real `(..., n)` values in ascending order, and the
        vectors as the columns of `(..., n, n)` matrices of `x`'s float type.
    """
    raise NotImplementedError(f"{self} does not implement eigh")


@generic("eigh")
def eigvalsh(self: Any, x: Tensor) -> Tensor:
    """Eigenvalues of symmetric (Hermitian) `(..., n, n)` matrices: real, `(..., n)`, ascending."""
    return self.eigh(x)[0]


@generic("svd", "as_tensor", "staticshape", "dtype", "cast")
def svdvals(self: Any, x: Tensor) -> Tensor:
    """Singular values of `(..., m, n)` matrices: real, `(..., min(m, n))`, descending."""
    x, dtype = matrix_operand(self, x, "svdvals")
    return result_of(self, self.svd(x, full_matrices=False)[1], real_dtype(dtype))


# ------------------------------------------------------------ inverses and solvers


@optional
def inv(self: Any, x: Tensor) -> Tensor:
    """Inverses of `(..., n, n)` matrices.

    Raises:
        ValueError: for a singular matrix.
        bk.ShapeMismatchError: for non-square or fewer than 2 dimensions.
    """
    raise NotImplementedError(f"{self} does not implement inv")


@optional
def solve(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
    """Solves `x1 @ result = x2` for square `x1` `(..., n, n)`.

    Args:
        x1: `(..., n, n)` coefficient matrices.
        x2: A vector `(n,)`, or `(..., n, k)` right-hand sides whose batch broadcasts with `x1`'s
            (the standard's rule, as NumPy 2: only a 1-D `x2` is a vector).

    Returns:
        `(..., n)` for a vector, else `(broadcast batch..., n, k)`, of the promoted float type.

    Raises:
        ValueError: for a singular matrix.
        bk.ShapeMismatchError: for shapes that do not fit.
    """
    raise NotImplementedError(f"{self} does not implement solve")


@optional
def det(self: Any, x: Tensor) -> Tensor:
    """Determinants of `(..., n, n)` matrices, `(...)`."""
    raise NotImplementedError(f"{self} does not implement det")


@optional
def slogdet(self: Any, x: Tensor) -> tuple[Tensor, Tensor]:
    """Sign and natural logarithm of the absolute determinant of `(..., n, n)` matrices.

    Returns:
        `(sign, logabsdet)`: `sign` of `x`'s float type (a unit complex number for complex
        `x`; 0 for a singular matrix, whose `logabsdet` is `-inf`), and real `logabsdet`.
    """
    raise NotImplementedError(f"{self} does not implement slogdet")


@generic(
    "svd",
    "as_tensor",
    "staticshape",
    "dtype",
    "cast",
    "conj",
    "einsum",
    "max",
    "where",
    "greater_than",
    "div",
    "mul",
    "zeros_like",
    "reshape",
    "zeros",
)
def pinv(self: Any, x: Tensor, rtol: Any = None) -> Tensor:
    """Moore-Penrose pseudo-inverses of `(..., m, n)` matrices, `(..., n, m)`.

    Args:
        x: The matrices.
        rtol: Singular values at most `rtol` times the largest count as zero. A float or a tensor
            that broadcasts against the batch; `None` means `max(m, n) * eps` of the float type
            (the standard's default).
    """
    x, dtype = matrix_operand(self, x, "pinv")
    shape = tuple(self.staticshape(x))
    if 0 in shape[-2:]:  # no singular values: the pseudo-inverse of an empty matrix is empty (zeros)
        return result_of(self, self.zeros((*shape[:-2], shape[-1], shape[-2]), self.dtype(x)), dtype)
    u, s, vh = self.svd(x, full_matrices=False)
    cutoff = self.mul(_rtol(self, rtol, shape, self.dtype(x)), self.max(s, axis=-1, keepdims=True))
    kept = self.greater_than(s, cutoff)
    inverse_s = self.where(kept, self.div(1, self.where(kept, s, 1)), self.zeros_like(s))
    b = _BATCH[: len(shape) - 2]
    result = self.einsum(f"{b}ji,{b}j,{b}kj->{b}ik", self.conj(vh), self.cast(inverse_s, self.dtype(vh)), self.conj(u))
    return result_of(self, result, dtype)


@generic("svd", "as_tensor", "staticshape", "dtype", "cast", "max", "mul", "greater_than", "sum", "reshape", "zeros")
def matrix_rank(self: Any, x: Tensor, rtol: Any = None) -> Tensor:
    """Ranks of `(..., m, n)` matrices: the number of singular values above `rtol` times the largest.

    Args:
        x: The matrices.
        rtol: As in `pinv`; `None` means `max(m, n) * eps` of the float type.

    Returns:
        int64 ranks, `(...)`.
    """
    x, _ = matrix_operand(self, x, "matrix_rank")
    shape = tuple(self.staticshape(x))
    if 0 in shape[-2:]:
        return self.zeros(shape[:-2], DType(int, 64))
    s = self.svd(x, full_matrices=False)[1]
    cutoff = self.mul(_rtol(self, rtol, self.staticshape(x), self.dtype(x)), self.max(s, axis=-1, keepdims=True))
    return self.cast(self.sum(self.greater_than(s, cutoff), axis=-1), DType(int, 64))


@generic("einsum", "inv", "as_tensor", "staticshape", "dtype", "cast", "get_device")
def matrix_power(self: Any, x: Tensor, n: int) -> Tensor:
    """`x` multiplied by itself `n` times, for square `(..., m, m)` matrices.

    `n = 0` gives identity matrices, a negative `n` powers of the inverse. Integer matrices stay
    integers for `n >= 0`, as in NumPy.

    Raises:
        bk.ArgumentTypeError: for a non-integer `n`, or a negative `n` with integer matrices.
        ValueError: for a negative `n` and a singular matrix.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ArgumentTypeError(f"matrix_power: n must be an int but got {type(n).__name__} {n!r}")
    check_tensor_argument(x, "matrix_power")
    x = self.as_tensor(x)
    shape = tuple(self.staticshape(x))
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ShapeMismatchError(f"matrix_power: x must hold square matrices (..., m, m) but has shape {shape}")
    if n < 0:
        if self.dtype(x).kind in (bool, int):
            raise ArgumentTypeError(f"matrix_power: negative powers need float matrices but x is {self.dtype(x)}")
        x, n = self.inv(x), -n
    dtype = self.dtype(x)
    if n == 0:
        eye = self.as_tensor(np.zeros(shape) + np.eye(int(shape[-1])))
        if self.supports("allocate_on_device"):
            eye = self.allocate_on_device(eye, self.get_device(x))
        return self.cast(eye, dtype)
    if dtype.kind is float and (dtype.bits or 32) < 32:  # half precision multiplies in float32, as the other linalg operations
        return self.cast(self.matrix_power(self.cast(x, _F32), n), dtype)
    b = _BATCH[: len(shape) - 2]
    product = f"{b}ij,{b}jk->{b}ik"
    result = None
    power = x
    while n:  # square and multiply: log2(n) products
        if n & 1:
            result = power if result is None else self.einsum(product, result, power)
        n >>= 1
        if n:
            power = self.einsum(product, power, power)
    return result


# ------------------------------------------------------------ norms


@generic("as_tensor", "dtype", "cast", "abs", "sum", "max", "min", "sqrt", "mul", "pow", "not_equal", "staticshape")
def vector_norm(self: Any, x: Tensor, axis: Any = None, keepdims: bool = False, ord: float = 2) -> Tensor:
    """Vector norms of `x` over `axis`.

    Args:
        x: Values of any shape; integers compute in the default float.
        axis: An int, a tuple of ints (those axes together form the vectors) or `None` (all).
        keepdims: Keep the reduced axes as size-1 axes.
        ord: 2 (Euclidean), 1, `inf` (largest magnitude), `-inf` (smallest), 0 (count of
            non-zeros), or any other number p: `sum(|x|^p)^(1/p)`.

    Returns:
        Real values of `x`'s float precision.

    Raises:
        ValueError: for `ord=-inf` over no elements (no identity), as NumPy; `ord=inf` of no
            elements is 0, as NumPy.
    """
    check_vector_norm_ord(ord)
    check_tensor_argument(x, "vector_norm")
    x = self.as_tensor(x)
    axes = normalize_axes(axis, len(self.staticshape(x)), "vector_norm")
    compute, result = compute_dtype(self, self.dtype(x))
    a = self.abs(self.cast(x, compute) if compute != self.dtype(x) else x)
    if ord == 2:
        value = self.sqrt(self.sum(self.mul(a, a), axis=axes, keepdims=keepdims))
    elif ord == 1:
        value = self.sum(a, axis=axes, keepdims=keepdims)
    elif ord == math.inf:  # the largest magnitude of no elements is 0, as NumPy 2.4 (norms are never negative)
        empty = reduced_size(self.staticshape(a), axes) == 0
        value = (self.sum if empty else self.max)(a, axis=axes, keepdims=keepdims)
    elif ord == -math.inf:
        value = self.min(a, axis=axes, keepdims=keepdims)
    elif ord == 0:
        value = self.sum(self.cast(self.not_equal(a, 0), self.dtype(a)), axis=axes, keepdims=keepdims)
    else:
        value = self.pow(self.sum(self.pow(a, float(ord)), axis=axes, keepdims=keepdims), 1 / float(ord))
    return result_of(self, value, real_dtype(result))


@generic("svdvals", "as_tensor", "dtype", "cast", "abs", "sum", "max", "min", "sqrt", "mul", "staticshape", "reshape", "zeros")
def matrix_norm(self: Any, x: Tensor, keepdims: bool = False, ord: Any = "fro") -> Tensor:
    """Matrix norms of `(..., m, n)` matrices.

    Args:
        x: The matrices.
        keepdims: Keep the last two axes as size-1 axes.
        ord: 'fro' (Frobenius), 'nuc' (sum of singular values), 1 / -1 (largest / smallest
            column sum of magnitudes), `inf` / `-inf` (row sums), 2 / -2 (largest / smallest
            singular value).

    Returns:
        Real values of `x`'s float precision, `(...)` (or `(..., 1, 1)` with `keepdims`).

    Raises:
        ValueError: for another `ord`; for matrices without elements, where the norm is the
            minimum of nothing (ord -2; -1 without columns; -inf without rows), as NumPy. Every
            other norm of an empty matrix is 0.
    """
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf) or isinstance(ord, bool):
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf but got {ord!r}")
    x, dtype = matrix_operand(self, x, "matrix_norm")
    shape = tuple(self.staticshape(x))
    if 0 in shape[-2:]:
        check_empty_matrix_norm(ord, shape)
        out = (*shape[:-2], *((1, 1) if keepdims else ()))
        return self.zeros(out, real_dtype(dtype))
    if ord in ("nuc", 2, -2):
        s = self.svdvals(x)
        value = self.sum(s, axis=-1) if ord == "nuc" else (self.max(s, axis=-1) if ord == 2 else self.min(s, axis=-1))
    else:
        a = self.abs(x)
        if ord == "fro":
            value = self.sqrt(self.sum(self.mul(a, a), axis=(-2, -1)))
        else:
            sums = self.sum(a, axis=-2 if ord in (1, -1) else -1)
            value = self.max(sums, axis=-1) if ord in (1, math.inf) else self.min(sums, axis=-1)
    if keepdims:
        value = self.reshape(value, (*shape[:-2], 1, 1))
    return result_of(self, value, real_dtype(dtype))


# ------------------------------------------------------------ products and diagonals


@generic("as_tensor", "staticshape", "reshape", "mul")
def outer(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
    """Outer product `(n, m)` of vectors `(n,)` and `(m,)`, in the promoted dtype.

    Raises:
        bk.ShapeMismatchError: for inputs that are not 1-D.
    """
    check_tensor_argument(x1, "outer", "x1")
    check_tensor_argument(x2, "outer", "x2")
    x1, x2 = self.as_tensor(x1), self.as_tensor(x2)
    n, m = self.staticshape(x1), self.staticshape(x2)
    if len(n) != 1 or len(m) != 1:
        raise ShapeMismatchError(f"outer: x1 and x2 must be 1-D vectors but have shapes {tuple(n)} and {tuple(m)}")
    return self.mul(self.reshape(x1, (n[0], 1)), self.reshape(x2, (1, m[0])))


@generic("as_tensor", "staticshape", "unstack", "stack", "mul", "sub")
def cross(self: Any, x1: Tensor, x2: Tensor, axis: int = -1) -> Tensor:
    """Cross products of 3-element vectors along `axis`; the other axes broadcast.

    Args:
        x1: Vectors with 3 elements along `axis`.
        x2: The same; its other axes broadcast against `x1`'s.
        axis: A negative axis, counted from the end of both (the standard's rule).

    Raises:
        bk.ShapeMismatchError: if `axis` does not have size 3 in both.
        bk.AxisError: for a non-negative axis or one beyond either input's rank.
    """
    check_tensor_argument(x1, "cross", "x1")
    check_tensor_argument(x2, "cross", "x2")
    x1, x2 = self.as_tensor(x1), self.as_tensor(x2)
    axis1, axis2 = _cross_axes(self.staticshape(x1), self.staticshape(x2), axis, "cross")
    a, b = self.unstack(x1, axis1), self.unstack(x2, axis2)
    components = [
        self.sub(self.mul(a[1], b[2]), self.mul(a[2], b[1])),
        self.sub(self.mul(a[2], b[0]), self.mul(a[0], b[2])),
        self.sub(self.mul(a[0], b[1]), self.mul(a[1], b[0])),
    ]
    return self.stack(components, axis=axis)


@generic("as_tensor", "staticshape", "reshape", native=_INDEXING)
def diagonal(self: Any, x: Tensor, offset: int = 0) -> Tensor:
    """Diagonals of `(..., m, n)` matrices as `(..., k)`, in `x`'s dtype.

    Unlike the reference's `get_diagonal` (whose matrices have a trailing channel axis), the
    matrices are the last two axes, as in the Array API standard and `numpy.linalg.diagonal`.

    Args:
        x: The matrices.
        offset: 0 for the main diagonal, positive above it, negative below.
    """
    x, shape = _matrices(self, x, "diagonal")
    offset = _int_argument(offset, "diagonal", "offset")
    m, n = shape[-2], shape[-1]
    count = max(0, min(m + min(offset, 0), n - max(offset, 0)))
    start = -offset * n if offset < 0 else offset
    flat = self.reshape(x, (*shape[:-2], m * n))
    if not count:
        return flat[..., 0:0]
    return flat[..., start : start + (count - 1) * (n + 1) + 1 : n + 1]


@generic("diagonal", "sum", "cast", "dtype")
def trace(self: Any, x: Tensor, offset: int = 0, dtype: DType | None = None) -> Tensor:
    """Sums of the diagonals of `(..., m, n)` matrices, `(...)`.

    Args:
        x: The matrices.
        offset: Which diagonal, as in `diagonal`.
        dtype: The result dtype; `None` keeps `x`'s, except that bools and integers narrower than
            64 bits widen as in `sum` (docs/semantics.md).
    """
    d = self.diagonal(x, offset)
    if dtype is not None:
        d = self.cast(d, dtype)
    return self.sum(d, axis=-1)


@generic("as_tensor", "staticshape", "dtype", "conj", "mul", "sum", "cast", "combine_types")
def vecdot(self: Any, x1: Tensor, x2: Tensor, axis: int = -1) -> Tensor:
    """Dot products `sum(conj(x1) * x2)` along `axis`; the other axes broadcast.

    Args:
        x1: Vectors along `axis` (conjugated when complex).
        x2: Vectors of the same length along `axis`.
        axis: A negative axis, counted from the end of both (the standard's rule).

    Returns:
        The promoted dtype of `x1` and `x2` (integers keep their width).

    Raises:
        bk.ShapeMismatchError: if the lengths along `axis` differ or the other axes do not broadcast.
    """
    check_tensor_argument(x1, "vecdot", "x1")
    check_tensor_argument(x2, "vecdot", "x2")
    x1, x2 = self.as_tensor(x1), self.as_tensor(x2)
    s1, s2 = tuple(self.staticshape(x1)), tuple(self.staticshape(x2))
    if not (isinstance(axis, (int, np.integer)) and not isinstance(axis, bool)):
        raise ArgumentTypeError(f"vecdot: axis must be an int but got {type(axis).__name__} {axis!r}")
    if not -min(len(s1), len(s2)) <= axis < 0:
        raise AxisError(f"vecdot: axis must be negative and within the ranks {len(s1)} and {len(s2)} but is {axis}")
    if s1[axis] != s2[axis]:
        raise ShapeMismatchError(f"vecdot: x1 {s1} and x2 {s2} have different lengths along axis {axis}")
    dtype = self.combine_types(self.dtype(x1), self.dtype(x2))
    if dtype.kind is complex:
        x1 = self.conj(x1)
    return self.cast(self.sum(self.mul(x1, x2), axis=axis), dtype)


# ------------------------------------------------------------ FFT


@generic("fft", "as_tensor", "staticshape", "dtype", "to_complex", "mul", "pad", native=_INDEXING)
def fftn(self: Any, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
    """n-dimensional discrete Fourier transform, as the standard's `fft.fftn` (and `fft.fft` with one axis).

    Args:
        x: Values; real and integer inputs are transformed as complex values of their precision.
        s: Lengths of the transformed axes: shorter axes are zero-padded, longer ones trimmed;
            `-1` keeps an axis's length. `None`: the axes' lengths.
        axes: The axes (an int or a sequence); `None`: all, or the last `len(s)`.
        norm: 'backward' (no scaling), 'ortho' (`1/sqrt(n)`) or 'forward' (`1/n`), with `n` the
            product of the transformed lengths.

    Returns:
        Complex values of `x`'s precision.

    Raises:
        ValueError: for an unknown `norm` or a length below 1.
    """
    return _fftn(self, "fftn", self.fft, x, s, axes, norm, inverse=False)


@generic("ifft", "as_tensor", "staticshape", "dtype", "to_complex", "mul", "pad", native=_INDEXING)
def ifftn(self: Any, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
    """n-dimensional inverse discrete Fourier transform, as the standard's `fft.ifftn`.

    Arguments as in `fftn`; 'backward' scales by `1/n`, 'ortho' by `1/sqrt(n)`, 'forward' not at all.
    """
    return _fftn(self, "ifftn", self.ifft, x, s, axes, norm, inverse=True)


@generic("fftn", "as_tensor", "staticshape", "dtype", "cast", native=_INDEXING)
def rfftn(self: Any, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
    """n-dimensional FFT of real values; the last transformed axis keeps `n//2 + 1` frequencies.

    Arguments as in `fftn`. Integers compute in the default float.

    Returns:
        Complex values of `x`'s precision.

    Raises:
        bk.ArgumentTypeError: for complex `x`.
    """
    x = _real_operand(self, x, "rfftn")
    axes_, sizes = fft_sizes(self.staticshape(x), s, axes, "rfftn")
    full = self.fftn(x, sizes, axes_, norm)
    last = axes_[-1] if axes_ else None
    if last is None:
        return full
    return full[(*(slice(None),) * last, slice(0, sizes[-1] // 2 + 1), ...)]


@generic("ifftn", "as_tensor", "staticshape", "to_complex", "real", "conj", "flip", "concat", "pad", native=_INDEXING)
def irfftn(self: Any, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
    """Inverse of `rfftn`: real values from the non-negative frequencies of the last transformed axis.

    Args:
        x: Complex (or real) frequencies.
        s: Output lengths of the transformed axes; `None` gives `2 * (m - 1)` for the last
            (`m` its input length) and the input lengths for the others.
        axes: As in `fftn`.
        norm: As in `ifftn`.

    Returns:
        Real values of `x`'s precision.
    """
    check_fft_norm(norm, "irfftn")
    check_tensor_argument(x, "irfftn")
    x = self.to_complex(self.as_tensor(x))
    shape = tuple(self.staticshape(x))
    axes_, fitted = fft_sizes(shape, s, axes, "irfftn")
    if not axes_:
        return self.real(x)
    last = axes_[-1]
    n = 2 * (int(shape[last]) - 1) if s is None or tuple(s)[-1] == -1 else fitted[-1]
    if n < 1:
        raise ValueError(f"irfftn: the output length {n} along axis {last} must be positive; pass s")
    if len(axes_) > 1:  # complex transforms over the other axes first, then the real one over the last
        x = self.ifftn(x, fitted[:-1], axes_[:-1], norm)
    half = _fit_axis(self, x, last, n // 2 + 1)
    mirrored = self.flip(self.conj(half[(*(slice(None),) * last, slice(1, n - n // 2), ...)]), (last,))
    spectrum = self.concat([half, mirrored], last)
    return self.real(self.ifftn(spectrum, (n,), (last,), norm))


@generic("rfftn")
def rfft(self: Any, x: Tensor, n: int | None = None, axis: int = -1, norm: str = "backward") -> Tensor:
    """1-D FFT of real values along `axis`, keeping `n//2 + 1` frequencies (`n`: the transform length)."""
    return self.rfftn(x, None if n is None else (n,), (axis,), norm)


@generic("irfftn")
def irfft(self: Any, x: Tensor, n: int | None = None, axis: int = -1, norm: str = "backward") -> Tensor:
    """Inverse of `rfft`: `n` real values (default `2 * (m - 1)`) along `axis`."""
    return self.irfftn(x, None if n is None else (n,), (axis,), norm)


@generic("irfft", "conj", "as_tensor", "to_complex")
def hfft(self: Any, x: Tensor, n: int | None = None, axis: int = -1, norm: str = "backward") -> Tensor:
    """FFT of a signal with Hermitian symmetry given by its first half: `n` real values (default `2 * (m - 1)`)."""
    check_fft_norm(norm, "hfft")
    check_tensor_argument(x, "hfft")
    swapped = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return self.irfft(self.conj(self.to_complex(self.as_tensor(x))), n, axis, swapped)


@generic("rfft", "conj")
def ihfft(self: Any, x: Tensor, n: int | None = None, axis: int = -1, norm: str = "backward") -> Tensor:
    """Inverse of `hfft`: the first `n//2 + 1` values of the Hermitian spectrum of real `x`."""
    check_fft_norm(norm, "ihfft")
    swapped = {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return self.conj(self.rfft(x, n, axis, swapped))


@generic("as_tensor", "cast")
def fftfreq(self: Any, n: int, d: float = 1.0, dtype: DType | None = None) -> Tensor:
    """Sample frequencies of an `n`-point FFT with sample spacing `d`: `(n,)` values of `dtype`
    (default: the default float)."""
    n = _int_argument(n, "fftfreq", "n")
    if n < 1:
        raise ValueError(f"fftfreq: n must be positive but is {n}")
    return _frequencies(self, np.fft.fftfreq(n, d), dtype, "fftfreq")


@generic("as_tensor", "cast")
def rfftfreq(self: Any, n: int, d: float = 1.0, dtype: DType | None = None) -> Tensor:
    """Sample frequencies of `rfft` of `n` points with spacing `d`: `(n//2 + 1,)` non-negative values."""
    n = _int_argument(n, "rfftfreq", "n")
    if n < 1:
        raise ValueError(f"rfftfreq: n must be positive but is {n}")
    return _frequencies(self, np.fft.rfftfreq(n, d), dtype, "rfftfreq")


@generic("as_tensor", "staticshape", "concat", native=_INDEXING)
def fftshift(self: Any, x: Tensor, axes: Any = None) -> Tensor:
    """`x` rolled by half its length along `axes` (default: all), moving frequency 0 to the centre."""
    return _shift(self, x, axes, "fftshift", inverse=False)


@generic("as_tensor", "staticshape", "concat", native=_INDEXING)
def ifftshift(self: Any, x: Tensor, axes: Any = None) -> Tensor:
    """Inverse of `fftshift` (they differ for odd lengths)."""
    return _shift(self, x, axes, "ifftshift", inverse=True)


# ---------------------------------------------------------------- helpers of the defaults


def _int_argument(value: Any, op: str, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(f"{op}: {name} must be an int but got {type(value).__name__} {value!r}")
    return int(value)


def _matrices(backend: Backend, x: Any, op: str) -> tuple[Tensor, tuple[int, ...]]:
    check_tensor_argument(x, op)
    x = backend.as_tensor(x)
    shape = tuple(backend.staticshape(x))
    if len(shape) < 2:
        raise ShapeMismatchError(f"{op}: x must be a matrix or a stack of matrices (at least 2 dimensions) but has shape {shape}")
    return x, shape  # type: ignore[return-value]


def _rtol(backend: Backend, rtol: Any, shape: Sequence[int | None], dtype: DType) -> Any:
    """The relative cutoff of `pinv` and `matrix_rank`: `rtol`, or `max(m, n) * eps` of `dtype`; batch-shaped tensors get a trailing axis."""
    if rtol is None:
        eps = float(np.finfo(np.float64 if (real_dtype(dtype).bits or 32) >= 64 else np.float32).eps)
        return max(int(shape[-1] or 1), int(shape[-2] or 1)) * eps
    if isinstance(rtol, (int, float, np.number)):
        return float(rtol)
    rtol = backend.as_tensor(rtol)
    shape_: list[Any] = [*backend.staticshape(rtol), 1]
    return backend.reshape(rtol, shape_)


def _cross_axes(s1: Sequence[int | None], s2: Sequence[int | None], axis: Any, op: str) -> tuple[int, int]:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise ArgumentTypeError(f"{op}: axis must be an int but got {type(axis).__name__} {axis!r}")
    axis = int(axis)
    if not -min(len(s1), len(s2)) <= axis < 0:
        raise AxisError(f"{op}: axis must be negative and within the ranks {len(s1)} and {len(s2)} but is {axis}")
    if s1[axis] != 3 or s2[axis] != 3:
        raise ShapeMismatchError(f"{op}: x1 {tuple(s1)} and x2 {tuple(s2)} must both have 3 elements along axis {axis}")
    return len(s1) + axis, len(s2) + axis


def _fit_axis(backend: Backend, x: Tensor, axis: int, n: int) -> Tensor:
    """`x` trimmed or zero-padded to length `n` along `axis`."""
    size = int(backend.staticshape(x)[axis])  # type: ignore[arg-type]
    if size > n:
        return x[(*(slice(None),) * axis, slice(0, n), ...)]
    if size < n:
        widths = [[0, 0] for _ in backend.staticshape(x)]
        widths[axis][1] = n - size
        return backend.pad(x, widths)
    return x


def _fftn(backend: Backend, op: str, transform: Any, x: Any, s: Any, axes: Any, norm: str, inverse: bool) -> Tensor:
    check_fft_norm(norm, op)
    check_tensor_argument(x, op)
    x = backend.as_tensor(x)
    axes_, sizes = fft_sizes(backend.staticshape(x), s, axes, op)
    x = backend.to_complex(x)
    for axis, n in zip(axes_, sizes, strict=True):
        x = _fit_axis(backend, x, axis, n)
    if not axes_:
        return x
    result = transform(x, axes_)
    factor = _fft_factor(norm, sizes, inverse)
    return result if factor is None else backend.mul(result, factor)


def _real_operand(backend: Backend, x: Any, op: str) -> Tensor:
    check_tensor_argument(x, op)
    x = backend.as_tensor(x)
    dtype = backend.dtype(x)
    if dtype.kind is complex:
        raise ArgumentTypeError(f"{op}: x must be real but is {dtype}; use fftn for complex values")
    return x if dtype.kind is float else backend.cast(x, backend.float_type)


def _frequencies(backend: Backend, values: np.ndarray, dtype: DType | None, op: str) -> Tensor:
    if dtype is not None and dtype.kind is not float:
        raise ArgumentTypeError(f"{op}: dtype must be a real float type but got {dtype}")
    return backend.cast(backend.as_tensor(values), dtype or DType(float, get_precision() or 32))


def _shift(backend: Backend, x: Any, axes: Any, op: str, inverse: bool) -> Tensor:
    check_tensor_argument(x, op)
    x = backend.as_tensor(x)
    shape = tuple(backend.staticshape(x))
    chosen = normalize_axes(axes, len(shape), op)
    for axis in range(len(shape)) if chosen is None else chosen:
        n = int(shape[axis])  # type: ignore[arg-type]
        cut = n // 2 if inverse else n - n // 2
        if n > 1 and cut % n:
            before = (slice(None),) * axis
            x = backend.concat([x[(*before, slice(cut, None), ...)], x[(*before, slice(0, cut), ...)]], axis)
    return x
