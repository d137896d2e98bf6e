"""Kernels of the Array API standard's creation, elementwise, shape/data and dtype-query operations
(a mixin of `JaxBackend`). The rules live in the core: the elementwise kernels are bare `jax.numpy`
calls, planned: the core's plan gives them operands in the dtype they compute in (`_math._unary`), the
others take their operands with the core's helpers (`bk._catalogue_standard`). Each calls the
`jax.numpy` function: one primitive where the generic default records several (each compiled on
first use), and more accurate (`log1p`, `expm1`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp

from bk import DType, normalize_axes
from bk.rules import (
    accumulation_type,
    cumulative_axis,
    dtype_argument,
    fill_tensor,
    framework_call,
    inexact_operand,
    kernel,
    tensor_operand,
)

from ._indexing import _index_array
from ._math import _ARRAY, _binary, _unary

__all__ = ["StandardMixin"]

Tensor = Any


class StandardMixin:
    """Kernels for operations of `bk._catalogue_standard`."""

    # Bare kernels (`_math._unary`, `_math._binary`), planned: the plan gives them floats of one dtype; their
    # fast calls are derived by the core (`bk.rules.framework_call`; complex log1p and expm1 take the plan, which
    # gives the special complex values).
    log1p = _unary(jnp.log1p, "log1p", "`jax.numpy.log1p` (the core fixes the special complex values).")
    expm1 = _unary(jnp.expm1, "expm1", "`jax.numpy.expm1` (the core fixes the special complex values).")
    hypot = _binary(jnp.hypot, "hypot")
    logaddexp = _binary(jnp.logaddexp, "logaddexp")
    copysign = _binary(jnp.copysign, "copysign")
    nextafter = _binary(jnp.nextafter, "nextafter")

    @kernel(fast=framework_call(jnp.signbit, _ARRAY, 1, lacking=(bool,)))  # bools: the kernel
    def signbit(self: Any, x: Tensor) -> Tensor:
        """`jax.numpy.signbit`: the sign bit of floats (also of -0.0 and NaN), `x < 0` for ints, false for bools."""
        if x.dtype == jnp.bool_:  # JAX has no signbit of bools
            return jnp.zeros_like(x)
        return jnp.signbit(x)

    def matmul(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
        """`jax.numpy.matmul` in the common type; see `Backend.matmul`."""
        a, b = self.auto_cast(tensor_operand(self, x1, "matmul", "x1"), tensor_operand(self, x2, "matmul", "x2"))
        return jnp.matmul(a, b)

    def roll(self: Any, x: Tensor, shift: int | Sequence[int], axis: int | Sequence[int] | None = None) -> Tensor:
        """`jax.numpy.roll`; see `Backend.roll`."""
        x = tensor_operand(self, x, "roll")
        shifts = tuple(shift) if isinstance(shift, Sequence) else (shift,)
        axes = None if axis is None else tuple(axis) if isinstance(axis, Sequence) else (axis,)
        return jnp.roll(x, shift if axes is None else shifts if len(shifts) > 1 else shifts[0], axes)

    def tril(self: Any, x: Tensor, k: int = 0) -> Tensor:
        """`jax.numpy.tril` of the matrices in the last two axes; see `Backend.tril`."""
        x = tensor_operand(self, x, "tril")
        if type(k) is not int:
            return super().tril(x, k)
        return jnp.tril(x, k)

    def triu(self: Any, x: Tensor, k: int = 0) -> Tensor:
        """`jax.numpy.triu` of the matrices in the last two axes; see `Backend.triu`."""
        x = tensor_operand(self, x, "triu")
        if type(k) is not int:
            return super().triu(x, k)
        return jnp.triu(x, k)

    def diag(self: Any, x: Tensor, k: int = 0) -> Tensor:
        """`jax.numpy.diag` of a vector; batches of vectors through the generic default."""
        x = tensor_operand(self, x, "diag")
        if x.ndim != 1 or type(k) is not int:
            return super().diag(x, k)
        return jnp.diag(x, k)

    def take_along_axis(self: Any, x: Tensor, indices: Tensor, axis: int = -1) -> Tensor:
        """`jax.numpy.take_along_axis`; indices checked eagerly (IndexOutOfRangeError), see `Backend.take_along_axis`."""
        x, indices = tensor_operand(self, x, "take_along_axis"), tensor_operand(self, indices, "take_along_axis", "indices")
        if not jnp.issubdtype(indices.dtype, jnp.integer):  # empty float indices (`[]`): the generic casts them
            return super().take_along_axis(x, indices, axis)
        indices = _index_array(self, indices, x.shape[axis], "take_along_axis")
        return jnp.take_along_axis(x, indices, axis, mode="clip")

    def full(self: Any, shape: Sequence[int], fill_value: Any, dtype: DType | None = None) -> Tensor:
        """`fill_value` broadcast to `shape` (one XLA operation); see `Backend.full`."""
        sizes = (shape,) if type(shape) is int else tuple(shape) if isinstance(shape, (tuple, list)) else None
        if sizes is None or not all(type(n) is int for n in sizes):
            return super().full(shape, fill_value, dtype)
        return jnp.broadcast_to(fill_tensor(self, fill_value, dtype_argument(dtype, "full"), "full"), sizes)

    def full_like(self: Any, x: Tensor, fill_value: Any, dtype: DType | None = None) -> Tensor:
        """`fill_value` broadcast to the shape of `x`; see `Backend.full_like`."""
        x = tensor_operand(self, x, "full_like")
        return jnp.broadcast_to(fill_tensor(self, fill_value, dtype_argument(dtype, "full_like") or self.dtype(x), "full_like"), x.shape)

    def cumulative_prod(self: Any, x: Tensor, axis: int | None = None, include_initial: bool = False) -> Tensor:
        """`jax.numpy.cumprod` with the widening of `prod`; see `Backend.cumulative_prod`."""
        x = tensor_operand(self, x, "cumulative_prod")
        axis = cumulative_axis(self, x, axis, "cumulative_prod")
        kind = self.dtype(x).kind
        x = self.to_float(x) if kind is float else self.to_complex(x) if kind is complex else self.cast(x, accumulation_type(self.dtype(x)))
        result = jnp.cumprod(x, axis=axis)
        if include_initial:
            ones = jnp.ones((*x.shape[:axis], 1, *x.shape[axis + 1 :]), result.dtype)
            result = jnp.concatenate([ones, result], axis=axis)
        return result

    def logsumexp(self: Any, x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        """`jax.scipy.special.logsumexp` of floats; see `Backend.logsumexp`."""
        from jax.scipy.special import logsumexp

        x = inexact_operand(self, x, "logsumexp", complex_ok=False)
        axes = normalize_axes(axis, x.ndim, "logsumexp")
        return logsumexp(x, axis=axes, keepdims=keepdims)
