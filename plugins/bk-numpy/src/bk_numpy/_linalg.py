"""Linear algebra, FFT, convolution and grid sampling (a mixin of `NumPyBackend`)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from bk import (
    combine_types,
    from_numpy_dtype,
    get_precision,
    normalize_axes,
    reraise_as,
    to_numpy_dtype,
)
from bk.rules import axes_tuple, compute_dtype, extrapolate_index, fft_sizes, matrix_operand, real_dtype

from ._dtypes import complex_dtype, float_dtype, to_precision
from ._errors import reraise

__all__ = ["LinalgMixin"]

Tensor = Any

_LETTERS: Final = "abcdefghijklmnopqrstuvwxyz"


def _as_float(x: Any) -> Any:
    x = np.asarray(x)
    return x.astype(float_dtype(get_precision())) if x.dtype.kind in "biu" else to_precision(x, get_precision())


def _complex_of(x: Any) -> np.dtype[Any]:
    """The complex type matching the float precision of `x` (or the current precision)."""
    precision = get_precision() or (x.dtype.itemsize * 8 // (2 if x.dtype.kind == "c" else 1) if x.dtype.kind in "fc" else None)
    return complex_dtype(precision)


# ---------------------------------------------------------------- the Array API standard's linalg and fft extensions


def _linalg_call(op: str, function: Any, *args: Any, **kwargs: Any) -> Any:
    """`function(*args, **kwargs)` with NumPy's `LinAlgError` (a singular or indefinite matrix) as a
    `ValueError` naming the bk operation (docs/semantics.md)."""
    try:
        return function(*args, **kwargs)
    except np.linalg.LinAlgError as error:
        reraise_as(ValueError, op, error)
    except ValueError as error:
        reraise(op, error)


class StandardLinalgKernels:
    """NumPy kernels of `bk._catalogue_linalg` (mixed into `LinalgMixin`)."""

    def cholesky(self, x: Tensor, upper: bool = False) -> Tensor:
        """Cholesky factors through `numpy.linalg.cholesky` (`ValueError` when not positive definite)."""
        x, dtype = matrix_operand(self, x, "cholesky", square=True)  # type: ignore[arg-type]
        return _linalg_call("cholesky", np.linalg.cholesky, x, upper=upper).astype(to_numpy_dtype(dtype), copy=False)

    def qr(self, x: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
        """`(Q, R)` through `numpy.linalg.qr`."""
        x, dtype = matrix_operand(self, x, "qr")  # type: ignore[arg-type]
        q, r = np.linalg.qr(x, mode=mode)
        return q.astype(to_numpy_dtype(dtype), copy=False), r.astype(to_numpy_dtype(dtype), copy=False)

    def eigh(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """`(eigenvalues, eigenvectors)` through `numpy.linalg.eigh` (lower triangle)."""
        x, dtype = matrix_operand(self, x, "eigh", square=True)  # type: ignore[arg-type]
        values, vectors = np.linalg.eigh(x)
        return values.astype(to_numpy_dtype(real_dtype(dtype)), copy=False), vectors.astype(to_numpy_dtype(dtype), copy=False)

    def eigvalsh(self, x: Tensor) -> Tensor:
        """Eigenvalues through `numpy.linalg.eigvalsh`."""
        x, dtype = matrix_operand(self, x, "eigvalsh", square=True)  # type: ignore[arg-type]
        return np.linalg.eigvalsh(x).astype(to_numpy_dtype(real_dtype(dtype)), copy=False)

    def svdvals(self, x: Tensor) -> Tensor:
        """Singular values through `numpy.linalg.svdvals`."""
        x, dtype = matrix_operand(self, x, "svdvals")  # type: ignore[arg-type]
        return np.linalg.svdvals(x).astype(to_numpy_dtype(real_dtype(dtype)), copy=False)

    def inv(self, x: Tensor) -> Tensor:
        """Inverses through `numpy.linalg.inv` (`ValueError` for singular matrices)."""
        x, dtype = matrix_operand(self, x, "inv", square=True)  # type: ignore[arg-type]
        return _linalg_call("inv", np.linalg.inv, x).astype(to_numpy_dtype(dtype), copy=False)

    def solve(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`numpy.linalg.solve`, with the standard's rule that only a 1-D `x2` is a vector."""
        x1, dtype1 = matrix_operand(self, x1, "solve", square=True, name="x1")  # type: ignore[arg-type]
        x2 = np.asarray(x2)
        dtype = to_numpy_dtype(combine_types(dtype1, compute_dtype(self, from_numpy_dtype(x2.dtype))[1], fp_precision=get_precision()))  # type: ignore[arg-type]
        work = np.result_type(x1.dtype, np.float32 if x2.dtype.kind in "biuf" and x2.dtype.itemsize < 4 else x2.dtype)
        vector = x2.ndim == 1
        rhs = x2[:, None] if vector else x2
        result = _linalg_call("solve", np.linalg.solve, x1.astype(work, copy=False), rhs.astype(work, copy=False))
        return (result[..., 0] if vector else result).astype(dtype, copy=False)

    def det(self, x: Tensor) -> Tensor:
        """Determinants through `numpy.linalg.det`."""
        x, dtype = matrix_operand(self, x, "det", square=True)  # type: ignore[arg-type]
        return np.asarray(np.linalg.det(x)).astype(to_numpy_dtype(dtype), copy=False)

    def slogdet(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """`(sign, logabsdet)` through `numpy.linalg.slogdet`."""
        x, dtype = matrix_operand(self, x, "slogdet", square=True)  # type: ignore[arg-type]
        sign, logabsdet = np.linalg.slogdet(x)
        return np.asarray(sign).astype(to_numpy_dtype(dtype), copy=False), np.asarray(logabsdet).astype(to_numpy_dtype(real_dtype(dtype)), copy=False)

    def vector_norm(self, x: Tensor, axis: Any = None, keepdims: bool = False, ord: float = 2) -> Tensor:
        """`numpy.linalg.vector_norm`, in the float type of docs/semantics.md."""
        x = np.asarray(self.as_tensor(x))  # type: ignore[attr-defined]
        axes = normalize_axes(axis, x.ndim, "vector_norm")
        compute, result = compute_dtype(self, from_numpy_dtype(x.dtype))  # type: ignore[arg-type]
        with np.errstate(divide="ignore"):
            value = _linalg_call("vector_norm", np.linalg.vector_norm, x.astype(to_numpy_dtype(compute), copy=False), axis=axes, keepdims=keepdims, ord=ord)
        return np.asarray(value).astype(to_numpy_dtype(real_dtype(result)), copy=False)

    def matrix_norm(self, x: Tensor, keepdims: bool = False, ord: Any = "fro") -> Tensor:
        """`numpy.linalg.matrix_norm`, in the float type of docs/semantics.md."""
        x, dtype = matrix_operand(self, x, "matrix_norm")  # type: ignore[arg-type]
        value = _linalg_call("matrix_norm", np.linalg.matrix_norm, x, keepdims=keepdims, ord=ord)
        return np.asarray(value).astype(to_numpy_dtype(real_dtype(dtype)), copy=False)

    def diagonal(self, x: Tensor, offset: int = 0) -> Tensor:
        """`numpy.linalg.diagonal` (a read-only view)."""
        x = np.asarray(self.as_tensor(x))  # type: ignore[attr-defined]
        return np.linalg.diagonal(x, offset=int(offset))

    def fftshift(self, x: Tensor, axes: Any = None) -> Tensor:
        """`numpy.fft.fftshift`."""
        x = np.asarray(self.as_tensor(x))  # type: ignore[attr-defined]
        chosen = normalize_axes(axes, x.ndim, "fftshift")
        return x if x.ndim == 0 or chosen == () else np.fft.fftshift(x, axes=chosen)

    def ifftshift(self, x: Tensor, axes: Any = None) -> Tensor:
        """`numpy.fft.ifftshift`."""
        x = np.asarray(self.as_tensor(x))  # type: ignore[attr-defined]
        chosen = normalize_axes(axes, x.ndim, "ifftshift")
        return x if x.ndim == 0 or chosen == () else np.fft.ifftshift(x, axes=chosen)

    def fftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        """`numpy.fft.fftn` in the complex type of `x`'s precision."""
        return _transform(self, "fftn", np.fft.fftn, x, s, axes, norm, "complex")

    def ifftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        """`numpy.fft.ifftn` in the complex type of `x`'s precision."""
        return _transform(self, "ifftn", np.fft.ifftn, x, s, axes, norm, "complex")

    def rfftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        """`numpy.fft.rfftn` of real values."""
        return _transform(self, "rfftn", np.fft.rfftn, x, s, axes, norm, "real")

    def irfftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        """`numpy.fft.irfftn`: real values of `x`'s precision."""
        return _transform(self, "irfftn", np.fft.irfftn, x, s, axes, norm, "inverse-real")


def _transform(backend: Any, op: str, function: Any, x: Any, s: Any, axes: Any, norm: str, kind: str) -> Any:
    """One NumPy FFT (the spec checked the arguments): `kind` is 'complex' (complex in and out), 'real'
    (real in, complex out) or 'inverse-real' (complex in, real out)."""
    x = np.asarray(backend.as_tensor(x))
    complex_type = _complex_of(x)
    x = x.astype(complex_type if kind != "real" else complex_type.char.lower(), copy=False)
    chosen, sizes = fft_sizes(x.shape, s, axes, op)
    if kind == "inverse-real":
        if not chosen:
            return x.real.copy()
        if s is None or tuple(s)[-1] == -1:
            sizes = (*sizes[:-1], 2 * (x.shape[chosen[-1]] - 1))
    elif not chosen:
        return x.astype(complex_type, copy=False)
    result = function(x, s=sizes, axes=chosen, norm=norm)
    return result.astype(complex_type if kind != "inverse-real" else complex_type.char.lower(), copy=False)


class LinalgMixin(StandardLinalgKernels):
    """Dense and sparse linear algebra through `numpy.linalg` and SciPy; FFT, conv, grid_sample."""

    # ------------------------------------------------------------ products

    def tensordot(self, a: Tensor, a_axes: Sequence[int], b: Tensor, b_axes: Sequence[int]) -> Tensor:
        """Multiplies and sums `a_axes` of `a` with `b_axes` of `b` (of the common type the plan casts them to)."""
        try:
            return np.tensordot(a, b, (axes_tuple(a_axes), axes_tuple(b_axes)))
        except (ValueError, IndexError) as error:
            reraise("tensordot", error)

    def einsum(self, equation: str, *tensors: Tensor) -> Tensor:
        """Einstein summation (`numpy.einsum`) in the common type of bk's promotion (float32 with int64 stays float32)."""
        arrays = [np.asarray(t) for t in tensors]
        if len({a.dtype for a in arrays}) > 1:
            common = to_numpy_dtype(combine_types(*[from_numpy_dtype(a.dtype) for a in arrays]))
            arrays = [a.astype(common, copy=False) for a in arrays]
        try:
            return np.einsum(equation, *arrays)
        except ValueError as error:
            reraise("einsum", error)

    def mul_matrix_batched_vector(self, A: Tensor, b: Tensor) -> Tensor:
        """`(rows, cols)` dense or SciPy sparse matrix times `(batch, cols)` vectors gives `(batch, rows)`."""
        b = np.asarray(b)
        if self.is_sparse(A):  # type: ignore[attr-defined]
            if b.shape[0] == 1:  # SciPy's matrix-vector kernel is much faster than its matrix-matrix one
                return np.asarray(A @ b[0])[None]
            return np.asarray(A @ b.T).T
        return b @ np.asarray(A).T  # dense: the plan has cast both to their common type

    # ------------------------------------------------------------ solving and decompositions

    def matrix_solve_least_squares(self, matrix: Tensor, rhs: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Least-squares solutions of `(batch, vec, constraints)` systems for `(batch, vec, k)` right sides.

        Returns:
            `(solution (batch, constraints, k), residuals (batch, k), rank (batch,), singular_values (batch, min))`,
            computed for the whole batch at once through the pseudo-inverse.
        """
        solution = np.linalg.pinv(matrix) @ rhs  # the plan gives both in their common float type
        residuals = np.sum(np.abs(rhs - matrix @ solution) ** 2, axis=-2)
        rank = np.linalg.matrix_rank(matrix)
        singular_values = np.linalg.svd(matrix, compute_uv=False)
        return solution, residuals, rank, singular_values

    def solve_triangular_dense(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves `(batch, n, n)` triangular systems for `(batch, n)` right-hand sides (the plan gives both in their
        common float type); the other triangle is ignored."""
        triangle = np.tril(matrix) if lower else np.triu(matrix)
        if unit_diagonal:
            n = matrix.shape[-1]
            triangle = triangle.copy()
            triangle[..., np.arange(n), np.arange(n)] = 1
        return np.linalg.solve(triangle, rhs[..., None])[..., 0]

    def solve_triangular_sparse(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves a SciPy sparse triangular `(n, n)` system for `(batch, n)` right-hand sides."""
        from scipy.sparse import csr_array
        from scipy.sparse.linalg import spsolve_triangular

        rhs = np.asarray(rhs)
        # The plan cannot describe a sparse matrix (its spec takes dense templates), so it casts nothing here: the
        # dtypes combine by bk's rule of two tensors, and ints compute in the float type (`compute_dtype`).
        common = combine_types(from_numpy_dtype(matrix.dtype), from_numpy_dtype(rhs.dtype), fp_precision=get_precision())
        compute, result_dtype = (to_numpy_dtype(d) for d in compute_dtype(self, common))  # type: ignore[arg-type]
        result = spsolve_triangular(
            csr_array(matrix).astype(compute), rhs.T.astype(compute), lower=lower, unit_diagonal=unit_diagonal
        )
        return np.asarray(result).T.astype(result_dtype, copy=False)

    def matrix_rank_dense(self, matrix: Tensor, hermitian: bool = False) -> Tensor:
        """Ranks of `(batch, rows, cols)` matrices."""
        return np.linalg.matrix_rank(np.asarray(matrix), hermitian=hermitian)

    def eigvals(self, matrix: Tensor) -> Tensor:
        """Eigenvalues of `(batch..., n, n)` matrices, always complex (NumPy returns reals when it can); half precision
        is computed in float32 (complex64 results)."""
        matrix = _single_if_half(_as_float(matrix))
        return np.linalg.eigvals(matrix).astype(_complex_of(matrix), copy=False)

    def eig(self, matrix: Tensor) -> tuple[Tensor, Tensor]:
        """Eigenvalues `(batch..., n)` and eigenvectors `(batch..., n, n)` (columns), always complex; half precision is
        computed in float32 (complex64 results)."""
        matrix = _single_if_half(_as_float(matrix))
        values, vectors = np.linalg.eig(matrix)
        dtype = _complex_of(matrix)
        return values.astype(dtype, copy=False), vectors.astype(dtype, copy=False)

    def svd(self, matrix: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
        """`(U, S, Vh)` of `(batch..., m, n)` matrices (half precision computed in float32 and cast back)."""
        matrix = _as_float(matrix)
        u, s, vh = np.linalg.svd(_single_if_half(matrix), full_matrices=full_matrices)
        if matrix.dtype.itemsize == 2:  # float16, bfloat16
            return u.astype(matrix.dtype), s.astype(matrix.dtype), vh.astype(matrix.dtype)
        return u, s, vh

    def get_diagonal(self, matrices: Tensor, offset: int = 0) -> Tensor:
        """Diagonals of `(batch, rows, cols, channels)` matrices as `(batch, diagonal, channels)`."""
        return np.moveaxis(np.diagonal(np.asarray(matrices), offset=offset, axis1=1, axis2=2), -1, 1)

    # ------------------------------------------------------------ FFT

    def fft(self, x: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional FFT over `axes`, as complex values of the input's precision."""
        x = np.asarray(x)
        x = x.astype(_complex_of(x), copy=False)
        axes = tuple(axes)
        if not axes:
            return x
        return np.fft.fftn(x, axes=axes).astype(x.dtype, copy=False)

    def ifft(self, k: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional inverse FFT over `axes`, as complex values of the input's precision."""
        k = np.asarray(k)
        k = k.astype(_complex_of(k), copy=False)
        axes = tuple(axes)
        if not axes:
            return k
        return np.fft.ifftn(k, axes=axes).astype(k.dtype, copy=False)

    # ------------------------------------------------------------ convolution and sampling

    def conv(self, value: Tensor, kernel: Tensor, zero_padding: bool = True) -> Tensor:
        """Cross-correlation of `(batch, in, spatial...)` with `(batch or 1, out, in, kernel...)` kernels.

        Computed as one `einsum` over sliding windows (im2col), for any number of spatial
        dimensions. The kernel is not conjugated for complex values.
        """
        value, kernel = np.asarray(value), np.asarray(kernel)  # of one dtype: the plan casts them to their common type
        if value.dtype.kind == "b":  # NumPy's einsum of bools is logical (an or of ands): counted in the spec's int32
            value, kernel = value.astype(np.int32), kernel.astype(np.int32)
        spatial = value.ndim - 2
        sizes = kernel.shape[3:]
        if zero_padding:  # 'same' output, aligned as scipy.signal.correlate(mode='same')
            value = np.pad(value, [(0, 0), (0, 0), *[(k // 2, (k - 1) // 2) for k in sizes]])
        windows = sliding_window_view(value, sizes, axis=tuple(range(2, 2 + spatial)))
        x_letters = _LETTERS[3 : 3 + spatial]
        k_letters = _LETTERS[3 + spatial : 3 + 2 * spatial]
        kernel_batch = "a" if kernel.shape[0] > 1 else ""
        kernel = kernel if kernel.shape[0] > 1 else kernel[0]
        equation = f"ac{x_letters}{k_letters},{kernel_batch}bc{k_letters}->ab{x_letters}"
        return np.einsum(equation, windows, kernel, optimize=True)

    def grid_sample(self, grid: Tensor, coordinates: Tensor, extrapolation: str) -> Tensor:
        """Linear interpolation of `(batch, spatial..., channels)` at `(batch, instance..., ndims)` index coordinates.

        Outside the grid, 'zeros' gives zeros, 'boundary' (and 'undefined') the edge values, and
        'periodic', 'symmetric' and 'reflect' the values of the grid padded by `pad` in that mode.
        """
        grid, coordinates = np.asarray(grid), np.asarray(coordinates)
        if grid.dtype.kind in "biu":
            grid = grid.astype(float_dtype(get_precision()))
        spatial = grid.shape[1:-1]
        batch = max(grid.shape[0], coordinates.shape[0])
        rows: Any = np.arange(batch).reshape((batch,) + (1,) * (coordinates.ndim - 2)) if grid.shape[0] > 1 else 0
        coordinates = coordinates.astype(np.result_type(coordinates.dtype, np.float32), copy=False)
        lower = np.floor(coordinates)
        fraction = (coordinates - lower).astype(grid.dtype if grid.dtype.kind == "f" else coordinates.dtype, copy=False)
        lower = lower.astype(np.int64)
        result = 0
        for corner in itertools.product((0, 1), repeat=len(spatial)):  # 2^d corners, each vectorised
            weight = 1
            indices = []
            for d, (offset, size) in enumerate(zip(corner, spatial, strict=True)):
                index, inside = extrapolate_index(self, lower[..., d] + offset, size, extrapolation)
                weight = weight * (fraction[..., d] if offset else 1 - fraction[..., d])
                if extrapolation == "zeros":
                    weight = weight * inside
                indices.append(index)
            result = result + weight[..., None] * grid[(rows, *indices)]
        return np.asarray(result).astype(grid.dtype, copy=False)



def _single_if_half(matrix: Any) -> Any:
    """float16 and bfloat16 as float32 (LAPACK has no half precision); other dtypes unchanged."""
    return matrix.astype(np.float32) if matrix.dtype.itemsize == 2 and matrix.dtype.kind in "fV" else matrix
