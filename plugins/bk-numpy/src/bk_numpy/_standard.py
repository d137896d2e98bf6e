"""Kernels of the Array API standard's creation, elementwise, shape/data and dtype-query operations
(a mixin of `NumPyBackend`). The rules live in the core (`bk._catalogue_standard`); this module holds
kernels only: NumPy's own functions for the common case, and the core's generic default (which
raises the errors of docs/semantics.md) for everything else.

The elementwise functions of floats (`log1p` to `nextafter`), `signbit` and `trunc` are bare kernels:
NumPy's function of the operands the core's plan gives them (floats for all but `signbit` and `trunc`,
ints included; the spec's errors raised before), planned as they declare nothing. `square`, `negative`,
`count_nonzero` and `var` are tuned and declared trusted, for the reasons of the same families in `_math`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bk import ArgumentTypeError, DType, get_precision, normalize_axes, reraise_as, to_numpy_dtype
from bk.rules import dtype_argument, holds_number, kernel, numpy_accumulation_type

from ._errors import reraise
from ._math import _KEEPS_INTS, _REDUCTION, _floats, _keep_ints, _tensor_arg, fast_call

__all__ = ["StandardMixin"]

Tensor = Any

def _plain_int(value: Any) -> bool:
    return type(value) is int


class StandardMixin:
    """Kernels for operations of `bk._catalogue_standard`."""

    # ------------------------------------------------------------ creation

    def eye(self: Any, n_rows: int, n_cols: int | None = None, k: int = 0, dtype: DType | None = None) -> Tensor:
        """`numpy.eye`; see `Backend.eye`."""
        if dtype is not None and type(n_rows) is int and type(k) is int and (n_cols is None or type(n_cols) is int):
            return np.eye(n_rows, n_cols, k, to_numpy_dtype(dtype))  # the plan has checked the arguments
        if _plain_int(n_rows) and (n_cols is None or _plain_int(n_cols)) and _plain_int(k):
            return np.eye(n_rows, n_cols, k, to_numpy_dtype(dtype_argument(dtype, "eye") or self.float_type))
        return super().eye(n_rows, n_cols, k, dtype)

    def full(self: Any, shape: Sequence[int], fill_value: Any, dtype: DType | None = None) -> Tensor:
        """`numpy.full` for a fill value that `dtype` holds as it is; see `Backend.full`."""
        plain = dtype is not None and (type(shape) is tuple or type(shape) is int)
        if plain and (
            (type(fill_value) is float and (dtype.kind is float or dtype.kind is complex)) or holds_number(dtype, fill_value)
        ):
            result = np.empty(shape, to_numpy_dtype(dtype))  # numpy.full, without its Python frame
            result.fill(fill_value)
            return result
        return super().full(shape, fill_value, dtype)

    def full_like(self: Any, x: Tensor, fill_value: Any, dtype: DType | None = None) -> Tensor:
        """`numpy.full_like` for an array and a fill value its dtype (or `dtype`) holds as it is; see `Backend.full_like`."""
        if type(x) is np.ndarray:
            target = self.dtype(x) if dtype is None else dtype
            if (type(fill_value) is float and (target.kind is float or target.kind is complex)) or holds_number(
                target, fill_value
            ):
                result = np.empty_like(x, to_numpy_dtype(target))  # numpy.full_like, without its Python frame
                result.fill(fill_value)
                return result
        return super().full_like(x, fill_value, dtype)

    def empty(self: Any, shape: Sequence[int], dtype: DType | None = None) -> Tensor:
        """`numpy.empty`: uninitialized values; see `Backend.empty`."""
        if dtype is not None and type(shape) is tuple:
            return np.empty(shape, to_numpy_dtype(dtype))  # the plan has checked the sizes
        sizes = (shape,) if _plain_int(shape) else tuple(shape) if isinstance(shape, (tuple, list)) else None
        if sizes is not None and all(_plain_int(s) for s in sizes):
            return np.empty(sizes, to_numpy_dtype(dtype_argument(dtype, "empty") or self.float_type))
        return super().empty(shape, dtype)

    def empty_like(self: Any, x: Tensor, dtype: DType | None = None) -> Tensor:
        """`numpy.empty_like`: uninitialized values; see `Backend.empty_like`."""
        if type(x) is np.ndarray:
            return np.empty_like(x, None if dtype is None else to_numpy_dtype(dtype))  # the plan has checked `dtype`
        x = _tensor_arg(x, "empty_like")
        return np.empty_like(x, dtype=None if dtype is None else to_numpy_dtype(dtype_argument(dtype, "empty_like")))

    def tril(self: Any, x: Tensor, k: int = 0) -> Tensor:
        """`numpy.tril` of the matrices in the last two axes; see `Backend.tril`."""
        if isinstance(x, np.ndarray) and _plain_int(k):
            return np.tril(x, k)
        return super().tril(x, k)

    def triu(self: Any, x: Tensor, k: int = 0) -> Tensor:
        """`numpy.triu` of the matrices in the last two axes; see `Backend.triu`."""
        if isinstance(x, np.ndarray) and _plain_int(k):
            return np.triu(x, k)
        return super().triu(x, k)

    # ------------------------------------------------------------ elementwise

    def log1p(self, x: Tensor) -> Tensor:
        """`numpy.log1p` of the plan's floats (bools and ints arrive as the default float)."""
        return np.log1p(x)

    def expm1(self, x: Tensor) -> Tensor:
        """`numpy.expm1` of the plan's floats (bools and ints arrive as the default float)."""
        return np.expm1(x)

    def reciprocal(self, x: Tensor) -> Tensor:
        """`1 / x` (`numpy.reciprocal` of floats) of the plan's floats (bools and ints arrive as the default float)."""
        return np.reciprocal(x)

    def hypot(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`numpy.hypot` of the plan's floats (ints arrive as the float type)."""
        return np.hypot(x1, x2)

    def logaddexp(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`numpy.logaddexp` of the plan's floats (ints arrive as the float type)."""
        return np.logaddexp(x1, x2)

    def copysign(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`numpy.copysign` of the plan's floats (ints arrive as the float type)."""
        return np.copysign(x1, x2)

    def nextafter(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`numpy.nextafter` of the plan's floats, `x2` where `x1 == x2` (NumPy's float16 loop returns `x1`, so
        `(0.0, -0.0)` gave 0.0)."""
        result = np.nextafter(x1, x2)
        if result.dtype == np.float16:
            result = np.where(x1 == x2, x2, result)
        return result

    def signbit(self, x: Tensor) -> Tensor:
        """`numpy.signbit`: the sign bit of floats (also of -0.0 and NaN), `x < 0` for ints, false for bools."""
        return np.signbit(x)

    def trunc(self, x: Tensor) -> Tensor:
        """`numpy.trunc`; bools and ints stay as they are (older NumPy makes them floats)."""
        return x if x.dtype.kind in "biu" else np.trunc(x)

    @kernel(trusted=True, why=_KEEPS_INTS)
    def square(self, x: Tensor) -> Tensor:
        """`numpy.square` in the type of `x` (bools give int8, as NumPy); floats follow the precision."""
        return np.square(_keep_ints(_tensor_arg(x, "square")))

    @kernel(trusted=True, why=_KEEPS_INTS)
    def negative(self, x: Tensor) -> Tensor:
        """`numpy.negative`; bools raise ArgumentTypeError (NumPy refuses them, the spec names the error)."""
        return np.negative(_keep_ints(_tensor_arg(x, "negative")))

    # ------------------------------------------------------------ shape and data

    def roll(self: Any, x: Tensor, shift: int | Sequence[int], axis: int | Sequence[int] | None = None) -> Tensor:
        """`numpy.roll`; see `Backend.roll`."""
        x = _tensor_arg(x, "roll")
        try:
            return np.roll(x, shift, axis)
        except (TypeError, ValueError) as error:
            reraise_as(ArgumentTypeError if isinstance(error, TypeError) else ValueError, "roll", error)

    @kernel(fast=fast_call(np.matmul, weak_numbers=False))  # two arrays of one dtype: NumPy's own call
    def matmul(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`numpy.matmul` in the common type (the plan casts the operands to it); see `Backend.matmul`."""
        same = isinstance(x1, np.ndarray) and isinstance(x2, np.ndarray) and x1.dtype == x2.dtype and get_precision() is None
        if not same:
            x1, x2 = self.auto_cast(_tensor_arg(x1, "matmul"), _tensor_arg(x2, "matmul"))  # type: ignore[attr-defined]
        result = np.matmul(x1, x2)
        return result if result.dtype == x1.dtype else result.astype(x1.dtype)  # bfloat16: NumPy's matmul gives float32

    def cumulative_sum(self: Any, x: Tensor, axis: int | None = None, include_initial: bool = False) -> Tensor:
        """`numpy.cumulative_sum` with the widening of `sum`; see `Backend.cumulative_sum`."""
        x = _keep_ints(_tensor_arg(x, "cumulative_sum"))
        return np.cumulative_sum(x, axis=axis, dtype=numpy_accumulation_type(x.dtype), include_initial=include_initial)

    def cumulative_prod(self: Any, x: Tensor, axis: int | None = None, include_initial: bool = False) -> Tensor:
        """`numpy.cumulative_prod` with the widening of `prod`; see `Backend.cumulative_prod`."""
        x = _keep_ints(_tensor_arg(x, "cumulative_prod"))
        return np.cumulative_prod(x, axis=axis, dtype=numpy_accumulation_type(x.dtype), include_initial=include_initial)

    @kernel(trusted=True, why=_REDUCTION)
    def count_nonzero(self, x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        """`numpy.count_nonzero` as int64; see `Backend.count_nonzero`."""
        x = _tensor_arg(x, "count_nonzero")
        axes = normalize_axes(axis, x.ndim, "count_nonzero")
        return np.asarray(np.count_nonzero(x, axis=axes, keepdims=keepdims), np.int64)

    def isin(self, x: Tensor, test_elements: Tensor, invert: bool = False) -> Tensor:
        """`numpy.isin`; NaN is in nothing."""
        return np.isin(_tensor_arg(x, "isin"), _tensor_arg(test_elements, "isin"), invert=invert)

    def take_along_axis(self: Any, x: Tensor, indices: Tensor, axis: int = -1) -> Tensor:
        """`numpy.take_along_axis`; see `Backend.take_along_axis`."""
        x, indices = _tensor_arg(x, "take_along_axis"), _tensor_arg(indices, "take_along_axis")
        if indices.dtype.kind not in "iu":  # empty float indices (`[]`): the generic casts them
            return super().take_along_axis(x, indices, axis)
        try:
            return np.take_along_axis(x, indices, axis)
        except (IndexError, ValueError) as error:
            reraise("take_along_axis", error)

    @kernel(trusted=True, why=_REDUCTION)
    def var(self, x: Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False) -> Tensor:
        """`numpy.var` as floats (population variance); complex values give real variances."""
        x = _tensor_arg(x, "var")
        axes = normalize_axes(axis, x.ndim, "var")
        return np.var(_floats(x), axis=axes, keepdims=keepdims)

    def kron(self, a: Tensor, b: Tensor) -> Tensor:
        """`numpy.kron`; the common type of `a` and `b`."""
        a, b = self.auto_cast(_tensor_arg(a, "kron"), _tensor_arg(b, "kron"))  # type: ignore[attr-defined]
        return np.kron(a, b)
