"""Gradients, custom gradients, compilation, loops under tf.function, vectorization, NumPy callbacks."""

from __future__ import annotations

from typing import Any

import numpy as np

from bk import DType


def _central(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


def test_jacobian_matches_finite_differences(b: Any) -> None:
    x = np.array([0.3, -1.2, 2.0])

    def f(v: Any) -> Any:
        return b.sum(b.sin(v) * v), v

    loss, _out, grad = b.jacobian(f, [0], True, True)(b.as_tensor(x))
    np.testing.assert_allclose(b.numpy(grad), _central(lambda v: np.sum(np.sin(v) * v), x), rtol=1e-7, atol=1e-6)
    np.testing.assert_allclose(b.numpy(loss), np.sum(np.sin(x) * x), atol=1e-6)


def test_non_scalar_loss_gives_the_full_jacobian(b: Any) -> None:
    x = np.array([1.0, 2.0])
    (jac,) = b.jacobian(lambda v: (v * v,), [0], False, False)(b.as_tensor(x))
    np.testing.assert_allclose(b.numpy(jac), np.diag(2 * x), atol=1e-9)


def test_hessian_per_batch_entry(b: Any) -> None:
    x = np.array([[1.0, 2.0], [3.0, -1.0]])
    _value, (grad,), ((hess,),) = b.hessian(lambda v: (b.sum(v**3, 1),), [0], True, True)(b.as_tensor(x))
    np.testing.assert_allclose(b.numpy(grad), 3 * x**2, atol=1e-9)
    expected = np.stack([np.diag(6 * row) for row in x])
    np.testing.assert_allclose(b.numpy(hess), expected, atol=1e-9)


def test_custom_gradient_replaces_the_backward_pass(b: Any) -> None:
    wrapped = b.custom_gradient(lambda v: v * v, lambda args, output, d_output: (d_output * 10.0,))
    (grad,) = b.jacobian(lambda v: (b.sum(wrapped(v)),), [0], False, True)(b.as_tensor(np.ones(3)))
    np.testing.assert_array_equal(b.numpy(grad), [10.0, 10.0, 10.0])


def test_stop_gradient_gives_zero_gradient(b: Any) -> None:
    (grad,) = b.jacobian(lambda v: (b.sum(b.stop_gradient(v) * v),), [0], False, True)(b.as_tensor(np.array([2.0])))
    np.testing.assert_array_equal(b.numpy(grad), [2.0])


def test_jit_equals_eager_and_does_not_retrace(b: Any) -> None:
    traces = []

    def f(x: Any, y: Any) -> Any:
        traces.append(1)
        return b.sin(x) * y + b.sum(x)

    compiled = b.jit_compile(f)
    x, y = np.arange(3.0, dtype=np.float32), np.full(3, 2.0, np.float32)
    for shift in range(3):
        np.testing.assert_allclose(
            b.numpy(compiled(b.as_tensor(x + shift), b.as_tensor(y))),
            b.numpy(f(b.as_tensor(x + shift), b.as_tensor(y))),
            rtol=1e-6,
            atol=1e-6,
        )
    assert len(traces) == 1 + 3  # one trace, three eager reference calls


def test_while_loop_inside_tf_function(b: Any) -> None:
    def loop(cond: Any, x: Any, n: Any) -> tuple[Any, Any, Any]:
        n = n - 1
        return n > 0, x * 2, n

    def run(x: Any, n: Any) -> Any:
        return b.while_loop(loop, (n > 0, x, n), None)[1]

    compiled = b.jit_compile(run)
    result = compiled(b.as_tensor(np.array([1.0], np.float32)), b.as_tensor(np.array([3], np.int32)))
    np.testing.assert_array_equal(b.numpy(result), [8.0])
    limited = b.jit_compile(lambda x, n: b.while_loop(loop, (n > 0, x, n), 2)[1])
    np.testing.assert_array_equal(
        b.numpy(limited(b.as_tensor(np.array([1.0], np.float32)), b.as_tensor(np.array([5], np.int32)))), [4.0]
    )


def test_numpy_call_inside_tf_function(b: Any) -> None:
    def run(x: Any) -> Any:
        return b.numpy_call(lambda a: np.cumsum(a) * 2, (4,), DType(float, 32), x)

    result = b.jit_compile(run)(b.as_tensor(np.arange(4, dtype=np.float32)))
    assert b.staticshape(result) == (4,)
    np.testing.assert_array_equal(b.numpy(result), np.cumsum(np.arange(4)) * 2)


def test_vectorized_call_broadcasts_size_one(b: Any) -> None:
    x, y = np.arange(6, dtype=np.float32).reshape(3, 2), np.ones((1, 2), np.float32)
    result = b.vectorized_call(lambda u, v: b.sum(u * v), b.as_tensor(x), b.as_tensor(y))
    np.testing.assert_array_equal(b.numpy(result), x.sum(1))
