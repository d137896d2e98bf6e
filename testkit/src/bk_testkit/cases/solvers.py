"""The generic algorithms: linear solves and minimisation, against NumPy/SciPy on real problems."""

from __future__ import annotations

import numpy as np

from bk import DType

from .._case import Trial, case

NATIVE = ("CG", "CG-adaptive", "auto", "biCG-stab", "biCG-stab(2)")


def _spd(t: Trial, n: int) -> np.ndarray:
    a = t.uniform((n, n))
    return a @ a.T + n * np.eye(n)


def _poisson(size: int) -> np.ndarray:
    """The negated 5-point Laplacian of a `size` x `size` grid with Dirichlet boundaries (dense)."""
    one_d = 2 * np.eye(size) - np.eye(size, k=1) - np.eye(size, k=-1)
    return np.kron(one_d, np.eye(size)) + np.kron(np.eye(size), one_d)


def _dtypes(t: Trial) -> list[DType]:
    return [DType(float, 32)] + ([DType(float, 64)] if t.float64 else [])


def _solve(t: Trial, method: str, matrix: np.ndarray, y: np.ndarray, dtype: DType, solver: str = "linear_solve", **kwargs: object) -> None:
    rtol = 1e-5 if dtype.bits == 32 else 1e-10
    arguments = {"x0": np.zeros_like(y), "rtol": rtol, "atol": 0.0, "max_iter": 2000, "pre": None, "matrix_offset": None, **kwargs}
    lin = matrix if callable(matrix) else t.tensor(matrix, dtype)
    args = (lin, t.tensor(y, dtype), t.tensor(arguments["x0"], dtype), arguments["rtol"], arguments["atol"], arguments["max_iter"], arguments["pre"], arguments["matrix_offset"])
    result = getattr(t.b, solver)(*args) if solver != "linear_solve" else t.b.linear_solve(method, *args)
    dense = matrix if not callable(matrix) else kwargs["dense"]
    expected = np.linalg.solve(dense, y.T).T
    what = f"{solver}({method!r}, {dtype} {y.shape})"
    t.check(result.x, expected, what, dtype=dtype, scale=2e3 if dtype.bits == 32 else 1e4)
    t.expect(bool(np.all(t.to_numpy(result.converged))), what, f"converged = {t.to_numpy(result.converged)}, message {result.message}")
    t.expect(not np.any(t.to_numpy(result.diverged)), what, "diverged")
    t.expect(bool(np.all(t.to_numpy(result.iterations) >= 1)), what, f"iterations {t.to_numpy(result.iterations)}")


@case("linear_solve")
def _native_methods_dense_spd(t: Trial) -> None:
    """CG, adaptive CG, BiCGstab(1, 2) on a symmetric positive definite system, float32 and float64."""
    matrix, y = _spd(t, 12), t.uniform((2, 12))
    for dtype in _dtypes(t):
        for method in NATIVE:
            _solve(t, method, matrix, y, dtype)


@case("linear_solve")
def _poisson_2d(t: Trial) -> None:
    """The 2-D Poisson equation on a 12x12 grid (5-point stencil) with CG."""
    matrix = _poisson(12)
    y = t.uniform((1, 144))
    for dtype in _dtypes(t):
        _solve(t, "CG", matrix, y, dtype)


@case("linear_solve")
def _non_symmetric(t: Trial) -> None:
    """BiCGstab on a non-symmetric, diagonally dominant system."""
    matrix = 8 * np.eye(10) + t.uniform((10, 10))
    y = t.uniform((2, 10))
    for dtype in _dtypes(t):
        for method in ("biCG-stab", "biCG-stab(2)"):
            _solve(t, method, matrix, y, dtype)


@case("linear_solve")
def _scipy_methods(t: Trial) -> None:
    """SciPy's direct and iterative solvers on a symmetric positive definite system."""
    matrix, y = _spd(t, 8), t.uniform((2, 8))
    for method in ("scipy-direct", "scipy-CG", "scipy-GMres", "scipy-biCG-stab"):
        _solve(t, method, matrix, y, DType(float, 64) if t.float64 else DType(float, 32))


@case("linear_solve")
def _trajectory(t: Trial) -> None:
    """`max_iter` of shape (checkpoints, batch) records the state at every checkpoint."""
    matrix, y = _poisson(4), t.uniform((1, 16))
    args = (t.tensor(matrix, "float32"), t.tensor(y, "float32"), t.tensor(np.zeros_like(y), "float32"), 1e-5, 0.0)
    result = t.b.linear_solve("CG", *args, np.array([[1], [2], [200]]), None, None)
    x = t.to_numpy(result.x)
    t.expect(x.shape == (3, 1, 16), "linear_solve trajectory", f"x has shape {x.shape}, expected (3, 1, 16)")
    t.expect(t.to_numpy(result.iterations)[:2, 0].tolist() == [1, 2], "linear_solve trajectory", f"iterations {t.to_numpy(result.iterations)}")
    t.check(result.x[2, ...], np.linalg.solve(matrix, y.T).T, "linear_solve trajectory, last checkpoint", dtype=DType(float, 32), scale=2e3)


@case("conjugate_gradient")
def _cg(t: Trial) -> None:
    """Conjugate gradient on a symmetric positive definite system."""
    _solve(t, "CG", _spd(t, 10), t.uniform((3, 10)), _dtypes(t)[-1], solver="conjugate_gradient")


@case("conjugate_gradient_adaptive")
def _cg_adaptive(t: Trial) -> None:
    """Adaptive conjugate gradient on a symmetric positive definite system."""
    _solve(t, "CG-adaptive", _spd(t, 10), t.uniform((3, 10)), _dtypes(t)[-1], solver="conjugate_gradient_adaptive")


@case("bi_conjugate_gradient")
def _bicg(t: Trial) -> None:
    """BiCGstab(2) (the default order) on a non-symmetric system."""
    matrix = 8 * np.eye(10) + t.uniform((10, 10))
    _solve(t, "biCG-stab(2)", matrix, t.uniform((2, 10)), _dtypes(t)[-1], solver="bi_conjugate_gradient")


def _rosenbrock(x: object) -> object:
    return (1 - x[:, 0]) ** 2 + 100 * (x[:, 1] - x[:, 0] ** 2) ** 2  # type: ignore[index]


@case("minimize")
def _minimize_rosenbrock(t: Trial) -> None:
    """L-BFGS-B on the Rosenbrock function from two starting points, float32 and float64."""
    x0 = np.array([[-1.2, 1.0], [0.5, 0.5]])
    for dtype in _dtypes(t):
        result = t.b.minimize("L-BFGS-B", _rosenbrock, t.tensor(x0, dtype), 1e-8 if dtype.bits == 64 else 1e-5, 3000, False)
        t.check(result.x, np.ones((2, 2)), f"minimize('L-BFGS-B', rosenbrock, {dtype})", tol_dtype=DType(float, 16), scale=2)


@case("minimize")
def _minimize_gradient_descent(t: Trial) -> None:
    """Gradient descent on a quadratic bowl (backends with gradients only)."""
    if not t.b.supports("gradients"):
        try:
            t.b.minimize("GD", lambda x: t.b.sum(x * x, -1), t.tensor(np.ones((1, 2)), "float32"), 1e-4, 100, False)
        except NotImplementedError:
            return  # correct: gradient descent needs gradients
        t.fail("minimize('GD')", "worked without gradients")
    center = np.array([[1.0, -2.0]])
    target = t.tensor(center, "float32")
    result = t.b.minimize("GD", lambda x: t.b.sum((x - target) ** 2, -1), t.tensor(np.zeros((1, 2)), "float32"), 1e-4, 500, False)
    t.check(result.x, center, "minimize('GD', quadratic)", tol_dtype=DType(float, 16), scale=2)
