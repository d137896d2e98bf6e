"""Binary operators, `where` and `clip` on native PyTorch operations, with the rules of docs/semantics.md.

The fast path calls the framework's operator directly where `auto_cast` would change nothing (one
dtype and no precision to apply, or a float tensor with a weak Python number); otherwise the
operands go through `auto_cast` first (weak Python scalars, overflow checks). Everything else
happens only after PyTorch has refused: unsigned ints wider than 8 bits, for which PyTorch has
almost no kernels, are computed through signed types, and a mistake (shapes that cannot broadcast,
a dtype kind the operation does not take) becomes the spec's error (`bk.explain_failure`).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import torch

from bk import BK_ERRORS, ArgumentTypeError, check_tensor_argument, explain_failure
from bk.rules import SETTINGS as GLOBALS
from bk.rules import (
    check_integer_power,
    comparison_constant,
    divide_integers,
    explains_failures,
    int_range,
    limit,
    zero_divisor_rule,
)
from bk.rules import clip as clip_rule

from ._dtypes import from_torch_dtype, keeps_dtype
from ._math import _UINT64, _WIDE_UNSIGNED, _from_ordered, _narrowed, _ordered

__all__ = ["OperatorsMixin"]

Tensor = Any

# operators whose result on uint64 is exact in int64's modular arithmetic
_MODULAR = frozenset({"add", "sub", "mul", "and_", "or_", "xor", "shift_bits_left"})
# functions that take a Python number as their second operand (torch.maximum does not)
_FLOATS = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64})
_INT_RANGES = {d: int_range(from_torch_dtype(d)) for d in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)}
_WEAK = frozenset({int, float})


def _joins_weakly(dtype: Any, number: Any) -> bool:
    """Whether the Python int or float `number` keeps `dtype` beside a tensor of it (bk's rules and PyTorch's
    agree there): a float beside floats, an int in range beside ints or floats; never under a set precision."""
    if not GLOBALS.precision_free:
        return False
    if dtype in _FLOATS:
        return True
    bounds = _INT_RANGES.get(dtype) if type(number) is int else None
    return bounds is not None and bounds[0] <= number <= bounds[1]


_TAKES_SCALARS = frozenset({operator.add, operator.sub, operator.mul, operator.truediv, operator.pow, operator.mod, operator.floordiv, torch.eq, torch.ne, torch.gt, torch.ge})
# PyTorch adds complex tensors as `a + 1 * b` in some kernels (broadcasting, a 0-d left operand), so
# an infinite `b` gains a NaN imaginary part (`(inf+0j) * 1`); NumPy adds the parts separately.
_PARTWISE: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda x, y: torch.complex(x.real + y.real, x.imag + y.imag),
    "sub": lambda x, y: torch.complex(x.real - y.real, x.imag - y.imag),
}
_COMPLEX = frozenset({torch.complex64, torch.complex128})
# operators that PyTorch refuses on bool and NumPy computes in int8
_INT8_FOR_BOOL = frozenset({"pow", "mod", "floordiv", "shift_bits_left", "shift_bits_right"})
_COMPARISONS = frozenset({"equal", "not_equal", "greater_than", "greater_or_equal"})
# operators that only compare: exact on the order-preserving signed image of uint64
_ORDERING = frozenset({"maximum", "minimum", "equal", "not_equal", "greater_than", "greater_or_equal"})


class OperatorsMixin:
    """Binary operators, `where` and `clip` of `TorchBackend`."""

    def _binary(self, op: str, function: Callable[[Any, Any], Any], a: Any, b: Any, bool_to_int: bool = False, int_to_float: bool = False) -> Tensor:
        try:
            if type(a) is torch.Tensor:
                if type(b) is torch.Tensor:
                    if a.dtype is b.dtype and keeps_dtype(a.dtype, bool_to_int, int_to_float) and (a.dtype not in _COMPLEX or op not in _PARTWISE):
                        return function(a, b)  # auto_cast would change nothing
                elif (type(b) is float or type(b) is int) and function in _TAKES_SCALARS and a.is_floating_point() and GLOBALS.precision_free:
                    return function(a, b)  # a weak Python number keeps the float tensor's dtype, in PyTorch too
            x, y = self.auto_cast(a, b, bool_to_int=bool_to_int, int_to_float=int_to_float)
            if op in _PARTWISE and x.is_complex():
                return _PARTWISE[op](x, y)
            return function(x, y)
        except Exception as err:
            return self._binary_failed(op, function, a, b, err, bool_to_int, int_to_float)

    def _binary_failed(self, op: str, function: Callable[[Any, Any], Any], a: Any, b: Any, err: Exception, bool_to_int: bool, int_to_float: bool) -> Tensor:
        """The slow path after PyTorch (or `auto_cast`) refused: PyTorch's gaps (wide unsigned ints, bool
        powers, integer division by zero), or the error that the core's `explain_failure` gives."""
        if isinstance(err, OverflowError):  # a Python int beyond the integer tensor beside it
            tensor = b if type(a) is int else a
            if op in _COMPARISONS and isinstance(tensor, torch.Tensor):
                constant = comparison_constant(op, a, b, from_torch_dtype(tensor.dtype))
                if constant is not None:  # compared by value, as NumPy 2: every element alike
                    return torch.full(tensor.shape, constant, dtype=torch.bool, device=tensor.device)
            explain_failure(self, op, err, (a, b), {})  # the spec's OverflowError, naming the operation
        if isinstance(err, BK_ERRORS):
            explain_failure(self, op, err, (a, b), {})
        for value in (a, b):
            check_tensor_argument(value, op, "operand")
        x, y = self.auto_cast(a, b, bool_to_int=bool_to_int, int_to_float=int_to_float)
        if isinstance(x, torch.Tensor) and x.dtype == torch.bool and op in _INT8_FOR_BOOL:
            return self._binary(op, function, x.to(torch.int8), y.to(torch.int8))  # NumPy computes bool in int8
        if isinstance(y, torch.Tensor) and zero_divisor_rule(op, self.dtype(y)) and bool((y == 0).any()):  # PyTorch refuses
            return divide_integers(self, lambda p, q: self._binary(op, function, p, q), x, y)
        if isinstance(err, NotImplementedError) and isinstance(x, torch.Tensor) and x.dtype in _WIDE_UNSIGNED:
            return _unsigned(op, function, x, y)
        if isinstance(x, torch.Tensor) and x.is_complex() and op in _ORDERING - {"equal", "not_equal"}:
            raise ArgumentTypeError(f"{op}: PyTorch cannot order complex values ({x.dtype})") from err
        self._same_device(x, y)
        explain_failure(self, op, err, (a, b), {})  # a mistake (shapes, a dtype kind the operation does not take): the spec's error

    # ------------------------------------------------------------ arithmetic

    @explains_failures
    def add(self, a: Tensor, b: Tensor) -> Tensor:
        """`a + b` in the common type; booleans add as int32."""
        if type(a) is torch.Tensor and type(b) in _WEAK and _joins_weakly(a.dtype, b):
            return torch.add(a, b)  # the hot path: a Python number that keeps the tensor's dtype (NEP 50), in PyTorch too
        return self._binary("add", operator.add, a, b, bool_to_int=True)

    @explains_failures
    def sub(self, a: Tensor, b: Tensor) -> Tensor:
        """`a - b` in the common type; booleans subtract as int32."""
        if type(a) is torch.Tensor and type(b) in _WEAK and _joins_weakly(a.dtype, b):
            return torch.sub(a, b)
        return self._binary("sub", operator.sub, a, b, bool_to_int=True)

    @explains_failures
    def mul(self, a: Tensor, b: Tensor) -> Tensor:
        """`a * b` in the common type."""
        if type(a) is torch.Tensor and type(b) in _WEAK and _joins_weakly(a.dtype, b):
            return torch.mul(a, b)
        return self._binary("mul", operator.mul, a, b)

    @explains_failures
    def div(self, numerator: Tensor, denominator: Tensor) -> Tensor:
        """True division; integers and booleans divide into the default float (float32, or the precision)."""
        return self._binary("div", operator.truediv, numerator, denominator, bool_to_int=True, int_to_float=True)

    def pow(self, base: Tensor, exp: Tensor) -> Tensor:
        """`base ** exp` in the common type; integer powers wrap as NumPy's. An integer to a negative integer
        power raises ValueError: the spec refuses a negative Python int (PyTorch refuses it too), the core's
        rule checks a tensor exponent (PyTorch gives 0, 1 or -1, or garbage)."""
        result = self._binary("pow", operator.pow, base, exp)
        if not (result.is_floating_point() or result.is_complex() or result.dtype == torch.bool):
            check_integer_power(self, exp, "pow", result)
        return result

    def mod(self, dividend: Tensor, divisor: Tensor) -> Tensor:
        """`dividend % divisor` with the sign of the divisor, as in Python; an integer modulo 0 is 0, as NumPy."""
        return self._binary("mod", operator.mod, dividend, divisor)

    def floordiv(self, a: Tensor, b: Tensor) -> Tensor:
        """`a // b`; an integer division by 0 is 0, as NumPy."""
        return self._binary("floordiv", operator.floordiv, a, b)

    def and_(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a & b`."""
        return self._binary("and_", operator.and_, a, b)

    def or_(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a | b`."""
        return self._binary("or_", operator.or_, a, b)

    def xor(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a ^ b`."""
        return self._binary("xor", operator.xor, a, b)

    def shift_bits_left(self, a: Tensor, b: Tensor) -> Tensor:
        """`a << b`."""
        return self._binary("shift_bits_left", operator.lshift, a, b)

    def shift_bits_right(self, a: Tensor, b: Tensor) -> Tensor:
        """`a >> b`."""
        return self._binary("shift_bits_right", operator.rshift, a, b)

    def invert(self, x: Tensor) -> Tensor:
        """Logical not for booleans, bitwise not for integers (PyTorch refuses floats and complex values:
        the core raises the spec's error)."""
        if isinstance(x, bool):
            return not x
        x = self._t(x)
        try:
            return ~x
        except (NotImplementedError, TypeError):
            if x.dtype not in _WIDE_UNSIGNED:
                raise
            return _narrowed(~_narrowed(x, torch.int64), x.dtype) if x.dtype == _UINT64 else (~x.to(torch.int64)).to(x.dtype)

    def maximum(self, a: Tensor, b: Tensor) -> Tensor:
        """Elementwise maximum; NaN propagates."""
        return self._binary("maximum", torch.maximum, a, b)

    def minimum(self, a: Tensor, b: Tensor) -> Tensor:
        """Elementwise minimum; NaN propagates."""
        return self._binary("minimum", torch.minimum, a, b)

    # ------------------------------------------------------------ comparisons

    def equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x == y`."""
        return self._binary("equal", torch.eq, x, y)

    def not_equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x != y`."""
        return self._binary("not_equal", torch.ne, x, y)

    def greater_than(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x > y`."""
        return self._binary("greater_than", torch.gt, x, y)

    def greater_or_equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x >= y`."""
        return self._binary("greater_or_equal", torch.ge, x, y)

    # ------------------------------------------------------------ where and clip

    @explains_failures
    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` is true, else `y` (both promoted; Python scalars are weak);
        `where(condition)` gives the `(nnz, ndims)` indices of true elements."""
        try:
            if type(condition) is torch.Tensor and type(x) is torch.Tensor and type(y) is float and condition.dtype is torch.bool and x.dtype in _FLOATS and GLOBALS.precision_free:
                return torch.where(condition, x, y)  # the Python float takes x's float dtype (NEP 50), in PyTorch too
            if type(x) is torch.Tensor and type(y) is torch.Tensor and type(condition) is torch.Tensor and x.dtype is y.dtype and condition.dtype is torch.bool and keeps_dtype(x.dtype):
                return torch.where(condition, x, y)
        except RuntimeError:
            pass  # the slow path below says what was wrong
        check_tensor_argument(condition, "where", "condition")
        condition = self._t(condition)
        if x is None and y is None:
            return torch.argwhere(condition if condition.dtype == torch.bool else condition != 0)
        check_tensor_argument(x, "where", "x")
        check_tensor_argument(y, "where", "y")
        try:
            try:
                a, b = self.auto_cast(x, y)
            except OverflowError:  # NumPy's where wraps a Python int that does not fit the int tensor beside it
                a, b = self.auto_cast(_wrapped(x, y), _wrapped(y, x))
            return torch.where(condition if condition.dtype == torch.bool else condition.to(torch.bool), a, b)
        except Exception as err:  # `where` is not wrapped by the core (a hot path): the spec explains here
            self._same_device(condition, x, y)
            explain_failure(self, "where", err, (condition, x, y), {})

    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """`x` limited to `[minimum, maximum]` in the dtype of `x`, for bounds of any kind (the core's rule, `bk.rules`)."""
        return clip_rule(self, self._t(x), minimum, maximum, self._clamp)

    def _clamp(self, x: torch.Tensor, low: Any, high: Any) -> Tensor:
        """`torch.clamp` where PyTorch has it (not for uint16-uint64 or complex values) and the bounds are
        Python numbers other than NaN; else the backend's `maximum` and `minimum`, which propagate NaN."""
        if x.dtype not in _WIDE_UNSIGNED and not x.is_complex() and _plain_bound(low) and _plain_bound(high) and (low, high) != (None, None):
            return torch.clamp(x, low, high)
        return limit(self, x, low, high)


# ---------------------------------------------------------------- helpers


def _plain_bound(value: Any) -> bool:
    """Whether `torch.clamp` takes `value` as a bound: None, a float other than NaN, an int that int64 holds."""
    return value is None or (type(value) is float and value == value) or (type(value) is int and -(2**63) <= value < 2**63)


def _wrapped(value: Any, other: Any) -> Any:
    """A Python int beside an integer tensor as a tensor of its dtype, wrapped modulo 2**bits."""
    if type(value) is int and isinstance(other, torch.Tensor) and not (other.is_floating_point() or other.is_complex() or other.dtype == torch.bool):
        return torch.tensor(value, dtype=torch.int64, device=other.device).to(other.dtype)
    return value


def _unsigned(op: str, function: Callable[[Any, Any], Any], x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """`function(x, y)` for uint16, uint32 and uint64 tensors, which PyTorch cannot compute with.

    uint16 and uint32 widen to int64, exactly. uint64 compares through the order-preserving signed
    image of `_ordered`, and adds, multiplies and shifts in int64's modular arithmetic, exactly;
    other operations (division, remainder) are computed in int64 and are exact below 2**63.
    """
    dtype = x.dtype
    if dtype == _UINT64 and op == "shift_bits_right":  # logical shift: clear the copies of the top bit
        x, y = _narrowed(x, torch.int64), _narrowed(y, torch.int64)
        low_bits = ~torch.bitwise_left_shift(torch.full_like(y, -1), 64 - y)  # all bits for y = 0
        return _narrowed(torch.where((y < 0) | (y >= 64), 0, (x >> y) & low_bits), dtype)
    if dtype != _UINT64 or op not in _ORDERING | _MODULAR:
        wide_x, wide_y = (_narrowed(t, torch.int64) if dtype == _UINT64 else t.to(torch.int64) for t in (x, y))
        result = function(wide_x, wide_y)
    elif op in _ORDERING:
        (ordered_x, _), (ordered_y, _) = _ordered(x), _ordered(y)
        result = function(ordered_x, ordered_y)
        return _from_ordered(result, dtype) if result.dtype == torch.int64 else result
    else:
        result = function(_narrowed(x, torch.int64), _narrowed(y, torch.int64))
    if result.dtype != torch.int64:
        return result
    return _narrowed(result, dtype) if dtype == _UINT64 else result.to(dtype)

