"""Linear algebra, FFT, convolution and grid sampling on `jax.numpy`, `jax.lax` and `jax.scipy`."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.sparse import JAXSparse

from bk import (
    DType,
    combine_types,
    get_precision,
    normalize_axes,
)
from bk.rules import (
    axes_tuple,
    compute_dtype,
    extrapolate_index,
    fft_sizes,
    matrix_operand,
    real_dtype,
)

from ._dtypes import from_jax_dtype, to_jax_dtype, x64_enabled
from ._math import is_inexact

Tensor = Any


# ---------------------------------------------------------------- the Array API standard's linalg and fft extensions


class StandardLinalgKernels:
    """`jax.numpy.linalg` and `jax.numpy.fft` kernels of `bk._catalogue_linalg` (bases of `LinalgMixin`).

    JAX never raises for a singular (`inv`, `solve`) or indefinite (`cholesky`) matrix: it returns
    infinities or NaN. Outside `jit_compile` bk-jax checks the result and raises `ValueError` as
    NumPy does (one reduction); under tracing the non-finite values are the result.
    """

    def _matrix(self, x: Tensor, op: str, square: bool = False, name: str = "x") -> tuple[Tensor, Any]:
        x, dtype = matrix_operand(self, x, op, square, name)  # type: ignore[arg-type]
        return x, to_jax_dtype(dtype)

    def _finite(self, op: str, problem: str, result: Tensor, *inputs: Tensor) -> Tensor:
        """`result`, or `ValueError(problem)` when it holds non-finite values that the finite inputs do not explain."""
        if not self.is_available(result):  # type: ignore[attr-defined]
            return result
        if not bool(jnp.all(jnp.isfinite(result))) and all(bool(jnp.all(jnp.isfinite(i))) for i in inputs):
            raise ValueError(f"{op}: {problem}")
        return result

    def cholesky(self, x: Tensor, upper: bool = False) -> Tensor:
        x, dtype = self._matrix(x, "cholesky", square=True)
        factor = jnp.linalg.cholesky(x, upper=upper, symmetrize_input=False)
        return self._finite("cholesky", "the matrix is not positive definite", factor, x).astype(dtype)

    def qr(self, x: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "qr")
        q, r = jnp.linalg.qr(x, mode=mode)
        return q.astype(dtype), r.astype(dtype)

    def eigh(self, x: Tensor) -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "eigh", square=True)
        values, vectors = jnp.linalg.eigh(x, UPLO="L", symmetrize_input=False)
        return values.astype(_real_jax(dtype)), vectors.astype(dtype)

    def eigvalsh(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "eigvalsh", square=True)
        return jnp.linalg.eigvalsh(x, UPLO="L", symmetrize_input=False).astype(_real_jax(dtype))

    def svdvals(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "svdvals")
        return jnp.linalg.svdvals(x).astype(_real_jax(dtype))

    def inv(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "inv", square=True)
        return self._finite("inv", "the matrix is singular", jnp.linalg.inv(x), x).astype(dtype)

    def solve(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`jax.numpy.linalg.solve` with the standard's rule: only a 1-D `x2` is a vector; matrix right
        sides are broadcast against `x1`'s batch explicitly."""
        x1, dtype1 = self._matrix(x1, "solve", square=True, name="x1")
        x2 = self._t(x2)
        result_type = to_jax_dtype(combine_types(from_jax_dtype(dtype1), compute_dtype(self, from_jax_dtype(x2.dtype))[1], fp_precision=get_precision()))  # type: ignore[arg-type]
        n = x1.shape[-1]
        work = jnp.promote_types(x1.dtype, x2.dtype if jnp.issubdtype(x2.dtype, jnp.inexact) and jnp.dtype(x2.dtype).itemsize >= 4 else x1.dtype)
        a, b = x1.astype(work), x2.astype(work)
        if x2.ndim == 1:
            result = jnp.linalg.solve(a, jnp.broadcast_to(b[:, None], (*a.shape[:-2], n, 1)))[..., 0]
        else:
            batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
            result = jnp.linalg.solve(jnp.broadcast_to(a, (*batch, n, n)), jnp.broadcast_to(b, (*batch, *b.shape[-2:])))
        return self._finite("solve", "the matrix is singular", result, a, b).astype(result_type)

    def det(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "det", square=True)
        return jnp.linalg.det(x).astype(dtype)

    def slogdet(self, x: Tensor) -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "slogdet", square=True)
        sign, logabsdet = jnp.linalg.slogdet(x)
        return sign.astype(dtype), logabsdet.astype(_real_jax(dtype))

    def vector_norm(self, x: Tensor, axis: Any = None, keepdims: bool = False, ord: float = 2) -> Tensor:
        x = self._t(x)
        axes = normalize_axes(axis, x.ndim, "vector_norm")
        compute, result = compute_dtype(self, from_jax_dtype(x.dtype))  # type: ignore[arg-type]
        value = jnp.linalg.vector_norm(x.astype(to_jax_dtype(compute)), axis=axes, keepdims=keepdims, ord=ord)
        return value.astype(to_jax_dtype(real_dtype(result)))

    def matrix_norm(self, x: Tensor, keepdims: bool = False, ord: Any = "fro") -> Tensor:
        x, dtype = self._matrix(x, "matrix_norm")
        if 0 in x.shape[-2:]:  # as NumPy: 0 (the spec refuses the minimum of nothing)
            return jnp.zeros((*x.shape[:-2], *((1, 1) if keepdims else ())), _real_jax(dtype))
        return jnp.linalg.matrix_norm(x, keepdims=keepdims, ord=ord).astype(_real_jax(dtype))

    def diagonal(self, x: Tensor, offset: int = 0) -> Tensor:
        """`jax.numpy.linalg.diagonal`."""
        return jnp.linalg.diagonal(self._t(x), offset=offset)

    def fftshift(self, x: Tensor, axes: Any = None) -> Tensor:
        x = self._t(x)
        chosen = normalize_axes(axes, x.ndim, "fftshift")
        return x if x.ndim == 0 or chosen == () else jnp.fft.fftshift(x, axes=chosen)

    def ifftshift(self, x: Tensor, axes: Any = None) -> Tensor:
        x = self._t(x)
        chosen = normalize_axes(axes, x.ndim, "ifftshift")
        return x if x.ndim == 0 or chosen == () else jnp.fft.ifftshift(x, axes=chosen)

    def fftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        return self._transform("fftn", jnp.fft.fftn, x, s, axes, norm, "complex")

    def ifftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        return self._transform("ifftn", jnp.fft.ifftn, x, s, axes, norm, "complex")

    def rfftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        return self._transform("rfftn", jnp.fft.rfftn, x, s, axes, norm, "real")

    def irfftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        return self._transform("irfftn", jnp.fft.irfftn, x, s, axes, norm, "inverse-real")

    def _transform(self, op: str, function: Callable[..., Any], x: Tensor, s: Any, axes: Any, norm: str, kind: str) -> Tensor:
        """One `jax.numpy.fft` transform: `kind` is 'complex', 'real' (real in) or 'inverse-real' (real out)."""
        x = self._t(x)
        complex_type = to_jax_dtype(_complex_dtype(from_jax_dtype(x.dtype)))
        x = x.astype(_real_jax(complex_type) if kind == "real" else complex_type)
        chosen, sizes = fft_sizes(tuple(x.shape), s, axes, op)
        if kind == "inverse-real":
            if not chosen:
                return jnp.real(x)
            if s is None or tuple(s)[-1] == -1:
                sizes = (*sizes[:-1], 2 * (x.shape[chosen[-1]] - 1))
        elif not chosen:
            return x.astype(complex_type)
        result = function(x, s=sizes, axes=chosen, norm=norm)
        return result.astype(complex_type if kind != "inverse-real" else _real_jax(complex_type))


def _complex_dtype(dtype: DType) -> DType:
    """The complex type of the transforms of `dtype` values: of the precision when one is set."""
    precision = get_precision()
    if precision:
        return DType(complex, 2 * max(precision, 32))
    wide = (dtype.kind is float and (dtype.bits or 0) >= 64) or (dtype.kind is complex and (dtype.bits or 0) >= 128)
    return DType(complex, 128) if wide else DType(complex, 64)


def _real_jax(dtype: Any) -> Any:
    return jnp.finfo(dtype).dtype if jnp.issubdtype(dtype, jnp.complexfloating) else dtype


class LinalgMixin(StandardLinalgKernels):
    """Linear algebra, FFT, convolution and grid sampling of `JaxBackend`."""

    _t: Callable[[Any], Any]

    # ------------------------------------------------------------ linear algebra

    def tensordot(self, a: Tensor, a_axes: Sequence[int], b: Tensor, b_axes: Sequence[int]) -> Tensor:
        a, b = self.auto_cast(self._t(a), self._t(b))  # type: ignore[attr-defined]
        return jnp.tensordot(a, b, (axes_tuple(a_axes), axes_tuple(b_axes)))

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
        """The operands of a decomposition in the float or complex type of the precision (ints and bools: the
        float type): the plan casts mixed operands to their common type, but leaves operands of one dtype as
        they are, even under a precision."""
        tensors = tuple(self._t(t) for t in tensors)
        return [self.to_complex(t) if t.dtype.kind == "c" else self.to_float(t) for t in tensors]  # type: ignore[attr-defined]

    def matrix_solve_least_squares(self, matrix: Tensor, rhs: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Least squares per batch entry with `jnp.linalg.lstsq` (SVD based): solution, residuals, rank, singular values."""
        matrix, rhs = self._float_args(matrix, rhs)
        count = matrix.shape[0]
        batch = max(count, rhs.shape[0])  # batch sizes of 1 broadcast (the spec checked them)
        matrix = jnp.broadcast_to(matrix, (batch, *matrix.shape[1:]))
        rhs = jnp.broadcast_to(rhs, (batch, *rhs.shape[1:]))
        solution, _, rank, singular_values = jax.vmap(jnp.linalg.lstsq)(matrix, rhs)
        # residuals of every system, as bk-numpy (JAX's are empty for rank-deficient or wide matrices)
        residuals = jnp.sum(jnp.abs(rhs - matrix @ solution) ** 2, axis=-2)
        return solution, residuals, rank[:count], singular_values[:count]

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
        if 0 in matrix.shape[-2:]:  # no singular values: rank 0 (jnp.linalg.matrix_rank takes the max of none)
            return jnp.zeros(matrix.shape[:-2], dtype=jnp.int64 if jax.config.jax_enable_x64 else jnp.int32)
        return jnp.linalg.matrix_rank(matrix, hermitian=hermitian)

    def eigvals(self, matrix: Tensor) -> Tensor:
        """Eigenvalues, always complex (as `jnp.linalg.eigvals`; computed on the CPU)."""
        (matrix,) = self._float_args(matrix)
        return jnp.linalg.eigvals(_single_if_half(matrix))

    def eig(self, matrix: Tensor) -> tuple[Tensor, Tensor]:
        """Complex eigenvalues and eigenvectors (columns, unit norm); computed on the CPU, as JAX does."""
        (matrix,) = self._float_args(matrix)
        values, vectors = jnp.linalg.eig(_single_if_half(matrix))
        return values, vectors

    def svd(self, matrix: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
        (matrix,) = self._float_args(matrix)
        u, s, vh = jnp.linalg.svd(_single_if_half(matrix), full_matrices=full_matrices)
        if matrix.dtype in (jnp.float16, jnp.bfloat16):  # computed in float32, cast back (as bk-numpy and bk-tf)
            return u.astype(matrix.dtype), s.astype(matrix.dtype), vh.astype(matrix.dtype)
        return u, s, vh

    # ------------------------------------------------------------ FFT, convolution, sampling

    def fft(self, x: Tensor, axes: Sequence[int]) -> Tensor:
        x = self.to_complex(x)  # type: ignore[attr-defined]
        axes = tuple(axes)
        return jnp.fft.fftn(x, axes=axes).astype(x.dtype) if axes else x

    def ifft(self, k: Tensor, axes: Sequence[int]) -> Tensor:
        k = self.to_complex(k)  # type: ignore[attr-defined]
        axes = tuple(axes)
        return jnp.fft.ifftn(k, axes=axes).astype(k.dtype) if axes else k

    def conv(self, value: Tensor, kernel: Tensor, zero_padding: bool = True) -> Tensor:
        """Cross-correlation with `lax.conv_general_dilated`, any number of spatial dimensions; 'same'
        output is centred like SciPy. One kernel per batch entry runs as a grouped convolution; without
        a spatial dimension it is a product over the channels (the spec checks the shapes).
        """
        # the plan casts mixed operands to their common type, but leaves operands of one dtype as they are, even under a
        # precision: `auto_cast` applies it (bools stay bools: `_correlate` computes them in floats)
        value, kernel = self.auto_cast(self._t(value), self._t(kernel))  # type: ignore[attr-defined]
        spatial = kernel.shape[3:]
        padding = [(k // 2, k - 1 - k // 2) for k in spatial] if zero_padding else [(0, 0)] * len(spatial)
        if kernel.shape[0] == 1:
            return _correlate(value, kernel[0], padding, groups=1)
        batch, out_channels = value.shape[0], kernel.shape[1]
        folded = value.reshape(1, -1, *value.shape[2:])
        result = _correlate(folded, kernel.reshape(batch * out_channels, *kernel.shape[2:]), padding, groups=batch)
        return result.reshape(batch, out_channels, *result.shape[2:])

    def grid_sample(self, grid: Tensor, coordinates: Tensor, extrapolation: str) -> Tensor:
        """Multilinear interpolation of `(batch, spatial..., channels)` at index coordinates, any number of dims."""
        grid, coordinates = self._t(grid), self._t(coordinates)
        coordinates = coordinates if is_inexact(coordinates) else self.to_float(coordinates)  # type: ignore[attr-defined]
        spatial = grid.shape[1:-1]
        lower = jnp.floor(coordinates)
        fraction = coordinates - lower
        lower = lower.astype(np.int32)
        result = 0
        for corner in itertools.product((0, 1), repeat=len(spatial)):
            index, weight, inside = [], 1, None
            for d, (offset, size) in enumerate(zip(corner, spatial, strict=True)):
                mapped, valid = extrapolate_index(self, lower[..., d] + offset, size, extrapolation)
                weight = weight * (fraction[..., d] if offset else 1 - fraction[..., d])
                if extrapolation == "zeros":
                    inside = valid if inside is None else inside & valid
                index.append(mapped)
            values = self.batched_gather_nd(grid, jnp.stack(index, -1))  # type: ignore[attr-defined]
            if inside is not None:
                values = jnp.where(inside[..., None], values, 0)
            result = result + weight[..., None].astype(values.dtype if jnp.iscomplexobj(values) else weight.dtype) * values
        return result


def _correlate(value: Tensor, kernel: Tensor, padding: list[tuple[int, int]], groups: int) -> Tensor:
    """`lax.conv_general_dilated` (a cross-correlation) of `(n, in, spatial...)` with `(out, in / groups, k...)`.

    Integer and bool inputs are computed in float64 where x64 is on (exact below 2**53), else float32, and
    rounded; the plan casts the result to the spec's dtype (int32 for bools).
    """
    integer = not is_inexact(value)
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
    return jnp.round(result) if integer else result


def _single_if_half(matrix: Any) -> Any:
    """float16 and bfloat16 as float32 (JAX's decompositions have no half precision); others unchanged."""
    return matrix.astype(jnp.float32) if matrix.dtype in (jnp.float16, jnp.bfloat16) else matrix
