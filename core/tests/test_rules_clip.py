"""`bk._rules.clip`: clip's bounds and result dtype, decided once for every plugin."""

from __future__ import annotations

import math

import numpy as np
import pytest

import bk
from bk import DType
from bk._rules.clip import bool_images, bound_for, cast_limits, clip, int_range, is_number_bound, number_bound

from .test_dispatcher import Ruled

I8, U8, I32, I64, U64 = (
    DType(int, 8),
    DType(int, 8, signed=False),
    DType(int, 32),
    DType(int, 64),
    DType(int, 64, signed=False),
)
F16, BF16, F32, F64, BOOL = DType(float, 16), DType(float, 16, brain=True), DType(float, 32), DType(float, 64), DType(bool)


class NumpyOps:
    """The catalogue operations the composite calls, as bare NumPy (NEP 50: Python ints out of range raise)."""

    def dtype(self, x):
        return bk.from_numpy_dtype(np.asarray(x).dtype)

    def maximum(self, a, b):
        return np.maximum(a, b)

    def minimum(self, a, b):
        return np.minimum(a, b)

    def where(self, condition, x, y):
        return np.where(condition, x, y)

    def greater_or_equal(self, x, y):
        return np.greater_equal(x, y)

    def real(self, x):
        return np.real(x)

    def cast(self, x, dtype):
        return np.asarray(x).astype(bk.to_numpy_dtype(dtype))


def _clip(x, low, high, kernel=None):
    return clip(NumpyOps(), x, low, high, kernel)


def test_int_range():
    assert int_range(I8) == (-128, 127)
    assert int_range(U8) == (0, 255)
    assert int_range(U64) == (0, 2**64 - 1)
    assert int_range(I64) == (-(2**63), 2**63 - 1)


def test_number_bounds_are_python_and_numpy_reals_only():
    assert all(is_number_bound(v) for v in (1, 1.5, True, np.int8(3), np.float32(2), np.bool_(True)))
    assert not any(is_number_bound(v) for v in (None, np.ones(2), np.array(1), 1j, "1"))


def test_bound_for_clips_ints_to_the_range_and_truncates_floats():
    assert bound_for(-5, U8) == 0 and bound_for(300, U8) == 255 and bound_for(200, U8) == 200
    assert bound_for(-1.5, I8) == -1 and bound_for(2.5, I8) == 2 and bound_for(-0.5, U8) == 0
    assert bound_for(math.inf, I32) == 2**31 - 1 and bound_for(-math.inf, U64) == 0
    assert bound_for(2**70, I64) == 2**63 - 1 and bound_for(True, I8) == 1 and bound_for(np.float32(3.9), I8) == 3
    assert type(bound_for(np.int64(7), I8)) is int
    assert bound_for(1.5, F32) == 1.5 and bound_for(300, BOOL) == 300  # other dtypes: as they are
    with pytest.raises(ValueError, match="^clip: a NaN bound"):
        bound_for(math.nan, I8)


def test_number_bound_for_bool_tensors_keeps_the_sign_the_cast_back_sees():
    assert number_bound(-5, BOOL, U64) == -5.0 and type(number_bound(-5, BOOL, U64)) is float  # uint64 cannot hold -5
    assert number_bound(-5, BOOL, I8) == -5 and type(number_bound(-5, BOOL, I8)) is int
    assert type(number_bound(2**70, BOOL, BOOL)) is float  # compared as int64 otherwise
    assert number_bound(3, BOOL, F32) == 3.0 and type(number_bound(3, BOOL, F32)) is float
    assert number_bound(True, BOOL, I8) is True and number_bound(0.5, BOOL, I8) == 0.5
    assert number_bound(2.5, I8, F64) == 2 and number_bound(1.5, F32, F64) == 1.5


def test_bool_images():
    assert bool_images(0, 1) == (False, True)
    assert bool_images(0.5, 2.5) == (True, True)  # 0 clips to 0.5, which is true
    assert bool_images(-1, 0) == (False, False)  # 1 clips to 0
    assert bool_images(-2, -0.5) == (True, True)  # both clip to -0.5
    assert bool_images(None, -0.5) == (True, True)
    assert bool_images(None, None) == (False, True)
    assert bool_images(math.nan, 1) == (True, True)  # NaN != 0


def test_cast_limits():
    assert cast_limits(U8, I32) == (0, 255, False)
    assert cast_limits(I32, I8) == (-128, 127, False)  # what int8 holds of int32's range
    assert cast_limits(U8, BOOL) == (0, 1, False)
    assert cast_limits(I8, F32) == (-128.0, 127.0, False)
    low, high, saturate = cast_limits(I32, F32)
    assert (low, high, saturate) == (-(2.0**31), 2147483520.0, True)  # the largest float32 below 2**31 - 1
    assert np.float32(high) == high
    assert cast_limits(U64, F64) == (0.0, float(2**64 - 2**11), True)
    assert cast_limits(I32, F16) == (-65504.0, 65504.0, True)  # float16's finite range
    assert cast_limits(I8, BF16)[:2] == (-128.0, 127.0)


def test_clip_number_bounds_keep_the_dtype():
    got = _clip(np.array([0, 100, 255], np.uint8), -5, 200)
    assert got.dtype == np.uint8 and got.tolist() == [0, 100, 200]
    got = _clip(np.array([-128, -1, 0, 1, 127, 5], np.int8), -1.5, 2.5)
    assert got.dtype == np.int8 and got.tolist() == [-1, -1, 0, 1, 2, 2]
    assert _clip(np.array([1, 2, 3], np.int32), 1.5, math.inf).tolist() == [1, 2, 3]
    assert _clip(np.array([5], np.int64), None, 2**70).tolist() == [5]


def test_clip_bool_tensors_stay_bool():
    got = _clip(np.array([True, False]), 0.5, 2.5)
    assert got.dtype == np.bool_ and got.tolist() == [True, True]
    assert _clip(np.array([True, False]), 0, 5).tolist() == [True, False]
    got = _clip(np.array([True, False, True]), -5, np.array([0.5, -1.5, 0.0]))  # tensor bounds: in the common type
    assert got.dtype == np.bool_ and got.tolist() == [True, True, False]
    assert _clip(np.array([True, False]), np.array([2, 2], np.uint64), -5).tolist() == [True, True]


def test_clip_tensor_bounds_are_limited_to_the_range_of_an_int_tensor():
    got = _clip(np.array([1, 2, 250], np.uint8), np.array([-3], np.int32), np.array(300, np.int32))
    assert got.dtype == np.uint8 and got.tolist() == [1, 2, 250]  # -3 is 0 for uint8, not 253
    got = _clip(np.array([1, 2, 3], np.int32), np.array([1.5], np.float32), None)
    assert got.dtype == np.int32 and got.tolist() == [1, 2, 3]
    big = np.array([2**31 - 1, 0], np.int32)
    assert _clip(big, None, np.array([3e9, 5.0], np.float32)).tolist() == [2**31 - 1, 0]  # saturates, no wrap
    u64 = np.array([0, 3, 2**64 - 1], np.uint64)
    assert _clip(u64, np.array([-3, 1, 2], np.int32), math.inf).tolist() == [0, 3, 2**64 - 1]
    assert _clip(np.array([5, 6], np.int8), np.array([True, False]), None).tolist() == [5, 6]


def test_clip_float_tensors_propagate_nan_and_cast_back():
    got = _clip(np.array([1.0, np.nan, -3.0], np.float32), 0.0, np.array(2.0, np.float64))
    assert got.dtype == np.float32 and got[0] == 1.0 and np.isnan(got[1]) and got[2] == 0.0


def test_clip_calls_the_framework_kernel_with_prepared_bounds():
    seen = []

    def kernel(x, low, high):
        seen.append((low, high))
        return np.clip(x, low, high)

    assert _clip(np.array([0, 100, 255], np.uint8), -5, 2.5e3, kernel).tolist() == [0, 100, 255]
    assert seen == [(0, 255)]


class RuledClip(Ruled):
    def clip(self, x, minimum, maximum):
        return np.clip(x, minimum, maximum)  # NumPy 2 refuses -5 for uint8: the rule must prepare the bounds

    def maximum(self, a, b):
        return np.maximum(a, b)

    def minimum(self, a, b):
        return np.minimum(a, b)


def test_planned_backends_clip_through_the_rule():
    b = RuledClip()
    got = b.clip(np.array([0, 100, 255], np.uint8), -5, 200)
    assert got.dtype == np.uint8 and got.tolist() == [0, 100, 200]
    assert b.clip(np.array([-128, 5], np.int8), -1.5, 2.5).tolist() == [-1, 2]
