"""Axis arguments checked once, the same way for every backend (see `docs/semantics.md`).

Backends call these on the slow path only (reductions and shape operations, where the cost is
small next to the work), so every backend raises the same `AxisError` / `ArgumentTypeError`
with a message that names the bk operation.
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Sequence
from typing import Any

from ._errors import ArgumentTypeError, AxisError

__all__ = ["int_argument", "normalize_axes", "normalize_axis", "shape_argument"]


def normalize_axis(axis: Any, ndim: int, op: str) -> int:
    """`axis` as an int in `[0, ndim)`.

    Args:
        axis: An integer axis; negative counts from the end.
        ndim: The rank of the tensor.
        op: The bk operation, for the error message.

    Raises:
        ArgumentTypeError: `axis` is not an integer (a bool, str, float or None).
        AxisError: `axis` is outside `[-ndim, ndim)`.
    """
    if isinstance(axis, bool):
        raise ArgumentTypeError(f"{op}: axis must be an int, got bool {axis!r}")
    try:
        index = operator.index(axis)
    except (TypeError, AttributeError):  # a float TensorFlow scalar's __index__ raises AttributeError
        raise ArgumentTypeError(f"{op}: axis must be an int, got {type(axis).__name__} {axis!r}") from None
    if not -ndim <= index < ndim:
        valid = f"-{ndim}..{ndim - 1}" if ndim else "none: the tensor is 0-d"
        raise AxisError(f"{op}: axis {index} is out of range for a tensor of rank {ndim} (valid: {valid})")
    return index + ndim if index < 0 else index


def normalize_axes(axis: Any, ndim: int, op: str) -> tuple[int, ...] | None:
    """`axis` (None, an int, or a sequence of ints) as a sorted tuple of distinct axes, or `None` for all.

    An empty tuple means no axis (reductions then return their input unchanged, as in NumPy).

    Raises:
        ArgumentTypeError: an axis is not an integer.
        AxisError: an axis is out of range, or appears twice.
    """
    if axis is None:
        return None
    if isinstance(axis, (str, bytes)) or not isinstance(axis, Sequence):
        return (normalize_axis(axis, ndim, op),)
    axes = tuple(normalize_axis(a, ndim, op) for a in axis)
    if len(set(axes)) != len(axes):
        raise AxisError(f"{op}: axis {tuple(axis)!r} names the same axis twice")
    return tuple(sorted(axes))


def int_argument(value: Any, op: str, name: str) -> int:
    """`value` as an int: a bool or a non-integer raises `ArgumentTypeError` naming `op` and the argument."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ArgumentTypeError(f"{op}: {name} must be an int, got {type(value).__name__} {value!r}")
    return int(value)


def shape_argument(shape: Any, op: str) -> tuple[int, ...]:
    """`shape` (an int or a sequence of ints) as a tuple; negative sizes raise ValueError."""
    sizes = (shape,) if isinstance(shape, numbers.Integral) and not isinstance(shape, bool) else shape
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence):
        raise ArgumentTypeError(f"{op}: shape must be an int or a sequence of ints, got {type(shape).__name__} {shape!r}")
    result = tuple(int_argument(s, op, "every size of shape") for s in sizes)
    if any(s < 0 for s in result):
        raise ValueError(f"{op}: sizes must be 0 or more, got shape {result}")
    return result
