"""Gradients, Hessians and custom gradients; jit tracing once per signature; loops, vmap and callbacks under tracing."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import bk
from bk import DType


def central_difference(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    grad = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


def loss_np(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(np.sin(x) * y + x**3))


def loss(x: Any, y: Any) -> tuple[Any, Any]:
    return jnp.sum(jnp.sin(x) * y + x**3), x * y


X = np.array([0.3, -1.2, 2.0])
Y = np.array([1.5, 0.5, -0.7])


@pytest.fixture(autouse=True)
def float64() -> Any:
    with bk.precision(64):
        yield


def test_jacobian_against_finite_differences(b: bk.Backend) -> None:
    value, output, dx, dy = b.jacobian(loss, [0, 1], True, True)(b.as_tensor(X), b.as_tensor(Y))
    assert float(value) == pytest.approx(loss_np(X, Y)) and np.allclose(output, X * Y, atol=1e-6)
    np.testing.assert_allclose(dx, central_difference(lambda v: loss_np(v, Y), X), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(dy, central_difference(lambda v: loss_np(X, v), Y), rtol=1e-6, atol=1e-6)


def test_integer_argument_and_unused_argument_get_gradients(b: bk.Backend) -> None:
    dx, dy = b.jacobian(lambda x, y: jnp.sum(x * x), [0, 1], False, True)(jnp.array([1, 2]), jnp.array([1.0]))
    assert dx.tolist() == [2.0, 4.0] and dy.tolist() == [0.0]


def test_jacobian_of_vector_loss_and_batch_of_scalars(b: bk.Backend) -> None:
    (jac,) = b.jacobian(lambda x: x * x, [0], False, False)(jnp.array([1.0, 2.0]))
    assert jac.tolist() == [[2.0, 0.0], [0.0, 4.0]]
    (summed,) = b.jacobian(lambda x: x * x, [0], False, True)(jnp.array([1.0, 2.0]))
    assert summed.tolist() == [2.0, 4.0]


def test_complex_gradients_point_uphill(b: bk.Backend) -> None:
    (grad,) = b.jacobian(lambda z: jnp.sum(jnp.abs(z) ** 2), [0], False, True)(jnp.array([1 + 2j]))
    assert grad.tolist() == [2 + 4j]  # d/dRe + i d/dIm, as PyTorch and TensorFlow


def test_hessian_per_batch_entry(b: bk.Backend) -> None:
    x = np.array([[1.0, 2.0], [-0.5, 0.3]])
    f_val, (grad,), ((hess,),) = b.hessian(lambda v: (v[:, 0] ** 2 * v[:, 1] + v[:, 1] ** 3,), [0], True, True)(b.as_tensor(x))
    np.testing.assert_allclose(f_val, x[:, 0] ** 2 * x[:, 1] + x[:, 1] ** 3, atol=1e-5)
    np.testing.assert_allclose(grad, np.stack([2 * x[:, 0] * x[:, 1], x[:, 0] ** 2 + 3 * x[:, 1] ** 2], -1), atol=1e-5)
    np.testing.assert_allclose(hess, np.array([[[2 * x1, 2 * x0], [2 * x0, 6 * x1]] for x0, x1 in x]), atol=1e-5)


def test_hessian_blocks_of_two_arguments(b: bk.Backend) -> None:
    x, y = jnp.ones((3, 2)), jnp.ones((3, 4))
    (hessian,) = b.hessian(lambda u, v: jnp.sum(u, -1) ** 2 * jnp.sum(v, -1), [0, 1], False, False)(x, y)
    assert [[h.shape for h in row] for row in hessian] == [[(3, 2, 2), (3, 2, 4)], [(3, 4, 2), (3, 4, 4)]]
    assert hessian[0][1].tolist() == [[[4.0] * 4] * 2] * 3  # d2/du dv of (sum u)^2 sum v = 2 sum u


def test_custom_gradient_inside_jit_and_none_gradients(b: bk.Backend) -> None:
    scaled = b.custom_gradient(lambda x, n: x * n, lambda args, out, d: (d * 10.0, None))
    gradient = b.jit_compile(b.jacobian(lambda x, n: jnp.sum(scaled(x, n)), [0], False, True))
    (dx,) = gradient(jnp.ones(3), jnp.array(2))
    assert dx.tolist() == [10.0] * 3
    with pytest.raises(ValueError, match="returned 1 values for 2 arguments"):
        bad = b.custom_gradient(lambda x, y: x * y, lambda args, out, d: (d,))
        b.jacobian(lambda x: jnp.sum(bad(x, x)), [0], False, True)(jnp.ones(2))


def test_stop_gradient(b: bk.Backend) -> None:
    (dx,) = b.jacobian(lambda x: jnp.sum(x * b.stop_gradient(x)), [0], False, True)(jnp.array([3.0]))
    assert dx.tolist() == [3.0] and b.stop_gradient(2.5) == 2.5


# ---------------------------------------------------------------- jit


def test_jit_traces_once_per_signature(b: bk.Backend) -> None:
    calls = []

    def f(x: Any, table: np.ndarray, label: str) -> dict[str, Any]:
        calls.append(label)
        return {"y": x * table.sum(), "label": label, "count": 3}

    compiled = b.jit_compile(f)
    first = compiled(jnp.ones(2), np.ones(3), "a")
    second = compiled(jnp.array([2.0, 2.0]), np.ones(3), "a")
    assert first["y"].tolist() == [3.0, 3.0] and second["y"].tolist() == [6.0, 6.0]
    assert (second["label"], second["count"], compiled.traces, calls) == ("a", 3, 1, ["a"])
    compiled(jnp.ones(2), np.full(3, 2.0), "a")  # NumPy arguments are constants: a new value traces again
    compiled(jnp.ones(2), np.ones(3), "b")
    compiled(jnp.ones(4), np.ones(3), "a")  # a new shape traces again
    assert compiled.traces == 4 and compiled.__name__ == "f"


def test_jit_handles_nan_constants_and_pytrees(b: bk.Backend) -> None:
    compiled = b.jit_compile(lambda pair, scale: (pair[0] * scale, [pair[1]]))
    for _ in range(2):
        out = compiled((jnp.ones(1), jnp.zeros(1)), float("nan"))
    assert compiled.traces == 1 and np.isnan(out[0][0]) and out[1][0].tolist() == [0.0]


def test_while_loop_under_jit_is_a_lax_loop(b: bk.Backend) -> None:
    traced = []

    def loop(go: Any, x: Any, n: Any) -> tuple[Any, Any, Any]:
        traced.append(b.is_available(x))
        return n > 1, x * 2, n - 1

    run = b.jit_compile(lambda x, n: b.while_loop(loop, (n > 0, x, n), None)[1])
    assert run(jnp.array([1.0]), jnp.array([3])).tolist() == [8.0]
    assert run(jnp.array([1.0]), jnp.array([5])).tolist() == [32.0]  # the count is data, not a trace constant
    assert traced == [False]  # traced once, as the body of lax.while_loop
    trajectory = b.jit_compile(lambda x, n: b.while_loop(loop, (n > 0, x, n), (0, 2, 9))[1])
    # Stopped after 3 iterations: checkpoint 9 repeats the last recorded entry (2), as the reference does.
    assert trajectory(jnp.array([1.0]), jnp.array([3])).tolist() == [[1.0], [4.0], [4.0]]
    assert trajectory(jnp.array([1.0]), jnp.array([20])).tolist() == [[1.0], [4.0], [512.0]]
    limited = b.jit_compile(lambda x, n: b.while_loop(loop, (n > 0, x, n), 2)[1])
    assert limited(jnp.array([1.0]), jnp.array([9])).tolist() == [4.0]


def test_while_loop_continues_under_tracing_when_values_become_tracers(b: bk.Backend) -> None:
    def run(scale: Any, start: tuple[Any, ...]) -> Any:
        return b.while_loop(lambda go, x, n: (n > 1, x * scale, n - 1), start, None)[1]

    compiled = b.jit_compile(run)
    assert compiled(jnp.array(3.0), (np.array([True]), np.array([1.0]), np.array([3]))).tolist() == [27.0]
    assert float(compiled(jnp.array(3.0), (True, 1.0, 3))) == 27.0  # Python values start the loop too


def test_linear_solve_inside_jit_with_a_sparse_argument(b: bk.Backend) -> None:
    dense = 4 * np.eye(6) - np.eye(6, k=1) - np.eye(6, k=-1)
    rows, cols = np.nonzero(dense)
    matrix = b.sparse_coo_tensor(np.stack([rows, cols], -1), dense[rows, cols], dense.shape)
    solve = b.jit_compile(lambda m, y: b.linear_solve("CG", m, y, jnp.zeros_like(y), 1e-12, 0.0, 100, None, None))
    y = np.arange(12.0).reshape(2, 6)
    result = solve(matrix, b.as_tensor(y))
    np.testing.assert_allclose(result.x, np.linalg.solve(dense, y.T).T, rtol=1e-10, atol=1e-12)
    assert result.converged.tolist() == [True, True] and result.message == ""  # messages need concrete values


# ---------------------------------------------------------------- vmap and callbacks


def test_vectorized_call_broadcasts_size_one(b: bk.Backend) -> None:
    result = b.vectorized_call(lambda x, y, power: x**power + y, jnp.arange(6.0).reshape(3, 2), jnp.ones((1, 2)), power=2)
    np.testing.assert_array_equal(result, np.arange(6.0).reshape(3, 2) ** 2 + 1)


def test_numpy_call_under_jit_and_vmap(b: bk.Backend) -> None:
    calls = []

    def cumsum(a: np.ndarray) -> np.ndarray:
        calls.append(type(a))
        return np.cumsum(a)

    compiled = b.jit_compile(lambda x: b.numpy_call(cumsum, (3,), DType(float, 32), x))
    assert compiled(jnp.ones(3, jnp.float32)).tolist() == [1.0, 2.0, 3.0]
    assert compiled(jnp.full(3, 2.0, jnp.float32)).tolist() == [2.0, 4.0, 6.0]  # runs on every call
    assert calls == [np.ndarray, np.ndarray] and compiled.traces == 1
    batched = b.vectorized_call(lambda x: b.numpy_call(np.cumsum, (3,), DType(float, 32), x), jnp.ones((2, 3), jnp.float32))
    assert batched.tolist() == [[1.0, 2.0, 3.0]] * 2
    pair = b.jit_compile(lambda x: b.numpy_call(lambda a: (a + 1, a.sum()), ((2,), ()), (DType(float, 32), DType(float, 64)), x))
    first, total = pair(jnp.ones(2, jnp.float32))
    assert first.dtype == jnp.float32 and total.dtype == jnp.float64 and float(total) == 2.0


def test_is_available_false_inside_vmap(b: bk.Backend) -> None:
    flags = []
    jax.vmap(lambda x: flags.append(b.is_available(x)) or x)(jnp.ones(2))
    assert flags == [False]
