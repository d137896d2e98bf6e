"""Dtypes and precision of dask arrays: `bk.DType` <-> NumPy as in bk-numpy, applied lazily."""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np

from bk import get_precision

__all__ = ["as_dask", "complex_dtype", "float_dtype", "keep_ints", "to_floats", "to_precision"]


def float_dtype(precision: int | None) -> np.dtype[Any]:
    """The NumPy float type of new tensors under `precision` (float32 for `None`)."""
    return np.dtype(f"float{precision or 32}")


def complex_dtype(precision: int | None) -> np.dtype[Any]:
    """The complex type matching `float_dtype(precision)`; complex64 at least."""
    return np.dtype(f"complex{2 * max(precision or 32, 32)}")


def as_dask(x: Any) -> da.Array:
    """`x` as a dask array without changing its dtype (NumPy values keep theirs, as constants do).

    Big-endian (non-native) NumPy arrays become native: dask's reductions pass their dtype to ufuncs,
    which refuse a byte order.
    """
    if isinstance(x, da.Array):
        return x
    array = np.asarray(x)
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    return da.asarray(array)


def to_precision(x: da.Array, precision: int | None) -> da.Array:
    """`x` with float (and complex) values converted to `precision` (lazily); unchanged for `None`."""
    if precision is None:
        return x
    kind = x.dtype.kind
    if kind == "f" and x.dtype != float_dtype(precision):
        return x.astype(float_dtype(precision))
    if kind == "c" and x.dtype != complex_dtype(precision):
        return x.astype(complex_dtype(precision))
    return x


def keep_ints(x: Any) -> da.Array:
    """`x` as a dask array; floats follow the current precision, ints and bools stay as they are."""
    x = as_dask(x)
    return x if x.dtype.kind in "biu" else to_precision(x, get_precision())


def to_floats(x: Any) -> da.Array:
    """`x` as floats (or complex) of the current precision; ints and bools become the float type."""
    x = as_dask(x)
    if x.dtype.kind in "biu":
        return x.astype(float_dtype(get_precision()))
    return to_precision(x, get_precision())
