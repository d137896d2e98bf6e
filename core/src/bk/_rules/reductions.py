"""Reductions: the dtype sums accumulate in, and the reductions of nothing (docs/semantics.md,
"Integers" and "Empty and 0-d inputs").

- `sum`, `prod`, `cumsum` and the cumulative forms widen bool and integers narrower than 64 bits,
  as NumPy 2 on 64-bit Linux: bool and signed ints to int64, unsigned ints to uint64
  (`accumulation_type`; `numpy_accumulation_type` for plugins whose dtypes are NumPy's).
- `max`, `min`, `argmax`, `argmin` (and `quantile` along its last axis) of an axis of size 0 raise
  `ValueError`: they have no identity (`check_nonempty`). `sum` of nothing is 0, `prod` 1, `mean`
  NaN, which every framework's own kernel gives.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from .._dtype import DType, from_numpy_dtype, to_numpy_dtype

__all__ = ["accumulation_type", "check_nonempty", "is_empty_reduction", "numpy_accumulation_type"]

_INT64: Final = DType(int, 64)
_UINT64: Final = DType(int, 64, signed=False)


def accumulation_type(dtype: DType) -> DType:
    """The dtype `sum`, `prod` and their cumulative forms return for values of `dtype`: bool and
    signed ints int64, unsigned ints uint64; floats and complex values their own."""
    if dtype.kind is bool:
        return _INT64
    if dtype.kind is int:
        return _INT64 if dtype.signed else _UINT64
    return dtype


@functools.lru_cache(maxsize=64)
def numpy_accumulation_type(dtype: np.dtype[Any]) -> np.dtype[Any] | None:
    """`accumulation_type` of a NumPy dtype, as a NumPy dtype, or None where it is `dtype` itself
    (what NumPy's and JAX's `dtype=` arguments take to mean "as it is")."""
    wide = accumulation_type(from_numpy_dtype(dtype))
    return None if wide.kind not in (bool, int) or to_numpy_dtype(wide) == dtype else to_numpy_dtype(wide)


def is_empty_reduction(shape: Sequence[int | None], axes: Sequence[int] | None) -> bool:
    """Whether reducing `shape` over `axes` (normalized, non-negative; None: every axis) reduces an
    axis of size 0. Sizes that are not known yet (None) are not empty."""
    if axes is None:
        return 0 in shape
    return any(shape[a] == 0 for a in axes)


def check_nonempty(op: str, shape: Sequence[int | None], axes: Sequence[int] | None) -> None:
    """Raises `ValueError` when `op`, a reduction without identity, reduces an axis of size 0.

    Args:
        op: The operation's name, for the message.
        shape: The shape of the reduced tensor.
        axes: The reduced axes, normalized (non-negative); None for every axis.

    Raises:
        ValueError: "max: the max of no elements (shape (0, 3), axes (0,)) is undefined; ...".
    """
    if is_empty_reduction(shape, axes):
        where = "every axis" if axes is None else f"axes {tuple(axes)}"
        raise ValueError(f"{op}: the {op} of no elements (shape {tuple(shape)}, {where}) is undefined; there is no identity")
