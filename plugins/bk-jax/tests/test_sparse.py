"""Sparse matrices through jax.experimental.sparse: formats, products with and without the padded row layout, solves."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.sparse

import bk
from bk import DType
from bk_jax import _sparse

DENSE = np.array([[0.0, 2.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 4.0, 0.0]], np.float32)
ROWS, COLS = np.nonzero(DENSE)
CSR = scipy.sparse.csr_matrix(DENSE)
CSC = scipy.sparse.csc_matrix(DENSE)


def formats(b: bk.Backend) -> dict[str, Any]:
    return {
        "coo": b.sparse_coo_tensor(np.stack([ROWS, COLS], -1), DENSE[ROWS, COLS], DENSE.shape),
        "csr": b.csr_matrix(CSR.indices, CSR.indptr, CSR.data, DENSE.shape),
        "csc": b.csc_matrix(CSC.indptr, CSC.indices, CSC.data, DENSE.shape),
    }


def test_formats_and_scipy_conversion(b: bk.Backend) -> None:
    kinds = {"coo": scipy.sparse.coo_matrix, "csr": scipy.sparse.csr_matrix, "csc": scipy.sparse.csc_matrix}
    for name, matrix in formats(b).items():
        assert b.is_sparse(matrix) and b.get_sparse_format(matrix) == name
        assert isinstance(b.numpy(matrix), kinds[name]) and np.array_equal(b.numpy(matrix).toarray(), DENSE)
        assert b.staticshape(matrix) == DENSE.shape and b.dtype(matrix) == DType(float, 32)
        assert b.dtype(b.cast(matrix, DType(float, 16))) == DType(float, 16) and b.is_sparse(b.cast(matrix, DType(float, 16)))


@pytest.mark.parametrize("name", ["coo", "csr", "csc"])
def test_disassemble_rebuilds_on_numpy(b: bk.Backend, name: str) -> None:
    assemble, parts = b.disassemble(formats(b)[name])
    on_numpy = assemble(bk.backend("numpy"), *[b.numpy(p) for p in parts])
    assert np.array_equal(bk.backend("numpy").numpy(on_numpy).toarray(), DENSE)
    again = assemble(b, *parts)
    assert b.get_sparse_format(again) == name and np.array_equal(b.numpy(again).toarray(), DENSE)


def test_batched_formats(b: bk.Backend) -> None:
    coo = b.sparse_coo_tensor_batched(np.stack([np.stack([ROWS, COLS], -1)] * 2), np.stack([DENSE[ROWS, COLS]] * 2), DENSE.shape)
    assert coo.shape == (2, 3, 4) and coo.n_batch == 1 and np.array_equal(b.numpy(coo), np.stack([DENSE] * 2))
    csr = b.csr_matrix_batched(
        np.stack([CSR.indices] * 2), np.stack([CSR.indptr] * 2), np.stack([CSR.data] * 2)[..., None], DENSE.shape
    )
    assert csr.shape == (2, 3, 4, 1) and np.array_equal(b.numpy(csr)[..., 0], np.stack([DENSE] * 2))
    assemble, parts = b.disassemble(csr)
    assert np.array_equal(b.numpy(assemble(b, *parts)), b.numpy(csr))


@pytest.mark.parametrize("name", ["coo", "csr", "csc"])
def test_products_with_and_without_padded_layout(b: bk.Backend, name: str) -> None:
    matrix = formats(b)[name]
    vectors = np.arange(8.0, dtype=np.float32).reshape(2, 4)
    expected = vectors @ DENSE.T
    assert _sparse._LAYOUTS.get(matrix) is not None  # concrete indices: no scatter
    np.testing.assert_allclose(b.mul_matrix_batched_vector(matrix, vectors), expected, atol=1e-5)
    traced = jax.jit(lambda leaves: b.mul_matrix_batched_vector(jax.tree_util.tree_unflatten(structure, leaves), vectors))
    leaves, structure = jax.tree_util.tree_flatten(matrix)
    np.testing.assert_allclose(traced(leaves), expected, atol=1e-5)  # traced indices: segment sums
    np.testing.assert_allclose(b.jit_compile(b.mul_matrix_batched_vector)(matrix, vectors), expected, atol=1e-5)  # layout passed along


def test_padded_layout_declines_skewed_patterns() -> None:
    rows = np.array([0] * 40 + list(range(1, 40)))
    cols = np.array(list(range(40)) + [0] * 39)
    assert _sparse._padded_layout(rows, cols, 40) is None  # one full row would pad every row to 40 entries
    assert _sparse._padded_layout(np.array([0, 0, 2]), np.array([1, 1, 0]), 3) is not None  # duplicates add up


def test_layouts_go_with_their_matrices(b: bk.Backend) -> None:
    import gc

    matrix = b.sparse_coo_tensor(np.array([[0, 1], [1, 0]]), np.ones(2, np.float32), (2, 2))
    key = id(matrix.indices)
    assert _sparse._LAYOUTS.get(matrix) is not None and key in _sparse._LAYOUTS._entries
    del matrix
    gc.collect()
    assert key not in _sparse._LAYOUTS._entries


def test_duplicate_entries_add_up(b: bk.Backend) -> None:
    matrix = b.sparse_coo_tensor(np.array([[0, 1], [0, 1], [1, 0]]), np.array([1.0, 2.0, 5.0], np.float32), (2, 2))
    np.testing.assert_allclose(b.mul_matrix_batched_vector(matrix, np.array([[1.0, 1.0]], np.float32)), [[3.0, 5.0]], atol=1e-6)


def test_batched_sparse_dense_products(b: bk.Backend) -> None:
    dense = np.random.default_rng(0).normal(size=(1, 4, 2, 3)).astype(np.float32)
    expected = np.einsum("ij,jcd->icd", DENSE, dense[0])[None]
    coo = b.mul_coo_dense(np.stack([ROWS, COLS], -1)[None], DENSE[ROWS, COLS][None, :, None].repeat(2, -1), DENSE.shape, dense)
    np.testing.assert_allclose(coo, expected, rtol=1e-5, atol=1e-5)
    csr = b.mul_csr_dense(CSR.indices[None], CSR.indptr[None], CSR.data[None, :, None].repeat(2, -1), DENSE.shape, dense)
    np.testing.assert_allclose(csr, expected, rtol=1e-5, atol=1e-5)
    assert b.csr_to_coo(CSR.indices[None], CSR.indptr[None]).tolist() == [np.stack([ROWS, COLS], -1).tolist()]


def test_sparse_triangular_solve_inside_jit(b: bk.Backend) -> None:
    lower = np.tril(np.random.default_rng(1).uniform(0.5, 1.5, (5, 5))) + 2 * np.eye(5)
    rows, cols = np.nonzero(lower)
    matrix = b.csr_matrix(cols, np.searchsorted(rows, np.arange(6)), lower[rows, cols].astype(np.float32), (5, 5))
    rhs = np.arange(10.0, dtype=np.float32).reshape(2, 5)
    solve = b.jit_compile(lambda m, y: b.solve_triangular_sparse(m, y, True, True))
    expected = np.linalg.solve(np.tril(lower, -1) + np.eye(5), rhs.T).T
    np.testing.assert_allclose(solve(matrix, rhs), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        b.solve_triangular_sparse(matrix, rhs, False, False), np.linalg.solve(np.diag(np.diag(lower)), rhs.T).T, rtol=1e-5, atol=1e-6
    )
    with pytest.raises(ValueError, match="square 2-D sparse matrix"):
        b.solve_triangular_sparse(formats(b)["coo"], rhs, True, False)


def test_sparse_matrices_follow_the_precision(b: bk.Backend) -> None:
    matrix = formats(b)["coo"]
    with bk.precision(64):
        assert b.dtype(b.as_tensor(matrix)) == DType(float, 64)
    assert b.as_tensor(matrix) is matrix and b.zeros_like(matrix).tolist() == jnp.zeros((3, 4)).tolist()
