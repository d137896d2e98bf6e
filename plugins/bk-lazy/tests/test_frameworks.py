"""One graph, compiled once, run on NumPy, PyTorch, JAX and TensorFlow (each skipped only if not installed)."""

from __future__ import annotations

from typing import Any

import bk_lazy
import numpy as np
import pytest

import bk

FRAMEWORKS = ("numpy", "torch", "jax", "tf")


def _backend(name: str) -> bk.Backend:
    if name != "numpy":
        pytest.importorskip({"tf": "tensorflow"}.get(name, name))
    return bk.backend(name)


@pytest.fixture(scope="module")
def function() -> bk_lazy.Function:
    lazy = bk.backend("lazy")
    x = bk_lazy.Variable((2, 3), "float32", name="x")
    weights = lazy.exp(lazy.as_tensor(np.array([0.0, 0.5, 1.0], np.float32)))  # folded: a constant
    y = lazy.sum(lazy.tanh(x) * weights, axis=-1)
    return bk_lazy.Function([x], (y, lazy.greater_than(y, 0.0)))


@pytest.mark.parametrize("name", FRAMEWORKS)
def test_function_runs_on_the_arguments_backend(name: str, function: bk_lazy.Function) -> None:
    target = _backend(name)
    data = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    y, positive = function(target.as_tensor(data))
    assert bk.choose_backend(y) is target and bk.choose_backend(positive) is target
    expected = np.sum(np.tanh(data) * np.exp(np.array([0.0, 0.5, 1.0], np.float32)), axis=-1)
    np.testing.assert_allclose(target.numpy(y), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(target.numpy(positive), expected > 0)
    assert target.dtype(y) == bk.DType(float, 32)


@pytest.mark.parametrize("name", FRAMEWORKS[1:])
def test_leaves_of_a_framework_compute_on_it(name: str) -> None:
    target = _backend(name)
    lazy = bk.backend("lazy")
    leaf = bk.convert(target.as_tensor(np.arange(3.0, dtype=np.float32)), lazy)
    assert isinstance(leaf, bk_lazy.LazyArray)
    y = lazy.exp(leaf) + lazy.as_tensor(np.ones(3, np.float32))  # the NumPy leaf is a constant
    value: Any = bk_lazy.compute(y)
    assert bk.choose_backend(value) is target
    np.testing.assert_allclose(target.numpy(value), np.exp(np.arange(3.0)) + 1, rtol=1e-5, atol=1e-6)
    back = bk.convert(y, target)
    assert bk.choose_backend(back) is target


@pytest.mark.parametrize("name", FRAMEWORKS[1:])
def test_mixing_lazy_nodes_with_framework_tensors_is_refused(name: str) -> None:
    target = _backend(name)
    node = bk.backend("lazy").as_tensor(np.ones(2, np.float32))
    with pytest.raises(bk.NoBackendFound, match="convert"):
        bk.choose_backend(node, target.as_tensor(np.ones(2, np.float32)))


@pytest.mark.parametrize("name", ("torch", "jax"))
def test_function_with_jit(name: str) -> None:
    target = _backend(name)
    lazy = bk.backend("lazy")
    x = bk_lazy.Variable((4,), "float32", name="x")
    f = bk_lazy.Function([x], lazy.sin(x) * 2.0 + 1.0, jit=True)
    data = np.linspace(0, 1, 4, dtype=np.float32)
    np.testing.assert_allclose(target.numpy(f(target.as_tensor(data))), np.sin(data) * 2 + 1, rtol=1e-5, atol=1e-6)
