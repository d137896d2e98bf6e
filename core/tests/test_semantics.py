"""The core's part of docs/semantics.md: weak Python scalars in auto_cast, errors at the boundary, dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import bk
from bk import DType
from bk._errors import BK_ERRORS, check_tensor_argument, reraise_as


@pytest.mark.parametrize(
    ("tensor", "number", "expected"),
    [
        (np.ones(2, np.int8), 2, "int8"),
        (np.ones(2, np.uint8), True, "uint8"),
        (np.ones(2, bool), 2, "int64"),
        (np.ones(2, np.float16), 1j, "complex64"),
        (np.ones(2, np.float64), 1j, "complex128"),
        (np.ones(2, np.int8), 127, "int8"),
        (np.ones(2, np.uint8), 255, "uint8"),
    ],
)
def test_weak_python_scalars(minimal, tensor, number, expected):
    a, b = minimal.auto_cast(tensor, number)
    assert a.dtype == b.dtype == np.dtype(expected)


@pytest.mark.parametrize(("dtype", "number"), [(np.int8, 300), (np.int8, -129), (np.uint8, -1), (np.uint8, 256), (np.int64, 2**63), (bool, 2**64)])
def test_a_python_int_out_of_range_raises_overflow_error(minimal, dtype, number):
    with pytest.raises(OverflowError, match=str(number)):
        minimal.auto_cast(np.ones(2, dtype), number)


def test_complex_weak_scalar_follows_a_set_precision(minimal):
    with bk.precision(64):
        a, _ = minimal.auto_cast(np.ones(2, np.float32), 1j)
    assert a.dtype == np.complex128


def test_big_endian_dtypes_have_a_dtype():
    assert bk.from_numpy_dtype(np.dtype(">f4")) == DType(float, 32)
    assert bk.from_numpy_dtype(np.dtype(">u2")) == DType(int, 16, signed=False)


def test_reraise_as_names_the_operation_and_keeps_the_cause():
    cause = RuntimeError("dimension 5 out of range\nmore lines")
    with pytest.raises(bk.AxisError, match=r"^sum: dimension 5 out of range$") as info:
        reraise_as(bk.AxisError, "sum", cause)
    assert info.value.__cause__ is cause
    with pytest.raises(bk.ShapeMismatchError, match="^add: shapes differ$"):
        reraise_as(bk.ShapeMismatchError, "add", ValueError(""), "shapes differ")


@pytest.mark.parametrize("value", [None, "abc", b"abc"])
def test_check_tensor_argument_rejects_non_tensors(value):
    with pytest.raises(bk.ArgumentTypeError, match="^where: "):
        check_tensor_argument(value, "where")
    check_tensor_argument(np.ones(2), "where")
    check_tensor_argument(3, "where")


def test_the_error_classes_subclass_the_builtins():
    assert issubclass(bk.AxisError, ValueError) and issubclass(bk.AxisError, IndexError)
    assert issubclass(bk.IndexOutOfRangeError, IndexError)
    assert issubclass(bk.ShapeMismatchError, ValueError)
    assert issubclass(bk.ArgumentTypeError, TypeError)
    assert set(BK_ERRORS) == {bk.AxisError, bk.IndexOutOfRangeError, bk.ShapeMismatchError, bk.ArgumentTypeError}


def test_generic_shape_defaults_follow_negative_axes(richer):
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(richer.tile_to(x, -1, 6), np.tile(x, (1, 2)))
    np.testing.assert_array_equal(richer.pad_to(x, -1, 1, 0.0), x[:, :1])
    np.testing.assert_array_equal(richer.pad_to(x, -2, 3, 7.0), np.pad(x, ((0, 1), (0, 0)), constant_values=7.0))
    np.testing.assert_array_equal(richer.flip(x, [-1]), x[:, ::-1])
    assert [p.tolist() for p in richer.unstack(x, -1)] == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


@pytest.mark.parametrize(
    "call",
    [
        lambda b, x: b.tile_to(x, 2, 6),
        lambda b, x: b.pad_to(x, -3, 4, 0.0),
        lambda b, x: b.flip(x, [2]),
        lambda b, x: b.unstack(x, 2),
    ],
)
def test_generic_shape_defaults_raise_axis_error(richer, call):
    with pytest.raises(bk.AxisError, match=r"^(tile_to|pad_to|flip|unstack): axis"):
        call(richer, np.zeros((2, 3)))


def test_tile_to_a_size_that_is_no_multiple_is_a_value_error(richer):
    with pytest.raises(ValueError, match="^tile_to: "):
        richer.tile_to(np.zeros((2, 3)), -1, 7)


def test_generic_div_of_integers_is_the_default_float(minimal):
    assert minimal.div(np.array([1, 2], np.int32), np.array([2, 2], np.int32)).dtype == np.float32
    with bk.precision(64):
        assert minimal.div(np.array([1, 2], np.int32), np.array([2, 2], np.int32)).dtype == np.float64
