"""Iterative linear solvers built only from catalogue operations, and SciPy solvers via `numpy_call`.

All solvers are batched: vectors have shape `(batch, n)`; tolerances and iteration limits are per
batch entry. The native solvers loop through `Backend.while_loop`, so they run inside
`jit_compile` wherever the backend can trace a loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._dtype import DType
from ._solve import Preconditioner, SolveResult

if TYPE_CHECKING:
    from ._backend import Backend

__all__ = ["bicg", "cg", "cg_adaptive", "scipy_solve"]

Tensor = Any
INT32 = DType(int, 32)


@dataclass
class Problem:
    """A batched linear system `A x = y` with its stopping rules, in native tensors of one backend."""

    b: Backend
    lin: Any
    batch: int
    y: Tensor
    x0: Tensor
    tolerance_sq: Tensor
    limit: Tensor
    checkpoints: int | list[int]
    pre: Preconditioner | None
    matrix_offset: Any

    def apply(self, x: Tensor) -> Tensor:
        """`A x` (plus the matrix offset times the sum of `x`)."""
        result = self.b.linear(self.lin, x)
        if self.matrix_offset is not None:
            result = result + self.matrix_offset * self.b.sum(x, -1, keepdims=True)
        return result

    def precondition(self, r: Tensor) -> Tensor:
        return r if self.pre is None else self.pre.apply(r)

    def dot(self, a: Tensor, c: Tensor) -> Tensor:
        """`sum(a * c, -1)` per batch entry, as a batched matrix product: one BLAS call and no
        temporary vector where the framework has BLAS (3x faster than multiplying and summing)."""
        return (a[:, None, :] @ c[:, :, None])[:, 0, 0]

    def stop(self, residual_sq: Tensor, iterations: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """`(continue, converged, diverged)` per batch entry."""
        converged = residual_sq <= self.tolerance_sq
        diverged = ~self.b.isfinite(residual_sq)
        go = ~converged & ~diverged & (iterations < self.limit)
        return go, converged, diverged

    def count(self, it: Tensor, evals: Tensor, go: Tensor, evaluations: int = 1) -> tuple[Tensor, Tensor]:
        """`it` + 1 and `evals` + `evaluations` where `go`."""
        step = self.b.cast(go, INT32)
        return it + step, evals + (step if evaluations == 1 else evaluations * step)


def setup(b: Backend, lin: Any, y: Any, x0: Any, rtol: Any, atol: Any, max_iter: Any, pre: Any, matrix_offset: Any) -> Problem:
    """Converts the arguments of `Backend.linear_solve` into a `Problem`.

    Raises:
        ValueError: for vectors that are not `(batch, n)` or iteration limits of the wrong shape.
    """
    y, x0 = b.as_tensor(y), b.as_tensor(x0)
    dtype = b.combine_types(b.dtype(y), b.dtype(x0), DType(float, 32) if b.precision is None else b.float_type)
    y, x0 = b.cast(y, dtype), b.cast(x0, dtype)
    shape = b.staticshape(y)
    if len(shape) != 2 or shape[0] is None or b.staticshape(x0) != shape:
        raise ValueError(f"y and x0 must both have shape (batch, n) but have {shape} and {b.staticshape(x0)}")
    real = DType(float, dtype.precision)
    rtol, atol = b.cast(b.as_tensor(rtol), real), b.cast(b.as_tensor(atol), real)
    limits = np.asarray(max_iter, dtype=np.int64)
    limits = limits.reshape(1, -1) if limits.ndim < 2 else limits
    if limits.ndim != 2:
        raise ValueError(f"max_iter must be an int, a (batch,) or a (checkpoints, batch) array but has shape {limits.shape}")
    checkpoints: int | list[int] = [int(c) for c in limits.max(axis=1)] if limits.shape[0] > 1 else int(limits.max())
    limit = b.cast(b.as_tensor(np.broadcast_to(limits[-1], (int(shape[0]),)).astype(np.int32)), INT32)
    y_sq = b.sum(y * y, -1)
    tolerance_sq = b.maximum(rtol * rtol * y_sq, atol * atol)
    return Problem(b, lin, int(shape[0]), y, x0, tolerance_sq, limit, checkpoints, pre, matrix_offset)


def iterate(p: Problem, step: Any, state: tuple[Tensor, ...]) -> tuple[Tensor, ...]:
    """Runs the solver's `step` through `Backend.while_loop` until it stops.

    With checkpoints (a trajectory), one loop per stretch between checkpoints: a checkpoint after
    the solver stopped then holds the final state. (`while_loop` with a sequence of checkpoints
    repeats its last recorded checkpoint instead, as the reference defines.)
    """
    if isinstance(p.checkpoints, int):
        return tuple(p.b.while_loop(step, state, p.checkpoints))
    recorded, done = [], 0
    for checkpoint in p.checkpoints:
        if checkpoint > done:
            state = tuple(p.b.while_loop(step, state, checkpoint - done))
            done = checkpoint
        recorded.append(state)
    return tuple(p.b.stack_leaves(recorded))


def finish(p: Problem, method: str, x: Tensor, residual: Tensor, iterations: Tensor, evaluations: Tensor, converged: Tensor, diverged: Tensor) -> SolveResult:
    """The `SolveResult`, with readable messages when the values are available."""
    b = p.b
    messages: Any = ""
    if b.is_available(iterations):
        its, conv, div = b.numpy(iterations), b.numpy(converged), b.numpy(diverged)
        messages = np.vectorize(_message, otypes=[object])(its, conv, div).tolist() if np.ndim(its) else _message(its, conv, div)
    return SolveResult(method, x, residual, iterations, evaluations, converged, diverged, messages)


def _message(iterations: Any, converged: Any, diverged: Any) -> str:
    if converged:
        return f"converged after {iterations} iterations"
    if diverged:
        return f"diverged after {iterations} iterations (non-finite residual)"
    return f"not converged within {iterations} iterations"


# ---------------------------------------------------------------- conjugate gradient


def cg(b: Backend, lin: Any, y: Any, x0: Any, rtol: Any, atol: Any, max_iter: Any, pre: Any, matrix_offset: Any) -> SolveResult:
    """Preconditioned conjugate gradient for symmetric positive definite systems."""
    p = setup(b, lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)
    x = p.x0
    r = p.y - p.apply(x)
    z = p.precondition(r)
    rz = p.dot(r, z)
    zero = b.zeros((p.batch,), INT32)
    go, converged, diverged = p.stop(p.dot(r, r), zero)

    def step(go: Tensor, it: Tensor, evals: Tensor, x: Tensor, r: Tensor, d: Tensor, rz: Tensor, converged: Tensor, diverged: Tensor) -> tuple[Tensor, ...]:
        ad = p.apply(d)
        alpha = b.where(go, b.divide_no_nan(rz, p.dot(d, ad)), 0 * rz)  # finished entries stay put
        x = x + alpha[:, None] * d
        r = r - alpha[:, None] * ad
        z = p.precondition(r)
        r_sq = p.dot(r, r)
        rz_new = r_sq if p.pre is None else p.dot(r, z)
        beta = b.where(go, b.divide_no_nan(rz_new, rz), 0 * rz)  # 0 keeps d of finished entries finite
        d = z + beta[:, None] * d
        it, evals = p.count(it, evals, go)
        new_go, converged, diverged = p.stop(r_sq, it)
        return new_go & go, it, evals, x, r, d, b.where(go, rz_new, rz), converged, diverged

    state = (go, zero, zero + 1, x, r, z, rz, converged, diverged)
    _, it, evals, x, r, _, _, converged, diverged = iterate(p, step, state)
    return finish(p, "CG", x, r, it, evals, converged, diverged)


def cg_adaptive(b: Backend, lin: Any, y: Any, x0: Any, rtol: Any, atol: Any, max_iter: Any, pre: Any, matrix_offset: Any) -> SolveResult:
    """Conjugate gradient whose step sizes and directions are computed from the current residual.

    Each direction is made A-orthogonal to the previous one through `A d` itself rather than through
    the residual recurrence, which tolerates slightly non-symmetric or inexact operators better.
    """
    p = setup(b, lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)
    x = p.x0
    r = p.y - p.apply(x)
    d = p.precondition(r)
    ad = p.apply(d)
    zero = b.zeros((p.batch,), INT32)
    go, converged, diverged = p.stop(p.dot(r, r), zero)

    def step(go: Tensor, it: Tensor, evals: Tensor, x: Tensor, r: Tensor, d: Tensor, ad: Tensor, converged: Tensor, diverged: Tensor) -> tuple[Tensor, ...]:
        d_ad = p.dot(d, ad)
        alpha = b.where(go, b.divide_no_nan(p.dot(d, r), d_ad), 0 * d_ad)
        x = x + alpha[:, None] * d
        r = r - alpha[:, None] * ad
        z = p.precondition(r)
        beta = b.divide_no_nan(p.dot(z, ad), d_ad)
        d = b.where(go[:, None], z - beta[:, None] * d, d)
        ad = p.apply(d)
        it, evals = p.count(it, evals, go)
        new_go, converged, diverged = p.stop(p.dot(r, r), it)
        return new_go & go, it, evals, x, r, d, ad, converged, diverged

    state = (go, zero, zero + 2, x, r, d, ad, converged, diverged)
    _, it, evals, x, r, _, _, converged, diverged = iterate(p, step, state)
    return finish(p, "CG-adaptive", x, r, it, evals, converged, diverged)


# ---------------------------------------------------------------- BiCGstab(l)


def bicg(b: Backend, lin: Any, y: Any, x0: Any, rtol: Any, atol: Any, max_iter: Any, pre: Any, poly_order: int, matrix_offset: Any) -> SolveResult:
    """BiCGstab(l) (Sleijpen and Fokkema 1993) for general square systems, right-preconditioned.

    `poly_order` is l: 1 is the classic BiCGstab; higher orders cope better with eigenvalues near
    the imaginary axis. One iteration applies the operator `2 l` times.

    Raises:
        ValueError: for `poly_order < 1`.
    """
    if poly_order < 1:
        raise ValueError(
            f"biCG-stab({poly_order}) is not available: the polynomial order must be at least 1. "
            "Use 'biCG-stab' (order 1) or 'biCG-stab(2)'."
        )
    ell = poly_order
    p = setup(b, lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)

    def operator(v: Tensor) -> Tensor:  # right preconditioning: solve (A M) z = y - A x0
        return p.apply(p.precondition(v))

    r0 = p.y - p.apply(p.x0)
    shadow = r0
    z = 0 * r0
    u = 0 * r0
    zero = b.zeros((p.batch,), INT32)
    one = b.ones((p.batch,), b.dtype(p.tolerance_sq))
    go, converged, diverged = p.stop(p.dot(r0, r0), zero)
    state = (go, zero, zero + 1, z, r0, u, one, 0 * one, one, converged, diverged)

    def step(go: Tensor, it: Tensor, evals: Tensor, z: Tensor, r: Tensor, u: Tensor, rho0: Tensor, alpha: Tensor, omega: Tensor, converged: Tensor, diverged: Tensor) -> tuple[Tensor, ...]:
        active = go[:, None]
        rs, us = [r], [u]
        rho0 = -omega * rho0
        for j in range(ell):  # BiCG part
            rho1 = p.dot(shadow, rs[j])
            beta = alpha * b.divide_no_nan(rho1, rho0)
            rho0 = rho1
            us = [rs[i] - beta[:, None] * us[i] for i in range(j + 1)]
            us.append(operator(us[j]))
            alpha = b.divide_no_nan(rho0, p.dot(us[j + 1], shadow))
            rs = [rs[i] - alpha[:, None] * us[i + 1] for i in range(j + 1)]
            rs.append(operator(rs[j]))
            z = z + b.where(active, alpha[:, None] * us[0], 0 * z)
        tau: dict[tuple[int, int], Tensor] = {}
        sigma, gamma_prime = [one], [one]
        for j in range(1, ell + 1):  # minimal residual part
            for i in range(1, j):
                tau[i, j] = b.divide_no_nan(p.dot(rs[j], rs[i]), sigma[i])
                rs[j] = rs[j] - tau[i, j][:, None] * rs[i]
            sigma.append(p.dot(rs[j], rs[j]))
            gamma_prime.append(b.divide_no_nan(p.dot(rs[0], rs[j]), sigma[j]))
        gamma = [one] * (ell + 1)
        gamma[ell] = gamma_prime[ell]
        omega = gamma[ell]
        for j in range(ell - 1, 0, -1):
            gamma[j] = gamma_prime[j] - sum((tau[j, i] * gamma[i] for i in range(j + 1, ell + 1)), 0 * one)
        z = z + b.where(active, gamma[1][:, None] * rs[0], 0 * z)
        r_new = rs[0] - gamma_prime[ell][:, None] * rs[ell]
        u_new = us[0] - gamma[ell][:, None] * us[ell]
        for j in range(1, ell):
            gamma_2 = gamma[j + 1] + sum((tau[j, i] * gamma[i + 1] for i in range(j + 1, ell)), 0 * one)
            u_new = u_new - gamma[j][:, None] * us[j]
            z = z + b.where(active, gamma_2[:, None] * rs[j], 0 * z)
            r_new = r_new - gamma_prime[j][:, None] * rs[j]
        r = b.where(active, r_new, r)
        u = b.where(active, u_new, u)
        it, evals = p.count(it, evals, go, 2 * ell)
        new_go, converged, diverged = p.stop(p.dot(r, r), it)
        return new_go & go, it, evals, z, r, u, rho0, alpha, omega, converged, diverged

    _, it, evals, z, r, *_, converged, diverged = iterate(p, step, state)
    x = p.x0 + p.precondition(z)
    method = "biCG-stab" if ell == 1 else f"biCG-stab({ell})"
    return finish(p, method, x, r, it, evals, converged, diverged)


# ---------------------------------------------------------------- SciPy


SCIPY_METHODS = ("direct", "CG", "GMres", "biCG", "biCG-stab", "CGS", "QMR", "GCrotMK")


def scipy_solve(b: Backend, method: str, lin: Any, y: Any, x0: Any, rtol: Any, atol: Any, max_iter: Any, pre: Any, matrix_offset: Any) -> SolveResult:
    """Solves each batch entry with `scipy.sparse.linalg` (or `scipy.sparse.linalg.spsolve` for 'direct').

    The values go through NumPy (`Backend.numpy_call` where the backend is tracing), so the solve is
    not differentiable.

    Raises:
        ValueError: for an unknown method.
    """
    if method not in SCIPY_METHODS:
        raise ValueError(f"unknown SciPy method 'scipy-{method}'; available: {', '.join('scipy-' + m for m in SCIPY_METHODS)}")
    p = setup(b, lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)
    if isinstance(p.checkpoints, list):
        raise ValueError(f"scipy-{method} cannot record a trajectory; give max_iter one limit per batch entry, or use a native method such as 'CG'")
    if not (b.is_available(p.y) and b.is_available(p.x0)):
        raise NotImplementedError(f"scipy-{method} cannot run on traced values; call it outside jit_compile or use a native method such as 'CG'")
    y_np, x0_np = b.numpy(p.y), b.numpy(p.x0)
    rtol_np = np.broadcast_to(np.asarray(b.numpy(b.as_tensor(rtol)), dtype=np.float64), y_np.shape[:1])
    atol_np = np.broadcast_to(np.asarray(b.numpy(b.as_tensor(atol)), dtype=np.float64), y_np.shape[:1])
    limit = b.numpy(p.limit)
    operators = [_scipy_operator(b, lin, p, i, y_np.shape) for i in range(y_np.shape[0])]
    xs, its, conv = [], [], []
    for i, operator in enumerate(operators):
        x, iterations, ok = _scipy_one(method, operator, y_np[i], x0_np[i], float(rtol_np[i]), float(atol_np[i]), int(limit[i]), pre, b)
        xs.append(x)
        its.append(iterations)
        conv.append(ok)
    x_np = np.stack(xs).astype(y_np.dtype)
    residual_np = y_np - np.stack([operators[i] @ x_np[i] for i in range(len(xs))])
    finite = np.isfinite(residual_np).all(-1)
    x = b.as_tensor(x_np)
    iterations = b.as_tensor(np.asarray(its, np.int32))
    converged = b.as_tensor(np.asarray(conv) & finite)
    diverged = b.as_tensor(~finite)
    return finish(p, f"scipy-{method}", x, b.as_tensor(residual_np), iterations, iterations, converged, diverged)


def _scipy_operator(b: Backend, lin: Any, p: Problem, index: int, shape: tuple[int, ...]) -> Any:
    from scipy.sparse import issparse
    from scipy.sparse.linalg import LinearOperator

    if isinstance(lin, (tuple, list)):
        lin = lin[index]
    if callable(lin):
        n = shape[1]

        def matvec(v: np.ndarray) -> np.ndarray:
            batch = np.zeros(shape, dtype=np.asarray(v).dtype)
            batch[index] = np.reshape(v, -1)
            result: np.ndarray = np.asarray(b.numpy(p.apply(b.as_tensor(batch))))[index]
            return result

        return LinearOperator((n, n), matvec=matvec, dtype=b.numpy(p.y).dtype)
    matrix = lin if issparse(lin) or isinstance(lin, np.ndarray) else b.numpy(lin)
    if p.matrix_offset is not None:
        matrix = matrix + float(np.asarray(b.numpy(b.as_tensor(p.matrix_offset))))
    return matrix


def _scipy_one(method: str, operator: Any, y: np.ndarray, x0: np.ndarray, rtol: float, atol: float, limit: int, pre: Any, b: Backend) -> tuple[np.ndarray, int, bool]:
    import scipy.sparse.linalg as spla
    from scipy.sparse import issparse

    if method == "direct":
        if issparse(operator):
            x = spla.spsolve(operator.tocsc(), y)
        elif isinstance(operator, np.ndarray):
            x = np.linalg.solve(operator, y)
        else:
            raise ValueError("scipy-direct needs the matrix; a linear function can only be solved iteratively")
        return np.asarray(x), 1, bool(np.all(np.isfinite(x)))
    solver = {"CG": spla.cg, "GMres": spla.gmres, "biCG": spla.bicg, "biCG-stab": spla.bicgstab, "CGS": spla.cgs, "QMR": spla.qmr, "GCrotMK": spla.gcrotmk}[method]
    count = [0]

    def callback(*_: Any) -> None:
        count[0] += 1

    kwargs: dict[str, Any] = {"x0": x0, "rtol": rtol, "atol": atol, "maxiter": max(limit, 1), "callback": callback}
    if pre is not None:
        kwargs["M"] = spla.LinearOperator(operator.shape, matvec=lambda v: b.numpy(pre.apply(b.as_tensor(np.reshape(v, (1, -1)))))[0])
    if method == "GMres":
        kwargs["callback_type"] = "pr_norm"
    if method in ("QMR", "biCG") and not (issparse(operator) or isinstance(operator, np.ndarray)):
        raise ValueError(f"scipy-{method} needs the transposed operator; pass a matrix, or use scipy-GMres or scipy-biCG-stab for a linear function")
    x, info = solver(operator, y, **kwargs)
    return np.asarray(x), count[0], info == 0
