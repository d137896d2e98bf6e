"""Sparse tensors, scatter and gather, and a few operations whose semantics PyTorch does not give directly."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
import torch

import bk


def dense(x: torch.Tensor) -> np.ndarray:
    return x.to_dense().numpy() if x.layout != torch.strided else x.numpy()


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
def test_sparse_round_trip(b: bk.Backend, fmt: str) -> None:
    matrix = scipy.sparse.random(4, 5, density=0.4, format=fmt, random_state=0, dtype=np.float64)
    if fmt == "coo":
        x = b.sparse_coo_tensor(np.stack([matrix.row, matrix.col], -1), matrix.data, (4, 5))
    elif fmt == "csr":
        x = b.csr_matrix(matrix.indices, matrix.indptr, matrix.data, (4, 5))
    else:
        x = b.csc_matrix(matrix.indptr, matrix.indices, matrix.data, (4, 5))
    assert b.is_sparse(x) and b.get_sparse_format(x) == fmt and b.is_tensor(x, only_native=True)
    assemble, parts = b.disassemble(x)
    rebuilt = assemble(b, *parts)
    assert b.get_sparse_format(rebuilt) == fmt
    np.testing.assert_array_equal(dense(rebuilt), matrix.toarray())
    as_scipy = b.numpy(x)
    assert scipy.sparse.issparse(as_scipy) and as_scipy.format == fmt
    np.testing.assert_array_equal(as_scipy.toarray(), matrix.toarray())
    vectors = np.arange(10.0).reshape(2, 5)
    np.testing.assert_allclose(b.mul_matrix_batched_vector(x, b.as_tensor(vectors)).numpy(), vectors @ matrix.toarray().T, atol=1e-5)
    assert b.get_sparse_format(b.as_tensor(np.ones(2))) == "dense" and not b.is_sparse(np.ones(2))


def test_sparse_index_outside_shape_is_an_error(b: bk.Backend) -> None:
    with pytest.raises(RuntimeError):
        b.sparse_coo_tensor(np.array([[0, 7]]), np.array([1.0]), (2, 2))


def test_batched_sparse(b: bk.Backend) -> None:
    indices = np.array([[[0, 1], [1, 0]], [[1, 1], [0, 0]]])
    x = b.sparse_coo_tensor_batched(indices, np.array([[1.0, 2.0], [3.0, 4.0]]), (2, 2))
    np.testing.assert_array_equal(dense(x), [[[0, 1], [2, 0]], [[4, 0], [0, 3]]])
    csr = b.csr_matrix_batched(
        np.array([[1, 0], [0, 1]]), np.array([[0, 1, 2], [0, 1, 2]]), np.array([[[1.0], [2.0]], [[3.0], [4.0]]]), (2, 2)
    )
    np.testing.assert_array_equal(dense(csr)[..., 0], [[[0, 1], [2, 0]], [[3, 0], [0, 4]]])
    assemble, parts = b.disassemble(csr)
    np.testing.assert_array_equal(dense(assemble(b, *parts)), dense(csr))


def test_mul_coo_and_csr_dense(b: bk.Backend) -> None:
    rng = np.random.default_rng(0)
    matrix = scipy.sparse.random(3, 4, density=0.5, format="csr", random_state=1)
    coo = matrix.tocoo()
    other = rng.normal(size=(1, 4, 1, 2))
    expected = (matrix.toarray() @ other[0, :, 0, :])[None, :, None, :]
    indices = np.stack([coo.row, coo.col], -1)[None]
    result = b.mul_coo_dense(indices, coo.data[None, :, None], (3, 4), other)
    np.testing.assert_allclose(result.numpy(), expected, atol=1e-6)
    result = b.mul_csr_dense(matrix.indices[None], matrix.indptr[None], matrix.data[None, :, None], (3, 4), other)
    np.testing.assert_allclose(result.numpy(), expected, atol=1e-6)


@pytest.mark.parametrize("mode", ["update", "add", "max", "min"])
def test_scatter_modes_with_broadcasting(b: bk.Backend, mode: str) -> None:
    base = np.full((2, 4, 1), 5.0)
    indices = np.array([[[1], [1], [3]]])  # batch 1 broadcasts to 2
    values = np.array([[[2.0], [9.0], [1.0]], [[7.0], [3.0], [8.0]]])
    expected = base.copy()
    for batch in range(2):
        for (i,), (v,) in zip(indices[0], values[batch], strict=True):
            current = expected[batch, i, 0]
            expected[batch, i, 0] = {"update": v, "add": current + v, "max": max(current, v), "min": min(current, v)}[mode]
    if mode == "update":  # the winner among duplicate indices is unspecified
        expected[:, 1] = np.nan
    result = b.scatter(base, indices, values, mode).numpy()
    mask = ~np.isnan(expected)
    np.testing.assert_array_equal(result[mask], expected[mask])
    if mode == "update":
        assert all(result[k, 1, 0] in values[k, :2, 0] for k in range(2))


def test_scatter_update_of_one_value_to_all_and_booleans(b: bk.Backend) -> None:
    result = b.scatter(np.zeros((1, 3, 2), bool), np.array([[[0], [2]]]), np.array([[[True]]]), "update")
    assert result.dtype == torch.bool and result[0, :, 0].tolist() == [True, False, True]
    added = b.scatter(np.zeros((1, 3, 1), np.int32), np.array([[[0], [0]]]), np.array([[[2], [3]]], np.int32), "add")
    assert added.dtype == torch.int32 and added[0, :, 0].tolist() == [5, 0, 0]


def test_scatter_bad_mode(b: bk.Backend) -> None:
    with pytest.raises(ValueError, match="^scatter: mode must be 'update', 'add', 'max' or 'min'"):
        b.scatter(np.zeros((1, 3, 1)), np.zeros((1, 1, 1), int), np.ones((1, 1, 1)), "multiply")


def test_scatter_is_differentiable(b: bk.Backend) -> None:
    values = torch.ones(1, 2, 1, requires_grad=True)
    out = b.scatter(torch.zeros(1, 3, 1), torch.tensor([[[0], [0]]]), values * 3, "add")
    out.sum().backward()
    assert values.grad.tolist() == [[[3.0], [3.0]]]


def test_batched_gather_nd_broadcasts_batch(b: bk.Backend) -> None:
    values = np.arange(12.0).reshape(1, 3, 2, 2)
    indices = np.array([[[0, 1], [2, 0]], [[1, 1], [1, 1]]])
    result = b.batched_gather_nd(values, indices).numpy()
    assert result.shape == (2, 2, 2)
    np.testing.assert_array_equal(result[1, 0], values[0, 1, 1])


@pytest.mark.parametrize("mode", ["constant", "boundary", "periodic", "symmetric", "reflect"])
def test_pad_on_many_dimensions(b: bk.Backend, mode: str) -> None:
    x = np.arange(2 * 3 * 4 * 5.0).reshape(2, 3, 4, 5)
    widths = [(1, 0), (0, 2), (3, 1), (2, 2)]
    numpy_mode = {"boundary": "edge", "periodic": "wrap"}.get(mode, mode)
    np.testing.assert_array_equal(b.pad(x, widths, mode).numpy(), np.pad(x, widths, numpy_mode))
    with pytest.raises(ValueError, match="^pad: unknown mode"):
        b.pad(x, widths, "mirror")


def test_conv_same_matches_scipy_for_even_kernels(b: bk.Backend) -> None:
    from scipy.signal import correlate

    rng = np.random.default_rng(1)
    value, kernel = rng.normal(size=(2, 1, 6, 5)), rng.normal(size=(2, 3, 1, 2, 4))
    result = b.conv(value, kernel, True).numpy()
    for batch in range(2):
        for out in range(3):
            np.testing.assert_allclose(result[batch, out], correlate(value[batch, 0], kernel[batch, out, 0], "same"), atol=1e-12)


@pytest.mark.parametrize("extrapolation", ["boundary", "periodic", "zeros"])
def test_grid_sample_3d(b: bk.Backend, extrapolation: str) -> None:
    grid = np.arange(2 * 3 * 4 * 1.0).reshape(1, 2, 3, 4, 1)
    coordinates = np.array([[[0.5, 1.0, 2.25], [0.0, 0.0, 0.0]]])
    expected = [0.5 * 12 + 1.0 * 4 + 2.25, 0.0]  # linear in each index: 12 * i + 4 * j + k
    np.testing.assert_allclose(b.grid_sample(grid, coordinates, extrapolation).numpy()[0, :, 0], expected, atol=1e-6)


def test_vectorized_call_uses_vmap_and_falls_back(b: bk.Backend) -> None:
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(b.vectorized_call(lambda v, w: v * w, x, np.ones((1, 2)) * 2).numpy(), x * 2)

    def data_dependent(v: torch.Tensor) -> torch.Tensor:
        return v[v > 2].sum()  # vmap cannot batch a data-dependent shape

    np.testing.assert_array_equal(b.vectorized_call(data_dependent, x).numpy(), [0.0, 3.0, 9.0])
