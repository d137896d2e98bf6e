"""The generic solvers on every installed backend: against SciPy, eagerly and inside `jit_compile`."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import bk

BACKENDS = [name for name in ("numpy", "torch", "jax", "tf") if name in bk.backends()]


def poisson(size: int) -> sp.csr_matrix:
    one_d = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(size, size))
    return (sp.kron(one_d, sp.identity(size)) + sp.kron(sp.identity(size), one_d)).tocsr()


def operator(b: bk.Backend, matrix: sp.csr_matrix, dtype: str):
    """The matrix as the backend's sparse tensor where it has them, else dense."""
    if b.supports("sparse_coo_tensor"):
        coo = matrix.tocoo()
        return b.sparse_coo_tensor(b.as_tensor(np.stack([coo.row, coo.col], -1)), b.cast(b.as_tensor(coo.data), bk.DType.parse(dtype)), coo.shape)
    return b.cast(b.as_tensor(matrix.toarray()), bk.DType.parse(dtype))


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_poisson_cg_matches_scipy(name: str, dtype: str):
    b = bk.backend(name)
    matrix = poisson(24)
    y = np.random.default_rng(0).normal(size=(2, 24 * 24)).astype(dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-10
    with bk.precision(int(dtype[-2:])):
        result = b.linear_solve("CG", operator(b, matrix, dtype), b.as_tensor(y), b.as_tensor(np.zeros_like(y)), rtol, 0.0, 2000, None, None)
    expected = np.stack([spla.cg(matrix, y[i].astype(np.float64), rtol=1e-12, atol=0.0)[0] for i in range(2)])
    np.testing.assert_allclose(b.numpy(result.x), expected, rtol=1e-2 if dtype == "float32" else 1e-7, atol=1e-3 if dtype == "float32" else 1e-8)
    assert bool(np.all(b.numpy(result.converged)))
    assert b.dtype(result.x) == bk.DType.parse(dtype)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("method", ["biCG-stab", "biCG-stab(2)", "scipy-GMres"])
def test_non_symmetric(name: str, method: str):
    b = bk.backend(name)
    rng = np.random.default_rng(1)
    matrix = 6 * np.eye(12) + rng.normal(size=(12, 12))
    y = rng.normal(size=(2, 12))
    with bk.precision(64):
        result = b.linear_solve(method, b.as_tensor(matrix), b.as_tensor(y), b.as_tensor(np.zeros_like(y)), 1e-10, 0.0, 500, None, None)
    np.testing.assert_allclose(b.numpy(result.x), np.linalg.solve(matrix, y.T).T, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", [n for n in BACKENDS if bk.backend(n).supports("jit")])
@pytest.mark.parametrize("method", ["CG", "CG-adaptive", "biCG-stab"])
def test_native_solvers_inside_jit_compile(name: str, method: str):
    b = bk.backend(name)
    matrix = b.as_tensor(poisson(6).toarray().astype(np.float32))

    def solve(y, x0):
        result = b.linear_solve(method, matrix, y, x0, 1e-6, 0.0, 200, None, None)
        return result.x, result.converged

    compiled = b.jit_compile(solve)
    y = np.random.default_rng(2).normal(size=(1, 36)).astype(np.float32)
    for scale in (1.0, 3.0):  # the second call reuses the compiled function
        x, converged = compiled(b.as_tensor(y * scale), b.as_tensor(np.zeros_like(y)))
        np.testing.assert_allclose(b.numpy(x), np.linalg.solve(poisson(6).toarray(), y[0] * scale)[None], rtol=1e-3, atol=1e-4)
        assert bool(np.all(b.numpy(converged)))


@pytest.mark.parametrize("name", BACKENDS)
def test_minimize_rosenbrock(name: str):
    b = bk.backend(name)

    def rosenbrock(x):
        return (1 - x[:, 0]) ** 2 + 100 * (x[:, 1] - x[:, 0] ** 2) ** 2

    with bk.precision(64):
        result = b.minimize("L-BFGS-B", rosenbrock, b.as_tensor(np.array([[-1.2, 1.0], [0.0, 0.0]])), 1e-10, 2000, False)
    np.testing.assert_allclose(b.numpy(result.x), np.ones((2, 2)), atol=1e-4)
