"""Reusable building blocks: one call makes the spec of an elementwise operation or a reduction."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final

from .._dtype import DType
from .._errors import ArgumentTypeError
from .._rules.reductions import accumulation_type, check_nonempty
from ._base import (
    BOOL,
    NUMERIC,
    OpSpec,
    ShapeDtype,
    Weak,
    as_operand,
    at_precision,
    broadcast_shapes,
    check_int_range,
    check_kinds,
    default_float,
    float_of,
    promote,
    real_of,
    reduce_shape,
    register,
    shape_of,
    strong,
)

__all__ = [
    "BOOL_RESULT",
    "FAMILY",
    "FLOAT_RESULT",
    "REAL_RESULT",
    "SAME",
    "WIDEN",
    "binary",
    "reduction",
    "unary",
    "with_signature",
]

DTypeRule = Callable[[DType], DType]

FAMILY: Final[dict[str, str]] = {}
"""The operations made by the blocks, by family (`'unary'`, `'binary'`, `'reduction'`): which arguments
are the operands that `OpSpec.operand_dtype` applies to (x; a and b; value)."""

SAME: Final[DTypeRule] = at_precision
"""The input's dtype (floats and complex values take the set precision)."""
FLOAT_RESULT: Final[DTypeRule] = float_of
"""Bool and int give the default float; float and complex keep their precision or take the set one."""
BOOL_RESULT: Final[DTypeRule] = lambda dtype: BOOL  # noqa: E731
"""Always bool."""


def REAL_RESULT(dtype: DType) -> DType:
    """The input's dtype; complex values give the float of their precision (as `abs`)."""
    return real_of(at_precision(dtype))


def WIDEN(dtype: DType) -> DType:
    """`sum`'s rule (NumPy 2 on 64-bit Linux): bool and signed ints narrower than 64 bits give int64,
    unsigned ones uint64; floats take the set precision."""
    return at_precision(accumulation_type(dtype))


def unary(
    name: str,
    result: DTypeRule,
    rule: str,
    *,
    kinds: frozenset[type] = NUMERIC,
    argument: str = "x",
    compute: DTypeRule | None = None,
    register_it: bool = True,
) -> OpSpec:
    """The spec of an elementwise function of one tensor `x`: same shape, dtype `result(x.dtype)`.

    A Python number alone takes `as_tensor`'s dtype. A dtype kind outside `kinds` raises
    `ArgumentTypeError`. `compute` maps x's dtype to the dtype x is cast to before the kernel
    (`OpSpec.operand_dtype`); by default the result's dtype (x's own for bool results).
    """

    def core(x: Any) -> ShapeDtype:
        operand = strong(x, name, argument, kinds)
        return ShapeDtype(operand.shape, result(operand.dtype))

    def operands(x: Any) -> DType:
        dtype = strong(x, name, argument, kinds).dtype
        return compute(dtype) if compute is not None else dtype if result is BOOL_RESULT else result(dtype)

    params = ((argument, "Tensor"),)
    spec = OpSpec(name, rule, with_signature(name, core, params), params, with_signature(name, operands, params))
    if register_it:
        FAMILY[name] = "unary"
    return register(spec) if register_it else spec


def binary(
    name: str,
    rule: str,
    *,
    result: DTypeRule | None = None,
    kinds: frozenset[type] = NUMERIC,
    bool_as: DType | None = None,
    int_to_float: bool = False,
    check_overflow: bool = True,
    names: tuple[str, str] = ("a", "b"),
    register_it: bool = True,
) -> OpSpec:
    """The spec of an elementwise operation of two tensors: broadcast shape, promoted dtype.

    Args:
        result: Maps the promoted dtype to the result's (`BOOL_RESULT` for comparisons); default: itself.
        kinds: The dtype kinds the operation computes in; others raise `ArgumentTypeError`.
        bool_as: The dtype two bools compute in (int32 for `add`, int8 for shifts), if not bool.
        int_to_float: Bool and int operands compute in the default float (`div`).
        check_overflow: A Python int outside the range of an integer result raises `OverflowError`.
        names: The argument names, as in the catalogue.
    """
    first, second = names

    def operands(a: Any, b: Any) -> DType:
        left, right = as_operand(a, name, first), as_operand(b, name, second)
        dtype = promote(name, (left, right), check_overflow=check_overflow and not int_to_float)
        if dtype.kind is bool and bool_as is not None:
            dtype = bool_as
        if int_to_float and dtype.kind in (bool, int):
            dtype = default_float()
        check_kinds(name, dtype, kinds, f"{first} and {second}")
        return dtype

    def core(a: Any, b: Any) -> ShapeDtype:
        dtype = operands(a, b)
        shape = broadcast_shapes(name, shape_of(as_operand(a, name, first)), shape_of(as_operand(b, name, second)))
        return ShapeDtype(shape, result(dtype) if result is not None else dtype)

    def plan(a: Any, b: Any) -> DType | None:
        dtype = operands(a, b)
        if not check_overflow and dtype.kind is int:
            try:
                check_int_range(name, dtype, [Weak(o) for o in (a, b) if type(o) is int])
            except OverflowError:
                return None  # compared by value, not in one dtype
        return dtype

    params = ((first, "Tensor"), (second, "Tensor"))
    spec = OpSpec(name, rule, with_signature(name, core, params), params, with_signature(name, plan, params))
    if register_it:
        FAMILY[name] = "binary"
    return register(spec) if register_it else spec


def reduction(
    name: str,
    result: DTypeRule,
    rule: str,
    *,
    kinds: frozenset[type] = NUMERIC,
    keepdims: bool = True,
    empty_error: bool = False,
    argument: str = "value",
    compute: DTypeRule | None = None,
) -> OpSpec:
    """The spec of a reduction `name(value, axis=None, keepdims=False)`.

    `axis` is None (every axis), an int or a tuple of ints (negative from the end; `()` reduces
    nothing); the result's dtype is `result(value.dtype)`.

    Args:
        keepdims: Whether the operation takes a `keepdims` argument (`prod` does not).
        empty_error: Reducing an axis of size 0 raises `ValueError` (no identity: `max`, `min`).
        argument: The name of the tensor argument in the catalogue.
        compute: Maps the input's dtype to the dtype it is cast to before the kernel
            (`OpSpec.operand_dtype`); by default the input's own, floats at the set precision.
    """

    def finish(value: Any, axis: Any = None, keepdims: bool = False) -> ShapeDtype:
        operand = strong(value, name, argument, kinds)
        shape, reduced = reduce_shape(name, operand.shape, axis, keepdims)
        if empty_error:
            check_nonempty(name, operand.shape, reduced)
        return ShapeDtype(shape, result(operand.dtype))

    def operands(value: Any, axis: Any = None, keepdims: bool = False) -> DType:
        dtype = strong(value, name, argument, kinds).dtype
        return dtype if result is BOOL_RESULT else at_precision(dtype) if compute is None else compute(dtype)

    params = ((argument, "Tensor"), ("axis", "Axes"), ("keepdims", "bool")) if keepdims else ((argument, "Tensor"), ("axis", "Axes"))
    defaults = {"axis": None, "keepdims": False}
    infer = with_signature(name, finish, params, defaults)
    FAMILY[name] = "reduction"
    return register(OpSpec(name, rule, infer, params, with_signature(name, operands, params, defaults)))


def with_signature(name: str, function: Callable[..., Any], params: tuple[tuple[str, str], ...], defaults: dict[str, Any] | None = None) -> Callable[..., Any]:
    """An infer function taking the arguments `params` (names as in the catalogue, by position or
    keyword, with `defaults`) and calling `function` with them by position."""
    defaults = defaults or {}
    parameters = [
        inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=defaults.get(n, inspect.Parameter.empty)) for n, _ in params
    ]
    signature = inspect.Signature(parameters)
    count = len(parameters)

    tail = [p.default for p in parameters]

    def infer(*args: Any, **kwargs: Any) -> Any:
        if not kwargs:
            given = len(args)
            if given == count:
                return function(*args)
            if given < count and all(d is not inspect.Parameter.empty for d in tail[given:]):
                return function(*args, *tail[given:])
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise ArgumentTypeError(f"{name}: {error}; signature {name}{signature}") from None
        bound.apply_defaults()
        return function(*bound.arguments.values())

    infer.__name__ = infer.__qualname__ = name
    infer.__signature__ = signature  # type: ignore[attr-defined]
    return infer
