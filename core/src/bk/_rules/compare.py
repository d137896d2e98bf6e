"""Comparisons of an integer tensor with a Python int outside its range: a constant, as NumPy 2 compares by value.

docs/semantics.md, "Python scalars are weak": `equal(int8 [0, 1], 300)` neither raises (as
arithmetic does, NEP 50) nor wraps 300 into int8; every element lies on the same side of the
number, so the result is all False for `equal`, all True for `not_equal`, and for an ordering the
side the number lies on (`greater_than(int8 x, 300)` all False, `greater_than(int8 x, -300)` all
True). `comparison_constant` decides it from the dtype alone; a plugin makes the full bool tensor,
and `compare_beyond_range` is the core's composite for backends whose kernels do not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import numpy as np

from .._dtype import DType
from .weak import int_range

if TYPE_CHECKING:
    from .._backend import Backend

__all__ = ["COMPARISONS", "compare_beyond_range", "comparison_constant", "filled_bool"]

_INT64: Final = DType(int, 64)
_BOOL: Final = DType(bool)
# whether the operation holds when its left operand is the larger one
_HOLDS_FOR_LARGER_LEFT: Final = {"greater_than": True, "greater_or_equal": True, "less": False, "less_equal": False}
COMPARISONS: Final = frozenset({"equal", "not_equal", *_HOLDS_FOR_LARGER_LEFT})
"""The catalogue's comparisons (`less` and `less_equal` are the swapped orderings)."""


def comparison_constant(op: str, left: Any, right: Any, dtype: DType) -> bool | None:
    """The result of every element of `op(left, right)` where one side is a Python int outside the range
    of the integer tensor on the other side, or `None` where the comparison needs the data.

    O(1): a few type checks and a cached range; call it where the int is known not to fit (a plugin's
    `except OverflowError` branch) or before the kernel.

    Args:
        op: One of `COMPARISONS`.
        left: The left operand: a Python int or the tensor (only its type is read).
        right: The right operand, likewise.
        dtype: The dtype of the tensor side. A bool tensor compares with an int in int64 (the
            promoted dtype), so only ints beyond int64 make it constant.

    Returns:
        True or False for every element; `None` when neither or both operands are Python ints, the
        tensor is not an integer (or bool) tensor, or the int fits its dtype.

    Raises:
        ValueError: for an `op` that is not a comparison.
    """
    if op not in COMPARISONS:
        raise ValueError(f"comparison_constant: {op!r} is not a comparison; expected one of {sorted(COMPARISONS)}")
    if type(right) is int and type(left) is not int:
        number, number_left = right, False
    elif type(left) is int and type(right) is not int:
        number, number_left = left, True
    else:
        return None
    if dtype.kind is bool:
        dtype = _INT64
    elif dtype.kind is not int:
        return None
    low, high = int_range(dtype)
    if low <= number <= high:
        return None
    if op == "equal" or op == "not_equal":
        return op == "not_equal"
    left_larger = (number > high) == number_left  # the number is above every element, or below every one
    return left_larger == _HOLDS_FOR_LARGER_LEFT[op]


def compare_beyond_range(backend: Backend, op: str, left: Any, right: Any) -> Any:
    """`op(left, right)` as a full bool tensor where `comparison_constant` decides it; `None` otherwise.

    The core's composite for backends whose comparison kernels cannot take the int (the generic
    defaults, the one call path); plugins call `comparison_constant` and fill their own tensor.
    """
    tensor = right if type(left) is int else left
    constant = comparison_constant(op, left, right, backend.dtype(tensor))
    if constant is None:
        return None
    if not backend.is_tensor(tensor, only_native=True):  # a list or a NumPy array beside a framework's tensors
        tensor = backend.as_tensor(tensor)
    return filled_bool(backend, tensor, constant)


def greater_beyond_range(backend: Backend, left: Any, right: Any, error: OverflowError) -> Any:
    """`left > right` or `left >= right` (the same here) where one side is a Python int outside the range of the
    integer tensor on the other side (the generic defaults' `greater_than` and `greater_or_equal`, after
    `auto_cast` refused the int): a constant; without a tensor beside the int, `auto_cast`'s `error`."""
    result = compare_beyond_range(backend, "greater_than", left, right)
    if result is None:
        raise error
    return result


def filled_bool(backend: Backend, like: Any, value: bool) -> Any:
    """A bool tensor of the shape of `like` holding `value` everywhere: `full_like` where the backend has it,
    else a NumPy array made a tensor (`as_tensor`), for backends with only the required set."""
    if backend.supports("full_like"):
        return backend.full_like(like, value, _BOOL)
    return backend.as_tensor(np.full(tuple(backend.staticshape(like)), value))
