"""The core maps kernel failures to bk's classes through the operation specs, never through messages."""

from __future__ import annotations

import numpy as np
import pytest

import bk
from bk._kernels import DATA_ERRORS

from .conftest import Minimal


class Plain(Minimal):
    """Kernels that are bare NumPy calls raising NumPy's own errors, as a third party writes them."""

    def add(self, a, b):
        return np.add(a, b)

    def tensordot(self, a, a_axes, b, b_axes):
        return np.tensordot(a, b, (tuple(a_axes), tuple(b_axes)))

    def sum(self, value, axis=None, keepdims=False):
        return np.sum(value, axis=axis, keepdims=keepdims)

    def gather(self, values, indices, axis):
        return np.take(values, indices, axis=axis)

    def floor(self, x):
        return np.floor(x)

    def sqrt(self, x):
        raise ValueError("kernel bug: nothing to do with the arguments")


class Declared(Minimal):
    unchecked_operations = frozenset({"add"})

    def add(self, a, b):
        return np.add(a, b)


def test_shape_mistakes_become_the_specs_class_naming_both_shapes():
    b = Plain()
    with pytest.raises(bk.ShapeMismatchError, match=r"^tensordot: axis 1 of a \(3, 4\) and axis 0 of b \(5, 6\)") as raised:
        b.tensordot(np.ones((3, 4)), (1,), np.ones((5, 6)), (0,))
    assert isinstance(raised.value.__cause__, ValueError)  # NumPy's own error stays the cause
    with pytest.raises(bk.ShapeMismatchError, match="^add: "):
        b.add(np.ones(3), np.ones(4))


def test_axis_and_kind_mistakes_become_the_specs_class():
    b = Plain()
    with pytest.raises(bk.AxisError, match="^sum: "):
        b.sum(np.ones((2, 3)), axis=2)
    with pytest.raises(bk.ArgumentTypeError, match="^floor: "):
        b.floor(np.ones(2, np.complex64))


def test_data_mistakes_take_the_operations_data_error_class():
    b = Plain()
    assert DATA_ERRORS["gather"] is bk.IndexOutOfRangeError
    with pytest.raises(bk.IndexOutOfRangeError, match="^gather: ") as raised:
        b.gather(np.arange(3), np.array([5]), 0)
    assert type(raised.value.__cause__) is IndexError


def test_other_failures_stay_what_they_are_and_name_the_operation():
    with pytest.raises(ValueError, match="^sqrt: kernel bug") as raised:
        Plain().sqrt(np.ones(2))
    assert type(raised.value) is ValueError


def test_unchecked_operations_are_not_wrapped_and_explain_failure_is_public():
    assert getattr(Plain.add, "__bk_kernel__", None) is not None
    assert getattr(Declared.add, "__bk_kernel__", None) is None
    assert getattr(Plain.is_tensor, "__bk_kernel__", None) is None  # the required set is never wrapped
    with pytest.raises(ValueError, match="operands could not be broadcast"):
        Declared().add(np.ones(3), np.ones(4))
    try:
        np.add(np.ones(3), np.ones(4))
    except ValueError as error:
        with pytest.raises(bk.ShapeMismatchError, match="^add: "):
            bk.explain_failure(None, "add", error, (np.ones(3), np.ones(4)), {})


def test_wrapping_keeps_supports_names_and_signatures():
    import inspect

    b = Plain()
    assert b.supports("tensordot") and b.supports("gather") and not b.supports("sparse_coo_tensor")
    assert Plain.tensordot.__name__ == "tensordot"
    assert list(inspect.signature(Plain.tensordot).parameters) == ["self", "a", "a_axes", "b", "b_axes"]
