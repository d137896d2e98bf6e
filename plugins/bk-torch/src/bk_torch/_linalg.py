"""Linear algebra, FFT, convolution, grid sampling and sparse tensors on native PyTorch operations."""

from __future__ import annotations

import functools
import itertools
import math
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import torch

from bk import combine_types, get_precision, normalize_axes, normalize_axis, reraise_as
from bk.rules import (
    axes_tuple,
    compute_dtype,
    fft_sizes,
    matrix_operand,
    real_dtype,
    reduce_shape,
    reduced_size,
)

from ._dtypes import from_torch_dtype, to_torch_dtype
from ._math import _WIDE_UNSIGNED, _bits_as_signed, _narrowed

Tensor = Any

_LAYOUT_FORMATS = {torch.sparse_coo: "coo", torch.sparse_csr: "csr", torch.sparse_csc: "csc"}


# ---------------------------------------------------------------- the Array API standard's linalg and fft extensions


def _torch_linalg(op: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`function(*args, **kwargs)` with PyTorch's `LinAlgError` (singular, not positive definite) as a
    `ValueError` naming the bk operation, as NumPy's (docs/semantics.md)."""
    try:
        return function(*args, **kwargs)
    except torch.linalg.LinAlgError as error:
        reraise_as(ValueError, op, error)


class StandardLinalgKernels:
    """`torch.linalg` and `torch.fft` kernels of `bk._catalogue_linalg` (bases of `LinalgMixin`)."""

    def _matrix(self, x: Tensor, op: str, square: bool = False, name: str = "x") -> tuple[torch.Tensor, torch.dtype]:
        x, dtype = matrix_operand(self, x, op, square, name)  # type: ignore[arg-type]
        return x, to_torch_dtype(dtype)

    def cholesky(self, x: Tensor, upper: bool = False) -> Tensor:
        x, dtype = self._matrix(x, "cholesky", square=True)
        return _torch_linalg("cholesky", torch.linalg.cholesky, x, upper=upper).to(dtype)

    def qr(self, x: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "qr")
        q, r = torch.linalg.qr(x, mode=mode)
        return q.to(dtype), r.to(dtype)

    def eigh(self, x: Tensor) -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "eigh", square=True)
        values, vectors = _torch_linalg("eigh", torch.linalg.eigh, x)
        return values.to(_real_torch(dtype)), vectors.to(dtype)

    def eigvalsh(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "eigvalsh", square=True)
        return _torch_linalg("eigvalsh", torch.linalg.eigvalsh, x).to(_real_torch(dtype))

    def svdvals(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "svdvals")
        return _torch_linalg("svdvals", torch.linalg.svdvals, x).to(_real_torch(dtype))

    def inv(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "inv", square=True)
        return _torch_linalg("inv", torch.linalg.inv, x).to(dtype)

    def solve(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`torch.linalg.solve` with the standard's rule: only a 1-D `x2` is a vector (PyTorch would also
        take `(..., n)` right sides as vectors), so matrix right sides are broadcast explicitly."""
        x1, dtype1 = self._matrix(x1, "solve", square=True, name="x1")
        x2 = self._t(x2)  # type: ignore[attr-defined]
        result_type = combine_types(from_torch_dtype(dtype1), compute_dtype(self, from_torch_dtype(x2.dtype))[1], fp_precision=get_precision())  # type: ignore[arg-type]
        work = torch.promote_types(x1.dtype, x2.dtype if x2.is_complex() or x2.dtype == torch.float64 else torch.float32)
        n = x1.shape[-1]
        if x2.ndim == 1:
            result = _torch_linalg("solve", torch.linalg.solve, x1.to(work), x2.to(work)[:, None])[..., 0]
        else:
            batch = torch.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])  # the spec checks that they broadcast
            a = x1.to(work).expand(*batch, n, n)
            b = x2.to(work).expand(*batch, *x2.shape[-2:])
            result = _torch_linalg("solve", torch.linalg.solve, a, b)
        return result.to(to_torch_dtype(result_type))

    def det(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "det", square=True)
        return torch.linalg.det(x).to(dtype)

    def slogdet(self, x: Tensor) -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "slogdet", square=True)
        sign, logabsdet = torch.linalg.slogdet(x)
        return sign.to(dtype), logabsdet.to(_real_torch(dtype))

    def vector_norm(self, x: Tensor, axis: Any = None, keepdims: bool = False, ord: float = 2) -> Tensor:
        x = self._t(x)  # type: ignore[attr-defined]
        axes = normalize_axes(axis, x.ndim, "vector_norm")
        compute, result = compute_dtype(self, from_torch_dtype(x.dtype))  # type: ignore[arg-type]
        if axes == ():
            return self.abs(x).to(to_torch_dtype(real_dtype(result)))  # type: ignore[attr-defined]
        if ord == math.inf and reduced_size(tuple(x.shape), axes) == 0:  # the largest of no absolute values: 0 (the spec refuses -inf)
            return torch.zeros(reduce_shape("vector_norm", tuple(x.shape), axes, keepdims)[0], dtype=to_torch_dtype(real_dtype(result)), device=x.device)
        value = torch.linalg.vector_norm(x.to(to_torch_dtype(compute)), ord=ord, dim=axes, keepdim=keepdims)
        return value.to(to_torch_dtype(real_dtype(result)))

    def matrix_norm(self, x: Tensor, keepdims: bool = False, ord: Any = "fro") -> Tensor:
        x, dtype = self._matrix(x, "matrix_norm")
        if 0 in x.shape[-2:]:  # as NumPy: 0 (the spec refuses the minimum of nothing)
            return torch.zeros((*x.shape[:-2], *((1, 1) if keepdims else ())), dtype=_real_torch(dtype), device=x.device)
        return torch.linalg.matrix_norm(x, ord=ord, keepdim=keepdims).to(_real_torch(dtype))  # the spec checks ord first

    def diagonal(self, x: Tensor, offset: int = 0) -> Tensor:
        """`torch.diagonal` over the last two axes (a view)."""
        return torch.diagonal(self._t(x), offset, -2, -1)  # type: ignore[attr-defined]

    def fftshift(self, x: Tensor, axes: Any = None) -> Tensor:
        x = self._t(x)  # type: ignore[attr-defined]
        chosen = normalize_axes(axes, x.ndim, "fftshift")
        return torch.fft.fftshift(x, dim=chosen) if x.ndim and chosen != () else x

    def ifftshift(self, x: Tensor, axes: Any = None) -> Tensor:
        x = self._t(x)  # type: ignore[attr-defined]
        chosen = normalize_axes(axes, x.ndim, "ifftshift")
        return torch.fft.ifftshift(x, dim=chosen) if x.ndim and chosen != () else x

    def fftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        return self._transform("fftn", torch.fft.fftn, x, s, axes, norm, "complex")

    def ifftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        return self._transform("ifftn", torch.fft.ifftn, x, s, axes, norm, "complex")

    def rfftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        return self._transform("rfftn", torch.fft.rfftn, x, s, axes, norm, "real")

    def irfftn(self, x: Tensor, s: Sequence[int] | None = None, axes: Any = None, norm: str = "backward") -> Tensor:
        return self._transform("irfftn", torch.fft.irfftn, x, s, axes, norm, "inverse-real")

    def _transform(self, op: str, function: Callable[..., Any], x: Tensor, s: Any, axes: Any, norm: str, kind: str) -> Tensor:
        """One `torch.fft` transform: `kind` is 'complex', 'real' (real in) or 'inverse-real' (real out); the spec
        checks `norm`, the kind of `x` and the lengths."""
        x = self._t(x)  # type: ignore[attr-defined]
        complex_type = _complex_torch(x.dtype)
        real_type = _real_torch(complex_type)
        x = x.to(real_type if kind == "real" else complex_type)
        chosen, sizes = fft_sizes(tuple(x.shape), s, axes, op)
        if kind == "inverse-real":
            if not chosen:
                return x.real.clone()
            if s is None or tuple(s)[-1] == -1:
                sizes = (*sizes[:-1], 2 * (x.shape[chosen[-1]] - 1))
        elif not chosen:
            return x.to(complex_type)
        if x.numel() == 0:  # PyTorch's FFT backends refuse empty batches
            shape = list(x.shape)
            for axis, n in zip(chosen, sizes, strict=True):
                shape[axis] = n
            if kind == "real":
                shape[chosen[-1]] = sizes[-1] // 2 + 1
            return torch.zeros(shape, dtype=_real_torch(complex_type) if kind == "inverse-real" else complex_type, device=x.device)
        return function(x, s=sizes, dim=chosen, norm=norm)


def _complex_torch(dtype: torch.dtype) -> torch.dtype:
    """The complex type of the transforms of values of `dtype`: of the precision when one is set."""
    precision = get_precision()
    if precision:
        return torch.complex128 if precision == 64 else torch.complex64
    return torch.complex128 if dtype in (torch.float64, torch.complex128) else torch.complex64


def _real_torch(dtype: torch.dtype) -> torch.dtype:
    return {torch.complex64: torch.float32, torch.complex128: torch.float64}.get(dtype, dtype)


class LinalgMixin(StandardLinalgKernels):
    """Linear algebra, FFT, convolution, grid sampling and sparse tensors of `TorchBackend`."""

    # ------------------------------------------------------------ linear algebra

    def tensordot(self, a: Tensor, a_axes: Sequence[int], b: Tensor, b_axes: Sequence[int]) -> Tensor:
        a, b = self.auto_cast(self._t(a), self._t(b))
        self._same_device(a, b)
        a_axes = [normalize_axis(i, a.ndim, "tensordot") for i in axes_tuple(a_axes)]
        b_axes = [normalize_axis(i, b.ndim, "tensordot") for i in axes_tuple(b_axes)]
        return _integer_product(lambda u, v: torch.tensordot(u, v, dims=(a_axes, b_axes)), a, b)

    def einsum(self, equation: str, *tensors: Tensor) -> Tensor:
        tensors = self.auto_cast(*[self._t(t) for t in tensors])
        self._same_device(*tensors)
        return _integer_product(lambda *ts: torch.einsum(equation, *ts), *tensors)  # errors: the core's spec of einsum

    def mul_matrix_batched_vector(self, A: Tensor, b: Tensor) -> Tensor:
        """`(rows, cols)` dense or sparse (COO, CSR, CSC) matrix times `(batch, cols)` vectors."""
        A, b = self._t(A), self._t(b)
        if A.layout in _LAYOUT_FORMATS:  # PyTorch itself refuses operands on different devices
            b = b.to(A.dtype) if A.dtype != b.dtype and (A.is_complex() or not b.is_complex()) else b
            matrix = _csr_for_products(A, b.dtype)
            if b.shape[0] == 1 and matrix.layout == torch.sparse_csr:
                return torch.mv(matrix, b[0])[None]
            return (matrix @ b.T).T
        self._same_device(A, b)
        A, b = self.auto_cast(A, b)  # the spec checks the shapes first
        if A.ndim == 3:  # one matrix per batch entry
            return _integer_product(lambda m, v: torch.einsum("brc,bc->br", m, v), A, b)
        return _integer_product(lambda m, v: v @ m.T, A, b)

    def matrix_solve_least_squares(self, matrix: Tensor, rhs: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Least squares with `torch.linalg.lstsq` ('gelsd' on the CPU, 'gels' on GPUs, where rank and
        singular values are `None`)."""
        matrix, rhs = self._t(matrix), self._t(rhs)  # the plan's operands: floats of one dtype
        self._same_device(matrix, rhs)
        driver = "gelsd" if matrix.device.type == "cpu" else None
        if 0 in (*matrix.shape[-2:], rhs.shape[-1]):  # LAPACK refuses empty systems: the minimum-norm solution is 0
            batch = max(matrix.shape[0], rhs.shape[0])
            solution = torch.zeros((batch, matrix.shape[-1], rhs.shape[-1]), dtype=matrix.dtype, device=matrix.device)
            rank = torch.linalg.matrix_rank(matrix) if 0 not in matrix.shape[-2:] else torch.zeros(matrix.shape[0], dtype=torch.int64, device=matrix.device)
            singular_values = torch.linalg.svdvals(matrix)
        else:
            solution, _, rank, singular_values = torch.linalg.lstsq(matrix, rhs, driver=driver)
        # residuals of every system, as bk-numpy (torch's are empty for rank-deficient or wide matrices)
        residuals = torch.sum(torch.abs(rhs - matrix @ solution) ** 2, dim=-2)
        if driver is None:
            return solution, residuals, None, None
        return solution, residuals, rank, singular_values

    def solve_triangular_dense(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves `(batch, n, n)` triangular systems for `(batch, n)` vectors or `(batch, n, k)` matrices."""
        matrix, rhs = self._t(matrix), self._t(rhs)  # the plan's operands: floats of one dtype
        self._same_device(matrix, rhs)
        vector = rhs.ndim == matrix.ndim - 1
        solution = torch.linalg.solve_triangular(
            matrix, rhs[..., None] if vector else rhs, upper=not lower, unitriangular=unit_diagonal
        )
        return solution[..., 0] if vector else solution

    def matrix_rank_dense(self, matrix: Tensor, hermitian: bool = False) -> Tensor:
        matrix = self._t(matrix)
        matrix = matrix if matrix.is_floating_point() or matrix.is_complex() else self.to_float(matrix)
        return torch.linalg.matrix_rank(matrix, hermitian=hermitian)

    def eigvals(self, matrix: Tensor) -> Tensor:
        """Eigenvalues, always complex (as `torch.linalg.eigvals`)."""
        return torch.linalg.eigvals(_single_if_half(self._float_op(lambda m: m, matrix)))

    def eig(self, matrix: Tensor) -> tuple[Tensor, Tensor]:
        """Complex eigenvalues and eigenvectors (columns, unit norm)."""
        values, vectors = torch.linalg.eig(_single_if_half(self._float_op(lambda m: m, matrix)))
        return values, vectors

    def svd(self, matrix: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
        matrix = self._float_op(lambda m: m, matrix)
        u, s, vh = torch.linalg.svd(_single_if_half(matrix), full_matrices=full_matrices)
        if matrix.dtype in (torch.float16, torch.bfloat16):  # computed in float32, cast back (as bk-numpy and bk-tf)
            return u.to(matrix.dtype), s.to(matrix.dtype), vh.to(matrix.dtype)
        return u, s, vh

    # ------------------------------------------------------------ FFT, convolution, sampling

    def fft(self, x: Tensor, axes: Sequence[int]) -> Tensor:
        x = self.to_complex(self._t(x))
        axes = normalize_axes(tuple(axes), x.ndim, "fft")
        return torch.fft.fftn(x, dim=axes) if axes else x

    def ifft(self, k: Tensor, axes: Sequence[int]) -> Tensor:
        k = self.to_complex(self._t(k))
        axes = normalize_axes(tuple(axes), k.ndim, "ifft")
        return torch.fft.ifftn(k, dim=axes) if axes else k

    def conv(self, value: Tensor, kernel: Tensor, zero_padding: bool = True) -> Tensor:
        """Cross-correlation with `torch.nn.functional.conv1d/2d/3d`; 'same' output is centred like SciPy.

        Integer inputs are computed in float64 and rounded back. The spec checks that the shapes fit together.

        Raises:
            ValueError: for other than 1 to 3 spatial dimensions (PyTorch's conv1d, conv2d and conv3d).
        """
        value, kernel = self._t(value), self._t(kernel)  # the plan's operands: one dtype
        if value.dtype == torch.bool:  # PyTorch convolves no booleans: counted as ints (the spec's int result)
            value, kernel = value.to(torch.int64), kernel.to(torch.int64)
        self._same_device(value, kernel)
        spatial = value.ndim - 2
        if spatial not in (1, 2, 3):
            raise ValueError(f"conv: PyTorch convolves 1 to 3 spatial dimensions, not {spatial} (values {tuple(value.shape)})")
        integer = not (value.is_floating_point() or value.is_complex())
        original = value.dtype
        if integer:
            value, kernel = value.to(torch.float64), kernel.to(torch.float64)
        if zero_padding:
            widths = [w for k in reversed(kernel.shape[3:]) for w in (k // 2, k - 1 - k // 2)]
            value = torch.nn.functional.pad(value, widths)
        function = (torch.nn.functional.conv1d, torch.nn.functional.conv2d, torch.nn.functional.conv3d)[spatial - 1]
        if kernel.shape[0] == 1:
            result = function(value, kernel[0])
        else:  # one kernel per batch entry: a grouped convolution over the folded batch
            batch, out_channels = value.shape[0], kernel.shape[1]
            folded = value.reshape(1, -1, *value.shape[2:])
            result = function(folded, kernel.reshape(batch * out_channels, *kernel.shape[2:]), groups=batch)
            result = result.reshape(batch, out_channels, *result.shape[2:])
        return torch.round(result).to(original) if integer else result

    def grid_sample(self, grid: Tensor, coordinates: Tensor, extrapolation: str) -> Tensor:
        """Multilinear interpolation of `(batch, spatial..., channels)` at index coordinates, any number of dims
        (the spec checks the extrapolation and the shapes)."""
        grid, coordinates = self._t(grid), self._t(coordinates)
        self._same_device(grid, coordinates)
        coordinates = coordinates if coordinates.is_floating_point() else self.to_float(coordinates)
        spatial = grid.shape[1:-1]
        lower = torch.floor(coordinates)
        fraction = coordinates - lower
        lower = lower.to(torch.int64)
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
            values = self.batched_gather_nd(grid, torch.stack(index, -1))
            if inside is not None:
                values = torch.where(inside[..., None], values, torch.zeros_like(values))
            result = result + weight[..., None].to(values.dtype if values.is_complex() else weight.dtype) * values
        # the grid's float type (the default float for integer grids), whatever the coordinates' precision
        inexact = grid.is_floating_point() or grid.is_complex()
        return result.to(grid.dtype if inexact else to_torch_dtype(self.float_type))

    # ------------------------------------------------------------ sparse

    def is_sparse(self, x: Tensor) -> bool:
        """Whether `x` is a sparse COO, CSR or CSC tensor."""
        return isinstance(x, torch.Tensor) and x.layout in _LAYOUT_FORMATS

    def get_sparse_format(self, x: Tensor) -> str:
        return _LAYOUT_FORMATS.get(x.layout, "dense") if isinstance(x, torch.Tensor) else "dense"

    def disassemble(self, x: Tensor) -> tuple[Callable[..., Tensor], Sequence[Tensor]]:
        """`(assemble, parts)`: COO gives `(indices (nnz, ndims), values)` (coalesced), CSR
        `(column_indices, row_pointers, values)`, CSC `(column_pointers, row_indices, values)`;
        `assemble(backend, *parts)` rebuilds the tensor on any backend that supports the format."""
        if not self.is_sparse(x):
            return _assemble_dense, (x,)
        shape = tuple(x.shape)
        if x.layout == torch.sparse_coo:
            x = x.coalesce()
            return functools.partial(_assemble_coo, shape), (x.indices().T, x.values())
        batched = x.ndim - x.dense_dim() > 2
        if x.layout == torch.sparse_csr:
            return functools.partial(_assemble_csr, shape, batched), (x.col_indices(), x.crow_indices(), x.values())
        return functools.partial(_assemble_csc, shape, batched), (x.ccol_indices(), x.row_indices(), x.values())

    def sparse_coo_tensor(self, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
        """A COO tensor from `(nnz, ndims)` indices; invariants (indices inside `shape`) are checked."""
        indices, values = self._t(indices).to(torch.int64), self._t(values)
        self._same_device(indices, values)
        return torch.sparse_coo_tensor(indices.T, values, tuple(shape), check_invariants=True)

    def sparse_coo_tensor_batched(self, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
        """A COO tensor of shape `(batch, *shape)` from `(batch, nnz, ndims)` indices and `(batch, nnz)` values."""
        indices, values = self._t(indices).to(torch.int64), self._t(values)
        batch, nnz = indices.shape[0], indices.shape[1]
        batch_index = torch.arange(batch, device=indices.device).repeat_interleave(nnz)[:, None]
        flat = torch.cat([batch_index, indices.reshape(batch * nnz, -1)], dim=1)
        return torch.sparse_coo_tensor(
            flat.T, values.reshape(batch * nnz, *values.shape[2:]), (batch, *shape), check_invariants=True
        )

    def csr_matrix(self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        col, crow, values = self._compressed_parts(column_indices, row_pointers, values)
        with _QuietSparseBeta():
            return torch.sparse_csr_tensor(crow, col, values, tuple(shape), check_invariants=True)

    def csr_matrix_batched(self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """Batched CSR of shape `(batch, rows, cols, channels)` from `(batch, nnz, channels)` values."""
        col, crow, values = self._compressed_parts(column_indices, row_pointers, values)
        with _QuietSparseBeta():
            return torch.sparse_csr_tensor(crow, col, values, (col.shape[0], *shape, *values.shape[2:]), check_invariants=True)

    def csc_matrix(self, column_pointers: Tensor, row_indices: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        row, ccol, values = self._compressed_parts(row_indices, column_pointers, values)
        with _QuietSparseBeta():
            return torch.sparse_csc_tensor(ccol, row, values, tuple(shape), check_invariants=True)

    def csc_matrix_batched(self, column_pointers: Tensor, row_indices: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """Batched CSC of shape `(batch, rows, cols, channels)` from `(batch, nnz, channels)` values."""
        row, ccol, values = self._compressed_parts(row_indices, column_pointers, values)
        with _QuietSparseBeta():
            return torch.sparse_csc_tensor(ccol, row, values, (row.shape[0], *shape, *values.shape[2:]), check_invariants=True)

    def _compressed_parts(self, indices: Tensor, pointers: Tensor, values: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        indices, pointers, values = self._t(indices).to(torch.int64), self._t(pointers).to(torch.int64), self._t(values)
        self._same_device(indices, pointers, values)
        return indices, pointers, values

    def csr_to_coo(self, column_indices: Tensor, row_pointers: Tensor) -> Tensor:
        """`(batch, nnz, 2)` COO indices, the row of each entry found by a batched `searchsorted`."""
        column_indices, row_pointers = self._t(column_indices), self._t(row_pointers)
        positions = torch.arange(column_indices.shape[-1], device=column_indices.device).expand(column_indices.shape).contiguous()
        rows = torch.searchsorted(row_pointers[:, 1:].contiguous().to(torch.int64), positions, right=True)
        return torch.stack([rows.to(column_indices.dtype), column_indices], dim=-1)

    def mul_coo_dense(self, indices: Tensor, values: Tensor, shape: tuple[int, int], dense: Tensor) -> Tensor:
        """Batched COO matrices `(batch, nnz, 2)`, `(batch, nnz, channels)` times `(batch, cols, channels, dense_cols)`."""
        indices = self._t(indices).to(torch.int64)
        values, dense = self.auto_cast(self._t(values), self._t(dense))
        self._same_device(indices, values, dense)
        batch = max(indices.shape[0], values.shape[0], dense.shape[0])  # the spec checked they are equal or 1
        indices, values = indices.expand(batch, *indices.shape[1:]), values.expand(batch, *values.shape[1:])
        dense = dense.expand(batch, *dense.shape[1:])
        batch_index = torch.arange(batch, device=dense.device)[:, None]
        products = values[..., None] * dense[batch_index, indices[..., 1]]  # (batch, nnz, channels, dense_cols)
        rows = (batch_index * shape[0] + indices[..., 0]).reshape(-1)
        result = torch.zeros((batch * shape[0], *dense.shape[2:]), dtype=products.dtype, device=dense.device)
        result = result.index_add(0, rows, products.reshape(-1, *dense.shape[2:]))
        return result.reshape(batch, shape[0], *dense.shape[2:])

    def _sparse_to_scipy(self, tensor: Tensor) -> Any:
        """A SciPy sparse matrix of a 2-D sparse tensor (a dense array for other ranks)."""
        if tensor.ndim != 2 or tensor.dense_dim():
            return self.numpy(tensor.to_dense())
        try:
            import scipy.sparse
        except ImportError:
            raise ImportError("converting sparse torch tensors to NumPy needs SciPy: pip install 'bk-torch[scipy]'") from None
        tensor = tensor.detach().cpu()
        if tensor.layout == torch.sparse_coo:
            tensor = tensor.coalesce()
            rows, cols = tensor.indices().numpy()
            return scipy.sparse.coo_matrix((self.numpy(tensor.values()), (rows, cols)), shape=tuple(tensor.shape))
        if tensor.layout == torch.sparse_csr:
            parts = (self.numpy(tensor.values()), tensor.col_indices().numpy(), tensor.crow_indices().numpy())
            return scipy.sparse.csr_matrix(parts, shape=tuple(tensor.shape))
        parts = (self.numpy(tensor.values()), tensor.row_indices().numpy(), tensor.ccol_indices().numpy())
        return scipy.sparse.csc_matrix(parts, shape=tuple(tensor.shape))


# ---------------------------------------------------------------- helpers


class _QuietSparseBeta(warnings.catch_warnings):
    """Hides PyTorch's one-time "CSR/CSC support is in beta" notice, which users cannot act on."""

    def __enter__(self) -> Any:
        result = super().__enter__()
        warnings.filterwarnings("ignore", message="Sparse CS[RC] tensor support is in beta state", category=UserWarning)
        return result


def _csr_for_products(matrix: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """`matrix` as a CSR matrix of `dtype`, for fast products.

    PyTorch's COO products are 40x slower than CSR ones on the CPU and a conversion costs as much
    as 70 products, so the converted matrix is cached while the matrix lives, keyed by its in-place
    version counter and the dtype. The cache is a side table, not an attribute: the matrix still
    deep-copies and pickles as before. Matrices that take part in autograd are converted on every
    call, so that gradients reach the original values.
    """
    if matrix.layout == torch.sparse_csr and matrix.dtype == dtype:
        return matrix
    if matrix.ndim != 2 or matrix.dense_dim() or matrix.requires_grad:
        converted = matrix.to_sparse_csr() if matrix.layout == torch.sparse_csc else matrix
        return converted.to(dtype)
    key = (matrix._version, dtype)
    entry = _CSR_CACHE.get(id(matrix))
    if entry is not None and entry[0]() is matrix and entry[1] == key:
        return entry[2]
    with _QuietSparseBeta():
        converted = _narrow_indices((matrix.coalesce() if matrix.layout == torch.sparse_coo else matrix).to_sparse_csr().to(dtype))
    identity = id(matrix)
    _CSR_CACHE[identity] = (weakref.ref(matrix, lambda _, identity=identity: _CSR_CACHE.pop(identity, None)), key, converted)
    return converted


def _narrow_indices(csr: torch.Tensor) -> torch.Tensor:
    """A CSR matrix with int32 indices where they fit: PyTorch's CPU product of a vector reads them in two thirds of
    the time of int64 ones (the CG of a 128x128 Poisson problem), with the same results and errors for every dtype."""
    if csr.crow_indices().dtype is torch.int32 or max(*csr.shape, csr.col_indices().numel()) >= 2**31:
        return csr
    return torch.sparse_csr_tensor(
        csr.crow_indices().to(torch.int32), csr.col_indices().to(torch.int32), csr.values(), csr.shape, device=csr.device, check_invariants=False
    )


# id(matrix) -> (weak reference to the matrix, (version, dtype), its CSR copy); entries leave with their matrix
_CSR_CACHE: dict[int, tuple[weakref.ref[torch.Tensor], tuple[int, torch.dtype], torch.Tensor]] = {}


def _integer_product(product: Callable[..., torch.Tensor], *tensors: torch.Tensor) -> torch.Tensor:
    """`product(*tensors)` for the types PyTorch has no matrix products of: bool (as NumPy: any of
    the ands) and uint16-64 (through the signed type of the same width: exact modular arithmetic)."""
    dtype = tensors[0].dtype
    if dtype == torch.bool:
        return product(*(t.to(torch.int64) for t in tensors)) != 0
    if dtype in _WIDE_UNSIGNED:
        return _narrowed(product(*(_bits_as_signed(t) for t in tensors)), dtype)
    return product(*tensors)


def _extrapolate_index(i: torch.Tensor, size: int, extrapolation: str) -> torch.Tensor:
    if extrapolation == "periodic":
        return torch.remainder(i, size)
    if extrapolation == "symmetric":
        i = torch.remainder(i, 2 * size)
        return torch.where(i < size, i, 2 * size - 1 - i)
    if extrapolation == "reflect" and size > 1:
        i = torch.remainder(i, 2 * (size - 1))
        return torch.where(i < size, i, 2 * (size - 1) - i)
    return torch.clamp(i, 0, size - 1)  # boundary, undefined, and zeros (masked by the caller)


def _assemble_dense(backend: Any, tensor: Tensor) -> Tensor:
    return backend.as_tensor(tensor)


def _assemble_coo(shape: tuple[int, ...], backend: Any, indices: Tensor, values: Tensor) -> Tensor:
    return backend.sparse_coo_tensor(indices, values, shape)


def _assemble_csr(
    shape: tuple[int, ...], batched: bool, backend: Any, column_indices: Tensor, row_pointers: Tensor, values: Tensor
) -> Tensor:
    if batched:
        return backend.csr_matrix_batched(column_indices, row_pointers, values, shape[1:3])
    return backend.csr_matrix(column_indices, row_pointers, values, shape)


def _assemble_csc(
    shape: tuple[int, ...], batched: bool, backend: Any, column_pointers: Tensor, row_indices: Tensor, values: Tensor
) -> Tensor:
    if batched:
        return backend.csc_matrix_batched(column_pointers, row_indices, values, shape[1:3])
    return backend.csc_matrix(column_pointers, row_indices, values, shape)


def _single_if_half(matrix: Any) -> Any:
    """float16 and bfloat16 as float32 (torch's CPU decompositions have no half precision); others unchanged."""
    return matrix.float() if matrix.dtype in (torch.float16, torch.bfloat16) else matrix
