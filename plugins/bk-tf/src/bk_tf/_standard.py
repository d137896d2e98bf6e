"""Kernels of the Array API standard's creation, elementwise, shape/data and dtype-query operations
(a mixin of `TFBackend`). The rules live in the core (`bk._catalogue_standard`): the operands are
prepared by its helpers (dtypes, weak Python numbers, precision, errors), so a kernel only calls
TensorFlow. TensorFlow has no `signbit`: the sign bit is read through `tf.bitcast`, which also
gives `nextafter` of 16-bit floats (`tf.math.nextafter` takes float32 and float64 only).
`copysign`, `hypot` and `logaddexp` use the generic defaults (no TensorFlow function)."""

from __future__ import annotations

from typing import Any, Final

from bk.rules import tensor_operand

from ._framework import tf

__all__ = ["StandardMixin"]

Tensor = Any

_SAME_WIDTH_INT: Final = {2: tf.int16, 4: tf.int32, 8: tf.int64}
# dtypes TensorFlow's MatMul kernel takes; other integers multiply as int64 and wrap back
_MATMUL_DTYPES: Final = frozenset(
    {tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64, tf.complex64, tf.complex128}
)


class StandardMixin:
    """Kernels for operations of `bk._catalogue_standard`."""

    def log1p(self: Any, x: Tensor) -> Tensor:
        """`tf.math.log1p` of the floats the plan gives (bools and ints in the default float)."""
        return tf.math.log1p(self._t(x))

    def expm1(self: Any, x: Tensor) -> Tensor:
        """`tf.math.expm1` of the floats the plan gives (bools and ints in the default float)."""
        return tf.math.expm1(self._t(x))

    def signbit(self: Any, x: Tensor) -> Tensor:
        """The sign bit of floats (also of -0.0 and NaN, read with `tf.bitcast`), `x < 0` for ints, false for bools
        (a bare kernel behind the plan: the spec refuses complex values first, which `tf.bitcast` would read too)."""
        if x.dtype == tf.bool:
            return tf.zeros_like(x)
        if x.dtype.is_floating:
            return tf.bitcast(x, _SAME_WIDTH_INT[x.dtype.size]) < 0
        return x < tf.zeros((), x.dtype)

    def nextafter(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
        """The next float after `x1` toward `x2` (`x2` where they are equal) in the common float type.

        `tf.math.nextafter` for float32 and float64; for float16 and bfloat16 one step of the bit
        pattern read with `tf.bitcast`. The plan gives both in their common float type and refuses complex values.
        """
        a, b = self._t(x1), self._t(x2)
        if a.dtype in (tf.float32, tf.float64):
            return tf.math.nextafter(a, b)
        shape = tf.broadcast_dynamic_shape(tf.shape(a), tf.shape(b))
        a, b = tf.broadcast_to(a, shape), tf.broadcast_to(b, shape)  # not by adding zeros: -0.0 + 0.0 is 0.0
        integer = _SAME_WIDTH_INT[a.dtype.size]
        bits = tf.bitcast(a, integer)
        zero = tf.zeros((), a.dtype)
        up = tf.equal(b > a, a > zero)  # away from zero: one more in the magnitude bits
        stepped = tf.bitcast(tf.where(up, bits + 1, bits - 1), a.dtype)
        tiny = tf.bitcast(tf.ones((), integer), a.dtype)  # the smallest subnormal
        result = tf.where(tf.equal(a, zero), tf.where(b > zero, tiny, -tiny), stepped)
        result = tf.where(tf.equal(a, b), b, result)
        return tf.where(tf.math.is_nan(a) | tf.math.is_nan(b), a + b, result)

    def matmul(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
        """`tf.linalg.matmul` with NumPy's rules for vectors; see `Backend.matmul`."""
        a, b = self.auto_cast(tensor_operand(self, x1, "matmul", "x1"), tensor_operand(self, x2, "matmul", "x2"))
        dtype = a.dtype
        vector_a, vector_b = a.shape.rank == 1, b.shape.rank == 1
        if vector_a:
            a = a[None, :]
        if vector_b:
            b = b[:, None]
        if dtype not in _MATMUL_DTYPES:
            a, b = tf.cast(a, tf.int64), tf.cast(b, tf.int64)
        result = tf.linalg.matmul(a, b)
        if vector_b:
            result = result[..., 0]
        if vector_a:
            result = result[..., 0, :] if not vector_b else result[..., 0]
        return tf.cast(result, dtype) if result.dtype != dtype else result
