"""Python scalars are weak (NEP 50): the result dtype of tensors beside Python numbers, and the range a Python int must fit.

docs/semantics.md, "Python scalars are weak": a Python `bool`, `int`, `float` or `complex` beside a
tensor takes the tensor's dtype when its kind fits and only raises the kind otherwise
(`int8` with `2` is int8, `int32` with `1.5` the default float, `float16` with `1j` complex64); a
Python int outside the range of an integer result raises `OverflowError`. The operation specs
(`bk._specs`) and every plugin's kernels decide it with these functions, on bk `DType`s.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, Final

from .._dtype import DType, combine_types

__all__ = ["KINDS", "check_python_ints", "holds_number", "int_range", "raise_kind", "scalar_dtype", "weak_result"]

KINDS: Final = (bool, int, float, complex)
"""The kinds of Python numbers, narrowest first: a weak number raises a tensor's kind up this order, never its size."""

_RANK: Final = {kind: rank for rank, kind in enumerate(KINDS)}


@functools.cache
def int_range(dtype: DType) -> tuple[int, int]:
    """The smallest and largest value of the integer `dtype` (`(-128, 127)` for int8, `(0, 255)` for uint8)."""
    bits = int(dtype.bits or 64)
    if dtype.signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def holds_number(dtype: DType, value: Any) -> bool:
    """Whether a tensor of `dtype` holds the number `value` as it is, so that a fill (`full`) needs no rule:
    a bool in a bool tensor, an int in an int tensor of its range or in a float or complex one, a float
    in a float or complex one, a complex value in a complex one. NumPy's `float64` and `complex128`
    scalars count as the Python numbers they subclass. Everything else (a float filling an int tensor,
    an int out of range, another kind of value) takes the core's rules (`Backend.full`)."""
    kind = dtype.kind
    if isinstance(value, bool):
        return kind is bool
    if isinstance(value, int):
        if kind is int:
            low, high = int_range(dtype)
            return low <= value <= high
        return kind is float or kind is complex
    if isinstance(value, float):
        return kind is float or kind is complex
    return isinstance(value, complex) and kind is complex


def scalar_dtype(kind: type, precision: int | None) -> DType:
    """The dtype `as_tensor` gives a Python number of `kind` alone: bool, int64, or the float or complex type of `precision`."""
    if kind is bool:
        return DType(bool)
    if kind is int:
        return DType(int, 64)
    if kind is float:
        return DType(float, precision or 32)
    return DType(complex, 2 * max(precision or 32, 32))


def raise_kind(dtype: DType, kind: type, precision: int | None) -> DType:
    """`dtype` beside a weak Python number of `kind`: unchanged where the kind fits, else the default dtype
    of that kind (int64, the float type of `precision`); a float raised to complex keeps its precision
    (`float16` with `1j` is complex64, `float64` with `1j` complex128) unless one is set."""
    if _RANK[kind] <= _RANK.get(dtype.kind, len(KINDS)):  # str and object dtypes are never raised
        return dtype
    if kind is complex and dtype.kind is float:
        return DType(complex, 2 * max(precision or int(dtype.bits or 32), 32))
    return scalar_dtype(kind, precision)


@functools.lru_cache(maxsize=1024)
def weak_result(strong: tuple[DType, ...], kinds: tuple[type, ...], precision: int | None) -> DType:
    """The dtype of an operation on tensors of the `strong` dtypes beside Python numbers of `kinds` (NEP 50).

    Tensors promote with `bk.combine_types` under `precision`; Python numbers only raise the kind.
    Without tensors the first number takes `as_tensor`'s dtype (`scalar_dtype`). Cached: the rule
    runs once per signature.

    Args:
        strong: The dtypes of the tensors (NumPy arrays and scalars count as tensors).
        kinds: The types of the Python numbers, each one of `KINDS`.
        precision: The current precision (`bk.get_precision()`): 16, 32, 64 or None.

    Raises:
        KeyError: for a kind that is not one of `KINDS`.
        ValueError: when both `strong` and `kinds` are empty.
    """
    if strong:
        result = combine_types(*strong, fp_precision=precision)
    elif kinds:
        result = scalar_dtype(kinds[0], precision)
    else:
        raise ValueError("weak_result: needs at least one tensor dtype or Python number kind")
    for kind in kinds:
        result = raise_kind(result, kind, precision)
    return result


def check_python_ints(dtype: DType, values: Iterable[Any], op: str | None = None) -> None:
    """Raises `OverflowError` for a Python int among `values` outside the range of the integer `dtype`, as
    NumPy 2 (NEP 50: `int8` tensor with `300`); other values are not looked at.

    Args:
        dtype: An integer dtype.
        values: Operands of one call (tensors, Python numbers, `Weak` templates' values).
        op: The operation to name in the message.
    """
    low, high = int_range(dtype)
    for value in values:
        if type(value) is int and not low <= value <= high:
            where = f"{op}: " if op else ""
            raise OverflowError(f"{where}Python integer {value} out of bounds for {dtype.name}")
