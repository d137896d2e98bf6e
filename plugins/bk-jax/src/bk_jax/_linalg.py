"""Linear algebra, FFT, convolution and grid sampling on `jax.numpy`, `jax.lax` and `jax.scipy`."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.sparse import JAXSparse

from bk import ShapeMismatchError
from bk._axes import normalize_axes

from ._dtypes import x64_enabled
from ._math import is_inexact

Tensor = Any

_EXTRAPOLATIONS: Final = ("undefined", "zeros", "boundary", "periodic", "symmetric", "reflect")


class LinalgMixin:
    """Linear algebra, FFT, convolution and grid sampling of `JaxBackend`."""

    _t: Callable[[Any], Any]

    # ------------------------------------------------------------ linear algebra

    def tensordot(self, a: Tensor, a_axes: Sequence[int], b: Tensor, b_axes: Sequence[int]) -> Tensor:
        a, b = self.auto_cast(self._t(a), self._t(b))  # type: ignore[attr-defined]
        return jnp.tensordot(a, b, (tuple(a_axes), tuple(b_axes)))

    def einsum(self, equation: str, *tensors: Tensor) -> Tensor:
        return jnp.einsum(equation, *self.auto_cast(*[self._t(t) for t in tensors]))  # type: ignore[attr-defined]

    def mul_matrix_batched_vector(self, A: Tensor, b: Tensor) -> Tensor:
        """`(rows, cols)` dense or sparse (BCOO, BCSR, CSC) matrix times `(batch, cols)` vectors.

        A dense `(batch, rows, cols)` stack multiplies one matrix per batch entry.
        """
        if isinstance(A, JAXSparse):
            return self._sparse_matvec(A, self._t(b))  # type: ignore[attr-defined]
        A, b = self.auto_cast(self._t(A), self._t(b))  # type: ignore[attr-defined]
        if A.ndim == 3:
            return jnp.einsum("brc,bc->br", A, b)
        return b @ A.T

    def _float_args(self, *tensors: Tensor) -> list[Tensor]:
        return self.auto_cast(*[self._t(t) for t in tensors], int_to_float=True, bool_to_int=True)  # type: ignore[attr-defined, no-any-return]

    def matrix_solve_least_squares(self, matrix: Tensor, rhs: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Least squares per batch entry with `jnp.linalg.lstsq` (SVD based): solution, residuals, rank, singular values."""
        matrix, rhs = self._float_args(matrix, rhs)
        solution, residuals, rank, singular_values = jax.vmap(jnp.linalg.lstsq)(matrix, rhs)
        return solution, residuals, rank, singular_values

    def solve_triangular_dense(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves `(batch, n, n)` triangular systems for `(batch, n)` vectors or `(batch, n, k)` matrices."""
        matrix, rhs = self._float_args(matrix, rhs)
        vector = rhs.ndim == matrix.ndim - 1
        solution = jax.lax.linalg.triangular_solve(
            matrix, rhs[..., None] if vector else rhs, left_side=True, lower=lower, unit_diagonal=unit_diagonal
        )
        return solution[..., 0] if vector else solution

    def matrix_rank_dense(self, matrix: Tensor, hermitian: bool = False) -> Tensor:
        """Ranks of `(batch, rows, cols)` matrices: singular values above `max(rows, cols) * eps * largest`."""
        (matrix,) = self._float_args(matrix)
        return jnp.linalg.matrix_rank(matrix, hermitian=hermitian)

    def eigvals(self, matrix: Tensor) -> Tensor:
        """Eigenvalues, always complex (as `jnp.linalg.eigvals`; computed on the CPU)."""
        (matrix,) = self._float_args(matrix)
        return jnp.linalg.eigvals(matrix)

    def eig(self, matrix: Tensor) -> tuple[Tensor, Tensor]:
        """Complex eigenvalues and eigenvectors (columns, unit norm); computed on the CPU, as JAX does."""
        (matrix,) = self._float_args(matrix)
        values, vectors = jnp.linalg.eig(matrix)
        return values, vectors

    def svd(self, matrix: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
        (matrix,) = self._float_args(matrix)
        u, s, vh = jnp.linalg.svd(matrix, full_matrices=full_matrices)
        return u, s, vh

    # ------------------------------------------------------------ FFT, convolution, sampling

    def fft(self, x: Tensor, axes: Sequence[int]) -> Tensor:
        x = self.to_complex(x)  # type: ignore[attr-defined]
        axes = normalize_axes(tuple(axes), x.ndim, "fft")
        return jnp.fft.fftn(x, axes=axes).astype(x.dtype) if axes else x

    def ifft(self, k: Tensor, axes: Sequence[int]) -> Tensor:
        k = self.to_complex(k)  # type: ignore[attr-defined]
        axes = normalize_axes(tuple(axes), k.ndim, "ifft")
        return jnp.fft.ifftn(k, axes=axes).astype(k.dtype) if axes else k

    def conv(self, value: Tensor, kernel: Tensor, zero_padding: bool = True) -> Tensor:
        """Cross-correlation with `lax.conv_general_dilated`, any number of spatial dimensions; 'same'
        output is centred like SciPy. One kernel per batch entry runs as a grouped convolution.

        Raises:
            ValueError: for mismatching ranks, channels or batch sizes.
        """
        value, kernel = self.auto_cast(self._t(value), self._t(kernel), bool_to_int=True)  # type: ignore[attr-defined]
        if kernel.ndim != value.ndim + 1 or value.ndim < 3:
            raise ShapeMismatchError(
                f"conv needs (batch, in, spatial...) values and (batch, out, in, kernel...) kernels, got {value.shape} and {kernel.shape}"
            )
        if kernel.shape[2] != value.shape[1] or kernel.shape[0] not in (1, value.shape[0]):
            raise ShapeMismatchError(f"kernel {kernel.shape} does not fit values {value.shape}: in-channels and batch (or 1) must match")
        spatial = kernel.shape[3:]
        padding = [(k // 2, k - 1 - k // 2) for k in spatial] if zero_padding else [(0, 0)] * len(spatial)
        if kernel.shape[0] == 1:
            return _correlate(value, kernel[0], padding, groups=1)
        batch, out_channels = value.shape[0], kernel.shape[1]
        folded = value.reshape(1, -1, *value.shape[2:])
        result = _correlate(folded, kernel.reshape(batch * out_channels, *kernel.shape[2:]), padding, groups=batch)
        return result.reshape(batch, out_channels, *result.shape[2:])

    def grid_sample(self, grid: Tensor, coordinates: Tensor, extrapolation: str) -> Tensor:
        """Multilinear interpolation of `(batch, spatial..., channels)` at index coordinates, any number of dims.

        Raises:
            ValueError: for an unknown extrapolation or mismatching shapes.
        """
        if extrapolation not in _EXTRAPOLATIONS:
            raise ValueError(f"extrapolation must be one of {_EXTRAPOLATIONS} but got {extrapolation!r}")
        grid, coordinates = self._t(grid), self._t(coordinates)
        coordinates = coordinates if is_inexact(coordinates) else self.to_float(coordinates)  # type: ignore[attr-defined]
        spatial = grid.shape[1:-1]
        if coordinates.shape[-1] != len(spatial):
            raise ShapeMismatchError(
                f"coordinates need {len(spatial)} components for a grid of shape {grid.shape} but have {coordinates.shape[-1]}"
            )
        lower = jnp.floor(coordinates)
        fraction = coordinates - lower
        lower = lower.astype(np.int32)
        result = 0
        for corner in itertools.product((0, 1), repeat=len(spatial)):
            index, weight, inside = [], 1, None
            for d, (offset, size) in enumerate(zip(corner, spatial, strict=True)):
                i = lower[..., d] + offset
                weight = weight * (fraction[..., d] if offset else 1 - fraction[..., d])
                if extrapolation == "zeros":
                    valid = (i >= 0) & (i < size)
                    inside = valid if inside is None else inside & valid
                index.append(_extrapolate_index(i, size, extrapolation))
            values = self.batched_gather_nd(grid, jnp.stack(index, -1))  # type: ignore[attr-defined]
            if inside is not None:
                values = jnp.where(inside[..., None], values, 0)
            result = result + weight[..., None].astype(values.dtype if jnp.iscomplexobj(values) else weight.dtype) * values
        return result


def _correlate(value: Tensor, kernel: Tensor, padding: list[tuple[int, int]], groups: int) -> Tensor:
    """`lax.conv_general_dilated` (a cross-correlation) of `(n, in, spatial...)` with `(out, in / groups, k...)`.

    Integer inputs are computed in float64 where x64 is on (exact below 2**53), else float32, and
    rounded back.
    """
    integer = not is_inexact(value)
    original = value.dtype
    if integer:
        wide = np.float64 if x64_enabled() else np.float32
        value, kernel = value.astype(wide), kernel.astype(wide)
    result = jax.lax.conv_general_dilated(
        value,
        kernel,
        window_strides=(1,) * len(padding),
        padding=padding,
        feature_group_count=groups,
        precision=jax.lax.Precision.HIGHEST,
    )
    return jnp.round(result).astype(original) if integer else result


def _extrapolate_index(i: Tensor, size: int, extrapolation: str) -> Tensor:
    if extrapolation == "periodic":
        return jnp.remainder(i, size)
    if extrapolation == "symmetric":
        i = jnp.remainder(i, 2 * size)
        return jnp.where(i < size, i, 2 * size - 1 - i)
    if extrapolation == "reflect" and size > 1:
        i = jnp.remainder(i, 2 * (size - 1))
        return jnp.where(i < size, i, 2 * (size - 1) - i)
    return jnp.clip(i, 0, size - 1)  # boundary, undefined, and zeros (masked by the caller)
