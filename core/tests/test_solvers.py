"""The generic linear solvers and `minimize`, on a NumPy-backed fake backend, against NumPy/SciPy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import bk

NATIVE = ["CG", "CG-adaptive", "auto", "biCG-stab", "biCG-stab(2)"]
SCIPY = ["scipy-direct", "scipy-CG", "scipy-GMres", "scipy-biCG", "scipy-biCG-stab", "scipy-CGS", "scipy-QMR", "scipy-GCrotMK"]


def spd(n: int, seed: int = 0) -> np.ndarray:
    a = np.random.default_rng(seed).normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def poisson_2d(size: int) -> sp.csr_matrix:
    """The 5-point Laplacian (negated: positive definite) with Dirichlet boundaries."""
    one_d = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(size, size))
    eye = sp.identity(size)
    return (sp.kron(one_d, eye) + sp.kron(eye, one_d)).tocsr()


def solve(backend, method, lin, y, **kwargs):
    defaults = {"x0": np.zeros_like(y), "rtol": 1e-10, "atol": 1e-12, "max_iter": 1000, "pre": None, "matrix_offset": None}
    defaults.update(kwargs)
    return backend.linear_solve(method, lin, y, defaults["x0"], defaults["rtol"], defaults["atol"], defaults["max_iter"], defaults["pre"], defaults["matrix_offset"])


@pytest.mark.parametrize("method", NATIVE + SCIPY)
def test_dense_spd_system(richer, method):
    matrix = spd(8)
    y = np.random.default_rng(1).normal(size=(3, 8))
    result = solve(richer, method, matrix, y)
    np.testing.assert_allclose(result.x, np.linalg.solve(matrix, y.T).T, rtol=1e-6, atol=1e-8)
    assert np.all(result.converged) and not np.any(result.diverged)
    assert result.method.lower().startswith(method.lower().replace("auto", "cg-adaptive")[:5])
    assert np.all(np.asarray(result.iterations) >= 1)


@pytest.mark.parametrize("method", ["CG", "CG-adaptive", "biCG-stab", "scipy-CG"])
def test_sparse_poisson(richer, method):
    matrix = poisson_2d(16)
    y = np.random.default_rng(2).normal(size=(2, 256))
    result = solve(richer, method, matrix, y, rtol=1e-8)
    np.testing.assert_allclose(matrix @ np.asarray(result.x).T, y.T, atol=1e-6)
    assert np.all(result.converged)


@pytest.mark.parametrize("method", ["biCG-stab", "biCG-stab(2)", "biCG-stab(3)", "scipy-GMres", "scipy-biCG-stab"])
def test_non_symmetric_system(richer, method):
    rng = np.random.default_rng(3)
    matrix = 6 * np.eye(10) + rng.normal(size=(10, 10))
    y = rng.normal(size=(2, 10))
    result = solve(richer, method, matrix, y)
    np.testing.assert_allclose(result.x, np.linalg.solve(matrix, y.T).T, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("method", ["CG", "biCG-stab", "scipy-GMres"])
def test_linear_function_operator(richer, method):
    matrix = spd(6, seed=4)
    y = np.ones((2, 6))
    result = solve(richer, method, lambda x: x @ matrix.T, y)
    np.testing.assert_allclose(result.x, np.linalg.solve(matrix, y.T).T, rtol=1e-6, atol=1e-8)


def test_matrices_along_the_batch(richer):
    matrices = [spd(5, seed=5), spd(5, seed=6)]
    y = np.ones((2, 5))
    result = solve(richer, "CG", matrices, y)
    for i in range(2):
        np.testing.assert_allclose(result.x[i], np.linalg.solve(matrices[i], y[i]), rtol=1e-6, atol=1e-8)


def test_trajectory_checkpoints(richer):
    matrix = poisson_2d(6)
    y = np.ones((1, 36))
    result = solve(richer, "CG", matrix, y, max_iter=np.array([[1], [3], [100]]))
    assert np.shape(result.x) == (3, 1, 36)
    assert np.asarray(result.iterations)[:, 0].tolist()[:2] == [1, 3]
    assert np.asarray(result.converged)[:, 0].tolist() == [False, False, True]
    residuals = [np.linalg.norm(y - (matrix @ np.asarray(result.x)[k].T).T) for k in range(3)]
    assert residuals[0] > residuals[1] > residuals[2]


def test_not_converged_and_messages(richer):
    result = solve(richer, "CG", poisson_2d(8), np.ones((2, 64)), max_iter=2)
    assert not np.any(result.converged) and np.asarray(result.iterations).tolist() == [2, 2]
    assert result.message == ["not converged within 2 iterations"] * 2


def test_diverged_on_non_finite_values(richer):
    result = solve(richer, "CG", np.eye(3), np.array([[np.nan, 1.0, 1.0]]))
    assert np.all(result.diverged) and not np.any(result.converged)


def test_jacobi_preconditioner_reduces_iterations(richer):
    scales = np.diag(np.linspace(1, 1000, 50))
    matrix = scales @ spd(50, seed=7) @ scales
    diagonal = np.diag(matrix).copy()

    class Jacobi(bk.Preconditioner):
        def apply(self, vec):
            return vec / diagonal

    y = np.ones((1, 50))
    plain = solve(richer, "CG", matrix, y, rtol=1e-8, max_iter=5000)
    jacobi = solve(richer, "CG", matrix, y, rtol=1e-8, max_iter=5000, pre=Jacobi())
    assert np.all(jacobi.converged)
    np.testing.assert_allclose(matrix @ np.asarray(jacobi.x)[0], y[0], rtol=1e-5, atol=1e-6)
    assert int(np.asarray(jacobi.iterations)[0]) < int(np.asarray(plain.iterations)[0])
    bicg = solve(richer, "biCG-stab", matrix, y, rtol=1e-8, max_iter=5000, pre=Jacobi())
    np.testing.assert_allclose(matrix @ np.asarray(bicg.x)[0], y[0], rtol=1e-4, atol=1e-5)


def test_matrix_offset(richer):
    matrix = spd(4, seed=8)
    y = np.ones((1, 4))
    result = solve(richer, "CG", matrix, y, matrix_offset=0.5)
    np.testing.assert_allclose(result.x[0], np.linalg.solve(matrix + 0.5, y[0]), rtol=1e-6, atol=1e-8)


def test_unknown_methods_are_clear_errors(richer):
    with pytest.raises(ValueError, match="unknown linear solve method 'CGG'"):
        solve(richer, "CGG", np.eye(2), np.ones((1, 2)))
    with pytest.raises(ValueError, match="unknown SciPy method 'scipy-LU'"):
        solve(richer, "scipy-LU", np.eye(2), np.ones((1, 2)))
    with pytest.raises(ValueError, match="polynomial order must be at least 1"):
        solve(richer, "biCG-stab(0)", np.eye(2), np.ones((1, 2)))
    with pytest.raises(ValueError, match="shape \\(batch, n\\)"):
        solve(richer, "CG", np.eye(2), np.ones(2))


def test_solvers_are_supported_where_their_operations_are(minimal, richer):
    assert richer.supports("linear_solve") and richer.supports("conjugate_gradient")
    assert not minimal.supports("linear_solve")


def rosenbrock(b):
    def f(x):
        return (1 - x[:, 0]) ** 2 + 100 * (x[:, 1] - x[:, 0] ** 2) ** 2

    return f


@pytest.mark.parametrize("method", ["L-BFGS-B", "auto", "Powell"])
def test_minimize_rosenbrock_with_finite_differences(richer, method):
    result = richer.minimize(method, rosenbrock(richer), np.array([[-1.2, 1.0], [0.5, 0.5]]), 1e-6, 2000, False)
    np.testing.assert_allclose(result.x, np.ones((2, 2)), atol=1e-3)
    assert np.all(result.converged)
    assert result.method == f"scipy-{'L-BFGS-B' if method == 'auto' else method}"


def test_minimize_with_scipy_needs_only_the_required_set(minimal):
    assert minimal.supports("minimize")
    result = minimal.minimize("L-BFGS-B", rosenbrock(minimal), np.array([[-1.2, 1.0]]), 1e-8, 2000, False)
    np.testing.assert_allclose(result.x, np.ones((1, 2)), atol=1e-3)


def test_minimize_trajectory(richer):
    states = richer.minimize("L-BFGS-B", rosenbrock(richer), np.array([[-1.2, 1.0]]), 1e-10, 500, True)
    assert len(states) > 5
    losses = [float(np.asarray(s.residual)[0]) for s in states]
    assert losses[-1] < losses[0]


def test_gradient_descent_needs_gradients(richer):
    with pytest.raises(NotImplementedError, match="needs gradients"):
        richer.minimize("GD", rosenbrock(richer), np.zeros((1, 2)), 1e-5, 10, False)
