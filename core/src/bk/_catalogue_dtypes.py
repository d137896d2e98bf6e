"""Dtype queries of the catalogue (the Array API standard's `result_type`, `can_cast`, `finfo`,
`iinfo` and `isdtype`), on `bk.DType`: pure functions of types, no tensor is made.

Every public function is an operation of the catalogue, a method of `Backend` (`bk._operations`). A dtype
argument may be a `DType`, a name (`"float32"`), a NumPy dtype or scalar type, or a tensor (its
dtype); a bare Python type (`float`) is ambiguous and raises `ArgumentTypeError`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from . import _context
from ._dtype import DType
from ._errors import ArgumentTypeError, check_tensor_argument
from ._features import generic
from ._rules.arguments import is_python_number
from ._rules.weak import weak_result

__all__ = ["DTYPE_KINDS", "FloatInfo", "IntInfo", "has_kind", "is_python_number"]

DTYPE_KINDS: Final[dict[str, Callable[[DType], bool]]] = {
    "bool": lambda d: d.kind is bool,
    "signed integer": lambda d: d.kind is int and d.signed,
    "unsigned integer": lambda d: d.kind is int and not d.signed,
    "integral": lambda d: d.kind is int,
    "real floating": lambda d: d.kind is float,
    "complex floating": lambda d: d.kind is complex,
    "numeric": lambda d: d.kind in (int, float, complex),
}


def has_kind(dtype: DType, kind: Any) -> bool:
    """`isdtype`'s test: whether `dtype` is `kind` (a `DType`), of a kind name of `DTYPE_KINDS`, or of
    any of a tuple of those. Raises `ValueError` for an unknown name, `ArgumentTypeError` for another kind."""
    if isinstance(kind, tuple):
        return any(has_kind(dtype, k) for k in kind)
    if isinstance(kind, DType):
        return dtype == kind
    if isinstance(kind, str):
        test = DTYPE_KINDS.get(kind)
        if test is None:
            raise ValueError(
                f"isdtype: unknown kind {kind!r}; use one of {', '.join(map(repr, DTYPE_KINDS))}, a dtype, or a tuple of them"
            )
        return bool(test(dtype))
    raise ArgumentTypeError(f"isdtype: kind must be a DType, a kind name or a tuple of them, got {type(kind).__name__}")


@dataclass(frozen=True)
class FloatInfo:
    """Machine limits of a floating-point type, as the Array API's `finfo` object.

    Attributes:
        bits: Bits of one value (of the real part for complex types).
        eps: The difference between 1.0 and the next representable value.
        max: The largest finite value.
        min: The smallest (most negative) finite value.
        smallest_normal: The smallest positive normal value.
        dtype: The real floating-point type described.
    """

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: DType


@dataclass(frozen=True)
class IntInfo:
    """Machine limits of an integer type, as the Array API's `iinfo` object.

    Attributes:
        bits: Bits of one value.
        max: The largest value.
        min: The smallest value.
        dtype: The integer type described.
    """

    bits: int
    max: int
    min: int
    dtype: DType


# ------------------------------------------------------------ dtype queries


def _dtype_arg(self: Any, value: Any, op: str) -> DType:
    if isinstance(value, DType):
        return value
    if isinstance(value, type) and value in (bool, int, float, complex):
        raise ArgumentTypeError(
            f"{op}: expected a DType or a tensor, got the Python type {value.__name__}; use bk.DType({value.__name__}, bits)"
        )
    if isinstance(value, (str, type, np.dtype)):  # a name, a NumPy dtype or scalar type
        try:
            return DType.as_dtype(value)  # type: ignore[return-value]
        except (TypeError, ValueError) as error:
            raise ArgumentTypeError(f"{op}: {value!r} names no dtype ({error}); pass a bk.DType or a tensor") from None
    check_tensor_argument(value, op, "dtype")
    return self.dtype(value)  # type: ignore[no-any-return]


@generic("dtype", "combine_types")
def result_type(self: Any, *arrays_and_dtypes: Any) -> DType:
    """The dtype bk's binary operations give for operands of these tensors, `DType` objects and Python numbers.

    Tensors and `DType` objects are strong and promote with `combine_types` (under the current
    precision); Python numbers are weak and only raise the kind (NEP 50).

    Raises:
        ValueError: when nothing is given.
    """
    if not arrays_and_dtypes:
        raise ValueError("result_type: needs at least one tensor, DType or Python number")
    strong = [_dtype_arg(self, v, "result_type") for v in arrays_and_dtypes if not is_python_number(v)]
    kinds = tuple(type(v) for v in arrays_and_dtypes if is_python_number(v))
    if not kinds:
        return self.combine_types(*strong)  # type: ignore[no-any-return]
    return weak_result(tuple(strong), kinds, _context.get_precision())


@generic("dtype")
def can_cast(self: Any, from_: Any, to: DType) -> bool:
    """Whether casting from `from_` (a `DType` or a tensor) to `to` is safe, as
    `numpy.can_cast(..., casting="safe")`: no kind goes down (complex to float, float to int),
    integers go to wider integers of a sign that holds them, and to floats with more bits (any
    integer to float64, as NumPy); bfloat16 takes the integers of 8 bits and float16 none of
    its range, and the other way round.
    """
    source, target = _dtype_arg(self, from_, "can_cast"), _dtype_arg(self, to, "can_cast")
    if source.kind is bool or source == target:
        return True
    if target.kind is bool or source.kind not in (int, float, complex):
        return False
    if target.kind is complex:
        target = DType(float, (target.bits or 64) // 2)
        if source.kind is complex:
            source = DType(float, (source.bits or 64) // 2)
    elif source.kind is complex:
        return False
    if source.kind is int:
        if target.kind is int:
            if source.signed and not target.signed:
                return False
            return (target.bits or 0) >= (source.bits or 0) + (1 if target.signed and not source.signed else 0)
        if target.kind is not float:
            return False
        if target.brain:  # 8 significand bits: the ints of 8 bits
            return (source.bits or 0) <= 8
        return (target.bits or 0) > (source.bits or 0) or target.bits == 64  # NumPy's "safe" rule
    if target.kind is not float:
        return False
    if source.brain or target.brain:
        return (target.bits or 0) > 16 or source == target
    return (target.bits or 0) >= (source.bits or 0)


@generic("dtype")
def finfo(self: Any, dtype: Any) -> FloatInfo:
    """Limits of a float or complex `DType` (or of the type of a tensor); complex types give those of their parts.

    Raises:
        ArgumentTypeError: for a type that is not float or complex.
    """
    from ._dtype import to_numpy_dtype

    kind = _dtype_arg(self, dtype, "finfo")
    if kind.kind is complex:
        kind = DType(float, (kind.bits or 64) // 2)
    if kind.kind is not float:
        raise ArgumentTypeError(f"finfo: takes a float or complex type, not {kind}; iinfo() describes integers")
    if kind.brain:
        import ml_dtypes

        info: Any = ml_dtypes.finfo(to_numpy_dtype(kind))  # type: ignore[no-untyped-call]
    else:
        info = np.finfo(to_numpy_dtype(kind))
    return FloatInfo(int(info.bits), float(info.eps), float(info.max), float(info.min), float(info.smallest_normal), kind)


@generic("dtype")
def iinfo(self: Any, dtype: Any) -> IntInfo:
    """Limits of an integer `DType` (or of the type of a tensor).

    Raises:
        ArgumentTypeError: for a type that is not an integer type.
    """
    kind = _dtype_arg(self, dtype, "iinfo")
    if kind.kind is not int:
        raise ArgumentTypeError(f"iinfo: takes an integer type, not {kind}; finfo() describes floats")
    bits = int(kind.bits or 0)
    if kind.signed:
        return IntInfo(bits, 2 ** (bits - 1) - 1, -(2 ** (bits - 1)), kind)
    return IntInfo(bits, 2**bits - 1, 0, kind)


@generic("dtype")
def isdtype(self: Any, dtype: DType, kind: Any) -> bool:
    """Whether `dtype` is of `kind`: a `DType`, one of the Array API's kind names ('bool', 'signed
    integer', 'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric'),
    or a tuple of those.

    Raises:
        ArgumentTypeError: when `dtype` names no dtype.
        ValueError: for an unknown kind name.
    """
    return has_kind(_dtype_arg(self, dtype, "isdtype"), kind)
