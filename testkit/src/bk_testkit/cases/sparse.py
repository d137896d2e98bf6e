"""Sparse tensors (COO, CSR, CSC, batched) and sparse-dense products, checked against dense."""

from __future__ import annotations

import numpy as np

import bk
from bk import DType

from .._case import Trial, case
from ._edges import check_raises

_DENSE = np.array([[0.0, 2.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 4.0, 0.0]], np.float32)


def _coo() -> tuple[np.ndarray, np.ndarray]:
    rows, cols = np.nonzero(_DENSE)
    return np.stack([rows, cols], -1).astype(np.int32), _DENSE[rows, cols]


def _csr() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows, cols = np.nonzero(_DENSE)
    pointers = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=_DENSE.shape[0]))]).astype(np.int32)
    return cols.astype(np.int32), pointers, _DENSE[rows, cols]


def _csc() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cols, rows = np.nonzero(_DENSE.T)
    pointers = np.concatenate([[0], np.cumsum(np.bincount(cols, minlength=_DENSE.shape[1]))]).astype(np.int32)
    return pointers, rows.astype(np.int32), _DENSE.T[cols, rows]


def _dense_of(t: Trial, matrix: object, what: str) -> None:
    t.expect(bool(t.b.is_sparse(matrix)), what, "is_sparse() is False for the result")
    t.compare(t.to_numpy(matrix), _DENSE, what, DType(float, 32))


@case("sparse_coo_tensor", "sparse")
def _sparse_coo(t: Trial) -> None:
    """A COO matrix equals its dense counterpart; is_sparse is true."""
    indices, values = _coo()
    _dense_of(t, t.b.sparse_coo_tensor(t.tensor(indices), t.tensor(values), _DENSE.shape), "sparse_coo_tensor")


@case("csr_matrix")
def _csr_matrix(t: Trial) -> None:
    """A CSR matrix equals its dense counterpart."""
    cols, pointers, values = _csr()
    _dense_of(t, t.b.csr_matrix(t.tensor(cols), t.tensor(pointers), t.tensor(values), _DENSE.shape), "csr_matrix")


@case("csc_matrix")
def _csc_matrix(t: Trial) -> None:
    """A CSC matrix equals its dense counterpart."""
    pointers, rows, values = _csc()
    _dense_of(t, t.b.csc_matrix(t.tensor(pointers), t.tensor(rows), t.tensor(values), _DENSE.shape), "csc_matrix")


@case("is_sparse", "get_sparse_format")
def _formats(t: Trial) -> None:
    """Dense tensors are not sparse and have format 'dense'."""
    dense = t.tensor(_DENSE)
    t.expect(not t.b.is_sparse(dense), "is_sparse(dense)", "True for a dense tensor")
    t.expect(t.b.get_sparse_format(dense) == "dense", "get_sparse_format(dense)", repr(t.b.get_sparse_format(dense)))


@case("disassemble")
def _disassemble(t: Trial) -> None:
    """A dense tensor disassembles into itself and reassembles."""
    assemble, parts = t.b.disassemble(t.tensor(_DENSE))
    t.check(assemble(t.b, *parts), _DENSE, "assemble(*disassemble(dense))")


@case("coo_to_dense")
def _coo_to_dense(t: Trial) -> None:
    """Batched COO with channels to dense, with and without duplicates."""
    indices, values = _coo()
    dup_i = np.concatenate([indices, indices[:1]])[None]
    dup_v = np.concatenate([values, values[:1]])[None, :, None]
    expected = _DENSE.copy()
    expected[tuple(indices[0])] *= 2
    t.check(t.b.coo_to_dense(t.tensor(indices[None]), t.tensor(values[None, :, None]), _DENSE.shape, False), _DENSE[None, :, :, None], "coo_to_dense")
    t.check(t.b.coo_to_dense(t.tensor(dup_i), t.tensor(dup_v), _DENSE.shape, True), expected[None, :, :, None], "coo_to_dense with duplicates")


@case("mul_coo_dense")
def _mul_coo_dense(t: Trial) -> None:
    """(batch, nnz, 2) COO times (batch, cols, channels, dense_cols)."""
    indices, values = _coo()
    dense = t.uniform((1, 4, 1, 2)).astype(np.float32)
    expected = np.einsum("ij,jk->ik", _DENSE, dense[0, :, 0, :])[None, :, None, :]
    t.check(t.b.mul_coo_dense(t.tensor(indices[None]), t.tensor(values[None, :, None]), _DENSE.shape, t.tensor(dense)), expected, "mul_coo_dense", scale=10)
    batch = np.concatenate([dense, 2 * dense])  # batch sizes 1 broadcast against 2
    expected = np.einsum("ij,bjk->bik", _DENSE, batch[:, :, 0, :])[:, :, None, :]
    t.check(t.b.mul_coo_dense(t.tensor(indices[None]), t.tensor(values[None, :, None]), _DENSE.shape, t.tensor(batch)), expected, "mul_coo_dense, a batch of 1 matrix times 2 dense", scale=10)
    three = t.tensor(np.concatenate([dense] * 3))
    twice = (t.tensor(np.stack([indices] * 2)), t.tensor(np.stack([values[:, None]] * 2)))
    check_raises(t, bk.ShapeMismatchError, lambda: t.b.mul_coo_dense(*twice, _DENSE.shape, three), "mul_coo_dense: batch 2 of the matrix against 3 dense", "mul_coo_dense")


@case("csr_to_coo")
def _csr_to_coo(t: Trial) -> None:
    """Row indices expanded from row pointers."""
    cols, pointers, _ = _csr()
    indices, _ = _coo()
    t.check(t.b.csr_to_coo(t.tensor(cols[None]), t.tensor(pointers[None])), indices[None], "csr_to_coo", dtype=int)


@case("csr_to_dense")
def _csr_to_dense(t: Trial) -> None:
    """Batched CSR with channels to dense."""
    cols, pointers, values = _csr()
    got = t.b.csr_to_dense(t.tensor(cols[None]), t.tensor(pointers[None]), t.tensor(values[None, :, None]), _DENSE.shape)
    t.check(got, _DENSE[None, :, :, None], "csr_to_dense")


@case("mul_csr_dense")
def _mul_csr_dense(t: Trial) -> None:
    """Batched CSR times dense."""
    cols, pointers, values = _csr()
    dense = t.uniform((1, 4, 1, 2)).astype(np.float32)
    expected = np.einsum("ij,jk->ik", _DENSE, dense[0, :, 0, :])[None, :, None, :]
    got = t.b.mul_csr_dense(t.tensor(cols[None]), t.tensor(pointers[None]), t.tensor(values[None, :, None]), _DENSE.shape, t.tensor(dense))
    t.check(got, expected, "mul_csr_dense", scale=10)


@case("mul_matrix_batched_vector", name="sparse-matrix")
def _sparse_matvec(t: Trial) -> None:
    """A sparse COO matrix (where supported) times (batch, cols) vectors."""
    from .._case import SkipCase

    if not t.b.supports("sparse_coo_tensor"):
        raise SkipCase("the backend has no sparse_coo_tensor to build the operand")
    indices, values = _coo()
    matrix = t.b.sparse_coo_tensor(t.tensor(indices), t.tensor(values), _DENSE.shape)
    vec = t.uniform((2, 4)).astype(np.float32)
    t.check(t.b.mul_matrix_batched_vector(matrix, t.tensor(vec)), vec @ _DENSE.T, "sparse @ (2, 4) vectors", scale=10)


# ---------------------------------------------------------------- batched constructors and sparse solves

_BATCH = np.stack([_DENSE, 2 * _DENSE[:, ::-1]])  # two matrices with different patterns


def _batched_dense(t: Trial, matrix: object, what: str, expected: np.ndarray) -> None:
    t.expect(bool(t.b.is_sparse(matrix)), what, "is_sparse() is False for the result")
    t.compare(t.to_numpy(matrix), expected, what, DType(float, 32))


def _batched_coo() -> tuple[np.ndarray, np.ndarray]:
    """`(batch, nnz, 2)` indices and `(batch, nnz)` values; both matrices have the same number of entries."""
    parts = [np.nonzero(m) for m in _BATCH]
    indices = np.stack([np.stack(p, -1) for p in parts]).astype(np.int32)
    values = np.stack([m[p] for m, p in zip(_BATCH, parts, strict=True)])
    return indices, values


@case("sparse_coo_tensor_batched")
def _sparse_coo_batched(t: Trial) -> None:
    """`(batch, nnz, ndims)` indices and `(batch, nnz)` values give a sparse `(batch, *shape)` tensor."""
    indices, values = _batched_coo()
    result = t.b.sparse_coo_tensor_batched(t.tensor(indices), t.tensor(values), _DENSE.shape)
    _batched_dense(t, result, "sparse_coo_tensor_batched", _BATCH)


@case("csr_matrix_batched")
def _csr_batched(t: Trial) -> None:
    """`(batch, nnz)` columns, `(batch, rows + 1)` pointers, `(batch, nnz, channels)` values give `(batch, rows, cols, channels)`."""
    rows_cols = [np.nonzero(m) for m in _BATCH]
    columns = np.stack([c for _, c in rows_cols]).astype(np.int32)
    pointers = np.stack([np.concatenate([[0], np.cumsum(np.bincount(r, minlength=_DENSE.shape[0]))]) for r, _ in rows_cols]).astype(np.int32)
    values = np.stack([m[r, c] for m, (r, c) in zip(_BATCH, rows_cols, strict=True)])[..., None]
    result = t.b.csr_matrix_batched(t.tensor(columns), t.tensor(pointers), t.tensor(values), _DENSE.shape)
    _batched_dense(t, result, "csr_matrix_batched", _BATCH[..., None])


@case("csc_matrix_batched")
def _csc_batched(t: Trial) -> None:
    """`(batch, cols + 1)` pointers, `(batch, nnz)` rows, `(batch, nnz, channels)` values give `(batch, rows, cols, channels)`."""
    cols_rows = [np.nonzero(m.T) for m in _BATCH]
    pointers = np.stack([np.concatenate([[0], np.cumsum(np.bincount(c, minlength=_DENSE.shape[1]))]) for c, _ in cols_rows]).astype(np.int32)
    rows = np.stack([r for _, r in cols_rows]).astype(np.int32)
    values = np.stack([m.T[c, r] for m, (c, r) in zip(_BATCH, cols_rows, strict=True)])[..., None]
    result = t.b.csc_matrix_batched(t.tensor(pointers), t.tensor(rows), t.tensor(values), _DENSE.shape)
    _batched_dense(t, result, "csc_matrix_batched", _BATCH[..., None])


@case("solve_triangular_sparse")
def _solve_triangular_sparse(t: Trial) -> None:
    """A sparse lower/upper triangular `(n, n)` system for `(batch, n)` right-hand sides, with and without unit diagonal."""
    n = 5
    lower = np.tril(t.uniform((n, n), 0.5, 1.5)) * (t.uniform((n, n)) > 0) + 2 * np.eye(n)
    rhs = t.uniform((2, n))
    dtype = "float64" if t.float64 else "float32"
    for is_lower, unit in ((True, False), (False, False), (True, True)):
        dense = lower if is_lower else lower.T
        solved = np.tril(dense, -1) + np.eye(n) if unit and is_lower else dense
        rows, cols = np.nonzero(dense)
        matrix = t.b.sparse_coo_tensor(t.tensor(np.stack([rows, cols], -1).astype(np.int32)), t.tensor(dense[rows, cols], dtype), (n, n))
        got = t.b.solve_triangular_sparse(matrix, t.tensor(rhs, dtype), is_lower, unit)
        expected = np.linalg.solve(solved, rhs.T).T
        t.check(got, expected, f"solve_triangular_sparse(lower={is_lower}, unit_diagonal={unit})", scale=100)
