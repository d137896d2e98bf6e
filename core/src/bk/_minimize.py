"""Minimisation: gradient descent on any backend with gradients, and SciPy's `minimize` methods."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ._context import get_precision, precision
from ._dtype import DType
from ._solve import SolveResult

if TYPE_CHECKING:
    from ._backend import Backend

__all__ = ["gradient_descent", "scipy_minimize"]

Tensor = Any


def _value_and_gradient(b: Backend, f: Callable[[Tensor], Tensor]) -> Callable[[Tensor], tuple[Tensor, Tensor]]:
    """`x -> (loss, d loss / d x)` through the backend's autodiff; `loss` has shape `(batch,)`."""

    def summed(x: Tensor) -> tuple[Tensor, Tensor]:
        loss = f(x)
        return b.sum(loss), loss

    gradient = b.jacobian(summed, wrt=[0], get_output=True, is_f_scalar=True)

    def evaluate(x: Tensor) -> tuple[Tensor, Tensor]:
        _, loss, grad = gradient(x)
        return loss, grad

    return evaluate


def gradient_descent(b: Backend, f: Callable[[Tensor], Tensor], x0: Any, atol: Any, max_iter: Any, trj: bool) -> SolveResult | list[SolveResult]:
    """Batched gradient descent with a step size per batch entry that halves when the loss rises.

    Converged when the largest gradient component of a batch entry is at most `atol`.

    Raises:
        NotImplementedError: if the backend cannot compute gradients.
    """
    if not b.supports("jacobian"):
        raise NotImplementedError(f"gradient descent needs gradients, which {b.name} does not provide; use a SciPy method such as 'L-BFGS-B'")
    evaluate = _value_and_gradient(b, f)
    x = b.as_tensor(x0)
    batch = int(b.staticshape(x)[0])  # type: ignore[arg-type]
    atol_np = np.broadcast_to(np.asarray(atol, dtype=np.float64), (batch,))
    limit = np.broadcast_to(np.asarray(max_iter, dtype=np.int64), (batch,))
    step = np.ones(batch)
    loss, grad = evaluate(x)
    iterations, evaluations = np.zeros(batch, np.int32), np.ones(batch, np.int32)
    converged = np.max(np.abs(b.numpy(grad)), axis=-1) <= atol_np
    history = [(x, loss, iterations.copy(), evaluations.copy(), converged.copy())]
    while True:
        active = ~converged & (iterations < limit) & np.isfinite(b.numpy(loss))
        if not active.any():
            break
        trial = x - b.as_tensor((step * active)[:, None].astype(b.numpy(x).dtype)) * grad
        trial_loss, trial_grad = evaluate(trial)
        evaluations += active
        better = active & (b.numpy(trial_loss) <= b.numpy(loss))
        step = np.where(active & ~better, step / 2, np.where(better, step * 1.25, step))
        keep = b.as_tensor(better)
        x = b.where(keep[:, None], trial, x)
        loss, grad = b.where(keep, trial_loss, loss), b.where(keep[:, None], trial_grad, grad)
        iterations += active
        converged = np.max(np.abs(b.numpy(grad)), axis=-1) <= atol_np
        if trj:
            history.append((x, loss, iterations.copy(), evaluations.copy(), converged.copy()))
    results = [_result(b, "GD", *state) for state in history] if trj else [_result(b, "GD", x, loss, iterations, evaluations, converged)]
    return results if trj else results[0]


def _result(b: Backend, method: str, x: Tensor, loss: Tensor, iterations: np.ndarray, evaluations: np.ndarray, converged: np.ndarray) -> SolveResult:
    diverged = ~np.isfinite(b.numpy(loss))
    messages = ["converged" if c else "diverged" if d else "not converged" for c, d in zip(converged, diverged, strict=True)]
    return SolveResult(method, x, loss, b.as_tensor(iterations), b.as_tensor(evaluations), b.as_tensor(converged), b.as_tensor(diverged), messages)


def scipy_minimize(b: Backend, method: str, f: Callable[[Tensor], Tensor], x0: Any, atol: Any, max_iter: Any, trj: bool) -> SolveResult | list[SolveResult]:
    """`scipy.optimize.minimize` on the flattened batch, with gradients from the backend's autodiff
    (SciPy's finite differences where the backend has none).

    The batch entries are independent, so minimising the sum of their losses minimises each.
    """
    from scipy.optimize import minimize

    x_initial = b.as_tensor(x0)
    shape = b.staticshape(x_initial)
    dtype = b.dtype(x_initial) if b.dtype(x_initial).kind is float else DType(float, 64)
    evaluate = _value_and_gradient(b, f) if b.supports("jacobian") else None
    # SciPy's finite-difference steps (~1e-8) vanish in float32: without autodiff, evaluate in float64.
    search_dtype = DType(float, 64) if evaluate is None and b.supports("float64") else dtype
    evaluations = [0]
    history: list[np.ndarray] = []

    def native(flat: np.ndarray, as_type: DType = dtype) -> Tensor:
        return b.cast(b.as_tensor(np.reshape(flat, shape)), as_type)

    # A precision set by the caller would round the search points and f's operations back to it.
    search_precision = 64 if search_dtype != dtype and get_precision() is not None else get_precision()

    def fun(flat: np.ndarray) -> Any:
        evaluations[0] += 1
        if evaluate is None:
            with precision(search_precision):
                return float(np.sum(b.numpy(f(native(flat, search_dtype))), dtype=np.float64))
        x = native(flat, search_dtype)
        loss, grad = evaluate(x)
        return float(np.sum(b.numpy(loss), dtype=np.float64)), np.asarray(b.numpy(grad), np.float64).reshape(-1)

    def callback(intermediate: Any) -> None:
        history.append(np.array(getattr(intermediate, "x", intermediate)))

    limit = int(np.max(max_iter))
    tolerance = float(np.max(atol))
    result = minimize(fun, np.asarray(b.numpy(x_initial), np.float64).reshape(-1), method=method, jac=evaluate is not None, tol=tolerance, options={"maxiter": limit}, callback=callback)
    batch = int(shape[0])  # type: ignore[arg-type]

    def state(flat: np.ndarray, iterations: int, success: bool) -> SolveResult:
        x = native(flat)
        loss = f(x)
        finite = np.isfinite(b.numpy(loss))
        message = [str(result.message)] * batch
        return SolveResult(f"scipy-{method}", x, loss, b.as_tensor(np.full(batch, iterations, np.int32)), b.as_tensor(np.full(batch, evaluations[0], np.int32)), b.as_tensor(np.full(batch, success) & finite), b.as_tensor(~finite), message)

    if trj:
        return [state(flat, i + 1, i + 1 == len(history) and bool(result.success)) for i, flat in enumerate(history)] or [state(result.x, 0, bool(result.success))]
    return state(result.x, int(result.get("nit", len(history))), bool(result.success))
