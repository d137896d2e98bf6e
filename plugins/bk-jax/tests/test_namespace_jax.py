"""`bk.array_namespace("jax")`: JAX arrays and dtypes through bk's catalogue, also under jit."""

from __future__ import annotations

import numpy as np
import pytest

import bk

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def test_arrays_and_dtypes_are_jaxs_own() -> None:
    xp = bk.array_namespace("jax")
    x = xp.asarray([1.0, 2.0], dtype=xp.float64)
    assert isinstance(x, jax.Array) and x.dtype == jnp.float64 and xp.float64 == x.dtype
    assert bk.array_namespace(x) is xp
    assert xp.asarray([1, 2]).dtype == xp.int64


def test_a_standard_function_runs_under_jit() -> None:
    xp = bk.array_namespace("jax")

    @jax.jit
    def energy(x):
        return xp.sum(xp.square(x), axis=-1, keepdims=True)

    result = energy(jnp.ones((2, 3), jnp.float32))
    assert isinstance(result, jax.Array) and result.shape == (2, 1) and result.dtype == xp.float32
    np.testing.assert_allclose(np.asarray(result), [[3.0], [3.0]])
