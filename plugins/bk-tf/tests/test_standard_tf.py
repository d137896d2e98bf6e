"""bk-tf's own kernels of the Array API standard's operations where TensorFlow lacks the function:
`signbit` reads the sign bit with `tf.bitcast`, and `nextafter` of float16 and bfloat16 steps the
bit pattern (`tf.math.nextafter` takes float32 and float64 only). The testkit checks float16;
these tests add bfloat16 and the narrow integers of `matmul`."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

import bk
from bk import DType

NAN, INF = float("nan"), float("inf")
PAIRS = ((1.0, 2.0), (1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (-0.0, 1.0), (2.0, 2.0), (NAN, 1.0), (1.0, NAN), (INF, 0.0), (-INF, 0.0), (5.0, INF), (0.0, -0.0), (-3.0, -4.0))


def _same_bits(actual: np.ndarray, expected: np.ndarray) -> bool:
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    return bool(np.all(((a == e) & (np.signbit(a) == np.signbit(e))) | (np.isnan(a) & np.isnan(e))))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_nextafter_of_16_bit_floats_steps_the_bit_pattern(b: Any, dtype: Any) -> None:
    x1, x2 = (np.array([p[i] for p in PAIRS], dtype) for i in (0, 1))
    expected = np.where(x1 == x2, x2, np.nextafter(x1, x2))  # the standard: x2 where they are equal
    result = b.nextafter(b.as_tensor(x1), b.as_tensor(x2))
    assert b.dtype(result) == bk.from_numpy_dtype(np.dtype(dtype))
    assert _same_bits(b.numpy(result), expected)


def test_nextafter_of_16_bit_floats_broadcasts_and_raises_for_shapes_that_do_not(b: Any) -> None:
    x1, x2 = np.ones((3, 1), np.float16), np.array([0.0, 2.0], np.float16)
    assert _same_bits(b.numpy(b.nextafter(b.as_tensor(x1), b.as_tensor(x2))), np.nextafter(x1, x2))
    with pytest.raises(bk.ShapeMismatchError, match="nextafter"):
        b.nextafter(b.as_tensor(np.ones(3, np.float16)), b.as_tensor(np.ones(2, np.float16)))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
def test_signbit_reads_the_sign_bit_of_zeros_and_nans(b: Any, dtype: Any) -> None:
    x = np.array([-1.0, 0.0, -0.0, INF, -INF, NAN, -NAN], dtype)
    assert np.array_equal(b.numpy(b.signbit(b.as_tensor(x))), np.signbit(x.astype(np.float64)))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "uint16", "int16"])
def test_matmul_of_narrow_integers_wraps_as_numpy(b: Any, dtype: str) -> None:
    x = (np.arange(6).reshape(2, 3) * 50).astype(dtype)
    y = (np.arange(3) + 7).astype(dtype)
    result = b.matmul(b.as_tensor(x), b.as_tensor(y))
    assert b.dtype(result) == DType.parse(dtype)
    assert np.array_equal(b.numpy(result), np.matmul(x, y))
