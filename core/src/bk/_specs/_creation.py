"""Specs of tensor creation: zeros, ones, ranges, grids, random values, conversion and copies."""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from .._dtype import DType
from .._errors import ArgumentTypeError, ShapeMismatchError
from .._rules.arguments import check_convertible
from ._base import (
    INT64,
    ShapeDtype,
    Weak,
    as_dtype_arg,
    as_operand,
    as_shape,
    as_tensor_dtype,
    at_precision,
    default_complex,
    default_float,
    int_argument,
    specifies,
    strong,
)

Tensor = Any
Shape = Any
DTypeLike = Any

_INT32: Final = DType(int, 32)


@specifies("zeros", "A tensor of zeros of shape (a sequence of non-negative ints; ValueError for a negative size) and dtype, by default the float type of the precision (float32 when none is set). Every dtype, bfloat16 and unsigned ints included.")
def _zeros(shape: Shape, dtype: DTypeLike = None) -> ShapeDtype:
    return ShapeDtype(as_shape(shape, "zeros"), as_dtype_arg(dtype, "zeros"))


@specifies("ones", "A tensor of ones of shape (a sequence of non-negative ints; ValueError for a negative size) and dtype, by default the float type of the precision (float32 when none is set).")
def _ones(shape: Shape, dtype: DTypeLike = None) -> ShapeDtype:
    return ShapeDtype(as_shape(shape, "ones"), as_dtype_arg(dtype, "ones"))


@specifies("zeros_like", "Zeros of the shape and dtype of tensor.")
def _zeros_like(tensor: Tensor) -> ShapeDtype:
    return strong(tensor, "zeros_like", "tensor")


@specifies("ones_like", "Ones of the shape and dtype of tensor.")
def _ones_like(tensor: Tensor) -> ShapeDtype:
    return strong(tensor, "ones_like", "tensor")


@specifies("copy", "A copy of tensor: same shape and dtype.")
def _copy(tensor: Tensor, only_mutable: bool = False) -> ShapeDtype:
    return strong(tensor, "copy", "tensor")


@specifies("stop_gradient", "value cut from automatic differentiation: same shape and dtype.")
def _stop_gradient(value: Tensor) -> ShapeDtype:
    return strong(value, "stop_gradient", "value")


@specifies("variable", "A mutable variable holding value: same shape and dtype (backends without variables return NotImplemented).")
def _variable(value: Tensor) -> ShapeDtype:
    return strong(value, "variable", "value")


@specifies("allocate_on_device", "tensor on device: same shape and dtype.")
def _allocate_on_device(tensor: Tensor, device: Any) -> ShapeDtype:
    return strong(tensor, "allocate_on_device", "tensor")


@specifies(
    "range",
    "Evenly spaced values in [start, limit) with step delta (range(n) counts from 0): shape (max(0, ceil((limit - start) / delta)),), as numpy.arange computes it. All arguments ints: values of dtype (int32 by default); any argument a float: floats, of dtype if it is a float dtype, else the float type of the precision (float steps are never truncated). delta 0 or a bound that is not finite raises ValueError, a bound that is not a real number ArgumentTypeError.",
)
def _range(start: Any, limit: Any = None, delta: Any = 1, dtype: DTypeLike = _INT32) -> ShapeDtype:
    from .._rules.ranges import range_plan  # the one rule every backend's kernel follows

    plan = range_plan(start, limit, delta, as_dtype_arg(dtype, "range", _INT32), default_float())
    return ShapeDtype((plan.count,), plan.dtype)


def _linspace(op: str, number: Any, start: Any = 0, stop: Any = 0) -> ShapeDtype:
    for name, bound in (("start", start), ("stop", stop)):
        dtype = getattr(bound, "dtype", None)
        kind = dtype.kind if isinstance(dtype, DType) else None
        if isinstance(bound, (complex, np.complexfloating)) or kind is complex or bound is None or isinstance(bound, (str, bytes)):
            raise ArgumentTypeError(f"{op}: {name} must be a real number, got {bound!r}; linspace creates real floats")
        if getattr(bound, "shape", ()) not in ((), None):
            raise ShapeMismatchError(f"{op}: {name} must be a number or a 0-d tensor, got shape {tuple(bound.shape)}")
    count = int_argument(number, op, "number")
    if count < 0:
        raise ValueError(f"{op}: number must be 0 or more, got {count}")
    return ShapeDtype((count,), default_float())


@specifies("linspace", "number evenly spaced values from start to stop, both included: shape (number,), the float type of the precision (float32 when none is set). A negative number raises ValueError, a complex bound ArgumentTypeError.")
def _linspace_spec(start: Any, stop: Any, number: int) -> ShapeDtype:
    return _linspace("linspace", number, start, stop)


@specifies("linspace_without_last", "number evenly spaced values from start to stop, stop excluded: shape (number,), the float type of the precision. A negative number raises ValueError, a complex bound ArgumentTypeError.")
def _linspace_without_last(start: Any, stop: Any, number: int) -> ShapeDtype:
    return _linspace("linspace_without_last", number, start, stop)


@specifies(
    "meshgrid",
    "A tuple of coordinate grids with matrix ('ij') indexing: each of shape (len(c0), len(c1), ...) (inputs are flattened) and the dtype of its own coordinates (Python numbers and lists as as_tensor converts them).",
)
def _meshgrid(*coordinates: Tensor) -> tuple[ShapeDtype, ...]:
    grids = [_as_tensor(c, "meshgrid") for c in coordinates]
    shape = tuple(g.size for g in grids)
    return tuple(ShapeDtype(shape, g.dtype) for g in grids)


@specifies(
    "random_uniform",
    "Uniform random values in [low, high) of shape and dtype (the float type of the precision by default): ints for int dtypes, independent parts for complex ones. bool and non-numeric dtypes raise ValueError, and so does an empty int range (low >= high) or one beyond the int dtype.",
)
def _random_uniform(shape: Shape, low: Any, high: Any, dtype: DTypeLike = None) -> ShapeDtype:
    result = as_dtype_arg(dtype, "random_uniform")
    if result.kind not in (int, float, complex):
        raise ValueError(f"random_uniform: creates int, float or complex values, not {result.name}")
    if result.kind is int and _is_real_number(low) and _is_real_number(high):
        _check_int_range(result, low, high)
    return ShapeDtype(as_shape(shape, "random_uniform"), result)


def _is_real_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _check_int_range(dtype: DType, low: Any, high: Any) -> None:
    """Raises `ValueError` for an empty int range `[low, high)` or one beyond `dtype`'s values, as NumPy's `Generator.integers`."""
    from .._rules.ranges import int_uniform_bounds
    from .._rules.weak import int_range

    first, end = int_uniform_bounds(low, high)
    smallest, largest = int_range(dtype)
    if first < smallest or end - 1 > largest:
        raise ValueError(f"random_uniform: the int range [{first}, {end}) lies beyond {dtype.name} [{smallest}, {largest}]")


@specifies(
    "random_normal",
    "Standard normal random values of shape and dtype (the float type of the precision by default); complex dtypes have parts of variance 1/2. bool, int and non-numeric dtypes raise ValueError.",
)
def _random_normal(shape: Shape, dtype: DTypeLike = None) -> ShapeDtype:
    result = as_dtype_arg(dtype, "random_normal")
    if result.kind not in (float, complex):
        raise ValueError(f"random_normal: creates float or complex values, not {result.name}")
    return ShapeDtype(as_shape(shape, "random_normal"), result)


def _as_tensor(x: Any, op: str) -> ShapeDtype:
    operand = as_operand(x, op, "x")
    if isinstance(operand, Weak):
        return ShapeDtype((), as_tensor_dtype(operand))
    if isinstance(x, (list, tuple)) and _only_python(x):
        kind = operand.dtype.kind
        dtype = INT64 if kind is int else default_float() if kind is float else default_complex() if kind is complex else operand.dtype
        return ShapeDtype(operand.shape, dtype)
    return ShapeDtype(operand.shape, at_precision(operand.dtype))


def _only_python(x: Any) -> bool:
    if isinstance(x, (list, tuple)):
        return all(_only_python(e) for e in x)
    return type(x) in (bool, int, float, complex)


@specifies(
    "as_tensor",
    "x as a tensor: a Python bool gives bool, an int int64, a float the float type of the precision (float32 when none is set), a complex the matching complex type (complex64, or complex128 at precision 64); nested lists of Python numbers likewise; tensors and NumPy arrays keep their dtype, floats converted to a set precision. None, strings and other objects raise ArgumentTypeError.",
)
def _as_tensor_spec(x: Any, convert_external: bool = True) -> ShapeDtype:
    if not isinstance(x, ShapeDtype):
        check_convertible(x, "as_tensor")  # no bk dtype (strings, objects, float128, ints beyond int64): as every backend's as_tensor
    result = _as_tensor(x, "as_tensor")
    if result.dtype.kind not in (bool, int, float, complex):
        raise ArgumentTypeError(f"as_tensor: x has the dtype {result.dtype.name}, which bk tensors do not hold; they hold bool, int, float and complex values")
    return result


@specifies(
    "numpy_call",
    "The outputs f declares: ShapeDtype(output_shapes, output_dtypes), or a tuple of them when output_shapes is a tuple of shapes.",
)
def _numpy_call(f: Any, output_shapes: Any, output_dtypes: Any, *args: Tensor, **aux_args: Any) -> Any:
    if isinstance(output_shapes, (tuple, list)) and output_shapes and all(isinstance(s, (tuple, list)) for s in output_shapes):
        dtypes = output_dtypes if isinstance(output_dtypes, (tuple, list)) else [output_dtypes] * len(output_shapes)
        return tuple(ShapeDtype(s, as_dtype_arg(d, "numpy_call")) for s, d in zip(output_shapes, dtypes, strict=True))
    return ShapeDtype(output_shapes, as_dtype_arg(output_dtypes, "numpy_call"))

