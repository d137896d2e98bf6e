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

__all__ = [
    "PYTHON_NUMBERS", "PYTHON_REALS", "axes_tuple", "check_convertible", "is_python_number", "is_python_real", "is_real_scalar", "only_python_numbers",
]  # fmt: skip

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


_INT64_LOW: Final = -(2**63)
_INT64_END: Final = 2**63
_HELD: Final = "bk tensors hold bool, int, float and complex values"


def check_convertible(value: Any, op: str, name: str = "x") -> None:
    """Raises `bk.ArgumentTypeError` naming `op` and `name` for a value that has no bk dtype: a string or bytes,
    `None`, a Python int beyond int64 (the dtype of Python ints), a NumPy array or scalar of a dtype bk has
    none of (strings, objects, `datetime64`, `float128`), or a (nested) list or tuple holding one of these.

    The core runs it in front of every backend's `as_tensor` and `cast`, so that no framework turns such a value
    into an object or string array, a float, or its own error. Cheap for the common values: a Python float
    or a tensor of a dtype seen before costs a set lookup; lists cost one pass over their elements (as the
    conversion itself). Other objects (scipy matrices, DLPack capsules, ...) are left to the kernel.
    """
    kind = value.__class__
    if kind is float or kind is bool or kind is complex:
        return
    if kind is int:
        if _INT64_LOW <= value < _INT64_END:
            return
        raise _beyond_int64(op, name, value)
    if kind is list or kind is tuple:
        for item in value:
            item_kind = item.__class__
            if item_kind is float or item_kind is bool or item_kind is complex or (item_kind is int and _INT64_LOW <= item < _INT64_END):
                continue
            check_convertible(item, op, name)
        return
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        if dtype.__class__ in _HELD_DTYPES:
            return
        if isinstance(dtype, np.dtype) and not ((dtype.kind in "biuf" and dtype.itemsize <= 8) or (dtype.kind == "c" and dtype.itemsize <= 16)):
            _check_numpy_dtype(dtype, op, name)  # raises, but for bfloat16 (ml_dtypes), which bk holds
        if len(_HELD_DTYPES) < 64:  # the classes of NumPy's numeric dtypes, and frameworks' dtype classes (their tensors hold what they hold)
            _HELD_DTYPES.add(dtype.__class__)
        return
    if value is None or kind is str or kind is bytes:
        from .._errors import ArgumentTypeError

        raise ArgumentTypeError(f"{op}: {name} must be a tensor, a number or a list of numbers, got {kind.__name__} {value!r}")


_HELD_DTYPES: set[type] = {
    np.dtype(t).__class__ for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128)
}
"""The classes of the dtypes `check_convertible` let pass (NumPy's numeric dtype classes, `Float32DType`, ..., from the start;
NumPy's `longdouble`, strings, objects and datetimes have classes of their own)."""


def _beyond_int64(op: str, name: str, value: int) -> Exception:
    from .._errors import ArgumentTypeError

    shown = f"{value}" if abs(value) < 10**30 else f"{value:.3e}"
    return ArgumentTypeError(f"{op}: {name} holds the Python int {shown}, which does not fit int64 (the dtype of Python ints); {_HELD} of at most 64 bits")


def _check_numpy_dtype(dtype: np.dtype[Any], op: str, name: str) -> None:
    """Raises `ArgumentTypeError` for a NumPy dtype without a numeric bk dtype (bfloat16 through ml_dtypes has one)."""
    from .._dtype import from_numpy_dtype
    from .._errors import ArgumentTypeError

    try:
        numeric = from_numpy_dtype(dtype).kind in PYTHON_NUMBERS
    except (TypeError, ValueError):
        numeric = False
    if not numeric:
        raise ArgumentTypeError(f"{op}: {name} has the NumPy dtype {dtype}, which no bk dtype matches; {_HELD} (convert it with .astype() first)")
