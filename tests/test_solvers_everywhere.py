"""The generic solvers on every installed backend: against SciPy, eagerly and inside `jit_compile`."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
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


RTOL = {"float32": 1e-5, "float64": 1e-10}


def relative_residual(matrix, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """`|A x - y| / |y|` per batch entry, in float64."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    return np.linalg.norm((matrix @ x.T).T - y, axis=-1) / np.linalg.norm(y, axis=-1)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_poisson_128_cg_matches_scipy(name: str, dtype: str):
    """The 2-D Poisson equation on a 128x128 grid (5-point stencil, sparse), two right-hand sides."""
    b = bk.backend(name)
    matrix = poisson(128)
    y = np.random.default_rng(0).normal(size=(2, 128 * 128)).astype(dtype)
    with bk.precision(int(dtype[-2:])):
        result = b.linear_solve("CG", operator(b, matrix, dtype), b.as_tensor(y), b.as_tensor(np.zeros_like(y)), RTOL[dtype], 0.0, 5000, None, None)
    x = b.numpy(result.x)
    assert b.dtype(result.x) == bk.DType.parse(dtype) and x.shape == y.shape
    assert bool(np.all(b.numpy(result.converged))) and not bool(np.any(b.numpy(result.diverged)))
    # float32 CG stops on its recursive residual; the true one may lag by a few ulps of the solution
    assert np.all(relative_residual(matrix, x, y) <= (5e-5 if dtype == "float32" else 1e-9))
    expected = np.stack([spla.cg(matrix, y[i].astype(np.float64), rtol=1e-12, atol=0.0)[0] for i in range(2)])
    scale = np.abs(expected).max()
    np.testing.assert_allclose(x, expected, atol=(5e-3 if dtype == "float32" else 1e-7) * scale)
    iterations = b.numpy(result.iterations)
    reference_iterations = []
    spla.cg(matrix, y[0].astype(np.float64), rtol=RTOL[dtype], atol=0.0, callback=lambda _: reference_iterations.append(1))
    assert abs(int(iterations[0]) - len(reference_iterations)) <= 0.1 * len(reference_iterations) + 5


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("method", ["CG", "CG-adaptive", "scipy-CG", "scipy-direct"])
def test_dense_spd_system(name: str, dtype: str, method: str):
    b = bk.backend(name)
    rng = np.random.default_rng(3)
    q = rng.normal(size=(40, 40))
    matrix = (q @ q.T / 40 + np.eye(40)).astype(dtype)
    y = rng.normal(size=(3, 40)).astype(dtype)
    with bk.precision(int(dtype[-2:])):
        result = b.linear_solve(method, b.as_tensor(matrix), b.as_tensor(y), b.as_tensor(np.zeros_like(y)), RTOL[dtype], 0.0, 1000, None, None)
    expected = np.linalg.solve(matrix.astype(np.float64), y.T.astype(np.float64)).T
    np.testing.assert_allclose(b.numpy(result.x), expected, rtol=0, atol=1e-3 if dtype == "float32" else 1e-8)
    assert bool(np.all(b.numpy(result.converged)))
    assert b.dtype(result.x) == bk.DType.parse(dtype)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("method", ["biCG-stab", "biCG-stab(2)", "scipy-GMres", "scipy-biCG-stab"])
def test_non_symmetric(name: str, dtype: str, method: str):
    b = bk.backend(name)
    rng = np.random.default_rng(1)
    matrix = (6 * np.eye(12) + rng.normal(size=(12, 12))).astype(dtype)
    y = rng.normal(size=(2, 12)).astype(dtype)
    with bk.precision(int(dtype[-2:])):
        result = b.linear_solve(method, b.as_tensor(matrix), b.as_tensor(y), b.as_tensor(np.zeros_like(y)), RTOL[dtype], 0.0, 500, None, None)
    expected = np.linalg.solve(matrix.astype(np.float64), y.T.astype(np.float64)).T
    np.testing.assert_allclose(b.numpy(result.x), expected, rtol=0, atol=1e-4 if dtype == "float32" else 1e-8)
    assert bool(np.all(b.numpy(result.converged)))


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
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("method", ["L-BFGS-B", "BFGS", "CG"])
def test_minimize_rosenbrock(name: str, dtype: str, method: str):
    """SciPy methods with the backend's gradients (finite differences where it has none)."""
    b = bk.backend(name)

    def rosenbrock(x):
        return (1 - x[:, 0]) ** 2 + 100 * (x[:, 1] - x[:, 0] ** 2) ** 2

    start = np.array([[-1.2, 1.0], [0.0, 0.0]], dtype)
    with bk.precision(int(dtype[-2:])):
        result = b.minimize(method, rosenbrock, b.as_tensor(start), 1e-10 if dtype == "float64" else 1e-6, 5000, False)
    minimum = scipy.optimize.minimize(lambda v: (1 - v[0]) ** 2 + 100 * (v[1] - v[0] ** 2) ** 2, start[0].astype(np.float64), method="L-BFGS-B", tol=1e-12).x
    np.testing.assert_allclose(minimum, [1.0, 1.0], atol=1e-5)
    np.testing.assert_allclose(b.numpy(result.x), np.ones((2, 2)), atol=1e-2 if dtype == "float32" else 1e-4)
    assert b.numpy(result.x).dtype == np.dtype(dtype)
    assert np.all(b.numpy(result.residual) < (1e-3 if dtype == "float32" else 1e-7))


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradient_descent(name: str, dtype: str):
    """'GD' with the backend's autodiff on an anisotropic quadratic bowl; a clear error without gradients."""
    b = bk.backend(name)
    centre = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], dtype)
    weights = np.array([1.0, 4.0, 0.5], dtype)

    def bowl(x):
        return b.sum(b.as_tensor(weights) * (x - b.as_tensor(centre)) ** 2, axis=1)

    start = b.as_tensor(np.zeros((2, 3), dtype))
    if not b.supports("gradients"):
        with pytest.raises(NotImplementedError, match="gradients"):
            b.minimize("GD", bowl, start, 1e-5, 10, False)
        return
    with bk.precision(int(dtype[-2:])):
        result = b.minimize("GD", bowl, start, 1e-4, 2000, False)
    np.testing.assert_allclose(b.numpy(result.x), centre, atol=1e-3)
    assert bool(np.all(b.numpy(result.converged)))
    assert b.numpy(result.x).dtype == np.dtype(dtype)


@pytest.mark.parametrize("name", BACKENDS)
def test_trajectory_and_function_operator(name: str):
    """`max_iter` checkpoints give a trajectory; the operator may be a Python function of the backend."""
    b = bk.backend(name)
    matrix = poisson(6).toarray()
    native = b.as_tensor(matrix)
    y = np.ones((1, 36))
    with bk.precision(64):
        result = b.linear_solve("CG", lambda x: b.mul_matrix_batched_vector(native, x), b.as_tensor(y), b.as_tensor(np.zeros_like(y)), 1e-10, 0.0, np.array([[1], [3], [100]]), None, None)
    x = b.numpy(result.x)
    assert x.shape == (3, 1, 36)
    assert b.numpy(result.iterations)[:2, 0].tolist() == [1, 3]
    assert b.numpy(result.converged)[:, 0].tolist() == [False, False, True]
    residuals = [np.linalg.norm(y - x[k] @ matrix.T) for k in range(3)]
    assert residuals[0] > residuals[1] > residuals[2]
    np.testing.assert_allclose(x[2], np.linalg.solve(matrix, y[0])[None], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", BACKENDS)
def test_linear_solve_defaults_and_keywords(name: str):
    """Everything after `y` has a default (x0 zeros, rtol 1e-5, atol 0, 10 n iterations) and can be a keyword."""
    b = bk.backend(name)
    matrix = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    y = np.array([[1.0, 2.0, 3.0]])
    with bk.precision(64):
        result = b.linear_solve("CG", b.as_tensor(matrix), b.as_tensor(y), rtol=1e-12, atol=1e-14)
        default = b.linear_solve("biCG-stab", b.as_tensor(matrix), b.as_tensor(y))
    np.testing.assert_allclose(b.numpy(result.x)[0], np.linalg.solve(matrix, y[0]), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b.numpy(default.x)[0], np.linalg.solve(matrix, y[0]), rtol=1e-4, atol=1e-6)
    assert bool(np.all(b.numpy(default.converged)))
