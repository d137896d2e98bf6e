"""Dtypes and precision: `bk.DType` <-> `tf.DType`, result types of mixed operations, precision casts.

TensorFlow does not promote types in binary operations (float32 + float64 is an error), so every
mixed operation computes its result type here first. Python scalars are *weak*, as in NumPy 2,
PyTorch and JAX: `float32 + 1.5` stays float32; a Python float only turns integers into the float
type of the precision.
"""

from __future__ import annotations

import numbers
from typing import Any, Final

import numpy as np

from bk import ArgumentTypeError, DType, from_numpy_dtype, get_precision, to_numpy_dtype
from bk.rules import weak_result

from ._framework import tf

__all__ = [
    "PYTHON_SCALARS",
    "common_dtype",
    "float_tf",
    "from_tf_dtype",
    "complex_tf",
    "python_scalar_dtype",
    "to_precision",
    "to_tf_dtype",
]

PYTHON_SCALARS: Final = (bool, int, float, complex, np.bool_, np.number)
_BF16: Final = DType(float, 16, brain=True)
_TO_TF: dict[DType, Any] = {_BF16: tf.bfloat16, DType(str): tf.string}
_FROM_TF: dict[Any, DType] = {tf.bfloat16: _BF16, tf.string: DType(str)}


def to_tf_dtype(dtype: DType) -> Any:
    """The `tf.DType` of a `bk.DType`.

    Raises:
        ArgumentTypeError: for `object`, which TensorFlow cannot hold.
    """
    result = _TO_TF.get(dtype) if isinstance(dtype, DType) else None
    if result is None:
        if not isinstance(dtype, DType):
            raise ArgumentTypeError(f"expected a bk.DType such as DType(float, 32) but got {type(dtype).__name__} {dtype!r}")
        if dtype.kind is object:
            raise ArgumentTypeError("TensorFlow tensors cannot hold Python objects; use the 'numpy' backend for object arrays")
        result = _TO_TF[dtype] = tf.as_dtype(to_numpy_dtype(dtype))
    return result


def from_tf_dtype(dtype: Any) -> DType:
    """The `bk.DType` of a `tf.DType`."""
    result = _FROM_TF.get(dtype)
    if result is None:
        result = _FROM_TF[dtype] = from_numpy_dtype(np.dtype(dtype.as_numpy_dtype))
    return result


def float_tf(precision: int | None) -> Any:
    """The float `tf.DType` of new tensors under `precision` (float32 for `None`)."""
    return {16: tf.float16, 32: tf.float32, 64: tf.float64}[precision or 32]


def complex_tf(precision: int | None) -> Any:
    """The complex type matching `float_tf(precision)`; complex64 at least."""
    return tf.complex128 if precision == 64 else tf.complex64


def python_scalar_dtype(x: Any) -> DType:
    """The `DType` of a Python number as the reference defines it: int is int32, float float64."""
    if isinstance(x, (bool, np.bool_)):
        return DType(bool)
    if isinstance(x, np.number):
        return from_numpy_dtype(np.asarray(x).dtype)
    if isinstance(x, int):
        return DType(int, 32)
    if isinstance(x, float):
        return DType(float, 64)
    return DType(complex, 128)


def to_precision(x: Any, precision: int | None) -> Any:
    """`x` (a native tensor) with float and complex values converted to `precision`; unchanged for `None`."""
    if precision is None:
        return x
    dtype = x.dtype
    if (dtype.is_floating and dtype.size * 8 != precision) or dtype == tf.bfloat16:
        return tf.cast(x, float_tf(precision))
    if dtype.is_complex and dtype != complex_tf(precision):
        return tf.cast(x, complex_tf(precision))
    return x


def _strong_dtype(x: Any) -> DType | None:
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, tf.DType):
        return from_tf_dtype(dtype)
    if isinstance(x, (np.ndarray, np.generic)):
        return from_numpy_dtype(x.dtype)
    if isinstance(x, numbers.Number):
        return None
    if x is None or isinstance(x, (str, bytes)):
        raise ArgumentTypeError(f"expected a tensor or a number but got {type(x).__name__} {x!r}")
    return from_numpy_dtype(np.asarray(x).dtype)


def _python_kind(x: Any) -> type:
    for kind in (bool, int, float, complex):
        if isinstance(x, kind):
            return kind
    return float


def common_dtype(*values: Any, int_to_float: bool = False, bool_to_int: bool = False) -> DType:
    """The `DType` in which an operation on `values` is computed.

    Tensors and arrays combine with `bk.combine_types` under the current precision; Python scalars
    only raise the kind (bool < int < float < complex): `bk.rules.weak_result`.
    """
    precision = get_precision()
    strong, kinds = [], []
    for value in values:
        dtype = _strong_dtype(value)
        if dtype is None:
            kinds.append(_python_kind(value))
        else:
            strong.append(dtype)
    result = weak_result(tuple(strong), tuple(kinds), precision)
    if bool_to_int and result.kind is bool:
        result = DType(int, 32)
    if int_to_float and result.kind in (bool, int):
        result = DType(float, precision or 32)
    return result
