"""Integer powers (docs/semantics.md, "Integers"): an integer to a negative integer power raises `ValueError`.

NumPy and TensorFlow refuse it; PyTorch, JAX and namespaces of the Array API give 0, 1 or garbage.
A negative Python int exponent is the spec's to refuse (`pow`'s spec sees its value); a negative
entry of a tensor exponent needs the data, so it is `check_integer_power`, a composite of
catalogue operations that every kernel needing it calls: the core's plans
(the one call path, `bk._dispatcher`) and the plugins' own (bk-torch, bk-jax, bk-arrayapi).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from .._dtype import DType
from .indices import extreme

if TYPE_CHECKING:
    from .._backend import Backend

__all__ = ["check_integer_power", "integer_power_rule"]


def integer_power_rule(op: str, dtype: DType | None) -> bool:
    """Whether `op` on operands of `dtype` (the spec's `operand_dtype`) needs `check_integer_power`:
    `pow` of signed integers (unsigned exponents cannot be negative; bools compute as int8 but hold
    no negative value)."""
    return op == "pow" and dtype is not None and dtype.kind is int and dtype.signed


def check_integer_power(backend: Backend, exp: Any, op: str = "pow", base: Any = None) -> None:
    """Raises `ValueError` when the exponent of an integer power holds a negative integer, as NumPy.

    Checked where the data is available (not inside `jit_compile`, where a backend cannot raise on
    values), by the exponent's minimum. A power of an empty `base` computes no element and raises
    nothing, as NumPy's.

    Args:
        backend: The backend of `exp`.
        exp: The exponent: a Python int or a native tensor of the integer dtype the power computes in.
        op: The operation, for the message.
        base: The base, where the caller has it: a native tensor without elements raises nothing.
    """
    if base is not None and backend.is_tensor(base, only_native=True):
        sizes = tuple(backend.staticshape(base))
        if 0 in sizes:  # no element (a size 0 broadcasts to 0, or the shapes do not broadcast at all)
            return
    if type(exp) is int:
        negative = exp < 0
    elif backend.is_tensor(exp, only_native=True):
        dtype = backend.dtype(exp)
        shape: tuple[Any, ...] = tuple(backend.staticshape(exp))
        if dtype.kind is not int or not dtype.signed or None in shape or not math.prod(shape) or not backend.is_available(exp):
            return
        negative = extreme(backend, exp, "min") < 0
    else:
        return
    if negative:
        raise ValueError(f"{op}: integers to negative integer powers are not allowed (an exponent is negative); cast the base to float first")
