"""The rules of `Backend.range` and of `random_uniform`'s bounds, once for every backend: NumPy's
`arange` length and dtype, with bk's precision for float results; NumPy's refusal of an empty int
range in `random_uniform`.

A plugin's `range` kernel calls `range_plan(...)` and creates `count` values
`start + i * delta` of `dtype`: for an int dtype its framework's integer `arange` from `start` in
steps of `delta` (exact), for a float dtype `arange(count)` in float64 times `delta` plus `start`,
cast to `dtype` (the values NumPy's `arange` gives).
"""

from __future__ import annotations

import contextlib
import math
import numbers
from dataclasses import dataclass
from typing import Any, cast

from .._dtype import DType

__all__ = ["RangePlan", "int_uniform_bounds", "range_plan"]


@dataclass(frozen=True)
class RangePlan:
    """What `range(start, limit, delta, dtype)` creates: `count` values `start + i * delta` of `dtype`."""

    start: int | float
    delta: int | float
    count: int
    dtype: DType


def _number(value: Any, name: str) -> int | float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        item = getattr(value, "item", None)  # a 0-d NumPy or framework scalar
        if callable(item) and not isinstance(value, bool):
            with contextlib.suppress(TypeError, ValueError):
                value = item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        from .._errors import ArgumentTypeError

        raise ArgumentTypeError(f"range: {name} must be a real number, got {type(value).__name__} {value!r}")
    return int(value) if isinstance(value, numbers.Integral) else float(value)


def range_plan(start: Any, limit: Any = None, delta: Any = 1, dtype: DType | None = None, float_type: DType | None = None) -> RangePlan:
    """The length and dtype of `range(start, limit, delta, dtype)`, as NumPy's `arange` gives them.

    - `range(n)` counts from 0; the length is `ceil((limit - start) / delta)`, and 0 when that is
      negative (an empty range, never an error).
    - All arguments integers: the values are ints of `dtype` (int32 by default).
    - Any argument a float: the values are floats, of `dtype` if it is a float dtype, else of
      `float_type` (the default float: float32, or the set precision); an int dtype (the
      signature's default) does not truncate float steps.

    Raises:
        ValueError: for `delta == 0`.
        OverflowError: for int values of an int `dtype` outside its range (NumPy would wrap some).
        ArgumentTypeError: for a bound or step that is not a real number.
    """
    if limit is None:
        start, limit = 0, start
    start, limit, delta = _number(start, "start"), _number(limit, "limit"), _number(delta, "delta")
    if delta == 0:
        raise ValueError("range: delta must not be 0")
    dtype = dtype if dtype is not None else DType(int, 32)
    integral = all(isinstance(v, int) for v in (start, limit, delta))
    if integral:
        count = max(0, -((start - limit) // delta))
        if count and dtype.kind is int:
            last = start + (count - 1) * delta
            bits = cast(int, dtype.bits)  # an int DType always has bits
            low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if dtype.signed else (0, 2**bits - 1)
            if not (low <= min(start, last) and max(start, last) <= high):
                raise OverflowError(f"range: the values from {start} to {last} do not fit {dtype.name} ([{low}, {high}]); pass a wider dtype")
        return RangePlan(start, delta, count, dtype)
    if not all(math.isfinite(v) for v in (start, limit, delta)):
        raise ValueError(f"range: start, limit and delta must be finite, got {start}, {limit}, {delta}")
    count = max(0, math.ceil((limit - start) / delta))
    if dtype.kind is not float:
        dtype = float_type if float_type is not None else DType(float, 32)
    return RangePlan(float(start), float(delta), count, dtype)


def int_uniform_bounds(low: Any, high: Any) -> tuple[int, int]:
    """`(low, high)` of `random_uniform` for an int dtype: ints of a range `[low, high)` that is not empty.

    For float dtypes `low == high` is fine (every value is `low`); ints have no value in `[n, n)`.

    Raises:
        ValueError: for `high <= low`, as NumPy's `Generator.integers`.
    """
    low, high = int(low), int(high)
    if high <= low:
        raise ValueError(f"random_uniform: the int range [{low}, {high}) is empty; high must be greater than low")
    return low, high
