"""Elementwise maths, operators and reductions (a mixin of `TFBackend`).

TensorFlow never promotes dtypes by itself, and needs none of its own here: the operators and the
elementwise functions are bare kernels behind the core's plan, which gives them the spec's verdict and
operands already in the dtype the operation computes in (two tensors of one dtype for the binary
operators, floats for the float functions), runs the core composites around them (integer zero divisors,
comparisons with Python ints beyond a tensor's range, integer powers) and casts their results. They
declare nothing but a fast call (`bk.rules.kernel(fast=...)`): the kernel's own function of eager tensors
(or of one and a Python number), called at once (in C) wherever the plan would do nothing around the
kernel, for the dtypes the core derives from the specs (`bk.rules.framework_call`; no dtype table is
written here). What is left to the kernels is TensorFlow's own gaps: no order of bools (compared as
int8) or of complex values (by parts, as NumPy), no kernels of some dtypes (declared in
`TFBackend.lacking_kernels`, or computed another way), and values TensorFlow computes differently from
NumPy. `invert`, the value tests (`isnan`, ...), the complex parts and the
reductions are trusted (`bk.rules.kernel(trusted=True, why=...)`): they apply docs/semantics.md themselves.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from bk import get_precision, normalize_axes, normalize_axis
from bk.rules import accumulation_type, check_nonempty, framework_call, kernel, limit
from bk.rules import quantile as quantile_rule

from ._dtypes import float_tf, from_tf_dtype, to_precision, to_tf_dtype
from ._framework import tf

__all__ = ["MathMixin"]

Tensor = Any

_EAGER = type(tf.constant(0))  # the fast calls take eager tensors only: symbolic ones (tf.function) take the plan
_HOT_UNARY: Final = (
    "a hot unary function that handles every dtype itself as docs/semantics.md says (bools, ints and complex "
    "values included), where a plan would cost more on small tensors"
)  # why `invert`, `isfinite`, `isnan`, `isinf`, `real`, `imag` and `conj` are trusted
_HOT_REDUCTION: Final = (
    "a hot reduction that checks its axes and applies the accumulation dtypes, the empty-reduction errors and "
    "NumPy's order of complex values itself, with bk.rules, where a plan would cost more on small tensors"
)  # why `sum`, `prod`, `mean`, `std`, `max`, `min`, `any` and `all` are trusted


def _operator(name: str, function: Callable[[Any, Any], Any], doc: str) -> Callable[..., Any]:
    """The kernel of the binary operator `name`: `function(a, b)` of the two tensors of one dtype the plan
    gives it, with the fast call of `function` itself (`bk.rules.framework_call`) for two eager tensors the plan
    would give it as they are, or an eager tensor and a Python number (TensorFlow converts one to the tensor's
    dtype, as NEP 50 keeps it, and `function` takes it as the plan's tensor), for the dtypes the core derives."""

    def computed(self: Any, a: Tensor, b: Tensor) -> Tensor:
        return function(self._t(a), self._t(b))  # dense tensors: Variables read, sparse and ragged ones refused

    computed.__name__ = computed.__qualname__ = name
    computed.__doc__ = doc
    return kernel(fast=framework_call(function, _EAGER, 2))(computed)


def _function(name: str, function: Callable[[Any], Any], doc: str) -> Callable[..., Any]:
    """The kernel of the elementwise function `name`: `function(x)` of the tensor the plan gives it (floats
    for the float functions), with the fast call of `function` itself for an eager tensor the plan would give
    as it is (`bk.rules.framework_call`: the core derives the dtypes)."""

    def computed(self: Any, x: Tensor) -> Tensor:
        return function(self._t(x))  # a dense tensor: a Variable read, a sparse or ragged one refused

    computed.__name__ = computed.__qualname__ = name
    computed.__doc__ = doc
    return kernel(fast=framework_call(function, _EAGER, 1))(computed)


def _bitwise(logical: Callable[[Any, Any], Any], bitwise: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def apply(a: Any, b: Any) -> Any:
        return logical(a, b) if a.dtype == tf.bool else bitwise(a, b)

    return apply


def _ordered(compare: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`compare` (`>` or `>=`) for every dtype: booleans as integers, complex values by real, then imaginary part (NumPy's order)."""

    def apply(a: Any, b: Any) -> Any:
        if a.dtype == tf.bool:
            return compare(tf.cast(a, tf.int8), tf.cast(b, tf.int8))
        if a.dtype.is_complex:
            b = tf.convert_to_tensor(b, a.dtype)  # a Python number of the fast call, as TensorFlow's operators take it
            ra, rb = tf.math.real(a), tf.math.real(b)
            return tf.logical_or(ra > rb, tf.logical_and(tf.equal(ra, rb), compare(tf.math.imag(a), tf.math.imag(b))))
        return compare(a, b)

    return apply


def _floor_divide(a: Any, b: Any) -> Any:
    """`a // b` as NumPy computes it: floats through `fmod`, as NumPy's (and Python's) `divmod`.

    TensorFlow's float kernel is `floor(a / b)`, which gives `inf // 2 = inf` (NumPy: NaN),
    `-1 // inf = -0` (NumPy: -1) and `1 // 0.1 = 10` (NumPy: 9). Its fmod has no half-precision
    kernel (`TFBackend.lacking_kernels`); integers never meet a zero divisor here (the core's composite).
    """
    if not a.dtype.is_floating:  # integers (bools arrive as int8; complex values: the spec refuses them)
        return tf.math.floordiv(a, b)
    zero = tf.zeros((), a.dtype)
    mod = tf.truncatemod(a, b)  # C's fmod
    div = (a - mod) / b
    div = tf.where(tf.logical_and(tf.not_equal(mod, zero), tf.not_equal(b < zero, mod < zero)), div - 1, div)
    floor = tf.floor(div)
    floor = tf.where(div - floor > 0.5, floor + 1, floor)  # snapped to the nearest integer, as NumPy
    quotient = a / b
    return tf.where(tf.equal(b, zero), quotient, tf.where(tf.equal(div, zero), quotient * zero, floor))


def _shift(shift: Callable[[Any, Any], Any], left: bool) -> Callable[[Any, Any], Any]:
    """`shift` (`<<` or `>>`) as NumPy: a count outside `[0, bits)` gives 0 (`>>` of a negative value: -1).

    TensorFlow's kernels leave such counts to C, where the result is undefined. Integers only (bools
    arrive as int8; the spec refuses other dtypes).
    """

    def apply(a: Any, b: Any) -> Any:
        b = tf.convert_to_tensor(b, a.dtype)  # a Python int of the fast call (in the dtype's range), as TensorFlow's operators do
        inside = b < a.dtype.size * 8 if a.dtype.is_unsigned else tf.logical_and(b >= 0, b < a.dtype.size * 8)
        shifted = shift(a, tf.where(inside, b, tf.zeros((), b.dtype)))
        zero = tf.zeros((), a.dtype)
        outside = zero if left or a.dtype.is_unsigned else tf.where(a < zero, tf.constant(-1, a.dtype), zero)
        return tf.where(inside, shifted, outside)

    return apply


def _nan_complex(x: Any) -> Any:
    return tf.logical_or(tf.math.is_nan(tf.math.real(x)), tf.math.is_nan(tf.math.imag(x)))


def _maximum(a: Any, b: Any) -> Any:
    """Elementwise maximum of two tensors of one dtype; NaN propagates (complex values: NumPy's order, the first NaN wins)."""
    if a.dtype.is_complex:
        return tf.where(_nan_complex(a), a, tf.where(_nan_complex(b), b, tf.where(_ordered(tf.greater_equal)(a, b), a, b)))
    return _with_nan(tf.maximum(a, b) if a.dtype != tf.bool else tf.logical_or(a, b), a, b)


def _minimum(a: Any, b: Any) -> Any:
    """Elementwise minimum of two tensors of one dtype; NaN propagates (complex values: NumPy's order, the first NaN wins)."""
    if a.dtype.is_complex:
        return tf.where(_nan_complex(a), a, tf.where(_nan_complex(b), b, tf.where(_ordered(tf.greater_equal)(b, a), a, b)))
    return _with_nan(tf.minimum(a, b) if a.dtype != tf.bool else tf.logical_and(a, b), a, b)


def _with_nan(result: Any, a: Any, b: Any) -> Any:
    """`result` with NaN wherever `a` or `b` is NaN (TensorFlow's `maximum` and `minimum` skip it)."""
    if not a.dtype.is_floating:
        return result
    nan = tf.logical_or(tf.math.is_nan(a), tf.math.is_nan(b))
    return tf.where(nan, tf.constant(math.nan, result.dtype), result)


def _power(a: Any, b: Any) -> Any:
    """`a ** b`; unsigned ints through int64 (TensorFlow has no kernels), wrapping as NumPy does (bools arrive as int8)."""
    if a.dtype.is_unsigned:
        return tf.cast(tf.pow(tf.cast(a, tf.int64), tf.cast(b, tf.int64)), a.dtype)
    return tf.pow(a, b)


def _divide(a: Any, b: Any) -> Any:
    """`a / b`; complex values with NumPy's (Smith's) algorithm, which TensorFlow's textbook formula is not:
    `0 / (inf + 0j)` is 0, not NaN, and large parts do not overflow."""
    if not a.dtype.is_complex:
        return tf.math.truediv(a, b)
    b = tf.convert_to_tensor(b, a.dtype)  # a Python number of the fast call, as TensorFlow's operators take it
    ar, ai, br, bi = tf.math.real(a), tf.math.imag(a), tf.math.real(b), tf.math.imag(b)
    real_larger = tf.abs(br) >= tf.abs(bi)
    both_zero = tf.logical_and(tf.equal(br, 0), tf.equal(bi, 0))
    ratio = tf.where(real_larger, bi / br, br / bi)
    scale = 1 / tf.where(real_larger, br + bi * ratio, bi + br * ratio)
    real = tf.where(real_larger, (ar + ai * ratio) * scale, (ar * ratio + ai) * scale)
    imag = tf.where(real_larger, (ai - ar * ratio) * scale, (ai * ratio - ar) * scale)
    real = tf.where(both_zero, ar / tf.abs(br), real)
    imag = tf.where(both_zero, ai / tf.abs(br), imag)
    return tf.complex(real, imag)


def _nan_propagating(reduce: Callable[..., Any]) -> Callable[..., Any]:
    """`reduce` over `axis`, giving NaN wherever a reduced element is NaN (TensorFlow's max/min skip NaN)."""

    def apply(x: Any, axis: Any, keepdims: bool) -> Any:
        result = reduce(x, axis=axis, keepdims=keepdims)
        if not x.dtype.is_floating:
            return result
        has_nan = tf.reduce_any(tf.math.is_nan(x), axis=axis, keepdims=keepdims)
        return tf.where(has_nan, tf.constant(math.nan, x.dtype), result)

    return apply


def _axes(x: Any, axis: Any, op: str) -> list[int] | None:
    """`axis` of a reduction checked against the rank of `x`: a list of axes, or `None` for all."""
    axes = normalize_axes(axis, x.shape.rank, op)
    return None if axes is None else list(axes)


def _nonempty_axes(x: Any, axis: Any, op: str) -> list[int] | None:
    """`_axes`, raising `ValueError` when a reduced dimension has size 0 (max, min, argmax, argmin have no identity)."""
    axes = _axes(x, axis, op)
    check_nonempty(op, x.shape.as_list(), axes)
    return axes


def _complex_arg(x: Any, axis: int, largest: bool) -> Any:
    """Index of the first largest (smallest) complex value along `axis` in NumPy's order: real part, then imaginary part.

    A NaN (in either part) wins, as NumPy returns the first NaN.
    """
    real, imag = tf.math.real(x), tf.math.imag(x)
    if not largest:
        real, imag = -real, -imag
    best_real = tf.reduce_max(real, axis=axis, keepdims=True)
    candidate = tf.equal(real, best_real)
    best_imag = tf.reduce_max(tf.where(candidate, imag, tf.constant(-math.inf, imag.dtype)), axis=axis, keepdims=True)
    hit = tf.logical_and(candidate, tf.equal(imag, best_imag))
    nan = tf.logical_or(tf.math.is_nan(real), tf.math.is_nan(imag))
    hit = tf.where(tf.reduce_any(nan, axis=axis, keepdims=True), nan, hit)
    return tf.argmax(tf.cast(hit, tf.int8), axis=axis)


def _complex_extreme(x: Any, axes: list[int] | None, keepdims: bool, largest: bool) -> Any:
    """`max` / `min` of complex values over `axes` (None: all) in NumPy's order."""
    rank = x.shape.rank
    reduced = list(range(rank)) if axes is None else axes
    kept = [a for a in range(rank) if a not in reduced]
    moved = tf.transpose(x, kept + reduced)
    flat = tf.reshape(moved, tf.concat([tf.shape(moved)[: len(kept)], [-1]], 0))
    index = _complex_arg(flat, len(kept), largest)
    result = tf.gather(flat, index[..., None], axis=len(kept), batch_dims=len(kept))[..., 0]
    if keepdims:
        shape = (
            tf.tensor_scatter_nd_update(tf.shape(x), [[a] for a in reduced], tf.ones([len(reduced)], tf.int32))
            if reduced
            else tf.shape(x)
        )
        result = tf.reshape(result, shape)
    return result


def _widened(x: Any) -> Any:
    """`x` in the dtype it sums in (the core's `accumulation_type`, memoised per dtype: `sum` is hot)."""
    dtype = x.dtype
    try:
        wide = _ACCUMULATORS[dtype]
    except KeyError:
        wide = to_tf_dtype(accumulation_type(from_tf_dtype(dtype)))
        wide = _ACCUMULATORS[dtype] = None if wide == dtype else wide
    return x if wide is None else tf.cast(x, wide)


_ACCUMULATORS: dict[Any, Any] = {}  # tf.DType -> the tf.DType it sums in, None where that is itself


def _log_base(base: float) -> Callable[[Any], Any]:
    def apply(x: Any) -> Any:
        if x.dtype.is_complex:  # part by part: a complex division turns log(0) = -inf + 0j into -inf + nan j
            log = tf.math.log(x)
            scale = tf.constant(math.log(base), log.dtype.real_dtype)
            return tf.complex(tf.math.real(log) / scale, tf.math.imag(log) / scale)
        return tf.math.log(x) / tf.constant(math.log(base), x.dtype)

    return apply


def _erf(x: Any) -> Any:
    # TensorFlow's float64 erf gives NaN at +-inf
    return tf.where(tf.math.is_inf(x), tf.sign(x), tf.math.erf(x)) if x.dtype.is_floating else tf.math.erf(x)


def _at_zero_a(result: Any, a: Any, x: Any, value: float) -> Any:
    """`result` of igamma/igammac with SciPy's limits at `a == 0`: `value` for `x > 0`, NaN for `x == 0`
    (TensorFlow gives NaN for `x > 0` and 0 or NaN at 0)."""
    zero = tf.equal(a, tf.zeros((), a.dtype))
    limit = tf.where(x > 0, tf.constant(value, result.dtype), tf.constant(math.nan, result.dtype))
    return tf.where(zero, tf.broadcast_to(limit, tf.shape(result)), result)


def _abs(x: Any) -> Any:
    return x if x.dtype.is_unsigned or x.dtype == tf.bool else tf.abs(x)


def _sign(x: Any) -> Any:
    if x.dtype.is_unsigned:  # no kernel: 0 or 1
        return tf.cast(tf.not_equal(x, tf.zeros((), x.dtype)), x.dtype)
    return tf.math.sign(x)


def _round(x: Any) -> Any:
    """Halves to even; complex values part by part, as NumPy rounds them."""
    if x.dtype.is_complex:
        return tf.complex(tf.math.round(tf.math.real(x)), tf.math.round(tf.math.imag(x)))
    return tf.math.round(x)


def _keep_int_rounding(function: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def apply(x: Any) -> Any:
        return x if x.dtype.is_integer or x.dtype == tf.bool else function(x)

    return apply


class MathMixin:
    """Elementwise maths, operators and reductions through `tf.math`."""

    _t: Callable[[Any], Any]

    # ------------------------------------------------------------ conversion helpers

    def _floats(self, x: Any) -> Any:
        """`x` as floats (or complex) of the current precision; ints and bools become the float type."""
        x = self._t(x)
        if not (x.dtype.is_floating or x.dtype.is_complex):
            return tf.cast(x, float_tf(get_precision()))
        return to_precision(x, get_precision())

    def _keep_ints(self, x: Any) -> Any:
        """`x` as a tensor; floats follow the current precision, ints and bools stay as they are."""
        return to_precision(self._t(x), get_precision())

    # ------------------------------------------------------------ arithmetic operators

    add = _operator("add", tf.add, "`a + b` (booleans arrive as int32).")
    sub = _operator("sub", tf.subtract, "`a - b`.")
    mul = _operator("mul", _bitwise(tf.logical_and, tf.multiply), "`a * b` (booleans: logical and).")
    div = _operator(
        "div", _divide, "`numerator / denominator` of floats (integers arrive as floats); complex values as NumPy."
    )
    pow = _operator("pow", _power, "`base ** exp` (the core checks integer exponents first).")
    mod = _operator(
        "mod",
        tf.math.floormod,
        "`dividend % divisor` with the sign of the divisor (integer zero divisors: the core's composite).",
    )
    floordiv = _operator("floordiv", _floor_divide, "`a // b` as NumPy (floats through `fmod`: `inf // 2` is NaN).")
    and_ = _operator("and_", _bitwise(tf.logical_and, tf.bitwise.bitwise_and), "Logical or bitwise `a & b`.")
    or_ = _operator("or_", _bitwise(tf.logical_or, tf.bitwise.bitwise_or), "Logical or bitwise `a | b`.")
    xor = _operator("xor", _bitwise(tf.math.logical_xor, tf.bitwise.bitwise_xor), "Logical or bitwise `a ^ b`.")
    shift_bits_left = _operator(
        "shift_bits_left",
        _shift(tf.bitwise.left_shift, left=True),
        "`a << b` of integers; counts outside `[0, bits)` give 0, as NumPy.",
    )
    shift_bits_right = _operator(
        "shift_bits_right",
        _shift(tf.bitwise.right_shift, left=False),
        "`a >> b` of integers (arithmetic for signed ones); counts outside `[0, bits)` give 0, or -1 for negative `a`.",
    )

    @kernel(trusted=True, why=_HOT_UNARY)
    def invert(self, x: Tensor) -> Tensor:
        """Logical not for booleans, bitwise not for integers."""
        if isinstance(x, bool):
            return not x
        x = self._t(x)
        return tf.logical_not(x) if x.dtype == tf.bool else tf.bitwise.invert(x)

    # ------------------------------------------------------------ comparisons

    equal = _operator("equal", tf.equal, "Elementwise `x == y`.")
    not_equal = _operator("not_equal", tf.not_equal, "Elementwise `x != y`.")
    greater_than = _operator(
        "greater_than", _ordered(tf.greater), "Elementwise `x > y` (booleans as int8, complex values in NumPy's order)."
    )
    greater_or_equal = _operator(
        "greater_or_equal",
        _ordered(tf.greater_equal),
        "Elementwise `x >= y` (booleans as int8, complex values in NumPy's order).",
    )

    # the fast calls are the kernels' own functions, as TensorFlow's alone are not (they skip NaN and have no bool
    # or complex order); tensors only: `_with_nan` and `_nan_complex` would take a Python number as float32
    @kernel(fast=framework_call(_maximum, _EAGER, 2, weak_numbers=False))
    def maximum(self, a: Tensor, b: Tensor) -> Tensor:
        """Elementwise maximum; NaN propagates."""
        return _maximum(a, b)

    @kernel(fast=framework_call(_minimum, _EAGER, 2, weak_numbers=False))
    def minimum(self, a: Tensor, b: Tensor) -> Tensor:
        """Elementwise minimum; NaN propagates."""
        return _minimum(a, b)

    arctan2 = _operator("arctan2", tf.math.atan2, "The angle of the point `(x, y)`, of floats (integers arrive as floats).")

    def divide_no_nan(self, x: Tensor, y: Tensor) -> Tensor:
        """`x / y`, and 0 where `y` is 0 (also for 0 / 0), of floats (integers arrive as floats)."""
        if x.dtype.is_complex:  # NumPy's (Smith's) division: (3 + 0j) / inf is 0, not NaN
            zero = tf.equal(y, tf.zeros((), y.dtype))
            return tf.where(zero, tf.zeros((), x.dtype), _divide(x, tf.where(zero, tf.ones((), y.dtype), y)))
        return tf.math.divide_no_nan(x, y)

    @kernel(fast=framework_call(tf.where, _EAGER, 3, weak_numbers=False))  # TensorFlow's where converts a Python float alone
    def where(self, condition: Tensor, x: Tensor = None, y: Tensor = None) -> Tensor:
        """`x` where `condition` holds, else `y` (of one dtype: the plan's); without `x` and `y` the `(nnz, ndims)`
        int64 indices of true elements. TensorFlow takes only bool conditions: others count where they are not 0."""
        condition = self._t(condition)
        if condition.dtype != tf.bool:
            condition = tf.not_equal(condition, tf.zeros((), condition.dtype))
        if x is None and y is None:
            return tf.where(condition)
        return tf.where(condition, x, y)

    def clip(self, x: Tensor, minimum: Any, maximum: Any) -> Tensor:
        """`x` limited to `[minimum, maximum]`: the backend's `maximum` then `minimum` (NaN stays NaN), with the
        bounds the core's rule prepared (`bk.rules.clip`, run by the plan around this kernel)."""
        return limit(self, x, minimum, maximum)

    # ------------------------------------------------------------ unary functions

    abs = _function("abs", _abs, "Absolute value (magnitude for complex values).")
    sign = _function("sign", _sign, "-1, 0 or 1 by the sign of `x`.")
    round = _function("round", _keep_int_rounding(_round), "Rounds to the nearest integer, halves to even.")
    ceil = _function("ceil", _keep_int_rounding(tf.math.ceil), "Smallest integer not below `x`.")
    floor = _function("floor", _keep_int_rounding(tf.math.floor), "Largest integer not above `x`.")
    sqrt = _function("sqrt", tf.sqrt, "Square root.")
    exp = _function("exp", tf.exp, "Natural exponential.")
    erf = _function("erf", _erf, "The error function (exactly -1 and 1 at the infinities).")
    softplus = _function("softplus", tf.math.softplus, "`log(1 + exp(x))`, computed without overflow.")
    sigmoid = _function("sigmoid", tf.math.sigmoid, "`1 / (1 + exp(-x))` of real values.")
    log_gamma = _function(
        "log_gamma", tf.math.lgamma, "Natural logarithm of the absolute value of the gamma function, as floats."
    )
    sin = _function("sin", tf.sin, "Sine.")
    arcsin = _function("arcsin", tf.asin, "Inverse sine.")
    cos = _function("cos", tf.cos, "Cosine.")
    arccos = _function("arccos", tf.acos, "Inverse cosine.")
    tan = _function("tan", tf.tan, "Tangent.")
    arctan = _function("arctan", tf.atan, "Inverse tangent.")
    sinh = _function("sinh", tf.sinh, "Hyperbolic sine.")
    arcsinh = _function("arcsinh", tf.asinh, "Inverse hyperbolic sine.")
    cosh = _function("cosh", tf.cosh, "Hyperbolic cosine.")
    arccosh = _function("arccosh", tf.acosh, "Inverse hyperbolic cosine.")
    tanh = _function("tanh", tf.tanh, "Hyperbolic tangent.")
    arctanh = _function("arctanh", tf.atanh, "Inverse hyperbolic tangent.")
    log = _function("log", tf.math.log, "Natural logarithm.")
    log2 = _function("log2", _log_base(2.0), "Base-2 logarithm.")
    log10 = _function("log10", _log_base(10.0), "Base-10 logarithm.")

    def gamma_inc_l(self, a: Tensor, x: Tensor) -> Tensor:
        """Regularized lower incomplete gamma function P(a, x) of floats (`tf.math.igamma`; P(0, x > 0) is 1, as SciPy)."""
        return _at_zero_a(tf.math.igamma(a, x), a, x, 1.0)

    def gamma_inc_u(self, a: Tensor, x: Tensor) -> Tensor:
        """Regularized upper incomplete gamma function Q(a, x) of floats (`tf.math.igammac`; Q(0, x > 0) is 0, as SciPy)."""
        return _at_zero_a(tf.math.igammac(a, x), a, x, 0.0)

    @kernel(trusted=True, why=_HOT_UNARY)
    def isfinite(self, x: Tensor) -> Tensor:
        """True where `x` is neither infinite nor NaN (always for integers)."""
        x = self._t(x)
        if x.dtype.is_complex:
            return tf.logical_and(tf.math.is_finite(tf.math.real(x)), tf.math.is_finite(tf.math.imag(x)))
        return tf.math.is_finite(x) if x.dtype.is_floating else tf.ones_like(x, tf.bool)

    @kernel(trusted=True, why=_HOT_UNARY)
    def isnan(self, x: Tensor) -> Tensor:
        """True where `x` is NaN (never for integers)."""
        x = self._t(x)
        if x.dtype.is_complex:
            return tf.logical_or(tf.math.is_nan(tf.math.real(x)), tf.math.is_nan(tf.math.imag(x)))
        return tf.math.is_nan(x) if x.dtype.is_floating else tf.zeros_like(x, tf.bool)

    @kernel(trusted=True, why=_HOT_UNARY)
    def isinf(self, x: Tensor) -> Tensor:
        """True where `x` is infinite (never for integers)."""
        x = self._t(x)
        if x.dtype.is_complex:
            return tf.logical_or(tf.math.is_inf(tf.math.real(x)), tf.math.is_inf(tf.math.imag(x)))
        return tf.math.is_inf(x) if x.dtype.is_floating else tf.zeros_like(x, tf.bool)

    @kernel(trusted=True, why=_HOT_UNARY)
    def real(self, x: Tensor) -> Tensor:
        """Real part."""
        x = self._keep_ints(x)
        return tf.math.real(x) if x.dtype.is_complex else x

    @kernel(trusted=True, why=_HOT_UNARY)
    def imag(self, x: Tensor) -> Tensor:
        """Imaginary part (zeros of the same type for real values)."""
        x = self._keep_ints(x)
        return tf.math.imag(x) if x.dtype.is_complex else tf.zeros_like(x)

    @kernel(trusted=True, why=_HOT_UNARY)
    def conj(self, x: Tensor) -> Tensor:
        """Complex conjugate."""
        x = self._keep_ints(x)  # real values (bools too, as the spec says) are returned as they are
        return tf.math.conj(x) if x.dtype.is_complex else x

    # ------------------------------------------------------------ reductions

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def sum(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Sum over `axis` (an int, a tuple, or None for all); bools and narrow ints widen to int64 (unsigned: uint64)."""
        if isinstance(value, (list, tuple)) and axis == 0:
            value = self.stack(value)  # type: ignore[attr-defined]
        if isinstance(value, tf.SparseTensor):
            axes = normalize_axes(axis, value.shape.rank, "sum")
            return tf.sparse.reduce_sum(value, axis=None if axes is None else list(axes), keepdims=keepdims)
        value = _widened(self._keep_ints(value))
        return tf.reduce_sum(value, axis=_axes(value, axis, "sum"), keepdims=keepdims)

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def prod(self, value: Tensor, axis: Any = None) -> Tensor:
        """Product over `axis`; bools and narrow ints widen to int64 (unsigned: uint64)."""
        value = _widened(self._keep_ints(value))
        axes = _axes(value, axis, "prod")
        if axes == []:  # NumPy multiplies by one: complex infinities get a NaN imaginary part
            return value * tf.ones((), value.dtype)
        result = tf.reduce_prod(value, axis=axes)
        return result * tf.ones((), value.dtype) if value.dtype.is_complex else result  # NumPy starts from 1 + 0j

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def mean(self, value: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Mean over `axis`, as floats (NaN for nothing)."""
        value = self._floats(value)
        axes = _axes(value, axis, "mean")
        if axes == []:  # NumPy divides by one: complex infinities get a NaN imaginary part
            return value / tf.ones((), value.dtype)
        if value.dtype.is_complex:  # sum / count as NumPy divides complex values (0 / 0 is NaN, not 0)
            count = tf.cast(tf.size(value) // tf.maximum(tf.size(tf.reduce_sum(value, axis=axes)), 1), value.dtype)
            return _divide(tf.reduce_sum(value, axis=axes, keepdims=keepdims), count)
        if value.dtype in (tf.float16, tf.bfloat16):  # accumulated in float32, as NumPy does: the sum must not overflow
            return tf.cast(tf.reduce_mean(tf.cast(value, tf.float32), axis=axes, keepdims=keepdims), value.dtype)
        return tf.reduce_mean(value, axis=axes, keepdims=keepdims)

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def std(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Population standard deviation over `axis`, as floats."""
        x = self._floats(x)
        axes = _axes(x, axis, "std")
        half = x.dtype if x.dtype in (tf.float16, tf.bfloat16) else None
        if half is not None:  # accumulated in float32: squares of half-precision values overflow
            x = tf.cast(x, tf.float32)
        mean = tf.reduce_mean(x, axis=axes, keepdims=True)
        deviation = tf.abs(x - mean)
        result = tf.sqrt(tf.reduce_mean(deviation * deviation, axis=axes, keepdims=keepdims))
        return result if half is None else tf.cast(result, half)

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def max(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Maximum over `axis`; NaN propagates.

        Raises:
            ValueError: for a reduction over nothing (a maximum has no identity).
        """
        x = self._keep_ints(x)
        axes = _nonempty_axes(x, axis, "max")
        if x.dtype.is_complex:
            return _complex_extreme(x, axes, keepdims, largest=True)
        if x.dtype == tf.bool:
            return tf.reduce_any(x, axis=axes, keepdims=keepdims)
        return _nan_propagating(tf.reduce_max)(x, axes, keepdims)

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def min(self, x: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Minimum over `axis`; NaN propagates.

        Raises:
            ValueError: for a reduction over nothing (a minimum has no identity).
        """
        x = self._keep_ints(x)
        axes = _nonempty_axes(x, axis, "min")
        if x.dtype.is_complex:
            return _complex_extreme(x, axes, keepdims, largest=False)
        if x.dtype == tf.bool:
            return tf.reduce_all(x, axis=axes, keepdims=keepdims)
        return _nan_propagating(tf.reduce_min)(x, axes, keepdims)

    def _bools(self, x: Any) -> Any:
        if isinstance(x, (list, tuple)):
            x = tf.stack([self._bools(e) for e in x])
        x = self._t(x)
        return x if x.dtype == tf.bool else tf.not_equal(x, tf.zeros((), x.dtype))

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def any(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether any element along `axis` is true (non-zero)."""
        x = self._bools(boolean_tensor)
        return tf.reduce_any(x, axis=_axes(x, axis, "any"), keepdims=keepdims)

    @kernel(trusted=True, why=_HOT_REDUCTION)
    def all(self, boolean_tensor: Tensor, axis: Any = None, keepdims: bool = False) -> Tensor:
        """Whether all elements along `axis` are true (non-zero)."""
        x = self._bools(boolean_tensor)
        return tf.reduce_all(x, axis=_axes(x, axis, "all"), keepdims=keepdims)

    def argmax(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        """Index (int64) of the first maximum along `axis` (`None`: of the flattened `x`); a NaN counts as the maximum.

        Raises:
            ValueError: for an empty `x` or axis.
        """
        return self._arg(x, axis, keepdims, tf.argmax, "argmax")

    def argmin(self, x: Tensor, axis: int, keepdims: bool = False) -> Tensor:
        """Index (int64) of the first minimum along `axis` (`None`: of the flattened `x`); a NaN counts as the minimum.

        Raises:
            ValueError: for an empty `x` or axis.
        """
        return self._arg(x, axis, keepdims, tf.argmin, "argmin")

    def _arg(self, x: Any, axis: Any, keepdims: bool, function: Callable[..., Any], op: str) -> Any:
        x = self._keep_ints(x)
        rank = x.shape.rank
        if axis is None:
            result = self._arg(tf.reshape(x, [-1]), 0, False, function, op)
            return tf.reshape(result, [1] * rank) if keepdims else result
        axis = normalize_axis(axis, rank, op)
        if x.dtype == tf.bool:
            x = tf.cast(x, tf.int8)
        if x.dtype.is_complex:
            result = _complex_arg(x, axis, largest=op == "argmax")
        elif x.dtype.is_floating:  # NumPy returns the first NaN
            nan = tf.math.is_nan(x)
            first_nan = tf.argmax(tf.cast(nan, tf.int8), axis=axis)
            result = tf.where(tf.reduce_any(nan, axis=axis), first_nan, function(x, axis=axis))
        else:
            result = function(x, axis=axis)
        return tf.expand_dims(result, axis) if keepdims else result

    def cumsum(self, x: Tensor, axis: int) -> Tensor:
        """Cumulative sum along `axis`; bools and narrow ints widen to int64 (unsigned: uint64), as `sum`."""
        x = _widened(self._keep_ints(x))
        return tf.cumsum(x, axis=normalize_axis(axis, x.shape.rank, "cumsum"))

    def quantile(self, x: Tensor, quantiles: Any) -> Tensor:
        """Quantiles (linear interpolation, as NumPy's default) of the last axis, shaped `(quantiles, *x.shape[:-1])`
        (`bk.rules`: sort and interpolate)."""
        return quantile_rule(self, self._t(x), quantiles)  # type: ignore[arg-type]

    # ------------------------------------------------------------ precision-aware conversions

    def to_float(self, x: Tensor) -> Tensor:
        """`x` as floats of the current precision; floats keep theirs when the precision is `None`."""
        return (
            self._floats(x) if not self._t(x).dtype.is_complex else tf.cast(tf.math.real(self._t(x)), float_tf(get_precision()))
        )
