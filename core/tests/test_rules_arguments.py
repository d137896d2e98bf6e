"""`bk._rules.arguments`: which values are weak Python numbers, one rule for the specs and every plugin."""

from __future__ import annotations

import enum

import numpy as np
import pytest

from bk._rules.arguments import (
    PYTHON_NUMBERS,
    PYTHON_REALS,
    is_python_number,
    is_python_real,
    is_real_scalar,
    only_python_numbers,
)
from bk._specs import Weak, as_operand


class Colour(enum.IntEnum):
    RED = 1


WEAK = [True, 3, -(2**70), 1.5, float("nan"), 2j]
STRONG = [np.float64(1.5), np.complex128(1j), np.int64(3), np.bool_(True), np.array(1.0), None, "1", b"1", [1, 2], Colour.RED]


@pytest.mark.parametrize("value", WEAK)
def test_python_numbers_are_weak(value):
    assert is_python_number(value)
    assert isinstance(as_operand(value, "add"), Weak)  # the specs read them by the same rule


@pytest.mark.parametrize("value", STRONG)
def test_numpy_scalars_subclasses_and_other_values_are_not_python_numbers(value):
    assert not is_python_number(value)  # numpy.float64 subclasses float, yet it has a dtype: strong


def test_python_reals_leave_out_complex():
    assert [is_python_real(v) for v in WEAK] == [True, True, True, True, True, False]
    assert not is_python_real(np.float32(1))
    assert PYTHON_NUMBERS[:3] == PYTHON_REALS


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2, True), (-1.5, True), (False, True), (np.float32(2.5), True), (np.uint8(3), True), (np.bool_(True), True),
     (1j, False), (np.complex64(1), False), (np.array(2.0), False), ("2", False), (None, False)],
)  # fmt: skip
def test_real_scalars_are_python_or_numpy_reals_without_a_shape(value, expected):
    assert is_real_scalar(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [([1, 2.5, True], True), (((1, 2), [3j, 4]), True), ([], True), (7, True), ([1, np.float64(2.0)], False),
     ([[1], [np.int8(2)]], False), ([1, None], False), ([1, "2"], False), (np.array([1, 2]), False), ("12", False)],
)  # fmt: skip
def test_only_python_numbers_looks_through_nested_lists(value, expected):
    assert only_python_numbers(value) is expected
