"""Linear algebra, FFT, convolution and grid sampling (a mixin of `NumPyBackend`)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from bk import get_precision
from bk._axes import normalize_axes

from ._dtypes import binary_dtype, complex_dtype, float_dtype, to_precision
from ._errors import reraise

__all__ = ["LinalgMixin"]

Tensor = Any

_EXTRAPOLATIONS: Final = ("undefined", "zeros", "boundary", "periodic", "symmetric", "reflect")
_LETTERS: Final = "abcdefghijklmnopqrstuvwxyz"


def _float_pair(a: Any, b: Any) -> tuple[Any, Any]:
    """`a` and `b` as arrays of their common float (or complex) type."""
    dtype = binary_dtype(a, b)
    if dtype.kind in "biu":
        dtype = float_dtype(get_precision())
    return np.asarray(a, dtype), np.asarray(b, dtype)


def _as_float(x: Any) -> Any:
    x = np.asarray(x)
    return x.astype(float_dtype(get_precision())) if x.dtype.kind in "biu" else to_precision(x, get_precision())


def _complex_of(x: Any) -> np.dtype[Any]:
    """The complex type matching the float precision of `x` (or the current precision)."""
    precision = get_precision() or (x.dtype.itemsize * 8 // (2 if x.dtype.kind == "c" else 1) if x.dtype.kind in "fc" else None)
    return complex_dtype(precision)


def _map_index(index: Any, size: int, mode: str) -> tuple[Any, Any]:
    """Integer grid indices mapped into `[0, size)` by the extrapolation mode, and which were inside."""
    inside = (index >= 0) & (index < size)
    if mode == "periodic":
        return index % size, inside
    if mode == "symmetric":
        index = index % (2 * size)
        return np.where(index >= size, 2 * size - 1 - index, index), inside
    if mode == "reflect" and size > 1:
        index = index % (2 * size - 2)
        return np.where(index >= size, 2 * size - 2 - index, index), inside
    return np.clip(index, 0, size - 1), inside  # 'boundary', 'zeros' (masked later), 'undefined'


class LinalgMixin:
    """Dense and sparse linear algebra through `numpy.linalg` and SciPy; FFT, conv, grid_sample."""

    # ------------------------------------------------------------ products

    def tensordot(self, a: Tensor, a_axes: Sequence[int], b: Tensor, b_axes: Sequence[int]) -> Tensor:
        """Multiplies and sums `a_axes` of `a` with `b_axes` of `b`."""
        dtype = binary_dtype(a, b)
        try:
            return np.tensordot(np.asarray(a, dtype), np.asarray(b, dtype), (tuple(a_axes), tuple(b_axes)))
        except (ValueError, IndexError) as error:
            reraise("tensordot", error)

    def einsum(self, equation: str, *tensors: Tensor) -> Tensor:
        """Einstein summation (`numpy.einsum`)."""
        try:
            return np.einsum(equation, *tensors)
        except ValueError as error:
            reraise("einsum", error)

    def mul_matrix_batched_vector(self, A: Tensor, b: Tensor) -> Tensor:
        """`(rows, cols)` dense or SciPy sparse matrix times `(batch, cols)` vectors gives `(batch, rows)`."""
        b = np.asarray(b)
        if self.is_sparse(A):  # type: ignore[attr-defined]
            if b.shape[0] == 1:  # SciPy's matrix-vector kernel is much faster than its matrix-matrix one
                return np.asarray(A @ b[0])[None]
            return np.asarray(A @ b.T).T
        dtype = binary_dtype(A, b)
        return np.asarray(b, dtype) @ np.asarray(A, dtype).T

    # ------------------------------------------------------------ solving and decompositions

    def matrix_solve_least_squares(self, matrix: Tensor, rhs: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Least-squares solutions of `(batch, vec, constraints)` systems for `(batch, vec, k)` right sides.

        Returns:
            `(solution (batch, constraints, k), residuals (batch, k), rank (batch,), singular_values (batch, min))`,
            computed for the whole batch at once through the pseudo-inverse.
        """
        matrix, rhs = _float_pair(matrix, rhs)
        solution = np.linalg.pinv(matrix) @ rhs
        residuals = np.sum(np.abs(rhs - matrix @ solution) ** 2, axis=-2)
        rank = np.linalg.matrix_rank(matrix)
        singular_values = np.linalg.svd(matrix, compute_uv=False)
        return solution, residuals, rank, singular_values

    def solve_triangular_dense(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves `(batch, n, n)` triangular systems for `(batch, n)` right-hand sides; the other triangle is ignored."""
        matrix, rhs = _float_pair(matrix, rhs)
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
        dtype = binary_dtype(matrix, rhs)
        if dtype.kind in "biu":
            dtype = float_dtype(get_precision())
        result = spsolve_triangular(
            csr_array(matrix).astype(dtype), rhs.T.astype(dtype), lower=lower, unit_diagonal=unit_diagonal
        )
        return np.asarray(result).T.astype(dtype, copy=False)

    def matrix_rank_dense(self, matrix: Tensor, hermitian: bool = False) -> Tensor:
        """Ranks of `(batch, rows, cols)` matrices."""
        return np.linalg.matrix_rank(np.asarray(matrix), hermitian=hermitian)

    def eigvals(self, matrix: Tensor) -> Tensor:
        """Eigenvalues of `(batch..., n, n)` matrices, always complex (NumPy returns reals when it can)."""
        matrix = _as_float(matrix)
        return np.linalg.eigvals(matrix).astype(_complex_of(matrix), copy=False)

    def eig(self, matrix: Tensor) -> tuple[Tensor, Tensor]:
        """Eigenvalues `(batch..., n)` and eigenvectors `(batch..., n, n)` (columns), always complex."""
        matrix = _as_float(matrix)
        values, vectors = np.linalg.eig(matrix)
        dtype = _complex_of(matrix)
        return values.astype(dtype, copy=False), vectors.astype(dtype, copy=False)

    def svd(self, matrix: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
        """`(U, S, Vh)` of `(batch..., m, n)` matrices."""
        u, s, vh = np.linalg.svd(_as_float(matrix), full_matrices=full_matrices)
        return u, s, vh

    def get_diagonal(self, matrices: Tensor, offset: int = 0) -> Tensor:
        """Diagonals of `(batch, rows, cols, channels)` matrices as `(batch, diagonal, channels)`."""
        return np.moveaxis(np.diagonal(np.asarray(matrices), offset=offset, axis1=1, axis2=2), -1, 1)

    # ------------------------------------------------------------ FFT

    def fft(self, x: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional FFT over `axes`, as complex values of the input's precision."""
        x = np.asarray(x)
        x = x.astype(_complex_of(x), copy=False)
        axes = normalize_axes(tuple(axes), x.ndim, "fft")
        if not axes:
            return x
        return np.fft.fftn(x, axes=axes).astype(x.dtype, copy=False)

    def ifft(self, k: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional inverse FFT over `axes`, as complex values of the input's precision."""
        k = np.asarray(k)
        k = k.astype(_complex_of(k), copy=False)
        axes = normalize_axes(tuple(axes), k.ndim, "ifft")
        if not axes:
            return k
        return np.fft.ifftn(k, axes=axes).astype(k.dtype, copy=False)

    # ------------------------------------------------------------ convolution and sampling

    def conv(self, value: Tensor, kernel: Tensor, zero_padding: bool = True) -> Tensor:
        """Cross-correlation of `(batch, in, spatial...)` with `(batch or 1, out, in, kernel...)` kernels.

        Computed as one `einsum` over sliding windows (im2col), for any number of spatial
        dimensions. The kernel is not conjugated for complex values.

        Raises:
            ValueError: if the shapes do not fit together.
        """
        value, kernel = np.asarray(value), np.asarray(kernel)
        dtype = binary_dtype(value, kernel)
        if dtype.kind == "b":
            dtype = np.dtype(np.int32)
        value, kernel = value.astype(dtype, copy=False), kernel.astype(dtype, copy=False)
        spatial = value.ndim - 2
        if kernel.ndim != value.ndim + 1 or kernel.shape[2] != value.shape[1] or kernel.shape[0] not in (1, value.shape[0]):
            raise ValueError(
                f"conv() needs value (batch, in, spatial...) and kernel (batch or 1, out, in, kernel...) but got {value.shape} and {kernel.shape}"
            )
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
        Returns `NotImplemented` for another extrapolation.
        """
        if extrapolation not in _EXTRAPOLATIONS:
            return NotImplemented
        grid, coordinates = np.asarray(grid), np.asarray(coordinates)
        if grid.dtype.kind in "biu":
            grid = grid.astype(float_dtype(get_precision()))
        spatial = grid.shape[1:-1]
        if coordinates.shape[-1] != len(spatial):
            raise ValueError(
                f"coordinates must have {len(spatial)} components for a grid of shape {grid.shape} but have {coordinates.shape[-1]}"
            )
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
                index, inside = _map_index(lower[..., d] + offset, size, extrapolation)
                weight = weight * (fraction[..., d] if offset else 1 - fraction[..., d])
                if extrapolation == "zeros":
                    weight = weight * inside
                indices.append(index)
            result = result + weight[..., None] * grid[(rows, *indices)]
        return np.asarray(result).astype(grid.dtype, copy=False)
