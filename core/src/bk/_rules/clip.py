"""`clip`: the result keeps the dtype of `x` for bounds of any kind (docs/semantics.md, "Integers").

The reference is the clip of the values as real numbers, cast back to the dtype of `x` (NumPy's
`numpy.clip(x, minimum, maximum).astype(x.dtype)`, without NumPy 2's refusal of out-of-range
Python ints and without the wrap-around of its cast):

- An integer tensor takes its bounds in its own dtype: a bound is limited to the tensor's range
  and a float bound truncated toward zero (`clip(uint8 [0, 100, 255], -5, 200)` is
  `uint8 [0, 100, 200]`, `clip(int8 [-128, 5], -1.5, 2.5)` is `int8 [-1, 2]`). Limiting and
  truncating are monotone, so they commute with the clip: clipping to the converted bounds is
  clipping the real values and casting back, exactly, for tensor bounds of any dtype too
  (an int32 bound -3 of a uint8 tensor is 0, not 253).
- A bool tensor stays bool: each value becomes `clip(0 or 1, minimum, maximum) != 0`; with tensor
  bounds the clip runs in the common type and casts back (`!= 0`).
- A float tensor clips in the common type of its tensor bounds and casts back.
- The framework's kernel sees one dtype: `x` and tensor bounds in the dtype the clip runs in (number
  bounds stay numbers, weak as everywhere).
- NaN propagates, as the backend's `maximum` and `minimum` propagate it.

`bound_for`, `bool_images` and `number_bound` decide number bounds, `cast_limits` what a tensor
bound is limited to before its cast; `clip` is the whole rule as a composite of catalogue
operations (`maximum`, `minimum`, `where`, `greater_or_equal`, `real`, `cast`) around a
framework's clip kernel (`limit` by default).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from .._dtype import DType, combine_types
from .weak import int_range

if TYPE_CHECKING:
    from .._backend import Backend

__all__ = ["bool_images", "bound_for", "cast_limits", "clip", "int_range", "is_number_bound", "limit", "number_bound"]

Tensor = Any
Kernel = Callable[[Tensor, Any, Any], Tensor]
"""A framework's clip of a tensor to two bounds, each None, a Python number or a tensor."""

_INT64: Final = DType(int, 64)
_NUMBERS: Final = (bool, int, float, np.bool_, np.integer, np.floating)
_SIGNIFICANT_BITS: Final[dict[tuple[int | None, bool], int]] = {(16, False): 11, (16, True): 8, (32, False): 24, (64, False): 53}
_LARGEST_FLOAT: Final[dict[tuple[int | None, bool], int]] = {
    (16, False): 65504,
    (16, True): (2**8 - 1) << 120,
    (32, False): (2**24 - 1) << 104,
    (64, False): (2**53 - 1) << 971,
}


def is_number_bound(bound: Any) -> bool:
    """Whether a bound of `clip` is a real number (Python's or a NumPy scalar), not a tensor or None."""
    return isinstance(bound, _NUMBERS)


def bound_for(bound: Any, dtype: DType) -> Any:
    """A number bound of `clip` as it applies to a tensor of `dtype`.

    For an integer `dtype`: an int limited to its range; floats truncated toward zero first,
    infinities the range's ends. Any other `dtype` takes the bound as it is.

    Raises:
        ValueError: for a NaN bound of an integer tensor (no integer value to clip to).
    """
    if dtype.kind is not int:
        return bound
    low, high = int_range(dtype)
    if isinstance(bound, (float, np.floating)):
        value = float(bound)
        if math.isnan(value):
            raise ValueError(f"clip: a NaN bound of a {dtype.name} tensor has no integer value; clip a float tensor instead")
        if math.isinf(value):
            return high if value > 0 else low
        bound = math.trunc(value)
    return min(max(int(bound), low), high)


def number_bound(bound: Any, dtype: DType, common: DType) -> Any:
    """A number bound of `clip` for a tensor of `dtype` that is compared in `common` (the common
    type of `x` and its tensor bounds; `dtype` itself for an integer `x` or number bounds only).

    An integer `dtype` takes `bound_for`'s int. A bool `dtype` takes an int bound as it is when an
    integer `common` (int64 for a bool one) holds it, else as a float, which compares the same
    (only the sign of the result matters to the cast back to bool). Other bounds are as they are.
    """
    if dtype.kind is int:
        return bound_for(bound, dtype)
    if dtype.kind is bool and isinstance(bound, (int, np.integer)) and not isinstance(bound, bool):
        low, high = int_range(common if common.kind is int else _INT64)
        return int(bound) if common.kind is not float and low <= bound <= high else float(bound)
    return bound


def bool_images(minimum: Any, maximum: Any) -> tuple[bool, bool]:
    """What `False` and `True` become when a bool tensor is clipped to number bounds (or None):
    `clip(0 or 1, minimum, maximum) != 0`, computed in floats (a NaN bound gives NaN, which is true)."""
    if any(b is not None and math.isnan(float(b)) for b in (minimum, maximum)):
        return True, True

    def image(value: float) -> bool:
        if minimum is not None:
            value = max(value, float(minimum))
        if maximum is not None:
            value = min(value, float(maximum))
        return value != 0

    return image(0.0), image(1.0)


def cast_limits(dtype: DType, source: DType) -> tuple[Any, Any, bool]:
    """How a tensor bound of dtype `source` is limited to the range of the integer `dtype` before
    its cast to `dtype`: `(low, high, saturate)`.

    For an integer `source`: the range of `dtype` as far as `source` holds it. For a float `source`:
    the range as Python floats that `source` holds exactly (int32's 2147483647 is 2147483520.0 in
    float32, whose nearest value, 2**31, would overflow the cast); `saturate` says that values from
    `float(high)` up, which that limit cuts short, must become `high` itself.
    """
    low, high = int_range(dtype)
    if source.kind is not float:
        wide_low, wide_high = int_range(source) if source.kind is int else (0, 1)
        return max(low, wide_low), min(high, wide_high), False
    largest = _LARGEST_FLOAT[(source.bits, source.brain)]
    below = min(_float_below(high, source), largest)
    return float(max(low, -largest)), float(below), below != high


def clip(backend: Backend, x: Tensor, minimum: Any, maximum: Any, kernel: Kernel | None = None) -> Tensor:
    """`x` limited to `[minimum, maximum]` in the dtype of `x`, for bounds of any kind (see the module).

    Args:
        backend: The backend `x` belongs to; its catalogue operations compute the rule.
        x: A native tensor of `backend`.
        minimum: The lower bound: None (no limit), a real number, or a tensor that broadcasts with `x`.
        maximum: The upper bound, as `minimum`.
        kernel: The framework's clip (`numpy.clip`, `torch.clamp`), called as `kernel(x, low, high)`
            with bounds this rule has prepared (None, numbers, tensors); by default `limit`, the
            backend's `minimum(maximum(x, low), high)`.

    Returns:
        A tensor of `x`'s dtype and the broadcast shape of `x` and the bounds.

    Raises:
        ValueError: for a NaN number bound of an integer tensor.
    """
    kernel = kernel or (lambda value, low, high: limit(backend, value, low, high))
    dtype = backend.dtype(x)
    if dtype.kind is int:
        low, high = (_int_bound(backend, b, dtype) for b in (minimum, maximum))
        return _cast(backend, kernel(x, low, high), dtype)
    tensors = [backend.dtype(b) for b in (minimum, maximum) if b is not None and not is_number_bound(b)]
    if dtype.kind is not bool:  # floats and complex values: clipped in the common type of the tensors, the result cast back
        if any(t != dtype for t in tensors):
            common = combine_types(dtype, *tensors)
            x, minimum, maximum = (_in(backend, v, common) for v in (x, minimum, maximum))
        return _cast(backend, kernel(x, minimum, maximum), dtype)
    if not tensors:  # a bool tensor and number bounds: what False and True become
        false, true = bool_images(minimum, maximum)
        return backend.where(x, true, false)
    common = combine_types(dtype, *tensors)
    low, high = (number_bound(b, dtype, common) if is_number_bound(b) else b for b in (minimum, maximum))
    x, low, high = (_in(backend, v, common) for v in (x, low, high))  # the kernel sees one dtype
    return _cast(backend, kernel(x, low, high), dtype)


def _in(backend: Backend, value: Any, dtype: DType) -> Any:
    """A tensor `value` in `dtype` (None and numbers as they are): what `clip`'s kernel gets, all of one dtype."""
    if value is None or is_number_bound(value) or backend.dtype(value) == dtype:
        return value
    return backend.cast(value, dtype)


def _int_bound(backend: Backend, bound: Any, dtype: DType) -> Any:
    """A bound of an integer tensor in its `dtype`: a Python int, or a tensor limited and cast."""
    if bound is None or is_number_bound(bound):
        return None if bound is None else bound_for(bound, dtype)
    source = backend.dtype(bound)
    if source == dtype:
        return bound
    if source.kind is complex:  # NumPy compares the real part
        bound = backend.real(bound)
        source = backend.dtype(bound)
    if source.kind is bool:
        return backend.cast(bound, dtype)
    low, high, saturate = cast_limits(dtype, source)
    limited = backend.cast(limit(backend, bound, low, high), dtype)
    if saturate:
        limited = backend.where(backend.greater_or_equal(bound, float(int_range(dtype)[1])), int_range(dtype)[1], limited)
    return limited


def _cast(backend: Backend, result: Tensor, dtype: DType) -> Tensor:
    """The clipped `result` in the dtype of `x`: the real part of complex values (NumPy's), then cast."""
    computed = backend.dtype(result)
    if computed == dtype:
        return result
    if computed.kind is complex and dtype.kind is not complex:
        result = backend.real(result)
    return backend.cast(result, dtype)


def _float_below(value: int, dtype: DType) -> int:
    """The largest integer not above the non-negative `value` that the float `dtype` holds exactly."""
    extra = value.bit_length() - _SIGNIFICANT_BITS[(dtype.bits, dtype.brain)]
    return value if extra <= 0 else (value >> extra) << extra


def limit(backend: Backend, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
    """`minimum(maximum(x, minimum), maximum)` of the backend, skipping None bounds: the default
    kernel of `clip`, and the fallback of a framework's kernel for the cases it cannot take."""
    if minimum is not None:
        x = backend.maximum(x, minimum)
    return x if maximum is None else backend.minimum(x, maximum)
