"""Gradients against central finite differences; jit against eager; control flow helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from bk import DType

from .._case import SkipCase, Trial, case


def _loss_np(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(x * x * y + 0.5 * x**3))


def _setup(t: Trial) -> tuple[str, float, float]:
    """Float dtype, finite-difference step and tolerance scale for this backend."""
    return ("float64", 1e-6, 1e3) if t.float64 else ("float32", 1e-2, 50.0)


def _central(f: Callable[[np.ndarray], float], x: np.ndarray, h: float) -> np.ndarray:
    grad = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


def _scalar_loss(t: Trial) -> Callable[..., Any]:
    """f(x, y) = (sum(x*x*y + x^3/2), x*y) with the sum unrolled, so only operators are used."""

    def f(x: Any, y: Any) -> tuple[Any, Any]:
        terms = x * x * y + 0.5 * x * x * x
        total = terms[0]
        for i in range(1, t.b.staticshape(terms)[0]):
            total = total + terms[i]
        return total, x * y

    return f


def _jacobian_case(t: Trial, feature: str) -> None:
    dtype, h, scale = _setup(t)
    x, y = t.uniform((3,)).astype(dtype), t.uniform((3,)).astype(dtype)
    f = _scalar_loss(t)
    make = getattr(t.b, feature)
    g = make(f, [0], True, True)
    result = g(t.tensor(x), t.tensor(y))
    t.expect(len(result) == 3, f"{feature}(get_output=True)", f"returned {len(result)} values, expected (loss, output, dx)")
    t.check(result[0], _loss_np(x, y), f"{feature}: loss", dtype=DType(float, int(dtype[-2:])), scale=scale)
    t.check(result[1], x * y, f"{feature}: output", scale=scale)
    t.check(result[2], _central(lambda v: _loss_np(v, y), x.astype(np.float64), h), f"{feature}: d loss / dx", scale=scale, inputs={"x": x, "y": y})
    both = make(f, [0, 1], False, True)(t.tensor(x), t.tensor(y))
    t.expect(len(both) == 2, f"{feature}(wrt=[0, 1], get_output=False)", f"returned {len(both)} values, expected (dx, dy)")
    t.check(both[1], _central(lambda v: _loss_np(x, v), y.astype(np.float64), h), f"{feature}: d loss / dy", scale=scale)


@case("jacobian", "gradients")
def _jacobian(t: Trial) -> None:
    """Gradients of (loss, output) functions against central finite differences; wrt and get_output."""
    _jacobian_case(t, "jacobian")


@case("jit_compile_grad")
def _jit_compile_grad(t: Trial) -> None:
    """Compiled gradients equal finite differences."""
    _jacobian_case(t, "jit_compile_grad")


def _hessian_case(t: Trial, feature: str) -> None:
    dtype, h, scale = _setup(t)
    x = t.uniform((2, 3)).astype(dtype)

    def f(v: Any) -> tuple[Any, ...]:
        cubes = v * v * v
        total = cubes[:, 0]
        for i in range(1, 3):
            total = total + cubes[:, i] * v[:, 0]
        return (total,)

    def loss(v: np.ndarray) -> np.ndarray:
        return v[:, 0] ** 3 + (v[:, 1] ** 3 + v[:, 2] ** 3) * v[:, 0]

    result = getattr(t.b, feature)(f, [0], True, True)(t.tensor(x))
    t.expect(len(result) == 3, f"{feature}(get_output=True, get_gradient=True)", f"returned {len(result)} values, expected (f, g, H)")
    t.check(result[0], loss(x.astype(np.float64)), f"{feature}: output", scale=scale)
    wide = x.astype(np.float64)
    grads = np.stack([_central(lambda v, b=b: float(loss(v[None])[0]), wide[b], h) for b in range(2)])
    hess = np.stack([np.stack([_central(lambda v, b=b, j=j: float(_central(lambda w: float(loss(w[None])[0]), v, h)[j]), wide[b], 1e-4) for j in range(3)]) for b in range(2)])
    gradient = result[1][0] if isinstance(result[1], (tuple, list)) else result[1]
    hessian = result[2][0] if isinstance(result[2], (tuple, list)) else result[2]
    if isinstance(hessian, (tuple, list)):
        hessian = hessian[0]
    t.check(gradient, grads, f"{feature}: gradient", scale=scale)
    t.check(hessian, hess, f"{feature}: Hessian (batch, 3, 3)", scale=scale * 100, inputs={"x": x})


@case("hessian", "gradients")
def _hessian(t: Trial) -> None:
    """Per-batch-entry Hessians of a cubic loss against finite differences of gradients."""
    _hessian_case(t, "hessian")


@case("jit_compile_hessian")
def _jit_compile_hessian(t: Trial) -> None:
    """Compiled Hessians equal finite differences."""
    _hessian_case(t, "jit_compile_hessian")


@case("custom_gradient", "gradients")
def _custom_gradient(t: Trial) -> None:
    """The custom backward pass is used by jacobian (needs jacobian); the forward value is f's."""
    dtype, _h, scale = _setup(t)
    x = t.uniform((3,)).astype(dtype)

    def forward(v: Any) -> Any:
        return v * v

    def backward(args: Any, output: Any, d_output: Any) -> tuple[Any, ...]:
        return (d_output * 10.0,)

    wrapped = t.implemented(t.b.custom_gradient(forward, backward))
    t.check(wrapped(t.tensor(x)), x * x, "custom_gradient: forward", scale=scale)

    def f(v: Any) -> tuple[Any, Any]:
        out = wrapped(v)
        total = out[0]
        for i in range(1, 3):
            total = total + out[i]
        return total, out

    grad = t.b.jacobian(f, [0], False, True)(t.tensor(x))
    grad = grad[0] if isinstance(grad, (tuple, list)) else grad
    t.check(grad, np.full(3, 10.0), "custom_gradient: gradient of sum(f(x)) with backward = 10 * d_output", scale=scale)


@case("stop_gradient")
def _stop_gradient(t: Trial) -> None:
    """Keeps the value."""
    x = np.array([1.0, -2.0], np.float32)
    t.check(t.b.stop_gradient(t.tensor(x)), x, "stop_gradient", dtype=DType(float, 32))


@case("stop_gradient_tree")
def _stop_gradient_tree(t: Trial) -> None:
    """Keeps the values of a tree."""
    x = np.array([1.0, -2.0], np.float32)
    tree = t.b.stop_gradient_tree({"a": (t.tensor(x),)})
    t.check(tree["a"][0], x, "stop_gradient_tree")


@case("jit_compile", "jit")
def _jit(t: Trial) -> None:
    """Compiled results equal eager ones; a second call with the same shapes does not re-trace."""
    calls = [0]

    def f(x: Any, y: Any) -> Any:
        calls[0] += 1
        return x * y + x

    compiled = t.b.jit_compile(f)
    x, y = np.arange(3, dtype=np.float32), np.full(3, 2.0, np.float32)
    t.check(compiled(t.tensor(x), t.tensor(y)), x * y + x, "jit_compile(f)(x, y)", dtype=DType(float, 32))
    t.check(compiled(t.tensor(x + 1), t.tensor(y)), (x + 1) * y + x + 1, "second call with the same shapes", dtype=DType(float, 32))
    t.expect(calls[0] == 1, "jit_compile", f"the Python function ran {calls[0]} times for two calls with equal shapes; expected 1 trace")


@case("while_loop")
def _while_loop(t: Trial) -> None:
    """Counts down until the condition is false; checkpoints with max_iter sequences."""

    def loop(cond: Any, x: Any, n: Any) -> tuple[Any, Any, Any]:
        n = n - 1
        return n > 0, x * 2, n

    start = (t.tensor(np.array([True])), t.tensor(np.array([1.0], np.float32)), t.tensor(np.array([3], np.int32)))
    result = t.b.while_loop(loop, start, None)
    t.check(result[1], np.array([8.0]), "while_loop: x after 3 iterations")
    stacked = t.b.while_loop(loop, start, (0, 1, 5))
    # the loop ends after 3 iterations: checkpoint 5 is never reached and repeats the last recorded one (1)
    t.check(stacked[1], np.array([[1.0], [2.0], [2.0]]), "while_loop(max_iter=(0, 1, 5)) trajectory")
    reached = t.b.while_loop(loop, start, (1, 3))
    t.check(reached[1], np.array([[2.0], [8.0]]), "while_loop(max_iter=(1, 3)) trajectory")


@case("vectorized_call")
def _vectorized_call(t: Trial) -> None:
    """Maps over the first axis; size 1 broadcasts."""
    x, y = np.arange(6, dtype=np.float32).reshape(3, 2), np.ones((1, 2), np.float32)
    t.check(t.b.vectorized_call(lambda a, b: a * 2 + b, t.tensor(x), t.tensor(y)), x * 2 + y, "vectorized_call")


@case("vectorized_call", name="gather-1d-negative")
def _vectorized_gather(t: Trial) -> None:
    """`vectorized_call(gather_1d, values, indices)`: a negative index counts from the end in every row."""
    if not t.b.supports("gather_1d"):
        raise SkipCase(f"{t.b.name} does not support gather_1d, which this case maps")
    values = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    indices = np.array([[-1, 0], [0, -2]], np.int64)
    got = t.b.vectorized_call(t.b.gather_1d, t.tensor(values), t.tensor(indices))
    t.check(got, np.take_along_axis(values, indices % 3, 1), "vectorized_call(gather_1d) with negative indices", inputs={"indices": indices})


@case("numpy_call")
def _numpy_call(t: Trial) -> None:
    """Calls a NumPy function and converts the result with the declared dtype."""
    x = np.arange(4, dtype=np.float32)
    got = t.b.numpy_call(lambda a: np.cumsum(a) * 2, (4,), DType(float, 32), t.tensor(x))
    t.check(got, np.cumsum(x) * 2, "numpy_call(cumsum * 2)", dtype=DType(float, 32))


@case("call")
def _call(t: Trial) -> None:
    """Calls f with the arguments."""
    t.expect(t.b.call(lambda a, b: a + b, 2, 3, name="add") == 5, "call", "call(f, 2, 3) != f(2, 3)")


@case("block_until_ready")
def _block(t: Trial) -> None:
    """Accepts tensors and trees and leaves values unchanged."""
    x = t.tensor(np.ones(2, np.float32))
    t.b.block_until_ready([x, {"a": x}])
    t.check(x, np.ones(2), "value after block_until_ready")
