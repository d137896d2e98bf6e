"""Sparse tensors as `scipy.sparse` arrays (a mixin of `NumPyBackend`).

SciPy is imported inside the functions that need it, so loading the backend stays fast. A
SciPy sparse matrix can only exist once `scipy.sparse` was imported, which `is_sparse` uses to
answer without importing it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from bk import IndexOutOfRangeError

__all__ = ["SparseMixin", "is_scipy_sparse"]

Tensor = Any


def is_scipy_sparse(x: Any) -> bool:
    """Whether `x` is a SciPy sparse matrix or array (without importing SciPy)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and bool(sparse.issparse(x))


def _assemble_coo(backend: Any, indices: Tensor, values: Tensor, *, shape: tuple[int, ...]) -> Tensor:
    return backend.sparse_coo_tensor(indices, values, shape)


def _assemble_csr(
    backend: Any, column_indices: Tensor, row_pointers: Tensor, values: Tensor, *, shape: tuple[int, int]
) -> Tensor:
    return backend.csr_matrix(column_indices, row_pointers, values, shape)


def _assemble_csc(
    backend: Any, column_pointers: Tensor, row_indices: Tensor, values: Tensor, *, shape: tuple[int, int]
) -> Tensor:
    return backend.csc_matrix(column_pointers, row_indices, values, shape)


def _assemble_dense(backend: Any, tensor: Tensor) -> Tensor:
    return backend.as_tensor(tensor)


def _block_product(rows: Any, cols: Any, values: Any, shape: tuple[int, int], dense: Any) -> Any:
    """Batched sparse COO (with channels) times dense, as one block-diagonal SciPy product.

    Args:
        rows, cols: `(entries,)` row and column indices, already offset per (batch, channel) block.
        values: `(entries,)` values.
        shape: `(rows, cols)` of one block.
        dense: `(batch, cols, channels, dense_cols)`.

    Returns:
        `(batch, rows, channels, dense_cols)`.
    """
    from scipy.sparse import coo_array

    batch, n_cols, channels, dense_cols = dense.shape
    blocks = batch * channels
    matrix = coo_array((values, (rows, cols)), shape=(blocks * shape[0], blocks * n_cols)).tocsr()
    stacked = np.moveaxis(dense, 2, 1).reshape(blocks * n_cols, dense_cols)
    product = np.asarray(matrix @ stacked).reshape(batch, channels, shape[0], dense_cols)
    return np.moveaxis(product, 1, 2)


def _channel_entries(
    batch_entry: Any, rows: Any, cols: Any, values: Any, channels: int, shape: tuple[int, int], n_cols: int
) -> tuple[Any, Any, Any]:
    """Per-(batch, channel) block indices for `(entries,)` COO data with `(entries, channels)` values."""
    block = batch_entry[:, None] * channels + np.arange(channels)[None, :]
    return (
        (block * shape[0] + rows[:, None]).reshape(-1),
        (block * n_cols + cols[:, None]).reshape(-1),
        values.reshape(-1),
    )


class SparseMixin:
    """COO, CSR and CSC matrices through `scipy.sparse`, and native sparse-dense products."""

    def is_sparse(self, x: Tensor) -> bool:
        """Whether `x` is a SciPy sparse matrix or array."""
        return is_scipy_sparse(x)

    def get_sparse_format(self, x: Tensor) -> str:
        """`'coo'`, `'csr'`, `'csc'` (or SciPy's name of another format), or `'dense'`."""
        return str(x.format) if is_scipy_sparse(x) else "dense"

    def disassemble(self, x: Tensor) -> tuple[Callable[..., Tensor], Sequence[Tensor]]:
        """`(assemble, constituents)`; `assemble(backend, *constituents)` rebuilds `x` on any backend.

        Formats other than COO, CSR and CSC are disassembled as CSR.
        """
        if not is_scipy_sparse(x):
            return _assemble_dense, (x,)
        if x.format == "coo":
            indices = np.stack(x.coords, -1) if hasattr(x, "coords") else np.stack([x.row, x.col], -1)
            return partial(_assemble_coo, shape=tuple(x.shape)), (indices, x.data)
        if x.format == "csc":
            return partial(_assemble_csc, shape=tuple(x.shape)), (x.indptr, x.indices, x.data)
        x = x.tocsr()
        return partial(_assemble_csr, shape=tuple(x.shape)), (x.indices, x.indptr, x.data)

    def sparse_coo_tensor(self, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
        """A `scipy.sparse.coo_array` from `(nnz, ndims)` indices and `(nnz,)` values; duplicates add up."""
        from scipy.sparse import coo_array

        indices = np.asarray(indices)
        return coo_array((np.asarray(values), tuple(indices.T)), shape=tuple(shape))

    def csr_matrix(self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """A `scipy.sparse.csr_array`."""
        from scipy.sparse import csr_array

        return _checked("csr_matrix", csr_array((np.asarray(values), np.asarray(column_indices), np.asarray(row_pointers)), shape=tuple(shape)))

    def csc_matrix(self, column_pointers: Tensor, row_indices: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """A `scipy.sparse.csc_array`."""
        from scipy.sparse import csc_array

        return _checked("csc_matrix", csc_array((np.asarray(values), np.asarray(row_indices), np.asarray(column_pointers)), shape=tuple(shape)))

    def mul_coo_dense(self, indices: Tensor, values: Tensor, shape: tuple[int, int], dense: Tensor) -> Tensor:
        """`(batch, nnz, 2)` COO matrices with `(batch, nnz, channels)` values times `(batch, cols, channels, dense_cols)`."""
        indices, values, dense = np.asarray(indices), np.asarray(values), np.asarray(dense)
        dtype = np.result_type(values, dense)  # NumPy's promotion: the plan casts the result to the spec's dtype
        batch = max(indices.shape[0], values.shape[0], dense.shape[0])  # the spec checked they are equal or 1
        indices, values = np.broadcast_to(indices, (batch, *indices.shape[1:])), np.broadcast_to(values, (batch, *values.shape[1:]))
        dense = np.broadcast_to(dense, (batch, *dense.shape[1:]))
        _, nnz, channels = values.shape
        batch_entry = np.repeat(np.arange(batch), nnz)
        rows, cols, flat = _channel_entries(
            batch_entry,
            indices[..., 0].reshape(-1),
            indices[..., 1].reshape(-1),
            values.reshape(-1, channels),
            channels,
            shape,
            dense.shape[1],
        )
        return _block_product(rows, cols, flat.astype(dtype), shape, dense.astype(dtype, copy=False))

    def mul_csr_dense(
        self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int], dense: Tensor
    ) -> Tensor:
        """`(batch, nnz)` / `(batch, rows + 1)` CSR matrices with `(batch, nnz, channels)` values times dense.

        Entries at or beyond a batch entry's last row pointer are ignored.
        """
        column_indices, row_pointers = np.asarray(column_indices), np.asarray(row_pointers)
        values, dense = np.asarray(values), np.asarray(dense)
        dtype = np.result_type(values, dense)  # NumPy's promotion: the plan casts the result to the spec's dtype
        batch, nnz, channels = values.shape
        used = np.arange(nnz)[None, :] < row_pointers[:, -1:]
        counts = np.diff(row_pointers, axis=1)
        rows = np.repeat(np.tile(np.arange(counts.shape[1]), batch), counts.reshape(-1))
        batch_entry = np.broadcast_to(np.arange(batch)[:, None], (batch, nnz))[used]
        rows, cols, flat = _channel_entries(
            batch_entry, rows, column_indices[used], values[used], channels, shape, dense.shape[1]
        )
        return _block_product(rows, cols, flat.astype(dtype), shape, dense.astype(dtype, copy=False))


def _checked(op: str, matrix: Any) -> Any:
    """`matrix` after SciPy's full format check: SciPy builds compressed matrices without looking at
    the indices, and reads out of bounds (or corrupts memory) later when one lies outside the shape."""
    try:
        matrix.check_format(full_check=True)
    except ValueError as error:
        raise IndexOutOfRangeError(f"{op}: {error}; indices must lie inside the shape {matrix.shape} and pointers inside the values") from None
    return matrix
