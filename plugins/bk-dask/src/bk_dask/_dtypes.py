"""Dtypes and precision of dask arrays: `bk.DType` <-> NumPy as in bk-numpy, applied lazily."""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np

import bk
from bk import get_precision

__all__ = ["as_dask", "check_operands", "complex_dtype", "float_dtype", "keep_ints", "to_floats", "to_precision"]

_OWN_MODULES = ("numpy", "dask", "scipy")  # NumPy values are constants; SciPy sparse matrices are operators


def _foreign(x: Any) -> Any:
    """The first tensor of another framework in `x` (also inside lists and tuples), else None."""
    if isinstance(x, (da.Array, np.ndarray, np.generic, int, float, complex, str, type(None))):
        return None
    if isinstance(x, (list, tuple)):
        return next((f for f in map(_foreign, x) if f is not None), None)
    if type(x).__module__.partition(".")[0] in _OWN_MODULES:
        return None
    if any(hasattr(x, a) for a in ("__array__", "__dlpack__", "__array_namespace__")):
        return x
    return None


def check_operands(operation: str | None, *values: Any) -> None:
    """Refuses tensors of other frameworks (PyTorch, JAX, ...) as operands, as bk's dispatch does.

    NumPy arrays and Python numbers are constants next to dask arrays; another framework's tensor
    is not silently computed into NumPy (that would hide a copy, and break its gradients).

    Raises:
        bk.NoBackendFound: naming both frameworks and `bk.convert`, as `bk.choose_backend` does.
    """
    for value in values:
        tensor = _foreign(value)
        if tensor is not None:
            try:
                other = bk.choose_backend(tensor).name
            except bk.NoBackendFound:
                other = type(tensor).__module__.partition(".")[0]
            names = " and ".join(sorted({"dask", other}))
            raise bk.NoBackendFound(
                f"{operation + ': ' if operation else ''}cannot mix values of {names} in one operation; "
                "convert them to one backend first, e.g. bk.convert(value, bk.backend('dask'))"
            )


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
    check_operands(None, x)
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
