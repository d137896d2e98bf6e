"""`bk._rules.division`: integer division by zero gives 0, one composite for every backend."""

from __future__ import annotations

import numpy as np
import pytest

from bk import DType
from bk._rules.division import ZERO_DIVISORS, divide_integers, zero_divisor_rule

from .conftest import Minimal, trust


class Composing(Minimal):
    """The catalogue operations the composite is built of, on NumPy; nothing else."""

    def equal(self, x, y):
        return np.equal(x, y)

    def where(self, condition, x=None, y=None):
        return np.where(condition, x, y)  # NumPy 2: a Python int beside an array takes its dtype


trust(Composing, ("equal", "where", "floordiv", "mod", "real", "imag", "isnan", "isinf", "isfinite", "signbit", "and_", "expm1", "log1p", "greater_than"))  # called as they are


def _refusing(function):
    """A kernel that refuses a zero divisor, as PyTorch and TensorFlow's CPU kernels do."""

    def divide(a, b):
        if np.any(np.asarray(b) == 0):
            raise ZeroDivisionError("integer division by zero")
        return function(a, b)

    return divide


@pytest.mark.parametrize(
    ("op", "dtype", "expected"),
    [
        ("floordiv", DType(int, 32), True),
        ("mod", DType(int, 8, signed=False), True),
        ("mod", DType(bool), True),
        ("floordiv", DType(float, 32), False),
        ("mod", DType(complex, 64), False),
        ("div", DType(int, 32), False),  # true division gives floats: inf and NaN, no rule
        ("floordiv", None, False),  # no operand dtype in the spec: nothing to decide
    ],
)
def test_zero_divisor_rule(op, dtype, expected):
    assert zero_divisor_rule(op, dtype) is expected


def test_zero_divisors_are_floordiv_and_mod():
    assert {"floordiv", "mod"} == ZERO_DIVISORS


@pytest.mark.parametrize(("function", "expected"), [(np.floor_divide, [3, -4, 0, 0]), (np.mod, [1, 1, 0, 0])])
def test_divide_integers_gives_zero_where_the_divisor_is_zero(function, expected):
    dividend = np.array([7, -7, 5, -5], np.int16)
    divisor = np.array([2, 2, 0, 0], np.int16)
    result = divide_integers(Composing(), _refusing(function), dividend, divisor)
    np.testing.assert_array_equal(result, expected)
    assert result.dtype == np.int16


def test_divide_integers_broadcasts_a_scalar_divisor():
    result = divide_integers(Composing(), _refusing(np.floor_divide), np.array([[4, 9], [8, 1]], np.int64), np.array(0, np.int64))
    np.testing.assert_array_equal(result, [[0, 0], [0, 0]])
    assert result.shape == (2, 2)


def test_divide_integers_computes_bools_as_int8():
    seen = []

    def floordiv(a, b):
        seen.append((a.dtype, b.dtype))
        return _refusing(np.floor_divide)(a, b)

    result = divide_integers(Composing(), floordiv, np.array([True, True, False]), np.array([True, False, False]))
    np.testing.assert_array_equal(result, [1, 0, 0])
    assert result.dtype == np.int8
    assert seen == [(np.int8, np.int8)]  # the kernel never sees bools
