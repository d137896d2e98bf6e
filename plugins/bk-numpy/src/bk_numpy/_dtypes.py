"""Dtypes and precision: `bk.DType` <-> NumPy, result types of mixed operations, precision casts.

Python scalars are *weak* in mixed operations, as in NumPy 2, PyTorch and JAX: `float32 + 1.5`
stays float32, and a Python float only turns integers into the float type of the precision.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any, Final

import numpy as np

from bk import DType, from_numpy_dtype, get_precision, to_numpy_dtype
from bk.rules import PYTHON_NUMBERS, weak_result
from bk.rules import SETTINGS as _GLOBALS

__all__ = [
    "FAST_DTYPES",
    "binary_dtype",
    "complex_dtype",
    "float_dtype",
    "python_scalar_dtype",
    "to_precision",
]

# Same-dtype operands of these dtypes need no promotion: 0 for integers (precision never applies),
# else the float precision in bits that must match the current precision, if one is set.
FAST_DTYPES: Final[dict[np.dtype[Any], int]] = {np.dtype(c): 0 for c in "bhilqBHILQ"}
FAST_DTYPES.update({np.dtype(np.float16): 16, np.dtype(np.float32): 32, np.dtype(np.float64): 64})
FAST_DTYPES.update({np.dtype(np.complex64): 32, np.dtype(np.complex128): 64})


def float_dtype(precision: int | None) -> np.dtype[Any]:
    """The NumPy float type of new tensors under `precision` (float32 for `None`)."""
    return np.dtype(f"float{precision or 32}")


def complex_dtype(precision: int | None) -> np.dtype[Any]:
    """The complex type matching `float_dtype(precision)`; complex64 at least."""
    return np.dtype(f"complex{2 * max(precision or 32, 32)}")


def python_scalar_dtype(x: Any) -> DType:
    """The `DType` of a Python number as the reference defines it: int is int32, float float64."""
    if isinstance(x, bool):
        return DType(bool)
    if isinstance(x, int):
        return DType(int, 32)
    if isinstance(x, float):
        return DType(float, 64)
    if isinstance(x, complex):
        return DType(complex, 128)
    raise TypeError(f"expected a Python bool, int, float or complex but got {type(x).__name__}")


def to_precision(array: Any, precision: int | None) -> Any:
    """`array` with float (and complex) values converted to `precision`; unchanged for `None`."""
    if precision is None:
        return array
    kind = array.dtype.kind
    if kind == "f" and array.dtype.itemsize * 8 != precision:
        return array.astype(float_dtype(precision))
    if kind == "c" and array.dtype != complex_dtype(precision):
        return array.astype(complex_dtype(precision))
    return array


def binary_dtype(a: Any, b: Any) -> np.dtype[Any]:
    """The NumPy dtype in which a binary operation on `a` and `b` is computed.

    Arrays promote with `bk.combine_types` under the current precision; Python scalars are weak
    and only raise the kind (bool < int < float < complex): `bk.rules.weak_result`.
    """
    same = getattr(a, "dtype", None)
    if same is not None and same is getattr(b, "dtype", None) and _GLOBALS.precision_free and isinstance(same, np.dtype):
        return same  # the common case, without the general promotion below
    strong, kinds = [], []
    for x in (a, b):
        dtype = _strong_dtype(x)
        if dtype is None:
            kinds.append(_python_kind(x))
        else:
            strong.append(dtype)
    return _promoted(tuple(strong), tuple(kinds), get_precision())


@functools.lru_cache(maxsize=512)
def _promoted(strong: tuple[np.dtype[Any], ...], kinds: tuple[type, ...], precision: int | None) -> np.dtype[Any]:
    return to_numpy_dtype(weak_result(tuple(from_numpy_dtype(d) for d in strong), kinds, precision))


def _strong_dtype(x: Any) -> np.dtype[Any] | None:
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(x, (*PYTHON_NUMBERS, numbers.Number)):
        return None
    return np.asarray(x).dtype  # lists and other array-likes are converted in full anyway


def _python_kind(x: Any) -> type:
    for kind in (bool, int, float, complex):
        if isinstance(x, kind):
            return kind
    return complex if isinstance(x, numbers.Complex) else float
