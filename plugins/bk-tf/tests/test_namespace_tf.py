"""`bk.array_namespace("tf")`: TensorFlow as an Array API namespace (no compatibility layer covers it)."""

from __future__ import annotations

import numpy as np
import pytest

import bk

tf = pytest.importorskip("tensorflow")


@pytest.fixture(scope="module")
def xp():
    return bk.array_namespace("tf")


def softmax(x, axis=-1):
    """A function written against the Array API standard only: it never names a framework."""
    xp = bk.array_namespace(x)
    shifted = x - xp.max(x, axis=axis, keepdims=True)
    e = xp.exp(shifted)
    return e / xp.sum(e, axis=axis, keepdims=True)


def test_tensors_and_dtypes_are_tensorflows_own(xp) -> None:
    assert xp.float32 is tf.float32 and xp.int64 is tf.int64 and xp.bool is tf.bool and xp.uint8 is tf.uint8
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert isinstance(x, tf.Tensor) and x.dtype == xp.float32
    assert bk.array_namespace(x) is xp
    info = xp.__array_namespace_info__()
    assert info.default_dtypes()["integral"] is tf.int64 and info.dtypes()["complex128"] is tf.complex128
    assert xp.astype(x, xp.float64).dtype is tf.float64
    assert xp.finfo(xp.float64).dtype is tf.float64 and xp.iinfo(xp.int16).max == 32767


def test_a_standard_function_runs_on_tensorflow(xp) -> None:
    x = xp.asarray([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], dtype=xp.float64)
    result = softmax(x)
    assert isinstance(result, tf.Tensor) and result.dtype == tf.float64
    expected = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()
    np.testing.assert_allclose(result.numpy(), [expected, [1 / 3] * 3], rtol=1e-12)


def test_adapted_functions(xp) -> None:
    x = xp.reshape(xp.arange(6, dtype=xp.int32), (2, 3))
    assert xp.sum(x, axis=1).dtype is tf.int64  # integer sums widen to the default integer
    np.testing.assert_array_equal(xp.prod(x, axis=1, keepdims=True).numpy(), [[0], [60]])
    np.testing.assert_array_equal(xp.argsort(xp.asarray([1, 3, 3, 2]), descending=True).numpy(), [1, 2, 3, 0])
    np.testing.assert_array_equal(xp.sort(xp.asarray([1, 3, 2]), descending=True).numpy(), [3, 2, 1])
    rows, cols = xp.meshgrid(xp.arange(2), xp.arange(3))
    assert tuple(rows.shape) == (3, 2) and tuple(cols.shape) == (3, 2)  # 'xy' indexing
    np.testing.assert_allclose(
        xp.std(xp.asarray([1.0, 2.0, 3.0, 4.0]), correction=1).numpy(), np.std([1, 2, 3, 4], ddof=1), rtol=1e-6
    )
    assert [int(i.numpy()[0]) for i in xp.nonzero(xp.asarray([[0, 1], [0, 0]]))] == [0, 1]
