"""Shift counts outside `[0, bits)` (docs/semantics.md, "Integers"): NumPy 2's results on every backend.

NumPy gives 0 for `shift_bits_left` by a count that is negative or the width or more, and for
`shift_bits_right` 0 for non-negative values and -1 for negative ones. C leaves such shifts undefined, and
frameworks give what their hardware gives (PyTorch and TensorFlow the value shifted modulo the width on
some devices). The rule is one composite of catalogue operations around the kernel, `shift_counts`, which
the core's plans run for a backend whose kernel is not trusted: the kernel only ever sees counts in range.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from .._dtype import DType

if TYPE_CHECKING:
    from .._backend import Backend

__all__ = ["SHIFTS", "shift_counts", "shift_rule"]

SHIFTS: Final = frozenset(("shift_bits_left", "shift_bits_right"))
"""The shifts whose counts outside `[0, bits)` follow NumPy."""

_NEEDS: Final = ("greater_or_equal", "greater_than", "or_", "where")


def shift_rule(backend: Backend, op: str, dtype: DType | None, count: Any) -> bool:
    """Whether a call of `op` computed in `dtype` needs the composite: an integer shift by a tensor of counts (unless
    the backend declares `shifts_every_count`), or by a Python int outside `[0, bits)` (one in range reaches the kernel
    as it is)."""
    if op not in SHIFTS or dtype is None or dtype.kind is not int or not all(backend.supports(n) for n in _NEEDS):
        return False
    if type(count) is int:
        return not 0 <= count < int(dtype.bits or 64)
    return not type(backend).shifts_every_count


def shift_counts(backend: Backend, op: str, shift: Callable[[Any, Any], Any], x: Any, count: Any) -> Any:
    """`shift(x, count)` for counts in `[0, bits)`, NumPy's result for every other count.

    Args:
        backend: The backend whose comparisons, `or_` and `where` compute the composite.
        op: `"shift_bits_left"` or `"shift_bits_right"`.
        shift: The kernel, on two native tensors of one integer dtype.
        x: The values, a native tensor of an integer dtype.
        count: The counts, a native tensor of `x`'s dtype.

    Returns:
        The shifted values; where a count lies outside `[0, bits)`, 0 for a left shift, and for a right shift
        0 for a non-negative value, -1 for a negative one (the value shifted by `bits - 1`).
    """
    dtype = backend.dtype(x)
    bits = int(dtype.bits or 64)
    outside = backend.greater_or_equal(count, bits)
    if dtype.signed:
        outside = backend.or_(outside, backend.greater_than(0, count))
    result = shift(x, backend.where(outside, 0, count))
    if op == "shift_bits_left" or not dtype.signed:
        return backend.where(outside, 0, result)
    return backend.where(outside, shift(x, backend.where(outside, bits - 1, count)), result)
