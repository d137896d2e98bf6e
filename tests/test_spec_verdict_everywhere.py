"""Argument mistakes raise the spec's error before any kernel runs (the plan of `bk._dispatcher`), alike on every
installed backend, and the plugins hold no copies of these checks (#21)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import bk

BACKENDS = [name for name in ("numpy", "torch", "jax", "tf", "dask", "lazy") if name in bk.backends()]

MISTAKES = [
    ("transpose", ValueError, lambda b: b.transpose(b.zeros((2, 3)), (0, 0))),
    ("tile", ValueError, lambda b: b.tile(b.zeros((2, 3)), (-1, 1))),
    ("pad", ValueError, lambda b: b.pad(b.zeros((2,)), ((1, 1),), "cubic")),
    ("pad", ValueError, lambda b: b.pad(b.as_tensor(1.0), ((1, 1),))),  # a 0-d tensor takes no pairs
    ("pad", ValueError, lambda b: b.pad(b.zeros((0, 3)), ((1, 1), (0, 0)), "reflect")),  # nothing to mirror
    ("roll", ValueError, lambda b: b.roll(b.zeros((2, 3)), (1, 2, 3), (0, 1))),
    ("vector_norm", ValueError, lambda b: b.vector_norm(b.zeros((0,)), None, False, -math.inf)),
    ("matrix_norm", ValueError, lambda b: b.matrix_norm(b.zeros((0, 3)), False, -2)),
    ("qr", ValueError, lambda b: b.qr(b.zeros((2, 2)), "full")),
    ("diagonal", bk.ArgumentTypeError, lambda b: b.diagonal(b.zeros((2, 2)), 1.5)),
    ("grid_sample", ValueError, lambda b: b.grid_sample(b.zeros((1, 5, 1)), b.zeros((1, 1, 1)), "cubic")),  # no such extrapolation
]


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize(("op", "error", "call"), MISTAKES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MISTAKES)])
def test_the_spec_refuses_alike_everywhere(name, op, error, call):
    b = bk.backend(name)
    if not b.supports(op):
        pytest.skip(f"{name} does not support {op}")
    with pytest.raises(error, match=f"^{op}: "):
        call(b)


@pytest.mark.parametrize("name", BACKENDS)
def test_what_the_spec_accepts_still_works(name):
    b = bk.backend(name)
    assert tuple(b.staticshape(b.pad(b.zeros((0, 3)), ((0, 0), (1, 1)), "reflect"))) == (0, 5)  # the empty axis is not widened
    assert float(b.numpy(b.vector_norm(b.zeros((0,)), None, False, math.inf))) == 0.0  # the largest of no absolute values
    np.testing.assert_array_equal(b.numpy(b.diagonal(b.as_tensor(np.arange(4.0).reshape(2, 2)), np.int64(1))), [1.0])  # NumPy ints are ints


@pytest.mark.parametrize("name", BACKENDS)
def test_tensordot_takes_an_int_as_one_axis(name):
    """The spec reads `a_axes` and `b_axes` given as ints (one axis each), as NumPy does; so do the kernels (`bk.rules.axes_tuple`)."""
    b = bk.backend(name)
    a, m = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(b.numpy(b.tensordot(b.as_tensor(a), 1, b.as_tensor(m), 0)), np.tensordot(a, m, (1, 0)), atol=1e-6)
    np.testing.assert_allclose(b.numpy(b.tensordot(b.as_tensor(a), (1,), b.as_tensor(m), [0])), a @ m, atol=1e-6)
