"""Elementwise maths, operators and reductions (a mixin of `ArrayAPIBackend`).

Each operation maps onto the standard's function of the same meaning. Inputs are brought to
their common dtype first (bk's promotion, Python numbers weak), because the standard leaves
mixed-kind promotion undefined and strict namespaces refuse it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final

from bk import ArgumentTypeError, DType, normalize_axes, normalize_axis
from bk.rules import SETTINGS as _GLOBALS
from bk.rules import (
    accumulation_type,
    check_dtypes,
    check_integer_power,
    check_nonempty,
    comparison_constant,
    divide_integers,
    integer_power_rule,
    zero_divisor_rule,
)
from bk.rules import clip as clip_rule
from bk.rules import quantile as quantile_rule

from ._needs import needs

__all__ = ["MathMixin"]

Tensor = Any

_BINARY_SIGNATURE: Final = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in ("self", "a", "b")])


# Functions the standard defines for numeric dtypes only: booleans are computed as int8, and
# the result turned back into bool where NumPy gives bool (`maximum(bool, bool)` is a logical or).
_BOOL_AS_INT8: Final = {"multiply", "maximum", "minimum", "greater", "greater_equal", "pow", "remainder", "floor_divide"}
_ORDERING: Final = {"maximum", "minimum", "greater", "greater_equal"}
_BOOL_BACK: Final = {"multiply", "maximum", "minimum"}
_BOOL_UNARY: Final = {"isfinite", "isnan", "isinf", "abs"}
_INT8: Final = DType(int, 8)
_BOOL: Final = DType(bool)


def _call(self: Any, op: str, function: str, a: Tensor, b: Tensor) -> Tensor:
    """`function(a, b)` of two native arrays of one dtype (a failed broadcast is explained by the core, from the spec)."""
    is_bool = function in _BOOL_AS_INT8 and self._dt(a) is _BOOL
    if is_bool:
        a, b = self._astype(a, _INT8), self._astype(b, _INT8)
    try:
        result = getattr(self.xp, function)(a, b)
    except (TypeError, NotImplementedError) as error:  # a dtype the function is not defined for (complex ordering; torch: NotImplementedError)
        dtype = self._dt(a)
        if dtype.kind is complex and function in _ORDERING:
            raise ArgumentTypeError(f"{op}: complex values have no order; take abs() or real() first") from error
        raise ArgumentTypeError(f"{op}: {dtype} operands are not supported: {error}") from error
    except (ArithmeticError, RuntimeError):  # integer division by zero in namespaces that refuse it (torch)
        if not zero_divisor_rule(op, self._dt(a)):
            raise
        result = divide_integers(self, getattr(self.xp, function), a, b)
    return self._astype(result, _BOOL) if is_bool and function in _BOOL_BACK else result


def _arithmetic(op: str, function: str, doc: str, bool_to_int: bool = False, int_to_float: bool = False) -> Callable[..., Any]:
    """A binary operator with a fast path for two native arrays of one dtype and no precision set.

    The dtype is compared by identity first, then by equality (namespaces such as array-api-strict
    create a dtype object per array). The fast path excludes booleans (`add`, `sub`, `mul`) or
    everything but floats and complex numbers (`div`), which need conversions. The check is
    inlined: on small arrays a helper call costs as much as the operation.
    """
    inexact_only = int_to_float

    def operation(self: Any, a: Tensor, b: Tensor, settings: Any = _GLOBALS) -> Tensor:
        try:
            dtype = a.dtype
            other = b.dtype
            if (
                (dtype is other or dtype == other)
                and settings.precision_free
                and type(a) is self._array_type
                and (dtype in self._inexact if inexact_only else dtype != self._bool_native)
            ):
                return self._functions[function](a, b)
        except AttributeError:  # Python numbers and lists
            pass
        a, b = self._common(op, a, b, bool_to_int=bool_to_int, int_to_float=int_to_float)
        return _call(self, op, function, a, b)

    operation.__name__ = op
    operation.__doc__ = doc
    operation.__signature__ = _BINARY_SIGNATURE  # type: ignore[attr-defined]  # hide the bound default
    return needs(function)(operation)


def _rounding(op: str, function: str, doc: str) -> Callable[..., Any]:
    """floor, ceil, round: booleans and integers are returned as they are (NumPy keeps bool for
    floor and ceil); complex values have no floor or ceiling (`ArgumentTypeError`), and `round`
    rounds their real and imaginary parts, as NumPy and the standard."""

    def operation(self: Any, x: Tensor) -> Tensor:
        x = self._native(x, op)
        kind = self._dt(x).kind
        if kind is float or (kind is complex and op == "round"):
            return getattr(self.xp, function)(x)
        check_dtypes(self, op, x)
        return x

    operation.__name__ = op
    operation.__doc__ = doc
    return needs(function)(operation)


def _comparison(op: str, function: str, doc: str) -> Callable[..., Any]:
    """A comparison in the common dtype; a Python int outside the range of the integer tensor
    beside it is compared by value (every element compares alike), as NumPy 2 does."""

    def operation(self: Any, a: Tensor, b: Tensor) -> Tensor:
        try:
            a, b = self._common(op, a, b)
        except OverflowError as error:
            return _compare_out_of_range(self, op, a, b, error)
        return _call(self, op, function, a, b)

    operation.__name__ = op
    operation.__doc__ = doc
    operation.__signature__ = _BINARY_SIGNATURE  # type: ignore[attr-defined]
    return needs(function, "full")(operation)


def _compare_out_of_range(self: Any, op: str, a: Any, b: Any, error: OverflowError) -> Tensor:
    """`op(a, b)` where one of them is a Python int outside the other's integer dtype: a constant (`bk.rules`)."""
    tensor = self._native(b if type(a) is int else a, op)
    constant = comparison_constant(op, a, b, self._dt(tensor))
    if constant is None:
        raise error
    return self.xp.full(tuple(tensor.shape), constant, dtype=self._bool_native, device=self._ref(tensor))


def _shift(op: str, function: str, doc: str) -> Callable[..., Any]:
    """A bit shift as NumPy's: counts outside `[0, bits)` shift everything out (0, or -1 for negative
    values shifted right); booleans shift as int8; floats and complex raise `ArgumentTypeError`."""
    right = function == "bitwise_right_shift"

    def operation(self: Any, a: Tensor, b: Tensor) -> Tensor:
        a, b = self._common(op, a, b)
        dtype = self._dt(a)
        if dtype is _BOOL:
            a, b, dtype = self._astype(a, _INT8), self._astype(b, _INT8), _INT8
        check_dtypes(self, op, a, b)  # floats and complex values: the spec's error
        xp = self.xp
        bits = dtype.bits
        inside = (b >= 0) & (b < bits) if dtype.signed else b < bits
        if right and dtype.signed:  # a shift by bits - 1 gives what NumPy gives for any count outside
            return getattr(xp, function)(a, xp.where(inside, b, xp.full_like(b, bits - 1)))
        shifted = getattr(xp, function)(a, xp.where(inside, b, xp.zeros_like(b)))
        return xp.where(inside, shifted, xp.zeros_like(shifted))

    operation.__name__ = op
    operation.__doc__ = doc
    operation.__signature__ = _BINARY_SIGNATURE  # type: ignore[attr-defined]
    return needs(function, "where", "full_like", "zeros_like")(operation)


def _binary(op: str, function: str, doc: str, logical: str | None = None, int_to_float: bool = False) -> Callable[..., Any]:
    """A binary operation in the common dtype; `logical` is the function used for booleans."""

    def operation(self: Any, a: Tensor, b: Tensor) -> Tensor:
        a, b = self._common(op, a, b, int_to_float=int_to_float)
        name = logical if logical is not None and self._dt(a) is _BOOL else function
        return _call(self, op, name, a, b)

    operation.__name__ = op
    operation.__doc__ = doc
    operation.__signature__ = _BINARY_SIGNATURE  # type: ignore[attr-defined]
    return needs(function, *((logical,) if logical else ()))(operation)


def _unary(op: str, function: str, doc: str, keep_ints: bool = False) -> Callable[..., Any]:
    """A unary function; integer inputs become floats of the precision unless `keep_ints`."""

    def operation(self: Any, x: Tensor) -> Tensor:
        if not keep_ints:
            x = self._floats(x, op)
            try:
                return getattr(self.xp, function)(x)
            except (TypeError, NotImplementedError) as error:  # a dtype the function is not defined for
                raise ArgumentTypeError(f"{op}: {self._dt(x)} values are not supported: {error}") from error
        x = self._native(x, op)
        if function in _BOOL_UNARY and self._dt(x) is _BOOL:  # numeric-only in the standard
            result = getattr(self.xp, function)(self._astype(x, _INT8))
            return self._astype(result, _BOOL)
        try:
            return getattr(self.xp, function)(x)
        except (TypeError, NotImplementedError) as error:  # sign of bool, ...
            raise ArgumentTypeError(f"{op}: {self._dt(x)} values are not supported: {error}") from error

    operation.__name__ = op
    operation.__doc__ = doc
    return needs(function)(operation)


class MathMixin:
    """Elementwise functions, operators and reductions through the standard's functions."""

    xp: Any
    _array_type: type

    def _init_fast_paths(self) -> None:
        """What the fast paths of the arithmetic operators compare with."""
        native = self._dtypes.to_native  # type: ignore[attr-defined]
        self._bool_native = native[_BOOL]
        self._inexact = [d for t, d in native.items() if t.kind in (float, complex)]
        self._functions = {f: getattr(self.xp, f) for f in ("add", "subtract", "multiply", "divide") if hasattr(self.xp, f)}

    # ------------------------------------------------------------ arithmetic operators

    add = _arithmetic("add", "add", "`a + b` in the common type; booleans add as int32.", bool_to_int=True)
    sub = _arithmetic("sub", "subtract", "`a - b` in the common type; booleans subtract as int32.", bool_to_int=True)
    mul = _arithmetic("mul", "multiply", "`a * b` in the common type.")
    div = _arithmetic("div", "divide", "`a / b`; integers divide into the float type of the precision.", int_to_float=True)
    mod = _binary("mod", "remainder", "`dividend % divisor` with the sign of the divisor.")
    floordiv = _binary("floordiv", "floor_divide", "`a // b`.")
    and_ = _binary("and_", "bitwise_and", "Logical or bitwise `a & b`.", logical="logical_and")
    or_ = _binary("or_", "bitwise_or", "Logical or bitwise `a | b`.", logical="logical_or")
    xor = _binary("xor", "bitwise_xor", "Logical or bitwise `a ^ b`.", logical="logical_xor")
    shift_bits_left = _shift("shift_bits_left", "bitwise_left_shift", "`a << b`; counts outside `[0, bits)` give 0, as NumPy.")
    shift_bits_right = _shift(
        "shift_bits_right", "bitwise_right_shift", "`a >> b`; counts outside `[0, bits)` give 0, or -1 for negative `a`, as NumPy."
    )
    equal = _comparison("equal", "equal", "Elementwise `x == y`.")
    not_equal = _comparison("not_equal", "not_equal", "Elementwise `x != y`.")
    greater_than = _comparison("greater_than", "greater", "Elementwise `x > y`.")
    greater_or_equal = _comparison("greater_or_equal", "greater_equal", "Elementwise `x >= y`.")

    @needs("pow", "any", "greater")
    def pow(self, base: Tensor, exp: Tensor) -> Tensor:
        """`base ** exp` in the common type.

        Raises:
            ValueError: for integers to negative integer powers, as NumPy (`bk.rules.check_integer_power`).
        """
        a, b = self._common("pow", base, exp)
        if integer_power_rule("pow", self._dt(a)):
            check_integer_power(self, b, "pow", a)
        return _call(self, "pow", "pow", a, b)
    maximum = _binary("maximum", "maximum", "Elementwise maximum; NaN propagates.")
    minimum = _binary("minimum", "minimum", "Elementwise minimum; NaN propagates.")
    arctan2 = _binary("arctan2", "atan2", "The angle of the point `(x, y)`.", int_to_float=True)

    @needs("bitwise_invert", "logical_not")
    def invert(self, x: Tensor) -> Tensor:
        """Logical not for booleans, bitwise not for integers."""
        if isinstance(x, bool):
            return not x
        x = self._native(x, "invert")
        if self._dt(x) is _BOOL:
            return self.xp.logical_not(x)
        check_dtypes(self, "invert", x)  # floats and complex values: the spec's error
        return self.xp.bitwise_invert(x)

    @needs("where", "equal", "divide")
    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, and 0 where `y` is 0 (without a division by zero)."""
        x, y = self._common("divide_no_nan", x, y, int_to_float=True)
        zero = self.xp.equal(y, 0)
        safe = self.xp.where(zero, self.xp.ones_like(y), y)
        return self.xp.where(zero, self.xp.zeros_like(x), _call(self, "divide_no_nan", "divide", x, safe))

    @needs("where")
    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` holds, else `y`, in their common dtype (a Python int that does not fit
        an integer branch wraps around, as a cast does); without `x` and `y` the indices of true
        elements (as `nonzero`)."""
        condition = self._native(condition, "where")
        if self._dt(condition) is not _BOOL:
            condition = self._astype(condition, _BOOL)
        if x is None and y is None:
            return self.nonzero(condition)  # type: ignore[attr-defined]
        x, y = self._common("where", x, y, wrap=True)
        return self.xp.where(condition, x, y)

    @needs("maximum", "minimum")
    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """`x` limited to `[minimum, maximum]` in the dtype of `x`, for bounds of any kind (the core's rule, `bk.rules`)."""
        return clip_rule(self, self._native(x, "clip"), minimum, maximum)

    # ------------------------------------------------------------ elementwise functions

    abs = _unary("abs", "abs", "Absolute value (magnitude for complex values).", keep_ints=True)
    sign = _unary("sign", "sign", "-1, 0 or 1 by the sign of `x`.", keep_ints=True)
    round = _rounding("round", "round", "Rounds to the nearest integer, halves to even; booleans and integers stay as they are.")
    ceil = _rounding("ceil", "ceil", "Smallest integer not below `x`; booleans and integers stay as they are.")
    floor = _rounding("floor", "floor", "Largest integer not above `x`; booleans and integers stay as they are.")
    sqrt = _unary("sqrt", "sqrt", "Square root.")
    exp = _unary("exp", "exp", "Natural exponential.")
    sin = _unary("sin", "sin", "Sine.")
    arcsin = _unary("arcsin", "asin", "Inverse sine.")
    cos = _unary("cos", "cos", "Cosine.")
    arccos = _unary("arccos", "acos", "Inverse cosine.")
    tan = _unary("tan", "tan", "Tangent.")
    arctan = _unary("arctan", "atan", "Inverse tangent.")
    sinh = _unary("sinh", "sinh", "Hyperbolic sine.")
    arcsinh = _unary("arcsinh", "asinh", "Inverse hyperbolic sine.")
    cosh = _unary("cosh", "cosh", "Hyperbolic cosine.")
    arccosh = _unary("arccosh", "acosh", "Inverse hyperbolic cosine.")
    tanh = _unary("tanh", "tanh", "Hyperbolic tangent.")
    arctanh = _unary("arctanh", "atanh", "Inverse hyperbolic tangent.")
    log = _unary("log", "log", "Natural logarithm.")
    log2 = _unary("log2", "log2", "Base-2 logarithm.")
    log10 = _unary("log10", "log10", "Base-10 logarithm.")
    isfinite = _unary("isfinite", "isfinite", "True where `x` is neither infinite nor NaN.", keep_ints=True)
    isnan = _unary("isnan", "isnan", "True where `x` is NaN.", keep_ints=True)
    isinf = _unary("isinf", "isinf", "True where `x` is infinite.", keep_ints=True)
    _conj = _unary("conj", "conj", "Complex conjugate.", keep_ints=True)

    @needs("conj")
    def conj(self, x: Tensor) -> Tensor:
        """Complex conjugate; real values (booleans too, as the spec says) as they are."""
        x = self._native(x, "conj")
        if self._dt(x) is _BOOL:
            return x
        return self._conj(x)

    @needs("real")
    def real(self, x: Tensor) -> Tensor:
        """Real part (real inputs are returned as they are)."""
        x = self._native(x, "real")
        return self.xp.real(x) if self._dt(x).kind is complex else x

    @needs("imag", "zeros_like")
    def imag(self, x: Tensor) -> Tensor:
        """Imaginary part (zeros for real values)."""
        x = self._native(x, "imag")
        return self.xp.imag(x) if self._dt(x).kind is complex else self.xp.zeros_like(x)

    @needs("logaddexp")
    def softplus(self, x: Tensor) -> Tensor:
        """`log(1 + exp(x))`, computed without overflow as `logaddexp(0, x)`."""
        x = self._floats(x, "softplus")
        check_dtypes(self, "softplus", x)
        return self.xp.logaddexp(self.xp.zeros_like(x), x)

    @needs("exp")
    def sigmoid(self, x: Tensor) -> Tensor:
        """`1 / (1 + exp(-x))`."""
        x = self._floats(x, "sigmoid")
        check_dtypes(self, "sigmoid", x)
        return 1.0 / (1.0 + self.xp.exp(-x))

    # ------------------------------------------------------------ reductions

    def _axes(self, x: Tensor, axis: Any, op: str) -> tuple[int, ...] | None:
        return normalize_axes(tuple(axis) if isinstance(axis, list) else axis, len(x.shape), op)

    def _sum_dtype(self, x: Tensor) -> Any:
        """The dtype `x` sums in: the core's `accumulation_type`."""
        return accumulation_type(self._dt(x))

    def _widened(self, function: str, value: Tensor, axis: Any, **kwargs: Any) -> Tensor:
        value = self._native(value, function)
        axes = self._axes(value, axis, function)
        return getattr(self.xp, function)(self._astype(value, self._sum_dtype(value)), axis=axes, **kwargs)

    @needs("sum")
    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over `axis`; bool and ints narrower than 64 bits widen to (u)int64."""
        return self._widened("sum", value, axis, keepdims=keepdims)

    @needs("prod")
    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        """Product over `axis`; bool and ints widen as for `sum`."""
        return self._widened("prod", value, axis)

    @needs("mean")
    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over `axis`; integers give the float type of the precision; of nothing NaN."""
        value = self._floats(value, "mean")
        return self.xp.mean(value, axis=self._axes(value, axis, "mean"), keepdims=keepdims)

    @needs("std")
    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation over `axis` (of no axis: 0, NaN for NaN and infinities)."""
        x = self._floats(x, "std")
        axes = self._axes(x, axis, "std")
        if axes == ():
            return self.xp.abs(x - x)
        if self._dt(x).kind is complex:  # NumPy: the root of the mean squared magnitude of the deviations, real
            xp = self.xp
            deviation = x - xp.mean(x, axis=axes, keepdims=True)
            squared = xp.real(deviation) ** 2 + xp.imag(deviation) ** 2
            return xp.sqrt(xp.mean(squared, axis=axes, keepdims=keepdims))
        return self.xp.std(x, axis=axes, keepdims=keepdims, correction=0)

    def _extreme(self, function: str, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
        x = self._native(x, function)
        axes = self._axes(x, axis, function)
        check_nonempty(function, x.shape, axes)
        if self._dt(x) is _BOOL:
            return self._astype(getattr(self.xp, function)(self._astype(x, _INT8), axis=axes, keepdims=keepdims), _BOOL)
        if self._dt(x).kind is complex:
            raise ArgumentTypeError(f"{function}: complex values have no order; take abs() or real() first")
        return getattr(self.xp, function)(x, axis=axes, keepdims=keepdims)

    @needs("max")
    def max(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Maximum over `axis`; NaN propagates.

        Raises:
            ValueError: for an empty tensor.
        """
        return self._extreme("max", x, axis, keepdims)

    @needs("min")
    def min(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Minimum over `axis`; NaN propagates.

        Raises:
            ValueError: for an empty tensor.
        """
        return self._extreme("min", x, axis, keepdims)

    def _logical(self, function: str, x: Tensor, axis: Any, keepdims: bool) -> Tensor:
        x = self._native(x, function)
        axes = self._axes(x, axis, function)
        if self._dt(x) is not _BOOL:
            x = self._astype(x, _BOOL)
        return getattr(self.xp, function)(x, axis=axes, keepdims=keepdims)

    @needs("any")
    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether any element along `axis` is true (non-zero); a bool for every input dtype."""
        return self._logical("any", boolean_tensor, axis, keepdims)

    @needs("all")
    def all(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether all elements along `axis` are true (non-zero); a bool for every input dtype."""
        return self._logical("all", boolean_tensor, axis, keepdims)

    def _arg(self, function: str, x: Tensor, axis: int | None, keepdims: bool) -> Tensor:
        x = self._native(x, function)
        xp = self.xp
        if axis is None:  # over all elements, as NumPy: the flat index
            shape = (1,) * len(x.shape) if keepdims else ()
            return xp.reshape(self._arg(function, xp.reshape(x, (-1,)), 0, False), shape)
        axis = normalize_axis(axis, len(x.shape), function)
        if self._dt(x) is _BOOL:
            x = self._astype(x, _INT8)
        if self._dt(x).kind is complex:
            raise ArgumentTypeError(f"{function}: complex values have no order; take abs() or real() first")
        result = getattr(xp, function)(x, axis=axis, keepdims=keepdims)
        if self._dt(x).kind in (float, complex):  # the first NaN wins, as in NumPy
            nan = xp.isnan(x)
            result = xp.where(xp.any(nan, axis=axis, keepdims=keepdims), xp.argmax(self._astype(nan, _INT8), axis=axis, keepdims=keepdims), result)
        return self._astype(result, DType(int, 64))

    @needs("argmax", "isnan", "where")
    def argmax(self, x: Tensor, axis: int | None, keepdims: bool = False) -> Tensor:
        """Index (int64) of the first maximum along `axis` (flat for None); of the first NaN if there is one.

        Raises:
            ValueError: for an empty axis.
        """
        return self._arg("argmax", x, axis, keepdims)

    @needs("argmin", "argmax", "isnan", "where")
    def argmin(self, x: Tensor, axis: int | None, keepdims: bool = False) -> Tensor:
        """Index (int64) of the first minimum along `axis` (flat for None); of the first NaN if there is one.

        Raises:
            ValueError: for an empty axis.
        """
        return self._arg("argmin", x, axis, keepdims)

    @needs("cumulative_sum")
    def cumsum(self, x: Tensor, axis: int) -> Tensor:
        """Cumulative sum along `axis`; bool and ints widen as for `sum`."""
        x = self._native(x, "cumsum")
        axis = normalize_axis(axis, len(x.shape), "cumsum")
        return self.xp.cumulative_sum(self._astype(x, self._sum_dtype(x)), axis=axis)

    @needs("sort", "take", "isnan", "any", "where", "floor", "minimum")
    def quantile(self, x: Tensor, quantiles: Any) -> Tensor:
        """Quantiles of the last axis by linear interpolation (NumPy's default), shaped `(quantiles, *x.shape[:-1])`
        (`bk.rules`: sort and interpolate)."""
        return quantile_rule(self, self._native(x, "quantile"), quantiles)  # type: ignore[arg-type, attr-defined]
