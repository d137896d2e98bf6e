"""Dtypes and precision: the NumPy float and complex types of a precision, precision casts. The dtype a
mixed operation computes in is the core's plan's business (`bk.op_spec`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from bk import DType

__all__ = [
    "complex_dtype",
    "float_dtype",
    "python_scalar_dtype",
    "to_precision",
]

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
