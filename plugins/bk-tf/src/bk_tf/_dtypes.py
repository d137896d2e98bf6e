"""Dtypes and precision: `bk.DType` <-> `tf.DType`, precision casts.

TensorFlow does not promote types in binary operations (float32 + float64 is an error); it needs
not: the core's plan casts the operands of every untrusted kernel to the dtype the operation
computes in (Python numbers weak, as in NumPy 2) before TensorFlow sees them.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from bk import ArgumentTypeError, DType, from_numpy_dtype, to_numpy_dtype

from ._framework import tf

__all__ = [
    "PYTHON_SCALARS",
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
