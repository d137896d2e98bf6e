"""Elementwise maths, operators and reductions (a mixin of `ArrayAPIBackend`).

The elementwise kernels and the reductions other than `any` and `all` are bare calls of the standard's
functions, planned (they declare nothing but a fast call): the core's plan gives them what those functions
take (operands of one dtype, in the dtype the operation computes in: bools added as int32, ints divided as
floats, small ints summed as int64, ...; Python numbers as arrays), raises the spec's errors before and casts
their results to the spec's dtype. Each namespace's class calls its own function at once wherever that plan
would do nothing around it (`namespace_kernels`: `@bk.rules.kernel(fast=bk.rules.framework_call(...))`, in C; the
core derives those dtypes from the specs and rules on the first call). `real`, `imag`, `any` and `all` convert
their operands themselves and are declared trusted (`@bk.rules.kernel(trusted=True, why=...)`).

What the standard leaves out stays here, as framework work: shift counts beyond the bit width, `nextafter`
of equal values, `signbit` of integers and booleans. Its functions of numbers only are declared once
(`ArrayAPIBackend.lacking_kernels`: booleans computed as int8), and so is its order of real values
only (`ArrayAPIBackend.complex_unordered`: the core orders complex values as NumPy).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final

from bk import DType, normalize_axes, normalize_axis
from bk.rules import check_nonempty, framework_call, kernel, limit
from bk.rules import quantile as quantile_rule

from ._needs import needs

__all__ = ["MathMixin", "namespace_kernels"]

Tensor = Any

_INT8: Final = DType(int, 8)
_BOOL: Final = DType(bool)

_UNARY: Final = {  # bk operation: the standard's function
    "sqrt": "sqrt", "exp": "exp", "sin": "sin", "arcsin": "asin", "cos": "cos", "arccos": "acos", "tan": "tan",
    "arctan": "atan", "sinh": "sinh", "arcsinh": "asinh", "cosh": "cosh", "arccosh": "acosh", "tanh": "tanh",
    "arctanh": "atanh", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p", "expm1": "expm1",
    "abs": "abs", "sign": "sign", "round": "round", "ceil": "ceil", "floor": "floor", "isfinite": "isfinite",
    "isnan": "isnan", "isinf": "isinf", "conj": "conj", "invert": "bitwise_invert",
}  # fmt: skip
_BINARY: Final = {  # bk operation: the standard's function
    "add": "add", "sub": "subtract", "mul": "multiply", "div": "divide", "mod": "remainder", "floordiv": "floor_divide",
    "pow": "pow", "and_": "bitwise_and", "or_": "bitwise_or", "xor": "bitwise_xor", "maximum": "maximum",
    "minimum": "minimum", "equal": "equal", "not_equal": "not_equal", "greater_than": "greater",
    "greater_or_equal": "greater_equal", "arctan2": "atan2", "hypot": "hypot", "logaddexp": "logaddexp",
    "copysign": "copysign",
}  # fmt: skip
_SCALARS_IN_FUNCTIONS: Final = "2024.12"
"""The first version of the standard whose elementwise functions take a Python scalar beside an array, as an
array of the array's dtype (for a scalar of a kind that dtype holds; gh-862 of data-apis/array-api)."""

_REDUCTION: Final = (
    "converts its operand (_native) and checks its axes itself; other dtypes are cast to bool first, as the spec says"
)
_PART: Final = "converts its operand itself (_native) and answers real operands itself (real: as they are, imag: zeros)"


def _bare(op: str, function: str, arity: int) -> Callable[..., Any]:
    """The kernel of `op`: the standard's `function` of the operands the plan gives it."""
    if arity == 1:

        def operation(self: Any, x: Tensor) -> Tensor:
            return getattr(self.xp, function)(x)

    else:

        def operation(self: Any, a: Tensor, b: Tensor) -> Tensor:  # type: ignore[misc]
            return getattr(self.xp, function)(a, b)

    operation.__name__ = operation.__qualname__ = op
    operation.__doc__ = f"The standard's `{function}` (the core's plan gives it operands of one dtype)."
    return needs(function)(operation)


def namespace_kernels(xp: Any) -> dict[str, Callable[..., Any]]:
    """The kernels of `_UNARY` and `_BINARY` for one namespace `xp`: its function called directly, planned, with
    a fast call (`bk.rules.kernel(fast=bk.rules.framework_call(...))`) for the arrays (of this namespace's own
    array type) where the plan would do nothing around the function, which the core derives on the first call
    from the operation's spec and rules and the backend's declarations (`lacking_kernels`, `complex_unordered`);
    the plan serves every other call. A Python number beside an array takes the fast call only where the
    namespace implements a standard whose functions take one (`_SCALARS_IN_FUNCTIONS`): an earlier namespace
    may refuse it."""
    array = type(xp.asarray(0))
    weak_numbers = str(getattr(xp, "__array_api_version__", "")) >= _SCALARS_IN_FUNCTIONS
    kernels: dict[str, Callable[..., Any]] = {}
    for arity, functions in ((1, _UNARY), (2, _BINARY)):
        for op, function in functions.items():
            call = getattr(xp, function, None)
            if call is None:
                continue  # the namespace lacks it: the operation stays unsupported (`needs`)
            direct = functools.update_wrapper(_direct(call, arity), _bare(op, function, arity))
            kernels[op] = kernel(fast=framework_call(call, array, arity, weak_numbers=weak_numbers))(direct)
    return kernels


def _direct(call: Callable[..., Any], arity: int) -> Callable[..., Any]:
    """A kernel that is `call` of its operands (`call` being a namespace's own function)."""
    if arity == 1:
        return lambda self, x: call(x)
    return lambda self, a, b: call(a, b)


def _shift(op: str, function: str, doc: str) -> Callable[..., Any]:
    """A bit shift of integers as NumPy's: counts outside `[0, bits)` shift everything out (0, or -1 for
    negative values shifted right), which the standard leaves undefined."""
    right = function == "bitwise_right_shift"

    def operation(self: Any, a: Tensor, b: Tensor) -> Tensor:
        xp = self.xp
        dtype = self._dt(a)
        bits = dtype.bits
        inside = (b >= 0) & (b < bits) if dtype.signed else b < bits
        if right and dtype.signed:  # a shift by bits - 1 gives what NumPy gives for any count outside
            return getattr(xp, function)(a, xp.where(inside, b, xp.full_like(b, bits - 1)))
        shifted = getattr(xp, function)(a, xp.where(inside, b, xp.zeros_like(b)))
        return xp.where(inside, shifted, xp.zeros_like(shifted))

    operation.__name__ = op
    operation.__doc__ = doc
    return needs(function, "where", "full_like", "zeros_like")(operation)


def _with_bare_kernels(cls: type) -> type:
    """`cls` with the kernels of `_UNARY` and `_BINARY` (`_bare`)."""
    for op, function in _UNARY.items():
        setattr(cls, op, _bare(op, function, 1))
    for op, function in _BINARY.items():
        setattr(cls, op, _bare(op, function, 2))
    return cls


@_with_bare_kernels
class MathMixin:
    """Elementwise functions, operators and reductions through the standard's functions."""

    xp: Any
    _array_type: type

    # ------------------------------------------------------------ elementwise (besides the bare calls of `_UNARY` and `_BINARY`)

    shift_bits_left = _shift("shift_bits_left", "bitwise_left_shift", "`a << b`; counts outside `[0, bits)` give 0, as NumPy.")
    shift_bits_right = _shift(
        "shift_bits_right",
        "bitwise_right_shift",
        "`a >> b`; counts outside `[0, bits)` give 0, or -1 for negative `a`, as NumPy.",
    )

    @needs("nextafter", "where", "equal")
    def nextafter(self, x1: Tensor, x2: Tensor) -> Tensor:
        """The next float after `x1` toward `x2`; `x2` where they are equal, as the standard says (NumPy's
        float16 loop gives `x1`, so `(0.0, -0.0)` gave 0.0)."""
        xp = self.xp
        return xp.where(xp.equal(x1, x2), x2, xp.nextafter(x1, x2))

    @needs("where", "equal", "divide")
    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, and 0 where `y` is 0 (without a division by zero)."""
        xp = self.xp
        zero = xp.equal(y, xp.zeros_like(y))
        return xp.where(zero, xp.zeros_like(x), xp.divide(x, xp.where(zero, xp.ones_like(y), y)))

    @needs("logaddexp")
    def softplus(self, x: Tensor) -> Tensor:
        """`log(1 + exp(x))`, computed without overflow as `logaddexp(0, x)`."""
        return self.xp.logaddexp(self.xp.zeros_like(x), x)

    @needs("exp")
    def sigmoid(self, x: Tensor) -> Tensor:
        """`1 / (1 + exp(-x))`."""
        return 1.0 / (1.0 + self.xp.exp(-x))

    @needs("signbit", "zeros_like")
    def signbit(self, x: Tensor) -> Tensor:
        """The standard's `signbit` of floats (also -0.0 and NaN); it takes no integers (`x < 0`) nor
        booleans (false)."""
        kind = self._dt(x).kind
        if kind is bool:
            return self.xp.zeros_like(x)
        return self.xp.signbit(x) if kind is float else x < 0

    @needs("where")
    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` holds, else `y`: the plan gives both in their common dtype (a Python int beyond
        an integer branch wrapped, as `numpy.where`); without `x` and `y` the indices of true elements (as `nonzero`)."""
        condition = self._native(condition, "where")
        if self._dt(condition) is not _BOOL:
            condition = self._astype(condition, _BOOL)
        if x is None and y is None:
            return self.nonzero(condition)  # type: ignore[attr-defined]
        return self.xp.where(condition, x, y)

    @needs("maximum", "minimum")
    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """The backend's `maximum` then `minimum` (`bk.rules.limit`) of `x` and the bounds the core's rule prepared
        (`bk.rules.clip`, run by the plan around this kernel: one dtype, number bounds within it)."""
        return limit(self, self._native(x, "clip"), minimum, maximum)

    # ------------------------------------------------------------ elementwise: real and imaginary parts

    @kernel(trusted=True, why=_PART)
    @needs("real")
    def real(self, x: Tensor) -> Tensor:
        """Real part (real inputs are returned as they are)."""
        x = self._native(x, "real")
        return self.xp.real(x) if self._dt(x).kind is complex else x

    @kernel(trusted=True, why=_PART)
    @needs("imag", "zeros_like")
    def imag(self, x: Tensor) -> Tensor:
        """Imaginary part (zeros for real values)."""
        x = self._native(x, "imag")
        return self.xp.imag(x) if self._dt(x).kind is complex else self.xp.zeros_like(x)

    # ------------------------------------------------------------ reductions

    def _axes(self, x: Tensor, axis: Any, op: str) -> tuple[int, ...] | None:
        return normalize_axes(tuple(axis) if isinstance(axis, list) else axis, len(x.shape), op)

    @needs("sum")
    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over `axis` (the plan widens bools and ints narrower than 64 bits to (u)int64 first)."""
        value = self._native(value, "sum")
        return self.xp.sum(value, axis=self._axes(value, axis, "sum"), keepdims=keepdims)

    @needs("prod")
    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        """Product over `axis` (bools and ints widened as for `sum`)."""
        value = self._native(value, "prod")
        return self.xp.prod(value, axis=self._axes(value, axis, "prod"))

    @needs("mean")
    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over `axis` (the plan gives integers as floats); of nothing NaN."""
        value = self._native(value, "mean")
        return self.xp.mean(value, axis=self._axes(value, axis, "mean"), keepdims=keepdims)

    @needs("std")
    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation over `axis` (the plan gives integers as floats); of complex values
        real, as NumPy's, where the standard's `std` takes real floats only."""
        x = self._native(x, "std")
        axes = self._axes(x, axis, "std")
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

    @kernel(trusted=True, why=_REDUCTION)
    @needs("any")
    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether any element along `axis` is true (non-zero); a bool for every input dtype."""
        return self._logical("any", boolean_tensor, axis, keepdims)

    @kernel(trusted=True, why=_REDUCTION)
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
        result = getattr(xp, function)(x, axis=axis, keepdims=keepdims)
        if self._dt(x).kind is float:  # the first NaN wins, as in NumPy
            nan = xp.isnan(x)
            result = xp.where(
                xp.any(nan, axis=axis, keepdims=keepdims),
                xp.argmax(self._astype(nan, _INT8), axis=axis, keepdims=keepdims),
                result,
            )
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
        """Cumulative sum along `axis` (bools and ints widened as for `sum`)."""
        x = self._native(x, "cumsum")
        return self.xp.cumulative_sum(x, axis=normalize_axis(axis, len(x.shape), "cumsum"))

    @needs("sort", "take", "isnan", "any", "where", "floor", "minimum")
    def quantile(self, x: Tensor, quantiles: Any) -> Tensor:
        """Quantiles of the last axis by linear interpolation (NumPy's default), shaped `(quantiles, *x.shape[:-1])`
        (`bk.rules`: sort and interpolate)."""
        return quantile_rule(self, self._native(x, "quantile"), quantiles)  # type: ignore[arg-type, attr-defined]
