"""`bk._rules.powers`: an integer to a negative integer power raises ValueError, on a NumPy-backed fake and through `_ruled`."""

from __future__ import annotations

import numpy as np
import pytest

from bk import DType
from bk._rules import powers as rules


@pytest.mark.parametrize(
    ("op", "dtype", "expected"),
    [("pow", DType(int, 32), True), ("pow", DType(int, 8, signed=False), False), ("pow", DType(float, 32), False), ("pow", None, False), ("mul", DType(int, 32), False)],
)
def test_integer_power_rule(op, dtype, expected):
    assert rules.integer_power_rule(op, dtype) is expected


def test_negative_exponents_raise(richer):
    with pytest.raises(ValueError, match=r"^pow: integers to negative integer powers are not allowed"):
        rules.check_integer_power(richer, np.array([1, -2, 2], np.int32))
    with pytest.raises(ValueError, match="^pow: "):
        rules.check_integer_power(richer, -1)


@pytest.mark.parametrize("exp", [np.array([0, 3], np.int32), np.array([250], np.uint8), np.zeros((0,), np.int64), np.array([-1.5]), 2, 0.5])
def test_other_exponents_pass(richer, exp):
    rules.check_integer_power(richer, exp)


def test_exponents_without_data_pass(richer):
    class Traced(type(richer)):  # type: ignore[misc]
        def is_available(self, tensor):
            return False

    rules.check_integer_power(Traced(), np.array([-1], np.int32))  # inside jit_compile: the framework decides
