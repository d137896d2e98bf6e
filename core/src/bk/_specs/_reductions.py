"""Specs of reductions, `argmax`/`argmin`, `cumsum` and `quantile`."""

from __future__ import annotations

from typing import Any, Final

from .._errors import ArgumentTypeError
from .._rules.indices import check_quantile_input
from .._rules.reductions import check_nonempty
from ._base import INT64, ShapeDtype, as_operand, float_of, real_of, shape_of, single_axis, specifies, strong
from ._blocks import BOOL_RESULT, SAME, WIDEN, reduction

Tensor = Any
Axes = Any
Axis = Any

_AXES: Final = (
    "axis is None (every axis), an int or a tuple of ints, negative from the end (() reduces nothing);"
    " keepdims keeps the reduced axes with size 1. An axis out of range or named twice raises AxisError"
    " (a 0-d tensor has no axis), an axis that is not an int ArgumentTypeError."
)
_WIDENS: Final = "bool and signed ints narrower than 64 bits widen to int64, unsigned ints to uint64 (NumPy 2); floats and complex values keep their dtype, or take the set precision"

reduction("sum", WIDEN, f"Sum over axis: {_WIDENS}. The sum of nothing is 0. {_AXES}", compute=WIDEN)  # summed in the wide type
reduction("prod", WIDEN, f"Product over axis (no keepdims argument): {_WIDENS}. The product of nothing is 1. {_AXES}", keepdims=False, compute=WIDEN)
reduction("mean", float_of, compute=float_of, rule=f"Mean over axis: bool and ints give the default float, floats and complex values keep their dtype or take the set precision. The mean of nothing is NaN. {_AXES}")
reduction(
    "std",
    lambda dtype: real_of(float_of(dtype)),
    compute=float_of,
    rule=f"Population standard deviation over axis: bool and ints give the default float, complex values the float of their precision. {_AXES}",
    argument="x",
)
_NO_IDENTITY: Final = "Reducing an axis of size 0 raises ValueError (no identity)."
reduction("max", SAME, f"Maximum over axis (NaN propagates), in x's dtype. {_NO_IDENTITY} {_AXES}", empty_error=True, argument="x")
reduction("min", SAME, f"Minimum over axis (NaN propagates), in x's dtype. {_NO_IDENTITY} {_AXES}", empty_error=True, argument="x")
reduction("any", BOOL_RESULT, f"Whether any element along axis is true (nonzero): bool for every dtype; any of nothing is False. {_AXES}", argument="boolean_tensor")
reduction("all", BOOL_RESULT, f"Whether all elements along axis are true (nonzero): bool for every dtype; all of nothing is True. {_AXES}", argument="boolean_tensor")


def _arg_reduction(op: str, x: Any, axis: Any, keepdims: bool) -> ShapeDtype:
    operand = strong(x, op, "x")
    if axis is None:
        check_nonempty(op, operand.shape, None)
        return ShapeDtype((1,) * operand.ndim if keepdims else (), INT64)
    index = single_axis(op, axis, operand.ndim)
    check_nonempty(op, operand.shape, (index,))
    if keepdims:
        return ShapeDtype(tuple(1 if i == index else n for i, n in enumerate(operand.shape)), INT64)
    return ShapeDtype(tuple(n for i, n in enumerate(operand.shape) if i != index), INT64)


_ARG: Final = (
    "int64 index of the first {what} along axis (one int, negative from the end; None: into the flattened tensor),"
    " NaN first; keepdims keeps the axis with size 1. An axis of size 0 raises ValueError, an axis out of range AxisError."
)


@specifies("argmax", _ARG.format(what="maximum"))
def _argmax(x: Tensor, axis: Axis, keepdims: bool = False) -> ShapeDtype:
    return _arg_reduction("argmax", x, axis, keepdims)


@specifies("argmin", _ARG.format(what="minimum"))
def _argmin(x: Tensor, axis: Axis, keepdims: bool = False) -> ShapeDtype:
    return _arg_reduction("argmin", x, axis, keepdims)


def _widened(x: Tensor, *args: Any, **kwargs: Any) -> Any:
    """The dtype a cumulative sum or product computes in: the wide type of its result (int8 sums in int64)."""
    return WIDEN(strong(x, "cumsum", "x").dtype)


@specifies(
    "cumsum",
    f"Cumulative sum along axis (one int, negative from the end), same shape: {_WIDENS}. axis None raises ArgumentTypeError, an axis out of range AxisError.",
    operands=_widened,
)
def _cumsum(x: Tensor, axis: Axis) -> ShapeDtype:
    operand = strong(x, "cumsum", "x")
    if axis is None:
        raise ArgumentTypeError("cumsum: axis must be an int, got None; flatten the tensor first to sum all elements")
    single_axis("cumsum", axis, operand.ndim)
    return ShapeDtype(operand.shape, WIDEN(operand.dtype))


@specifies(
    "quantile",
    "Quantiles (linear interpolation) along the last axis, shaped quantiles.shape + x.shape[:-1], as floats (bool and ints give the default float). A 0-d x has no last axis: AxisError; complex values: ArgumentTypeError; an empty last axis: ValueError.",
)
def _quantile(x: Tensor, quantiles: Tensor) -> ShapeDtype:
    operand = strong(x, "quantile", "x")
    check_quantile_input(operand.dtype, operand.shape)
    q = as_operand(quantiles, "quantile", "quantiles")
    return ShapeDtype((*shape_of(q), *operand.shape[:-1]), float_of(operand.dtype))
