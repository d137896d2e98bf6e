"""Elementwise maths, operators and reductions of the NumPy backend (a mixin of `NumPyBackend`).

The binary operators, `where` and the functions of floats are bare kernels, planned (they declare
nothing, or only their fast call): NumPy's (or SciPy's) function of the operands the core's plan gives
them (tensors of the dtype the operation computes in, two of one dtype for a binary operator; Python
numbers and lists converted; booleans of `add` as int32, ints of `div` and `arctan2` as floats), the
spec's errors raised before, the core's composites around them (integer zero divisors, comparisons with
Python ints beyond a dtype's range). Most declare a fast call for the common case
(`@kernel(fast=fast_call(ufunc))`, whose dtypes the core derives from the plans). The reductions, the unary functions that keep ints and the predicates
are tuned kernels declared trusted (`@kernel(trusted=True, why=...)`), which apply the precision and
check their operands themselves (`_floats`, `_keep_ints`, `_tensor_arg`).

Floating point errors (division by zero, invalid values, overflow) are reported as NumPy's own
settings say (`numpy.seterr`, `numpy.errstate`): by default as a `RuntimeWarning`, with the IEEE
754 result (inf, NaN). Changing the error state around every call would cost more than the
operation itself on small arrays. Only `divide_no_nan`, which handles zeros by definition, is silent.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from bk import (
    ArgumentTypeError,
    DType,
    check_tensor_argument,
    explain_failure,
    get_precision,
    normalize_axes,
    reraise_as,
    to_numpy_dtype,
)
from bk.rules import SETTINGS as _GLOBALS
from bk.rules import framework_call, kernel
from bk.rules import quantile as quantile_rule

from ._dtypes import complex_dtype, float_dtype, to_precision

__all__ = ["FLOAT_FUNCTIONS", "MathMixin"]

Tensor = Any

# `_GLOBALS.precision_free` (`bk.rules.SETTINGS`) is read directly (not through `bk.get_precision()`) in the
# inline fast cases of the trusted kernels, where a Python function call costs as much as the whole operation.
_ADD_REDUCE: Final = np.add.reduce
_MAX_REDUCE: Final = np.maximum.reduce
_MIN_REDUCE: Final = np.minimum.reduce

FLOAT_FUNCTIONS: Final = frozenset((
    "sqrt", "exp", "sin", "arcsin", "cos", "arccos", "tan", "arctan", "sinh", "arcsinh", "cosh", "arccosh", "tanh", "arctanh",
    "log", "log2", "log10",
))  # fmt: skip
"""Functions of floats whose kernel is the NumPy ufunc alone: the core's plan gives it floats (ints and bools
in the default float, or the precision's), and float and complex arrays go to NumPy at once (`fast_call`)."""

# Why the tuned kernels are trusted (`bk.rules.kernel(trusted=True, why=...)`), one reason per family
# (`_standard.py` declares its kernels of the same families with them).
_KEEPS_INTS: Final = "converts its operand as as_tensor does, ints kept, floats in the precision (_keep_ints)"
_PREDICATE: Final = "refuses non-numeric operands itself (_tensor_arg); NumPy's predicate gives bools for every dtype"
_REDUCTION: Final = "checks its axes itself (bk.normalize_axes); NumPy 2 widens sums as the accumulation rule, means are floats"


def _load_fastops() -> Any:
    """bk-numpy's compiled fast calls (`_fastops`), or None to take the core's instead.

    It is built at install time where a C compiler is found (see `hatch_build.py`), and used only
    if it reads the dtype of arrays of this NumPy exactly as `array.dtype` does.
    `BK_NUMPY_PURE_PYTHON=1` turns it off.
    """
    if os.environ.get("BK_NUMPY_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from . import _fastops  # type: ignore[attr-defined]
    except ImportError:  # built without a C compiler
        return None
    samples = (
        np.empty(3, np.float32),
        np.zeros((2, 0)),
        np.arange(6).reshape(2, 3).T[::-1],
        np.empty((), ">c8"),
        np.asarray(1.0)[()] * np.ones(1),
    )
    return _fastops if all(_fastops.layout_matches(sample) for sample in samples) else None


_FASTOPS: Final = _load_fastops()
C_FAST_PATH: Final = _FASTOPS is not None
"""Whether the fast calls of the bare kernels run bk-numpy's compiled `_fastops.UfuncCall` (which reads an array's
dtype from its struct and takes a Python number on either side) rather than the core's call."""


def fast_call(ufunc: Any, arity: int = 2, weak_numbers: bool = True) -> Any:
    """The fast call (`bk.rules.kernel(fast=...)`) of a bare kernel that is `ufunc` alone: `ufunc(x)` or `ufunc(a, b)`
    of ndarrays, wherever the operation's plan would do nothing around the kernel (`bk.rules.framework_call`). No
    dtype is listed here: the core derives them from the operation's plans, dtype by dtype, on the first call that
    meets one; `weak_numbers` says NumPy 2 keeps an array's dtype beside a Python number it holds (NEP 50). Called
    by `_fastops.UfuncCall` where it is built, else by the core."""
    caller = _FASTOPS.UfuncCall if _FASTOPS is not None else None
    return framework_call(ufunc, np.ndarray, arity, weak_numbers=weak_numbers, lacking=_LACKING, caller=caller)


_LACKING: Final = (DType(float, 16, brain=True),)
"""The dtypes whose ufuncs are not the kernels' call: ml_dtypes' bfloat16 does not take a Python float weakly
(`bfloat16 array + 1.5` is float32), so the plan converts the number first."""


def _array(x: Any) -> Any:
    return x if isinstance(x, (np.ndarray, np.generic)) else np.asarray(x)


def _float_function(ufunc: Any, doc: str) -> Callable[..., Any]:
    """The kernel of one of `FLOAT_FUNCTIONS`: `ufunc(x)` of the floats the plan gives it, with the fast call
    of a float or complex array in front of the plan."""

    @kernel(fast=fast_call(ufunc, arity=1))
    def operation(self: Any, x: Tensor) -> Tensor:
        return ufunc(x)

    operation.__doc__ = doc
    operation._bk_named = True  # type: ignore[attr-defined]  # gets its catalogue name below the class
    return operation


def _floats(x: Any) -> Any:
    """`x` as floats (or complex) of the current precision; ints and bools become the float type.

    Python numbers and lists follow `as_tensor`: a Python float is the default float, not float64.
    """
    if not isinstance(x, (np.ndarray, np.generic)):
        x = np.asarray(_checked(x))
        if x.dtype.kind == "c":
            return x.astype(complex_dtype(get_precision()))
        return x.astype(float_dtype(get_precision())) if x.dtype.kind in "biuf" else x
    if x.dtype.kind in "biu":
        return x.astype(float_dtype(get_precision()))
    return to_precision(x, get_precision())


def _keep_ints(x: Any) -> Any:
    """`x` as an array; floats follow the current precision, ints and bools stay as they are.

    Python numbers and lists follow `as_tensor`: a Python float is the default float, not float64.
    """
    if not isinstance(x, (np.ndarray, np.generic)):
        return _floats(x) if _python_inexact(x) else _array(_checked(x))
    return x if x.dtype.kind in "biu" else to_precision(x, get_precision())


def _checked(x: Any) -> Any:
    """`x`, or `ArgumentTypeError` (a `TypeError`, which the callers name the operation in) for `None` and strings."""
    if x is None or isinstance(x, (str, bytes)):
        raise ArgumentTypeError(f"expected a tensor or a number, got {type(x).__name__} {x!r}")
    return x


def _python_inexact(x: Any) -> bool:
    """A Python float or complex, or a list of numbers that NumPy reads as floats or complex values."""
    if isinstance(x, (float, complex)):
        return True
    return isinstance(x, (list, tuple)) and np.asarray(x).dtype.kind in "fc"


def _named(prepare: Callable[[Any], Any], x: Any, op: str) -> Any:
    """`prepare(x)`, its `TypeError` (None, a string) raised as `ArgumentTypeError` naming `op`."""
    try:
        return prepare(x)
    except TypeError as error:
        reraise_as(ArgumentTypeError, op, error)


def _unary(function: Callable[[Any], Any], doc: str) -> Callable[..., Any]:
    """A trusted kernel of one operand that keeps ints: `function(x)`, floats in the current precision (`_keep_ints`)."""

    @kernel(trusted=True, why=_KEEPS_INTS)
    def operation(self: Any, x: Tensor) -> Tensor:
        try:
            return function(_keep_ints(x))
        except TypeError as error:  # None, strings, objects: only here, after NumPy refused
            reraise_as(ArgumentTypeError, operation.__name__, error)

    operation.__doc__ = doc
    operation._bk_named = True  # type: ignore[attr-defined]  # gets its catalogue name below the class
    return operation


def _round(x: Any) -> Any:
    return x if x.dtype.kind == "b" else np.round(x)  # NumPy rounds booleans into float16


def _bare(function: Callable[[Any], Any], doc: str) -> Callable[..., Any]:
    """A bare kernel of one operand without a fast call: `function(x)` of the floats the plan gives it."""

    def operation(self: Any, x: Tensor) -> Tensor:
        return function(x)

    operation.__doc__ = doc
    operation._bk_named = True  # type: ignore[attr-defined]  # gets its catalogue name below the class
    return operation


def _special(name: str, doc: str) -> Callable[..., Any]:
    """A bare kernel: SciPy's function `name` of the floats the plan gives it, in their dtype (SciPy computes
    float16 in float32)."""

    def operation(self: Any, x: Tensor) -> Tensor:
        from scipy import special  # imported on first use: loading the backend stays fast

        result = np.asarray(getattr(special, name)(x)).astype(x.dtype, copy=False)
        if name == "gammaln" and result.size:  # SciPy gives -inf at -inf; C99's lgamma (every framework) +inf
            result = np.where(np.isneginf(x), np.inf, result).astype(x.dtype, copy=False)
        return result

    operation.__doc__ = doc
    operation._bk_named = True  # type: ignore[attr-defined]  # gets its catalogue name below the class
    return operation


def _special2(name: str, doc: str) -> Callable[..., Any]:
    """A bare kernel of two floats: SciPy's function `name` of the operands the plan gives it (ints arrive as
    floats), in their dtype (SciPy computes float16 in float32)."""

    def operation(self: Any, a: Tensor, x: Tensor) -> Tensor:
        from scipy import special

        return np.asarray(getattr(special, name)(a, x)).astype(a.dtype, copy=False)

    operation.__doc__ = doc
    return operation


def _cast(x: Any, dtype: np.dtype[Any]) -> Any:
    if isinstance(x, np.ndarray):
        if x.dtype == dtype:
            return x
        if x.dtype.kind == "c" and dtype.kind != "c":
            x = x.real
        return x.astype(dtype)
    if hasattr(x, "dtype") and hasattr(x, "astype"):  # NumPy scalars, SciPy sparse matrices
        return x if x.dtype == dtype else x.astype(dtype)
    return np.asarray(x, dtype)


def _tensor_arg(x: Any, op: str) -> Any:
    """`x` as an array; `None`, strings and other non-numeric values raise `bk.ArgumentTypeError`."""
    if type(x) is np.ndarray:
        if x.dtype.kind in "OSU":
            raise ArgumentTypeError(f"{op}: expected a numeric tensor, got an array of {x.dtype}")
        return x
    check_tensor_argument(x, op)
    x = _floats(x) if _python_inexact(x) else _array(x)  # a Python float is the default float, as as_tensor gives it
    if x.dtype.kind in "OSU":
        raise ArgumentTypeError(f"{op}: expected a numeric tensor, got {type(x).__name__} of {x.dtype}")
    return x


def _reduction_args(value: Any, axis: Any, op: str) -> tuple[Any, Any]:
    """The array and the axes of a reduction, checked as `docs/semantics.md` says (NumPy allows axis 0 of a 0-d array; bk does not)."""
    value = _tensor_arg(value, op)
    if axis is None:
        return value, None
    if type(axis) is int and -value.ndim <= axis < value.ndim:  # the common case, without a function call
        return value, axis
    return value, normalize_axes(axis, value.ndim, op)


class MathMixin:
    """Elementwise maths, operators and reductions through NumPy ufuncs and `scipy.special`."""

    # ------------------------------------------------------------ arithmetic operators (bare kernels, planned)

    @kernel(fast=fast_call(np.add))
    def add(self, a: Tensor, b: Tensor) -> Tensor:
        """`a + b` of the plan's operands (booleans arrive as int32)."""
        return np.add(a, b)

    @kernel(fast=fast_call(np.subtract))
    def sub(self, a: Tensor, b: Tensor) -> Tensor:
        """`a - b` of the plan's operands (booleans arrive as int32)."""
        return np.subtract(a, b)

    @kernel(fast=fast_call(np.multiply))
    def mul(self, a: Tensor, b: Tensor) -> Tensor:
        """`a * b` of the plan's operands."""
        return np.multiply(a, b)

    @kernel(fast=fast_call(np.true_divide))
    def div(self, numerator: Tensor, denominator: Tensor) -> Tensor:
        """`numerator / denominator` of the plan's operands (integers arrive as the float type of the precision)."""
        return np.true_divide(numerator, denominator)

    def pow(self, base: Tensor, exp: Tensor) -> Tensor:
        """`base ** exp` of the plan's operands (the core checks integer powers)."""
        return np.power(base, exp)

    def mod(self, dividend: Tensor, divisor: Tensor) -> Tensor:
        """`dividend % divisor` with the sign of the divisor (the core answers integer zero divisors)."""
        return np.mod(dividend, divisor)

    def floordiv(self, a: Tensor, b: Tensor) -> Tensor:
        """`a // b` (the core answers integer zero divisors)."""
        return np.floor_divide(a, b)

    def and_(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a & b`."""
        return np.bitwise_and(a, b)

    def or_(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a | b`."""
        return np.bitwise_or(a, b)

    def xor(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a ^ b`."""
        return np.bitwise_xor(a, b)

    @kernel(fast=fast_call(np.left_shift))
    def shift_bits_left(self, a: Tensor, b: Tensor) -> Tensor:
        """`a << b`."""
        return np.left_shift(a, b)

    @kernel(fast=fast_call(np.right_shift))
    def shift_bits_right(self, a: Tensor, b: Tensor) -> Tensor:
        """`a >> b`."""
        return np.right_shift(a, b)

    @kernel(
        trusted=True,
        why="NumPy's bitwise not keeps bool and int dtypes; the float operands it refuses raise bk.ArgumentTypeError here",
    )
    def invert(self, x: Tensor) -> Tensor:
        """Logical not for booleans, bitwise not for integers.

        Raises:
            ArgumentTypeError: for float or complex values, which have no bits to invert.
        """
        try:
            return np.invert(_array(x))
        except TypeError as error:
            reraise_as(ArgumentTypeError, "invert", error)

    # ------------------------------------------------------------ comparisons (bare kernels, planned)

    @kernel(fast=fast_call(np.equal))
    def equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x == y` (the core compares with Python ints beyond the dtype's range)."""
        return np.equal(x, y)

    @kernel(fast=fast_call(np.not_equal))
    def not_equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x != y`."""
        return np.not_equal(x, y)

    @kernel(fast=fast_call(np.greater))
    def greater_than(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x > y`."""
        return np.greater(x, y)

    @kernel(fast=fast_call(np.greater_equal))
    def greater_or_equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x >= y`."""
        return np.greater_equal(x, y)

    @kernel(fast=fast_call(np.maximum))
    def maximum(self, a: Tensor, b: Tensor) -> Tensor:
        """Elementwise maximum; NaN propagates."""
        return np.maximum(a, b)

    @kernel(fast=fast_call(np.minimum))
    def minimum(self, a: Tensor, b: Tensor) -> Tensor:
        """Elementwise minimum; NaN propagates."""
        return np.minimum(a, b)

    def arctan2(self, y: Tensor, x: Tensor) -> Tensor:
        """The angle of the point `(x, y)` (integers arrive as floats)."""
        return np.arctan2(y, x)

    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, and 0 where `y` is 0 (also for 0 / 0), of the plan's operands (integers arrive as floats)."""
        shape = x.shape if x.shape == y.shape else np.broadcast_shapes(x.shape, y.shape)
        return np.divide(x, y, out=np.zeros(shape, x.dtype), where=y != 0)  # divides only where y != 0: no warnings to silence

    @kernel(fast=fast_call(np.where, arity=3))
    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` holds, else `y` (of the dtype the plan gives both); without `x` and `y` the
        `(nnz, ndims)` indices of true elements."""
        if x is None and y is None:
            return np.argwhere(condition)
        return np.where(condition, x, y)

    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """`numpy.clip` of `x` and the bounds the core's rule prepared (`bk.rules.clip`, run by the plan around this
        kernel: one dtype, number bounds within it)."""
        return np.clip(_keep_ints(x), minimum, maximum)

    # ------------------------------------------------------------ unary functions

    abs = _unary(np.abs, "Absolute value (magnitude for complex values).")
    sign = _unary(np.sign, "-1, 0 or 1 by the sign of `x`.")
    round = _unary(_round, "Rounds to the nearest integer, halves to even; booleans and integers stay as they are.")
    ceil = _unary(np.ceil, "Smallest integer not below `x`.")
    floor = _unary(np.floor, "Largest integer not above `x`.")
    sqrt = _float_function(np.sqrt, "Square root.")
    exp = _float_function(np.exp, "Natural exponential.")
    sin = _float_function(np.sin, "Sine.")
    arcsin = _float_function(np.arcsin, "Inverse sine.")
    cos = _float_function(np.cos, "Cosine.")
    arccos = _float_function(np.arccos, "Inverse cosine.")
    tan = _float_function(np.tan, "Tangent.")
    arctan = _float_function(np.arctan, "Inverse tangent.")
    sinh = _float_function(np.sinh, "Hyperbolic sine.")
    arcsinh = _float_function(np.arcsinh, "Inverse hyperbolic sine.")
    cosh = _float_function(np.cosh, "Hyperbolic cosine.")
    arccosh = _float_function(np.arccosh, "Inverse hyperbolic cosine.")
    tanh = _float_function(np.tanh, "Hyperbolic tangent.")
    arctanh = _float_function(np.arctanh, "Inverse hyperbolic tangent.")
    log = _float_function(np.log, "Natural logarithm.")
    log2 = _float_function(np.log2, "Base-2 logarithm.")
    log10 = _float_function(np.log10, "Base-10 logarithm.")
    sigmoid = _bare(lambda x: np.exp(-np.logaddexp(np.zeros((), x.dtype), -x)), "`1 / (1 + exp(-x))`, without overflow.")
    softplus = _bare(lambda x: np.logaddexp(np.zeros((), x.dtype), x), "`log(1 + exp(x))`, computed without overflow.")
    erf = _special("erf", "The error function (`scipy.special.erf`).")
    log_gamma = _special("gammaln", "Natural logarithm of the absolute value of the gamma function, as floats.")
    gamma_inc_l = _special2("gammainc", "Regularized lower incomplete gamma function P(a, x).")
    gamma_inc_u = _special2("gammaincc", "Regularized upper incomplete gamma function Q(a, x).")

    @kernel(trusted=True, why=_PREDICATE)
    def isfinite(self, x: Tensor) -> Tensor:
        """True where `x` is neither infinite nor NaN."""
        return np.isfinite(_tensor_arg(x, "isfinite"))

    @kernel(trusted=True, why=_PREDICATE)
    def isnan(self, x: Tensor) -> Tensor:
        """True where `x` is NaN."""
        return np.isnan(_tensor_arg(x, "isnan"))

    @kernel(trusted=True, why=_PREDICATE)
    def isinf(self, x: Tensor) -> Tensor:
        """True where `x` is infinite."""
        return np.isinf(_tensor_arg(x, "isinf"))

    @kernel(trusted=True, why=_KEEPS_INTS)
    def real(self, x: Tensor) -> Tensor:
        """Real part."""
        return np.real(_named(_keep_ints, x, "real"))

    @kernel(trusted=True, why=_KEEPS_INTS)
    def imag(self, x: Tensor) -> Tensor:
        """Imaginary part (zeros of the same type for real values)."""
        x = _named(_keep_ints, x, "imag")
        return np.imag(x) if x.dtype.kind == "c" else np.zeros_like(x)

    @kernel(trusted=True, why=_KEEPS_INTS)
    def conj(self, x: Tensor) -> Tensor:
        """Complex conjugate; real values (bools too, as the spec says) are returned as they are."""
        x = _named(_keep_ints, x, "conj")
        return np.conjugate(x) if x.dtype.kind == "c" else x

    # ------------------------------------------------------------ reductions

    @kernel(trusted=True, why=_REDUCTION)
    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over `axis` (an int, a tuple, or None for all); bool and narrow ints widen to 64 bits, as in NumPy 2."""
        if axis is None and type(value) is np.ndarray and value.dtype.kind in "fc" and _GLOBALS.precision_free:
            return _ADD_REDUCE(value, None, None, None, keepdims)  # what np.sum runs, without its Python layers
        if isinstance(value, (list, tuple)) and axis == 0:
            value = np.stack([_array(v) for v in value])
        value, axis = _reduction_args(value, axis, "sum")
        return np.sum(_keep_ints(value), axis=axis, keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        """Product over `axis`; bool and narrow ints widen to 64 bits, as in NumPy 2."""
        value, axis = _reduction_args(value, axis, "prod")
        return np.prod(_keep_ints(value), axis=axis)

    @kernel(trusted=True, explains=True, why=_REDUCTION)
    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over `axis`, as floats (NaN for no elements)."""
        try:
            if (
                type(value) is np.ndarray
                and value.dtype.kind in "fc"
                and _GLOBALS.precision_free
                and (axis is None or (type(axis) is int and -value.ndim <= axis < value.ndim))
                and keepdims.__class__ is bool
            ):
                # floats: what `_floats` gives; the method skips numpy.mean's Python layer
                return value.mean(axis, None, None, keepdims)
            if keepdims.__class__ is not bool:
                # NumPy takes 1 as true: the spec's verdict (no wrapper checks a kernel that explains its failures)
                raise TypeError("keepdims")
            value, axis = _reduction_args(value, axis, "mean")
            return np.mean(_floats(value), axis=axis, keepdims=keepdims)
        except (ValueError, TypeError, IndexError) as error:  # mapped here: a trusted kernel that explains its failures
            explain_failure(self, "mean", error, (value, axis, keepdims), {})

    @kernel(trusted=True, why=_REDUCTION)
    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation over `axis`, as floats."""
        x, axis = _reduction_args(x, axis, "std")
        x = _floats(x)
        if x.dtype.itemsize == 2 and x.dtype.kind in "fV":  # float16, bfloat16: accumulated in float32 (squares overflow)
            return np.std(x, axis=axis, keepdims=keepdims, dtype=np.float32).astype(x.dtype)
        return np.std(x, axis=axis, keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def max(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Maximum over `axis`; NaN propagates; `ValueError` for no elements."""
        if axis is None and type(x) is np.ndarray and x.dtype.kind in "fc" and x.size and _GLOBALS.precision_free:
            return _MAX_REDUCE(x, None, None, None, keepdims)  # what np.max runs, without its Python layers
        x, axis = _reduction_args(x, axis, "max")
        return np.max(_keep_ints(x), axis=axis, keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def min(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Minimum over `axis`; NaN propagates; `ValueError` for no elements."""
        if axis is None and type(x) is np.ndarray and x.dtype.kind in "fc" and x.size and _GLOBALS.precision_free:
            return _MIN_REDUCE(x, None, None, None, keepdims)  # what np.min runs, without its Python layers
        x, axis = _reduction_args(x, axis, "min")
        return np.min(_keep_ints(x), axis=axis, keepdims=keepdims)

    @kernel(trusted=True, why=_REDUCTION)
    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether any element along `axis` is true."""
        x, axis = _reduction_args(boolean_tensor, axis, "any")
        return x.any(axis=axis, keepdims=keepdims)  # the method: no Python dispatch layer

    @kernel(trusted=True, why=_REDUCTION)
    def all(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether all elements along `axis` are true."""
        x, axis = _reduction_args(boolean_tensor, axis, "all")
        return x.all(axis=axis, keepdims=keepdims)

    def argmax(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        """Index (int64) of the first maximum along `axis` (flat for `None`); the first NaN wins."""
        x = _tensor_arg(x, "argmax")
        return np.argmax(x, axis=axis, keepdims=keepdims)

    def argmin(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        """Index (int64) of the first minimum along `axis` (flat for `None`); the first NaN wins."""
        x = _tensor_arg(x, "argmin")
        return np.argmin(x, axis=axis, keepdims=keepdims)

    def cumsum(self, x: Tensor, axis: int) -> Tensor:
        """Cumulative sum along `axis`; bool and narrow ints widen to 64 bits, as `sum`."""
        return np.cumsum(_keep_ints(_tensor_arg(x, "cumsum")), axis=axis)

    def quantile(self, x: Tensor, quantiles: Any) -> Tensor:
        """Quantiles (linear interpolation) of the last axis, shaped `(quantiles, *x.shape[:-1])` (`bk.rules`)."""
        return quantile_rule(self, _floats(x), quantiles, lambda values, q: np.quantile(values, q, axis=-1))

    # ------------------------------------------------------------ precision-aware conversions

    def to_float(self, x: Tensor) -> Tensor:
        """`x` as floats of the current precision; floats keep theirs when the precision is `None`."""
        x = _named(_keep_ints, x, "to_float")
        if x.dtype.name == "bfloat16":  # NumPy kind 'V': to_precision does not see it as a float
            precision = get_precision()
            return x if precision is None else x.astype(float_dtype(precision))
        if x.dtype.kind == "f":
            return to_precision(x, get_precision())
        if x.dtype.kind == "c":  # the real part, as cast does (astype alone warns with ComplexWarning)
            x = x.real
        return x.astype(float_dtype(get_precision()))

    def to_complex(self, x: Tensor) -> Tensor:
        """`x` as complex values; complex keeps its precision when the precision is `None`."""
        x = _tensor_arg(x, "to_complex")
        precision = get_precision()
        if x.dtype.kind == "c":
            return to_precision(x, precision)
        if x.dtype.kind == "f" and precision is None:
            return x.astype(complex_dtype(x.dtype.itemsize * 8))
        return x.astype(complex_dtype(precision))

    def to_int32(self, x: Tensor) -> Tensor:
        """`x` as int32 (complex values lose their imaginary part)."""
        return _cast(_tensor_arg(x, "to_int32"), to_numpy_dtype(DType(int, 32)))

    def to_int64(self, x: Tensor) -> Tensor:
        """`x` as int64."""
        return _cast(_tensor_arg(x, "to_int64"), to_numpy_dtype(DType(int, 64)))


for _name, _value in list(vars(MathMixin).items()):
    if getattr(_value, "_bk_named", False):  # made by a factory above: named as a method, so it pickles by reference
        _value.__name__, _value.__qualname__ = _name, f"MathMixin.{_name}"
