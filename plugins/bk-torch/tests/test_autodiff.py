"""Gradients against finite differences, custom gradients, Hessians, jit tracing once per signature."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import bk


def central_difference(f: Any, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    grad = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


def loss_np(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.sum(np.sin(x) * y + x**3))


def loss(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.sum(torch.sin(x) * y + x**3), x * y


X = np.array([0.3, -1.2, 2.0])
Y = np.array([1.5, 0.5, -0.7])


def test_jacobian_against_finite_differences(b: bk.Backend) -> None:
    value, output, dx, dy = b.jacobian(loss, [0, 1], True, True)(torch.tensor(X), torch.tensor(Y))
    assert not output.requires_grad and value.item() == pytest.approx(loss_np(X, Y))
    np.testing.assert_allclose(dx.numpy(), central_difference(lambda v: loss_np(v, Y), X), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(dy.numpy(), central_difference(lambda v: loss_np(X, v), Y), rtol=1e-6, atol=1e-6)


def test_integer_argument_and_unused_argument_get_gradients(b: bk.Backend) -> None:
    (dx, dy) = b.jacobian(lambda x, y: (x * x).sum(), [0, 1], False, True)(torch.tensor([1, 2]), torch.tensor([1.0]))
    assert dx.tolist() == [2.0, 4.0] and dy.tolist() == [0.0]


def test_jacobian_of_vector_loss(b: bk.Backend) -> None:
    (jac,) = b.jacobian(lambda x: x * x, [0], False, False)(torch.tensor([1.0, 2.0]))
    assert jac.tolist() == [[2.0, 0.0], [0.0, 4.0]]


def test_hessian_per_batch_entry(b: bk.Backend) -> None:
    x = np.array([[1.0, 2.0], [-0.5, 0.3]])
    f_val, (grad,), ((hess,),) = b.hessian(lambda v: ((v[:, 0] ** 2 * v[:, 1] + v[:, 1] ** 3),), [0], True, True)(torch.tensor(x))
    np.testing.assert_allclose(f_val.numpy(), x[:, 0] ** 2 * x[:, 1] + x[:, 1] ** 3, atol=1e-5)
    np.testing.assert_allclose(grad.numpy(), np.stack([2 * x[:, 0] * x[:, 1], x[:, 0] ** 2 + 3 * x[:, 1] ** 2], -1), atol=1e-5)
    expected = np.array([[[2 * x1, 2 * x0], [2 * x0, 6 * x1]] for x0, x1 in x])
    np.testing.assert_allclose(hess.numpy(), expected, atol=1e-5)


def test_custom_gradient_is_used(b: bk.Backend) -> None:
    calls = []

    def gradient(args: tuple, output: torch.Tensor, d_output: torch.Tensor) -> tuple:
        calls.append((args[0].shape, output.shape))
        return (d_output * 10, None)

    f = b.custom_gradient(lambda x, scale: x * scale, gradient)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = f(x, 3)
    assert y.tolist() == [3.0, 6.0]
    y.sum().backward()
    assert x.grad.tolist() == [10.0, 10.0] and calls == [(torch.Size([2]), torch.Size([2]))]


def test_stop_gradient(b: bk.Backend) -> None:
    x = torch.ones(2, requires_grad=True)
    assert not b.stop_gradient(x * 2).requires_grad


class Counted:
    def __init__(self, f: Any) -> None:
        self.f, self.calls = f, 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.f(*args)


def test_jit_traces_once_per_signature_and_matches_eager(b: bk.Backend) -> None:
    f = Counted(lambda x, y, n: {"sum": (torch.sin(x) * y).sum() * n, "scaled": x * n, "tag": "ok"})
    jit = b.jit_compile(f)
    x, y = torch.tensor(X), torch.tensor(Y)
    for _ in range(3):
        result = jit(x, y, 2)
        assert result["tag"] == "ok"
        torch.testing.assert_close(result["sum"], (torch.sin(x) * y).sum() * 2)
    assert f.calls == 1 and jit.traces == 1
    other = torch.tensor([5.0, 6.0, 7.0], dtype=torch.float64)
    torch.testing.assert_close(jit(other, y, 2)["scaled"], other * 2)  # same signature: new values, no trace
    assert f.calls == 1
    jit(x[:2], y[:2], 2)
    jit(x, y, 3)  # a different constant is a different signature
    assert f.calls == 3 and jit.traces == 3


def test_jit_falls_back_to_eager_for_value_dependent_control_flow(b: bk.Backend) -> None:
    def f(x: torch.Tensor) -> torch.Tensor:
        return x * 2 if bool(x.sum() > 0) else -x

    jit = b.jit_compile(f)
    assert jit(torch.tensor([1.0])).tolist() == [2.0]
    assert jit(torch.tensor([-1.0])).tolist() == [1.0]  # a baked trace would give -2


def test_jit_compile_grad_and_hessian(b: bk.Backend) -> None:
    f = Counted(loss)
    grad = b.jit_compile_grad(f, [0], False, True)
    for _ in range(2):
        (dx,) = grad(torch.tensor(X), torch.tensor(Y))
        np.testing.assert_allclose(dx.numpy(), central_difference(lambda v: loss_np(v, Y), X), rtol=1e-6, atol=1e-6)
    assert f.calls == 1
    hess = b.jit_compile_hessian(lambda v: ((v**3).sum(-1),), [0], False, False)
    (((h,),),) = hess(torch.tensor([[1.0, 2.0]]))
    np.testing.assert_allclose(h[0].numpy(), [[6.0, 0.0], [0.0, 12.0]], atol=1e-5)


def test_while_loop(b: bk.Backend) -> None:
    def step(running: torch.Tensor, x: torch.Tensor) -> tuple:
        x = x + 1
        return x < 5, x

    _, final = b.while_loop(step, (torch.tensor([True]), torch.tensor([0])), None)
    assert final.tolist() == [5]
    trajectory = b.while_loop(step, (torch.tensor([True]), torch.tensor([0])), [0, 2, 10])
    assert trajectory[1][:, 0].tolist() == [0, 2, 2]  # after the loop ended: the last recorded values, as the reference
