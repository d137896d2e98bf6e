"""Binary operators, `where` and `clip` on native PyTorch operations.

The binary operators are bare kernels behind the core's plan (`bk._dispatcher`): they receive two tensors
of the dtype the operation computes in (Python numbers and lists converted, mixed dtypes cast, the spec's
verdict given, integer zero divisors, integer powers and out-of-range comparisons handled by the core),
and do framework work only: PyTorch's gaps (unsigned ints wider than 8 bits, for which PyTorch has almost
no kernels, are computed through signed types; complex sums part by part). Booleans where PyTorch has no
bool kernel and complex values where it has no order never arrive: the core computes them in int8 and in
NumPy's order (`TorchBackend.lacking_kernels`, `TorchBackend.complex_unordered`). Their common case, two
tensors of one dtype, or a tensor and a Python number that keeps its dtype, wherever the plan would do nothing
around the kernel, is one PyTorch call in C in front of the plan (`bk.rules.framework_call`: the core derives
its dtypes from the specs, no table is written here; `lacking=` leaves to the plan the dtypes where PyTorch's
function is not the kernel: complex `add` and `sub`, uint64 `pow` and `shift_bits_right`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any

import torch

from bk import DType
from bk.rules import framework_call, kernel, limit

from ._math import _UINT64, _WIDE_UNSIGNED, _narrowed

__all__ = ["BINARY_OPERATORS", "OperatorsMixin"]

Tensor = Any

_COMPLEX = frozenset({torch.complex64, torch.complex128})
# PyTorch adds complex tensors as `a + 1 * b` in some kernels (broadcasting, a 0-d left operand), so
# an infinite `b` gains a NaN imaginary part (`(inf+0j) * 1`); NumPy adds the parts separately.
_PARTWISE: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda x, y: torch.complex(x.real + y.real, x.imag + y.imag),
    "sub": lambda x, y: torch.complex(x.real - y.real, x.imag - y.imag),
}


def _compute(op: str, function: Callable[[Any, Any], Any], x: torch.Tensor, y: torch.Tensor) -> Any:
    """`function(x, y)` for two tensors of the dtype the plan computes `op` in, around PyTorch's gaps."""
    dtype = x.dtype
    if dtype in _WIDE_UNSIGNED:
        return _unsigned(op, function, x, y)
    if dtype in _COMPLEX and op in _PARTWISE:
        return _PARTWISE[op](x, y)
    return function(x, y)


def _operator(op: str, function: Callable[[Any, Any], Any], doc: str, fast: Any = None) -> Callable[..., Any]:
    """The kernel of the binary operator `op` (one of `BINARY_OPERATORS`), planned: `function` on the plan's
    operands (`_compute`). Its fast call (`fast`) is by default `function` alone (`bk.rules.framework_call`) wherever
    the plan would do nothing around the kernel, for the dtypes the core derives, a tensor and a Python number
    included (PyTorch keeps a tensor's dtype beside one of a kind it holds, as NEP 50)."""

    def computed(self: Any, a: Tensor, b: Tensor) -> Tensor:
        return _compute(op, function, a, b)

    computed.__name__ = computed.__qualname__ = op
    computed.__doc__ = doc
    return kernel(fast=framework_call(function, torch.Tensor, 2) if fast is None else fast)(computed)


# `add` and `sub` of complex values are the kernel's, part by part (PyTorch adds complex values as `a + 1 * b`, and an
# infinite part gains a NaN, `_PARTWISE`); uint64 `pow` and `shift_bits_right` are the kernel's too (`_unsigned`: PyTorch
# has no kernel of them). Their fast calls leave those dtypes to the plan (`framework_call(..., lacking=...)`).


BINARY_OPERATORS: tuple[str, ...] = (
    "add", "sub", "mul", "div", "pow", "mod", "floordiv", "and_", "or_", "xor", "shift_bits_left", "shift_bits_right",
    "maximum", "minimum", "equal", "not_equal", "greater_than", "greater_or_equal",
)  # fmt: skip
"""The binary operators whose kernels `OperatorsMixin` makes with `_operator` (planned, with a fast call): the
operations `unsigned_gaps` declares PyTorch's wide unsigned gaps of."""


def unsigned_gaps(operators: Iterable[str]) -> dict[str, frozenset[DType]]:
    """PyTorch's missing kernels of the binary operators for wide unsigned ints, declared in
    `TorchBackend.lacking_kernels`: uint16 and uint32 (the core computes them in int32 and int64, exactly),
    and uint64 of the operations whose results are modular (the core computes them in int64) or that order
    (through int64's order-preserving image); uint64 division, powers and right shifts stay `_unsigned`'s."""
    wide = frozenset(DType(int, bits, signed=False) for bits in (16, 32))
    by_core = frozenset(
        (
            "add",
            "sub",
            "mul",
            "and_",
            "or_",
            "xor",
            "shift_bits_left",
            "equal",
            "not_equal",
            "maximum",
            "minimum",
            "greater_than",
            "greater_or_equal",
        )
    )
    return {op: wide | {DType(int, 64, signed=False)} if op in by_core else wide for op in operators}


class OperatorsMixin:
    """Binary operators, `where` and `clip` of `TorchBackend`."""

    # ------------------------------------------------------------ arithmetic (integers: zero divisors, powers by the core)

    add = _operator(
        "add", torch.add, "`a + b` in the common type.", framework_call(torch.add, torch.Tensor, 2, lacking=(complex,))
    )
    sub = _operator(
        "sub", torch.sub, "`a - b` in the common type.", framework_call(torch.sub, torch.Tensor, 2, lacking=(complex,))
    )
    mul = _operator("mul", torch.mul, "`a * b` in the common type.")
    div = _operator("div", torch.div, "True division; integers and booleans divide into the default float (or the precision's).")
    pow = _operator(
        "pow",
        torch.pow,
        "`base ** exp` in the common type; integer powers wrap as NumPy's.",
        # tensors only: PyTorch computes a Python exponent with kernels of its own (0.5 as a square root, whose
        # -0.0 keeps its sign; 3.0 as a cube), not as the plan's tensor
        framework_call(torch.pow, torch.Tensor, 2, weak_numbers=False, lacking=(DType(int, 64, signed=False),)),
    )
    mod = _operator(
        "mod",
        torch.remainder,
        "`dividend % divisor` with the sign of the divisor, as in Python; an integer modulo 0 is 0, as NumPy.",
    )
    floordiv = _operator("floordiv", torch.floor_divide, "`a // b`; an integer division by 0 is 0, as NumPy.")
    and_ = _operator("and_", operator.and_, "Logical or bitwise `a & b`.")
    or_ = _operator("or_", operator.or_, "Logical or bitwise `a | b`.")
    xor = _operator("xor", operator.xor, "Logical or bitwise `a ^ b`.")
    shift_bits_left = _operator("shift_bits_left", operator.lshift, "`a << b`.")
    shift_bits_right = _operator(
        "shift_bits_right", operator.rshift, "`a >> b`.", framework_call(operator.rshift, torch.Tensor, 2, lacking=(DType(int, 64, signed=False),))
    )

    def invert(self, x: Tensor) -> Tensor:
        """Logical not for booleans, bitwise not for integers (the plan refuses floats and complex values)."""
        if x.dtype not in _WIDE_UNSIGNED:
            return ~x
        return _narrowed(~_narrowed(x, torch.int64), x.dtype) if x.dtype == _UINT64 else (~x.to(torch.int64)).to(x.dtype)

    maximum = _operator(
        "maximum",
        torch.maximum,
        "Elementwise maximum; NaN propagates.",
        framework_call(torch.maximum, torch.Tensor, 2, weak_numbers=False),  # it takes tensors only
    )
    minimum = _operator(
        "minimum",
        torch.minimum,
        "Elementwise minimum; NaN propagates.",
        framework_call(torch.minimum, torch.Tensor, 2, weak_numbers=False),
    )

    # ------------------------------------------------------------ comparisons (out-of-range Python ints: by the core)

    equal = _operator("equal", torch.eq, "Elementwise `x == y`.")
    not_equal = _operator("not_equal", torch.ne, "Elementwise `x != y`.")
    greater_than = _operator("greater_than", torch.gt, "Elementwise `x > y`.")
    greater_or_equal = _operator("greater_or_equal", torch.ge, "Elementwise `x >= y`.")

    # ------------------------------------------------------------ where and clip

    @kernel(fast=framework_call(torch.where, torch.Tensor, 3))  # a bool condition: the dtypes derived from the plans
    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` is true, else `y` (the plan gives both in their common type);
        `where(condition)` gives the `(nnz, ndims)` indices of true elements."""
        condition = self._t(condition)
        if x is None and y is None:
            return torch.argwhere(condition if condition.dtype == torch.bool else condition != 0)
        return torch.where(condition if condition.dtype == torch.bool else condition.to(torch.bool), x, y)

    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """`torch.clamp` (`_clamp`) of `x` and the bounds the core's rule prepared (`bk.rules.clip`, run by the plan
        around this kernel: one dtype, number bounds within it)."""
        return self._clamp(self._t(x), minimum, maximum)

    def _clamp(self, x: torch.Tensor, low: Any, high: Any) -> Tensor:
        """`torch.clamp` where PyTorch has it (not for uint16-uint64) and the bounds are Python numbers other than
        NaN; else the backend's `maximum` and `minimum`, which propagate NaN (complex values never arrive: the
        core clips them in NumPy's order)."""
        if x.dtype not in _WIDE_UNSIGNED and _plain_bound(low) and _plain_bound(high) and (low, high) != (None, None):
            return torch.clamp(x, low, high)
        return limit(self, x, low, high)


# ---------------------------------------------------------------- helpers


def _plain_bound(value: Any) -> bool:
    """Whether `torch.clamp` takes `value` as a bound: None, a float other than NaN, an int that int64 holds."""
    return value is None or (type(value) is float and value == value) or (type(value) is int and -(2**63) <= value < 2**63)


def _unsigned(op: str, function: Callable[[Any, Any], Any], x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """`function(x, y)` for uint64 tensors, which PyTorch cannot compute with (uint16 and uint32, and the
    modular and ordering operations of uint64, never arrive: the core computes them in signed ints,
    `unsigned_gaps`). Division, remainder and powers are computed in int64 and are exact below 2**63.
    """
    dtype = x.dtype
    if op == "shift_bits_right":  # logical shift: clear the copies of the top bit
        x, y = _narrowed(x, torch.int64), _narrowed(y, torch.int64)
        low_bits = ~torch.bitwise_left_shift(torch.full_like(y, -1), 64 - y)  # all bits for y = 0
        return _narrowed(torch.where((y < 0) | (y >= 64), 0, (x >> y) & low_bits), dtype)
    result = function(_narrowed(x, torch.int64), _narrowed(y, torch.int64))
    return _narrowed(result, dtype) if result.dtype == torch.int64 else result
