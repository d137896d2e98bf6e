"""Argument kinds (docs/semantics.md, "Python scalars are weak"): which values are Python numbers.

A Python `bool`, `int`, `float` or `complex` next to a tensor is weak (NEP 50): it takes the
tensor's dtype when its kind fits. NumPy scalars are not Python numbers, even where their type
subclasses one (`numpy.float64` subclasses `float`): they have a dtype and are strong, as in NumPy 2.
The operation specs (`bk._specs`: `as_operand`, `strong`) read values by these rules, and so do the
plugins' kernels and `as_tensor`s, through the functions here; `bk.check_tensor_argument` rejects
`None`, strings and bytes where a tensor is expected.

The checks are one `type(...) in` each, cheap enough for the hot path; a hot kernel may also test
`type(value) in PYTHON_NUMBERS` inline.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

__all__ = ["PYTHON_NUMBERS", "PYTHON_REALS", "axes_tuple", "is_python_number", "is_python_real", "is_real_scalar", "only_python_numbers"]

PYTHON_NUMBERS: Final = (bool, int, float, complex)
"""The types of weak Python numbers, in the order of their kinds (a later kind holds an earlier one)."""

PYTHON_REALS: Final = (bool, int, float)
"""The types of weak Python numbers that are real."""


def is_python_number(value: Any) -> bool:
    """Whether `value` is a Python `bool`, `int`, `float` or `complex` (weak), not a NumPy scalar or a subclass."""
    return type(value) in PYTHON_NUMBERS


def is_python_real(value: Any) -> bool:
    """Whether `value` is a Python `bool`, `int` or `float` (weak and real), not a NumPy scalar."""
    return type(value) in PYTHON_REALS


def is_real_scalar(value: Any) -> bool:
    """Whether `value` is one real number without a shape: a Python `bool`, `int` or `float`, or a NumPy
    scalar of a bool, integer or float dtype (for arguments such as `clip`'s bounds, where a scalar
    of either kind is read by value)."""
    return isinstance(value, (int, float)) or (isinstance(value, np.generic) and value.dtype.kind in "biuf")


def only_python_numbers(value: Any) -> bool:
    """Whether `value` is a Python number or a (nested) list or tuple holding only Python numbers.

    Such a value is converted as `as_tensor` converts Python numbers (ints to int64, floats to the
    default float); a list holding a NumPy scalar or a tensor keeps the dtypes NumPy reads from it.
    An empty list holds only Python numbers.
    """
    if isinstance(value, (list, tuple)):
        return all(only_python_numbers(v) for v in value)
    return type(value) in PYTHON_NUMBERS


def axes_tuple(axes: Any) -> tuple[Any, ...]:
    """Axes given as an int (or a NumPy integer: one axis) or as a sequence, as a tuple (`tensordot`'s
    `a_axes` and `b_axes`, as the spec reads them)."""
    return tuple(axes) if hasattr(axes, "__iter__") else (axes,)
