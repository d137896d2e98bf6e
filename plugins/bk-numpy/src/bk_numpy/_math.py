"""Elementwise maths, operators and reductions of the NumPy backend (a mixin of `NumPyBackend`).

Floating point errors (division by zero, invalid values, overflow) are reported as NumPy's own
settings say (`numpy.seterr`, `numpy.errstate`): by default as a `RuntimeWarning`, with the IEEE
754 result (inf, NaN). Changing the error state around every call would cost more than the
operation itself on small arrays. Only `divide_no_nan`, which handles zeros by definition, is silent.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from typing import Any, Final, NoReturn

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
from bk.rules import clip as clip_rule
from bk.rules import explains_failures, spec_verdict
from bk.rules import quantile as quantile_rule

from ._dtypes import FAST_DTYPES, binary_dtype, complex_dtype, float_dtype, to_precision
from ._errors import reraise

__all__ = ["MathMixin"]

Tensor = Any

# `_GLOBALS.precision_free` (`bk.rules.SETTINGS`) is read directly (not through `bk.get_precision()`) in the fast paths of
# the arithmetic operators, where a Python function call costs as much as the whole operation.
_IGNORE: Final = {"all": "ignore"}
_ADD_REDUCE: Final = np.add.reduce
_MAX_REDUCE: Final = np.maximum.reduce
_MIN_REDUCE: Final = np.minimum.reduce
_BOOL: Final = np.dtype(bool)
# The dtypes of the C fast path, most common first: every numeric dtype but bool (which `add` and
# `sub` compute as int32), by identity, so both of NumPy's int64 objects ('l' and 'q') are listed.
_NUMERIC: Final = tuple({id(d): d for d in map(np.dtype, "fdiqlefFDbhBHILQ") if d in FAST_DTYPES}.values())
_BINARY_SIGNATURE: Final = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in ("self", "a", "b")])
_DIV_SIGNATURE: Final = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in ("self", "numerator", "denominator")])


def _load_fast_path() -> Any:
    """The C fast path of `add`, `sub`, `mul` and `div` (`_fastops`), or None to run them in Python.

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
    samples = (np.empty(3, np.float32), np.zeros((2, 0)), np.arange(6).reshape(2, 3).T[::-1], np.empty((), ">c8"), np.asarray(1.0)[()] * np.ones(1))
    return _fastops if all(_fastops.layout_matches(sample) for sample in samples) else None


_FASTOPS: Final = _load_fast_path()
C_FAST_PATH: Final = _FASTOPS is not None
"""Whether `add`, `sub`, `mul` and `div` run their common case (two arrays of one numeric dtype) in C."""


def _accelerated(method: Callable[..., Any], ufunc: Any, dtypes: tuple[np.dtype[Any], ...], int_scalars: str = "fcui") -> Any:
    """`method` behind the C fast path: `ufunc(a, b)` for two ndarrays of one of `dtypes` and no precision set,
    and for an ndarray and a Python number that joins its dtype weakly (NEP 50, as bk's rules say):
    a Python float beside a float or complex array, a Python int beside an array of a kind in `int_scalars`.

    The fast path returns what `method` returns for those calls; all others go to `method`.
    """
    if _FASTOPS is None:
        return method
    float_scalars = tuple(d for d in dtypes if d.kind in "fc")
    ints = tuple(d for d in dtypes if d.kind in int_scalars)
    fast = _FASTOPS.BinaryOperator(ufunc, method, _GLOBALS, np.ndarray, dtypes, float_scalars, ints)
    fast.__name__, fast.__qualname__, fast.__doc__, fast.__module__ = method.__name__, method.__qualname__, method.__doc__, method.__module__
    fast._bk_named = True  # the loop below the class names it; its Python method keeps its name
    return fast


def _fast_where(method: Callable[..., Any]) -> Any:
    """`where` behind the C fast path: `numpy.where(condition, x, y)` for three ndarrays, `x` and `y` of one
    dtype, while no precision is set (the first branch of `method`); all other calls go to `method`."""
    if _FASTOPS is None:
        return method
    fast = _FASTOPS.BinaryOperator(np.where, method, _GLOBALS, np.ndarray, (*_NUMERIC, _BOOL), ternary=True)
    fast.__name__, fast.__qualname__, fast.__doc__, fast.__module__ = method.__name__, method.__qualname__, method.__doc__, method.__module__
    fast.__bk_explains__ = True  # maps its own failures (through `method`), as `method` does
    return fast


def _array(x: Any) -> Any:
    return x if isinstance(x, (np.ndarray, np.generic)) else np.asarray(x)


def _arithmetic(ufunc: Any, doc: str, bool_to_int: bool = False) -> Callable[..., Any]:
    """A binary operator with a fast path for two arrays of one dtype under the default precision.

    For such operands `_binary` would call the ufunc on them unchanged, except for booleans
    (which `add` and `sub` compute as int32). The check is inlined in the returned function
    because it runs on every call: a helper call would cost as much as a ufunc on small arrays.
    """
    # Names bound as defaults are fast locals: cheaper than closure cells on every call.
    def operation(self: Any, a: Tensor, b: Tensor, ufunc: Any = ufunc, settings: Any = _GLOBALS, boolean: Any = _BOOL) -> Tensor:
        try:
            dtype = a.dtype
            if dtype is b.dtype and settings.precision_free and dtype is not boolean:
                return ufunc(a, b)
        except AttributeError:  # Python numbers and lists
            pass
        except ValueError as error:  # free until raised: translated only here, at the boundary
            _reraise(ufunc, error, a, b)
        return _binary(ufunc, a, b, bool_to_int=bool_to_int)

    operation.__doc__ = doc
    operation.__name__ = operation.__qualname__ = _NAMES[ufunc]
    operation.__signature__ = _BINARY_SIGNATURE  # type: ignore[attr-defined]  # hide the bound defaults
    operation._bk_named = True  # type: ignore[attr-defined]
    return _accelerated(operation, ufunc, _NUMERIC)


def _division(ufunc: Any, doc: str) -> Callable[..., Any]:
    """True division with the fast path of `_arithmetic` for float and complex operands only."""
    inexact = frozenset(d for d in FAST_DTYPES if d.kind in "fc")
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)  # identity checks first: cheaper than hashing

    def div(
        self: Any, numerator: Tensor, denominator: Tensor, ufunc: Any = ufunc, settings: Any = _GLOBALS, inexact: Any = inexact, f32: Any = f32, f64: Any = f64
    ) -> Tensor:
        try:
            dtype = numerator.dtype
            if dtype is denominator.dtype and settings.precision_free and (dtype is f32 or dtype is f64 or dtype in inexact):
                return ufunc(numerator, denominator)
        except AttributeError:  # Python numbers and lists
            pass
        except ValueError as error:
            _reraise(ufunc, error, numerator, denominator)
        return _binary(ufunc, numerator, denominator, int_to_float=True)

    div.__doc__ = doc
    div.__signature__ = _DIV_SIGNATURE  # type: ignore[attr-defined]
    div._bk_named = True  # type: ignore[attr-defined]
    return _accelerated(div, ufunc, tuple(d for d in _NUMERIC if d.kind in "fc"), int_scalars="fc")  # int / int: bk's default float


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


def _unary(function: Callable[[Any], Any], doc: str, prepare: Callable[[Any], Any] = _floats) -> Callable[..., Any]:
    def operation(self: Any, x: Tensor) -> Tensor:
        try:
            return function(prepare(x))
        except TypeError as error:  # None, strings, objects: only here, after NumPy refused
            reraise_as(ArgumentTypeError, operation.__name__, error)

    operation.__doc__ = doc
    operation._bk_named = True  # type: ignore[attr-defined]  # gets its catalogue name below the class
    if _FASTOPS is None or prepare is not _floats or not isinstance(function, np.ufunc):
        return operation
    # The C fast path: `function(x)` for an ndarray of a float or complex dtype while no precision is
    # set, which `_floats` returns unchanged; everything else goes to `operation`.
    fast = _FASTOPS.BinaryOperator(function, operation, _GLOBALS, np.ndarray, tuple(d for d in _NUMERIC if d.kind in "fc"), unary=True)
    fast.__doc__, fast.__module__ = doc, operation.__module__
    fast._bk_named = True
    return fast


def _where(condition: Any, x: Any, y: Any) -> Any:
    if x is None and y is None:
        return np.argwhere(condition)
    if x is None or y is None:  # the spec's error (NumPy itself would make an object array)
        raise spec_verdict(None, "where", (condition, x, y), {})  # type: ignore[misc]
    if type(condition) is not np.ndarray:
        condition = _tensor_arg(condition, "where")
    if _same_dtype_arrays(x, y):
        return np.where(condition, x, y)
    dtype = binary_dtype(x, y)
    x, y = _operands(x, y, dtype)
    return np.where(condition, x, y)


def _weak_float_beside(array: Any, scalar: Any) -> bool:
    """Whether `scalar` is a Python float and `array` an ndarray of a float or complex dtype (which it joins weakly)."""
    return type(scalar) is float and type(array) is np.ndarray and array.dtype.kind in "fc"


def _round(x: Any) -> Any:
    return x if x.dtype.kind == "b" else np.round(x)  # NumPy rounds booleans into float16


def _special(name: str, doc: str) -> Callable[..., Any]:
    def operation(self: Any, x: Tensor) -> Tensor:
        from scipy import special  # imported on first use: loading the backend stays fast

        x = _floats(x)
        try:
            result = np.asarray(getattr(special, name)(x)).astype(x.dtype, copy=False)
            if name == "gammaln" and result.size and x.dtype.kind != "c":  # SciPy gives -inf at -inf; C99's lgamma (every framework) +inf
                result = np.where(np.isneginf(x), np.inf, result).astype(x.dtype, copy=False)
            return result
        except TypeError as error:  # a dtype SciPy's function does not take (complex for gammaln)
            reraise_as(ArgumentTypeError, operation.__name__, error)

    operation.__doc__ = doc
    operation._bk_named = True  # type: ignore[attr-defined]  # gets its catalogue name below the class
    return operation


def _special2(name: str, doc: str) -> Callable[..., Any]:
    def operation(self: Any, a: Tensor, x: Tensor) -> Tensor:
        from scipy import special

        check_tensor_argument(a, operation.__name__, "a")
        check_tensor_argument(x, operation.__name__)
        dtype = binary_dtype(a, x)
        if dtype.kind in "biu":
            dtype = float_dtype(get_precision())
        a, x = np.asarray(a, dtype), np.asarray(x, dtype)
        try:
            np.broadcast_shapes(a.shape, x.shape)
        except ValueError as error:
            reraise(operation.__name__, error)
        return np.asarray(getattr(special, name)(a, x)).astype(dtype, copy=False)

    operation.__doc__ = doc
    return operation


def _same_dtype_arrays(x: Any, y: Any) -> bool:
    """Two NumPy arrays of one dtype, with no precision set anywhere: nothing to convert."""
    return type(x) is np.ndarray and type(y) is np.ndarray and x.dtype is y.dtype and _GLOBALS.precision_free


def _operands(a: Any, b: Any, dtype: np.dtype[Any]) -> tuple[Any, Any]:
    """`a` and `b` as `dtype`; a Python scalar next to an array stays a (weak) Python scalar."""
    a_scalar, b_scalar = not hasattr(a, "dtype"), not hasattr(b, "dtype")
    if dtype.kind == "V":  # bfloat16 (ml_dtypes) would promote a Python float to float32
        return _cast(a, dtype), _cast(b, dtype)
    if a_scalar and b_scalar:
        return np.asarray(a, dtype), np.asarray(b, dtype)
    if not a_scalar or isinstance(a, (list, tuple)):
        a = _cast(a, dtype)
    if not b_scalar or isinstance(b, (list, tuple)):
        b = _cast(b, dtype)
    return a, b


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


def _binary(ufunc: Any, a: Any, b: Any, bool_to_int: bool = False, int_to_float: bool = False) -> Any:
    for operand in (a, b):
        if operand is None or isinstance(operand, (str, bytes)):
            check_tensor_argument(operand, _NAMES.get(ufunc, ufunc.__name__))
    dtype = binary_dtype(a, b)
    if bool_to_int and dtype.kind == "b":
        dtype = np.dtype(np.int32)
    if int_to_float and dtype.kind in "biu":
        dtype = float_dtype(get_precision())
    a, b = _operands(a, b, dtype)
    try:
        return ufunc(a, b)
    except (ValueError, OverflowError) as error:  # OverflowError: a Python int beyond the tensor's range (NEP 50)
        _reraise(ufunc, error, a, b)
    except TypeError as error:  # object operands, or a dtype the ufunc does not take
        reraise_as(ArgumentTypeError, _NAMES.get(ufunc, ufunc.__name__), error)


_NAMES: Final = {
    np.add: "add", np.subtract: "sub", np.multiply: "mul", np.true_divide: "div", np.power: "pow", np.mod: "mod",
    np.floor_divide: "floordiv", np.bitwise_and: "and_", np.bitwise_or: "or_", np.bitwise_xor: "xor",
    np.left_shift: "shift_bits_left", np.right_shift: "shift_bits_right", np.equal: "equal", np.not_equal: "not_equal",
    np.greater: "greater_than", np.greater_equal: "greater_or_equal", np.maximum: "maximum", np.minimum: "minimum",
    np.arctan2: "arctan2",
}  # fmt: skip


def _reraise(ufunc: Any, error: ValueError | OverflowError, a: Any, b: Any) -> NoReturn:
    """NumPy's `ValueError` for operands `a` and `b` as the bk error of the operation's spec
    (`bk.ShapeMismatchError` for shapes that do not broadcast); others unchanged. These operators
    are not wrapped by the core (a wrapper call costs as much as the ufunc on small arrays)."""
    explain_failure(None, _NAMES.get(ufunc, ufunc.__name__), error, (a, b), {})


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

    # ------------------------------------------------------------ arithmetic operators

    add = _arithmetic(np.add, "`a + b` in the common type; booleans add as int32.", bool_to_int=True)
    sub = _arithmetic(np.subtract, "`a - b` in the common type; booleans subtract as int32.", bool_to_int=True)
    mul = _arithmetic(np.multiply, "`a * b` in the common type.")

    div = _division(np.true_divide, "`numerator / denominator`; integers divide into the float type of the precision.")

    def pow(self, base: Tensor, exp: Tensor) -> Tensor:
        """`base ** exp` in the common type."""
        return _binary(np.power, base, exp)

    def mod(self, dividend: Tensor, divisor: Tensor) -> Tensor:
        """`dividend % divisor` with the sign of the divisor."""
        return _binary(np.mod, dividend, divisor)

    def floordiv(self, a: Tensor, b: Tensor) -> Tensor:
        """`a // b`."""
        return _binary(np.floor_divide, a, b)

    def and_(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a & b`."""
        return _binary(np.bitwise_and, a, b)

    def or_(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a | b`."""
        return _binary(np.bitwise_or, a, b)

    def xor(self, a: Tensor, b: Tensor) -> Tensor:
        """Logical or bitwise `a ^ b`."""
        return _binary(np.bitwise_xor, a, b)

    def shift_bits_left(self, a: Tensor, b: Tensor) -> Tensor:
        """`a << b`."""
        return _binary(np.left_shift, a, b)

    def shift_bits_right(self, a: Tensor, b: Tensor) -> Tensor:
        """`a >> b`."""
        return _binary(np.right_shift, a, b)

    def invert(self, x: Tensor) -> Tensor:
        """Logical not for booleans, bitwise not for integers.

        Raises:
            ArgumentTypeError: for float or complex values, which have no bits to invert.
        """
        try:
            return np.invert(_array(x))
        except TypeError as error:
            reraise_as(ArgumentTypeError, "invert", error)

    # ------------------------------------------------------------ comparisons

    def equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x == y`."""
        return _binary(np.equal, x, y)

    def not_equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x != y`."""
        return _binary(np.not_equal, x, y)

    def greater_than(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x > y`."""
        return _binary(np.greater, x, y)

    def greater_or_equal(self, x: Tensor, y: Tensor) -> Tensor:
        """Elementwise `x >= y`."""
        return _binary(np.greater_equal, x, y)

    def maximum(self, a: Tensor, b: Tensor) -> Tensor:
        """Elementwise maximum; NaN propagates."""
        return _binary(np.maximum, a, b)

    def minimum(self, a: Tensor, b: Tensor) -> Tensor:
        """Elementwise minimum; NaN propagates."""
        return _binary(np.minimum, a, b)

    def arctan2(self, y: Tensor, x: Tensor) -> Tensor:
        """The angle of the point `(x, y)`."""
        return _binary(np.arctan2, y, x, int_to_float=True)

    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, and 0 where `y` is 0 (also for 0 / 0)."""
        if _same_dtype_arrays(x, y) and x.dtype.kind in "fc" and x.shape == y.shape:  # the common case, as in the solvers' loops
            return np.divide(x, y, out=np.zeros(x.shape, x.dtype), where=y != 0)
        check_tensor_argument(x, "divide_no_nan")
        check_tensor_argument(y, "divide_no_nan", "y")
        dtype = binary_dtype(x, y)
        if dtype.kind in "biu":
            dtype = float_dtype(get_precision())
        x, y = np.asarray(x, dtype), np.asarray(y, dtype)
        try:
            shape = x.shape if x.shape == y.shape else np.broadcast_shapes(x.shape, y.shape)
        except ValueError as error:
            reraise("divide_no_nan", error)
        return np.divide(x, y, out=np.zeros(shape, dtype), where=y != 0)  # divides only where y != 0: no warnings to silence

    @explains_failures
    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` holds, else `y`; without `x` and `y` the `(nnz, ndims)` indices of true elements."""
        try:
            if type(condition) is np.ndarray and type(x) is np.ndarray and type(y) is np.ndarray and x.dtype is y.dtype and _GLOBALS.precision_free:
                return np.where(condition, x, y)  # two arrays of one dtype (inlined: a helper call costs as much as np.where)
            if type(condition) is np.ndarray and (_same_dtype_arrays(x, y) or (_GLOBALS.precision_free and (_weak_float_beside(x, y) or _weak_float_beside(y, x)))):
                return np.where(condition, x, y)  # NEP 50: a Python float takes the array's float dtype, as bk's rules say
            return _where(condition, x, y)
        except (ValueError, TypeError, IndexError) as error:  # mapped here: the core does not wrap where (hot path)
            explain_failure(self, "where", error, (condition, x, y), {})

    where = _fast_where(where)

    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """`x` limited to `[minimum, maximum]` in the dtype of `x`: `numpy.clip` behind the core's rule (`bk.rules`)."""
        return clip_rule(self, _keep_ints(x), minimum, maximum, np.clip)

    # ------------------------------------------------------------ unary functions

    abs = _unary(np.abs, "Absolute value (magnitude for complex values).", _keep_ints)
    sign = _unary(np.sign, "-1, 0 or 1 by the sign of `x`.", _keep_ints)
    round = _unary(_round, "Rounds to the nearest integer, halves to even; booleans and integers stay as they are.", _keep_ints)
    ceil = _unary(np.ceil, "Smallest integer not below `x`.", _keep_ints)
    floor = _unary(np.floor, "Largest integer not above `x`.", _keep_ints)
    sqrt = _unary(np.sqrt, "Square root.")
    exp = _unary(np.exp, "Natural exponential.")
    sin = _unary(np.sin, "Sine.")
    arcsin = _unary(np.arcsin, "Inverse sine.")
    cos = _unary(np.cos, "Cosine.")
    arccos = _unary(np.arccos, "Inverse cosine.")
    tan = _unary(np.tan, "Tangent.")
    arctan = _unary(np.arctan, "Inverse tangent.")
    sinh = _unary(np.sinh, "Hyperbolic sine.")
    arcsinh = _unary(np.arcsinh, "Inverse hyperbolic sine.")
    cosh = _unary(np.cosh, "Hyperbolic cosine.")
    arccosh = _unary(np.arccosh, "Inverse hyperbolic cosine.")
    tanh = _unary(np.tanh, "Hyperbolic tangent.")
    arctanh = _unary(np.arctanh, "Inverse hyperbolic tangent.")
    log = _unary(np.log, "Natural logarithm.")
    log2 = _unary(np.log2, "Base-2 logarithm.")
    log10 = _unary(np.log10, "Base-10 logarithm.")
    sigmoid = _unary(lambda x: np.exp(-np.logaddexp(np.zeros((), x.dtype), -x)), "`1 / (1 + exp(-x))`, without overflow.")
    softplus = _unary(lambda x: np.logaddexp(np.zeros((), x.dtype), x), "`log(1 + exp(x))`, computed without overflow.")
    erf = _special("erf", "The error function (`scipy.special.erf`).")
    log_gamma = _special("gammaln", "Natural logarithm of the absolute value of the gamma function, as floats.")
    gamma_inc_l = _special2("gammainc", "Regularized lower incomplete gamma function P(a, x).")
    gamma_inc_u = _special2("gammaincc", "Regularized upper incomplete gamma function Q(a, x).")

    def isfinite(self, x: Tensor) -> Tensor:
        """True where `x` is neither infinite nor NaN."""
        return np.isfinite(_tensor_arg(x, "isfinite"))

    def isnan(self, x: Tensor) -> Tensor:
        """True where `x` is NaN."""
        return np.isnan(_tensor_arg(x, "isnan"))

    def isinf(self, x: Tensor) -> Tensor:
        """True where `x` is infinite."""
        return np.isinf(_tensor_arg(x, "isinf"))

    def real(self, x: Tensor) -> Tensor:
        """Real part."""
        return np.real(_named(_keep_ints, x, "real"))

    def imag(self, x: Tensor) -> Tensor:
        """Imaginary part (zeros of the same type for real values)."""
        x = _named(_keep_ints, x, "imag")
        return np.imag(x) if x.dtype.kind == "c" else np.zeros_like(x)

    def conj(self, x: Tensor) -> Tensor:
        """Complex conjugate; real values (bools too, as the spec says) are returned as they are."""
        x = _named(_keep_ints, x, "conj")
        return np.conjugate(x) if x.dtype.kind == "c" else x

    # ------------------------------------------------------------ reductions

    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over `axis` (an int, a tuple, or None for all); bool and narrow ints widen to 64 bits, as in NumPy 2."""
        if axis is None and type(value) is np.ndarray and value.dtype.kind in "fc" and _GLOBALS.precision_free:
            return _ADD_REDUCE(value, None, None, None, keepdims)  # what np.sum runs, without its Python layers
        if isinstance(value, (list, tuple)) and axis == 0:
            value = np.stack([_array(v) for v in value])
        value, axis = _reduction_args(value, axis, "sum")
        return np.sum(_keep_ints(value), axis=axis, keepdims=keepdims)

    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        """Product over `axis`; bool and narrow ints widen to 64 bits, as in NumPy 2."""
        value, axis = _reduction_args(value, axis, "prod")
        return np.prod(_keep_ints(value), axis=axis)

    @explains_failures
    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over `axis`, as floats (NaN for no elements)."""
        try:
            if type(value) is np.ndarray and value.dtype.kind in "fc" and _GLOBALS.precision_free and (axis is None or (type(axis) is int and -value.ndim <= axis < value.ndim)):
                return value.mean(axis, None, None, keepdims)  # floats: what `_floats` gives; the method skips numpy.mean's Python layer
            value, axis = _reduction_args(value, axis, "mean")
            return np.mean(_floats(value), axis=axis, keepdims=keepdims)
        except (ValueError, TypeError, IndexError) as error:  # mapped here: a trusted kernel (HOT_OPERATIONS) that explains its failures
            explain_failure(self, "mean", error, (value, axis, keepdims), {})

    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation over `axis`, as floats."""
        x, axis = _reduction_args(x, axis, "std")
        x = _floats(x)
        if x.dtype.itemsize == 2 and x.dtype.kind in "fV":  # float16, bfloat16: accumulated in float32 (squares overflow)
            return np.std(x, axis=axis, keepdims=keepdims, dtype=np.float32).astype(x.dtype)
        return np.std(x, axis=axis, keepdims=keepdims)

    def max(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Maximum over `axis`; NaN propagates; `ValueError` for no elements."""
        if axis is None and type(x) is np.ndarray and x.dtype.kind in "fc" and x.size and _GLOBALS.precision_free:
            return _MAX_REDUCE(x, None, None, None, keepdims)  # what np.max runs, without its Python layers
        x, axis = _reduction_args(x, axis, "max")
        return np.max(_keep_ints(x), axis=axis, keepdims=keepdims)

    def min(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Minimum over `axis`; NaN propagates; `ValueError` for no elements."""
        if axis is None and type(x) is np.ndarray and x.dtype.kind in "fc" and x.size and _GLOBALS.precision_free:
            return _MIN_REDUCE(x, None, None, None, keepdims)  # what np.min runs, without its Python layers
        x, axis = _reduction_args(x, axis, "min")
        return np.min(_keep_ints(x), axis=axis, keepdims=keepdims)

    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether any element along `axis` is true."""
        x, axis = _reduction_args(boolean_tensor, axis, "any")
        return x.any(axis=axis, keepdims=keepdims)  # the method: no Python dispatch layer

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
        _inner = getattr(_value, "__wrapped__", None)  # the Python method behind a C fast path names errors
        if isinstance(_inner, type(_arithmetic)):
            _inner.__name__, _inner.__qualname__ = _name, f"MathMixin.{_name}"
