"""A value with no bk dtype, a flag of the wrong type and a mask that is no mask raise `bk.ArgumentTypeError`
naming the operation and the argument, alike on every installed backend (the core's checks in front of every
`as_tensor` and `cast`, and the argument kinds of the specs: issue 39)."""

from __future__ import annotations

import numpy as np
import pytest

import bk

NO_DTYPE = [
    ("a string", "abc"),
    ("bytes", b"abc"),
    ("None", None),
    ("strings", np.array(["a", "b"])),
    ("objects", np.array([1, None], object)),
    ("datetimes", np.array(["2020-01-01"], "datetime64[D]")),
    ("a datetime scalar", np.datetime64("2020-01-01")),
    ("float128", np.ones(2, np.longdouble)),
    ("a longdouble scalar", np.longdouble(1.5)),
    ("an int beyond 64 bits", 2**70),
    ("a negative int beyond 64 bits", -(2**64)),
    ("a list with an int beyond 64 bits", [1, 2**70]),
    ("a list of strings", ["a", "b"]),
    ("a nested list holding None", [[1.0], [None]]),
]


@pytest.mark.parametrize(("what", "value"), NO_DTYPE, ids=[w for w, _ in NO_DTYPE])
def test_as_tensor_refuses_a_value_with_no_bk_dtype(b, what, value):
    with pytest.raises(bk.ArgumentTypeError, match=r"^as_tensor: x "):
        b.as_tensor(value)


@pytest.mark.parametrize("value", [[[1.0], [1.0, 2.0]], [1.0, [2.0]], [[[1], [2]], [[1], [2, 3]]], ([1, 2], (3,))], ids=repr)
def test_as_tensor_refuses_a_ragged_nested_sequence_alike_everywhere(b, value):
    """NumPy raised its own ValueError, PyTorch a TypeError: now `bk.ShapeMismatchError` (a ValueError) naming the operation."""
    with pytest.raises(bk.ShapeMismatchError, match=r"^as_tensor: x is a ragged nested sequence"):
        b.as_tensor(value)
    assert b.staticshape(b.as_tensor([[1.0, 2.0], (3.0, 4.0)])) == (2, 2)


@pytest.mark.parametrize(("what", "value"), NO_DTYPE[3:9], ids=[w for w, _ in NO_DTYPE[3:9]])
def test_cast_refuses_a_value_with_no_bk_dtype(b, what, value):
    with pytest.raises(bk.ArgumentTypeError, match=r"^cast: "):
        b.cast(value, bk.DType(float, 32))


@pytest.mark.parametrize("dtype", [object, str, "object", np.longdouble, np.dtype("datetime64[D]"), "U3", None, 3], ids=repr)
def test_cast_refuses_a_dtype_bk_has_no_tensors_of(b, dtype):
    with pytest.raises(bk.ArgumentTypeError, match=r"^cast: .*dtype"):
        b.cast(b.ones((2,), bk.DType(float, 32)), dtype)


@pytest.mark.parametrize("op", ["zeros", "ones", "empty"])
@pytest.mark.parametrize("dtype", [object, str, np.longdouble, np.dtype("datetime64[D]"), "U3"], ids=repr)
def test_creation_refuses_a_dtype_bk_has_no_tensors_of(b, op, dtype):
    if not b.supports(op):
        pytest.skip(f"{b.name} does not support {op}")
    with pytest.raises(bk.ArgumentTypeError, match=f"^{op}: dtype"):
        getattr(b, op)((2,), dtype)


def test_full_refuses_a_dtype_bk_has_no_tensors_of(b):
    with pytest.raises(bk.ArgumentTypeError, match=r"^full: dtype"):
        b.full((2,), 1, np.longdouble)
    with pytest.raises(bk.ArgumentTypeError, match=r"^full: dtype"):
        b.full((2,), 1, object)


def test_a_dtype_by_name_reaches_every_kernel_as_a_dtype(b):
    """What the specs read as a dtype (a name, a NumPy type) the plan passes on as a `bk.DType`: the same result everywhere."""
    assert b.dtype(b.ones((2,), "int16")) == bk.DType(int, 16)
    assert b.dtype(b.zeros((2,), np.float64)) == bk.DType(float, 64)
    assert b.dtype(b.full((2,), 3, "int8")) == bk.DType(int, 8)
    assert b.dtype(b.cast(b.ones((2,), bk.DType(float, 32)), "int32")) == bk.DType(int, 32)
    np.testing.assert_array_equal(b.numpy(b.cast(b.as_tensor([1.5, 2.5]), np.int64)), [1, 2])


FLAGS = [
    ("solve_triangular_dense", "lower", lambda b: b.solve_triangular_dense(b.eye(2), b.ones((2, 1)), "yes", False)),
    ("solve_triangular_dense", "unit_diagonal", lambda b: b.solve_triangular_dense(b.eye(2), b.ones((2, 1)), True, None)),
    ("sum", "keepdims", lambda b: b.sum(b.ones((2, 3)), None, "yes")),
    ("max", "keepdims", lambda b: b.max(b.ones((2, 3)), 0, "no")),
    ("mean", "keepdims", lambda b: b.mean(b.ones((2, 3)), 0, [True])),
    ("mean", "keepdims", lambda b: b.mean(b.ones((2, 3)), 0, 1)),  # NumPy and PyTorch would read 1 as true
    ("mean", "keepdims", lambda b: b.mean(b.ones((2, 3)), None, 1)),
    ("sum", "keepdims", lambda b: b.sum(b.ones((2, 3)), None, 1)),
    ("max", "keepdims", lambda b: b.max(b.ones((2, 3)), None, "")),  # falsy, not False
    ("any", "keepdims", lambda b: b.any(b.ones((2, 3)), 0, 1)),
    ("std", "keepdims", lambda b: b.std(b.ones((2, 3)), 0, None)),
    ("unique", "return_inverse", lambda b: b.unique(b.ones((3,)), "yes", False, None)),
    ("cholesky", "upper", lambda b: b.cholesky(b.eye(2), "no")),
    ("isclose", "equal_nan", lambda b: b.isclose(b.ones((3,)), b.ones((3,)), 1e-5, 1e-8, "yes")),
    ("isclose", "rtol", lambda b: b.isclose(b.ones((3,)), b.ones((3,)), "a", 0.0, False)),
    ("tril", "k", lambda b: b.tril(b.ones((3, 3)), 1.5)),
    ("diff", "n", lambda b: b.diff(b.ones((3,)), -1, "1")),
    ("expand_dims", "number", lambda b: b.expand_dims(b.ones((3,)), 0, True)),
    ("searchsorted", "side", lambda b: b.searchsorted(b.ones((3,)), b.ones((2,)), 1)),
    ("sum", "keepdims", lambda b: b.sum(True, keepdims="yes")),  # a keyword left unbound, a 0-d Python value: was served
    ("mean", "keepdims", lambda b: b.mean(2.0, keepdims="yes")),
    ("max", "keepdims", lambda b: b.max(b.ones(()), keepdims=1)),
    ("transpose", "axes", lambda b: b.transpose(b.ones((2, 3)), 1.5)),  # was Python's "'float' object is not iterable"
    ("transpose", "axes", lambda b: b.transpose(b.ones((3,)), 0)),
    ("repeat", "repeats", lambda b: b.repeat(b.ones((3,)), 1.5, 0)),  # PyTorch truncated it, NumPy raised its own TypeError
    ("repeat", "repeats", lambda b: b.repeat(b.ones((3,)), True, 0)),  # NumPy counted it as 1, PyTorch raised
]


@pytest.mark.parametrize(("op", "name", "call"), FLAGS, ids=[f"{op}-{name}" for op, name, _ in FLAGS])
def test_a_flag_or_count_of_the_wrong_type_is_refused(b, op, name, call):
    if not b.supports(op):
        pytest.skip(f"{b.name} does not support {op}")
    with pytest.raises(bk.ArgumentTypeError, match=f"^{op}: {name} must be"):
        call(b)


def test_flags_of_the_right_type_still_work(b):
    x = b.as_tensor(np.arange(6.0).reshape(2, 3))
    assert tuple(b.staticshape(b.sum(x, 0, True))) == (1, 3)
    assert tuple(b.staticshape(b.sum(x, None, False))) == ()
    np.testing.assert_array_equal(b.numpy(b.tril(x, np.int64(0))), np.tril(np.arange(6.0).reshape(2, 3)))


@pytest.mark.parametrize("dtype", [bk.DType(float, 32), bk.DType(int, 64), bk.DType(int, 8)])
def test_boolean_mask_takes_only_a_bool_mask(b, dtype):
    with pytest.raises(bk.ArgumentTypeError, match=r"^boolean_mask: mask "):
        b.boolean_mask(b.ones((3,)), b.ones((3,), dtype))
    np.testing.assert_array_equal(b.numpy(b.boolean_mask(b.as_tensor([1.0, 2.0, 3.0]), b.as_tensor([True, False, True]))), [1.0, 3.0])


def test_values_with_a_bk_dtype_still_convert(b):
    assert b.dtype(b.as_tensor(2**63 - 1)) == bk.DType(int, 64)
    assert b.dtype(b.as_tensor(-(2**63))) == bk.DType(int, 64)
    assert b.dtype(b.as_tensor([1, 2])) == bk.DType(int, 64)
    assert b.dtype(b.as_tensor(np.float64(1.5))) == bk.DType(float, 64)
    assert b.dtype(b.as_tensor(np.ones(2, np.uint8))) == bk.DType(int, 8, signed=False)
    assert b.dtype(b.as_tensor([[1.0, 2.0], [3.0, 4.0]])) == bk.DType(float, 32)


CALLS_OF_THE_WRONG_SIGNATURE = [
    ("scatter_nd_scalar", lambda b: b.scatter_nd_scalar(b.zeros((3,)), b.as_tensor(np.array([[1]])), b.ones((1,)))),  # no mode
    ("solve_triangular_dense", lambda b: b.solve_triangular_dense(b.eye(2), b.ones((2, 1)), lower=True)),  # no unit_diagonal
    ("add", lambda b: b.add(b.ones((2,)))),
    ("tril", lambda b: b.tril(b.ones((2, 2)), 0, 1)),
]


@pytest.mark.parametrize(("op", "call"), CALLS_OF_THE_WRONG_SIGNATURE, ids=[op for op, _ in CALLS_OF_THE_WRONG_SIGNATURE])
def test_a_call_of_the_wrong_signature_is_an_argument_type_error(b, op, call):
    """A missing or extra argument is `bk.ArgumentTypeError` naming the operation and its signature, on every backend
    (bk-lazy's spec said so before its kernel; the eager backends' kernels gave Python's `TypeError`)."""
    with pytest.raises(bk.ArgumentTypeError, match=f"^{op}: .*signature {op}\\("):
        call(b)
