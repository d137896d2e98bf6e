"""Specs of elementwise functions, operators, comparisons, `where`, `clip` and casts."""

from __future__ import annotations

from typing import Any, Final, cast

from .._dtype import DType
from ._base import (
    INT64,
    INTEGER_KINDS,
    NUMERIC,
    ShapeDtype,
    Weak,
    as_dtype_arg,
    as_operand,
    at_precision,
    broadcast_shapes,
    check_kinds,
    complex_of,
    default_complex,
    default_float,
    promote,
    shape_of,
    specifies,
    strong,
)
from ._blocks import BOOL_RESULT, FLOAT_RESULT, REAL_RESULT, SAME, binary, unary

Tensor = Any
DTypeLike = Any

_REAL: Final = frozenset({bool, int, float})
_NOT_BOOL: Final = frozenset({int, float, complex})
_INT32: Final = DType(int, 32)
_INT8: Final = DType(int, 8)

_WEAK: Final = (
    "Python numbers are weak (NEP 50): next to a tensor they take its dtype when their kind fits and"
    " only raise the kind otherwise (an int gives int64 next to bool, a float the default float next to"
    " ints, a complex the complex type of the float precision)."
)
_BROADCAST: Final = "Shapes broadcast as in NumPy (ShapeMismatchError otherwise)."
_OVERFLOW: Final = "A Python int outside the range of an integer result raises OverflowError."

# ---------------------------------------------------------------- unary functions

_FLOAT_FUNCTIONS: Final = {
    "sqrt": "Square root",
    "exp": "Natural exponential",
    "sin": "Sine",
    "arcsin": "Inverse sine",
    "cos": "Cosine",
    "arccos": "Inverse cosine",
    "tan": "Tangent",
    "arctan": "Inverse tangent",
    "sinh": "Hyperbolic sine",
    "arcsinh": "Inverse hyperbolic sine",
    "cosh": "Hyperbolic cosine",
    "arccosh": "Inverse hyperbolic cosine",
    "tanh": "Hyperbolic tangent",
    "arctanh": "Inverse hyperbolic tangent",
    "log": "Natural logarithm",
    "log2": "Base-2 logarithm",
    "log10": "Base-10 logarithm",
    "erf": "The error function",
}
_FLOAT_RULE: Final = (
    "elementwise, same shape. bool and int inputs give the default float (float32, or the set precision);"
    " float and complex inputs keep their dtype, or take the set precision."
)
for _name, _what in _FLOAT_FUNCTIONS.items():
    unary(_name, FLOAT_RESULT, f"{_what}, {_FLOAT_RULE}")
for _name, _what in {"sigmoid": "1 / (1 + exp(-x))", "softplus": "log(1 + exp(x))", "log_gamma": "log(abs(gamma(x)))"}.items():
    unary(
        _name,
        FLOAT_RESULT,
        f"{_what}, elementwise, same shape. bool and int inputs give the default float (float32, or the set precision); float inputs keep their dtype, or take the set precision. Complex inputs raise ArgumentTypeError.",
        kinds=_REAL,
    )

unary("abs", REAL_RESULT, "Absolute value, elementwise, same shape and dtype (bool and ints stay as they are); complex values give the float of their precision (complex64 gives float32).", compute=SAME)
unary("real", REAL_RESULT, "Real part, same shape; complex values give the float of their precision, other dtypes stay as they are.", compute=SAME)
unary("imag", REAL_RESULT, "Imaginary part, same shape; complex values give the float of their precision, real values give zeros of their own dtype.", compute=SAME)
unary("conj", SAME, "Complex conjugate, same shape and dtype (real values are returned as they are).")
unary("round", SAME, "Rounds to the nearest integer (halves to even), same shape and dtype: bool and ints stay as they are; complex values round both parts.")
unary("ceil", SAME, "Smallest integer not below x, same shape and dtype (bool and ints stay as they are). Complex values raise ArgumentTypeError.", kinds=_REAL)
unary("floor", SAME, "Largest integer not above x, same shape and dtype (bool and ints stay as they are). Complex values raise ArgumentTypeError.", kinds=_REAL)
unary("sign", SAME, "-1, 0 or 1 by the sign of x (x / abs(x) for complex values), same shape and dtype. bool raises ArgumentTypeError (as NumPy).", kinds=_NOT_BOOL)
unary("invert", SAME, "Logical not of bool, bitwise not of ints, same shape and dtype. Float and complex values raise ArgumentTypeError.", kinds=INTEGER_KINDS)
for _name, _what in {"isfinite": "neither infinite nor NaN", "isnan": "NaN", "isinf": "infinite"}.items():
    unary(_name, BOOL_RESULT, f"True where x is {_what}: bool, same shape, for every numeric dtype.")


def _factorial_dtype(dtype: DType) -> DType:
    if dtype.kind is int:
        return dtype
    return at_precision(dtype) if dtype.kind is float else default_float()


unary(
    "factorial",
    _factorial_dtype,
    "x!, same shape: ints keep their dtype (exact up to 12! for int32, 20! for int64); other values go through to_float and log_gamma (floats keep their dtype or take the set precision; bool and complex give the default float, complex values losing their imaginary part).",
)

# ---------------------------------------------------------------- binary operators

_ARITHMETIC: Final = (
    f"{_BROADCAST} The dtype is the common type of the operands (bk.combine_types: NumPy 2 promotion, except that an int never"
    f" widens the float beside it; floats take the set precision). {_WEAK} {_OVERFLOW}"
)
binary("add", f"a + b. {_ARITHMETIC} Two bools add as int32.", bool_as=_INT32)
binary("sub", f"a - b. {_ARITHMETIC} Two bools subtract as int32.", bool_as=_INT32)
binary("mul", f"a * b. {_ARITHMETIC} Two bools give bool.")
binary(
    "div",
    f"True division numerator / denominator. {_BROADCAST} Bool and int operands divide into the default float (float32, or the set precision), so no int range applies; floats and complex values promote as in add. {_WEAK}",
    int_to_float=True,
    names=("numerator", "denominator"),
)
binary(
    "divide_no_nan",
    f"x / y, and 0 where y is 0. {_BROADCAST} Bool and int operands divide into the default float; floats and complex values promote as in add. {_WEAK}",
    int_to_float=True,
    names=("x", "y"),
)
binary(
    "mod",
    f"dividend % divisor with the sign of the divisor. {_ARITHMETIC} Two bools give int8; integer division by zero gives 0. Complex values raise ArgumentTypeError.",
    kinds=_REAL,
    bool_as=_INT8,
    names=("dividend", "divisor"),
)
binary("floordiv", f"a // b. {_ARITHMETIC} Two bools give int8; integer division by zero gives 0. Complex values raise ArgumentTypeError.", kinds=_REAL, bool_as=_INT8)
binary("maximum", f"Elementwise maximum (NaN propagates). {_ARITHMETIC}")
binary("minimum", f"Elementwise minimum (NaN propagates). {_ARITHMETIC}")
for _name, _symbol in {"and_": "&", "or_": "|", "xor": "^"}.items():
    binary(_name, f"Logical (bool) or bitwise (ints) a {_symbol} b. {_ARITHMETIC} Float and complex values raise ArgumentTypeError.", kinds=INTEGER_KINDS)
for _name, _symbol in {"shift_bits_left": "<<", "shift_bits_right": ">>"}.items():
    binary(_name, f"a {_symbol} b. {_ARITHMETIC} Two bools shift as int8. Float and complex values raise ArgumentTypeError.", kinds=INTEGER_KINDS, bool_as=_INT8)
binary(
    "arctan2",
    f"The angle of the point (x, y). {_BROADCAST} Bool and int operands give the default float; floats promote as in add. {_WEAK} Complex values raise ArgumentTypeError.",
    int_to_float=True,
    kinds=frozenset({float}),
    names=("y", "x"),
)
for _name, _what in {"gamma_inc_l": "Regularized lower incomplete gamma function P(a, x)", "gamma_inc_u": "Regularized upper incomplete gamma function Q(a, x)"}.items():
    binary(
        _name,
        f"{_what}. {_BROADCAST} Bool and int operands give the default float; floats promote as in add. Complex values raise ArgumentTypeError.",
        int_to_float=True,
        kinds=frozenset({float}),
        names=("a", "x"),
    )

_COMPARISON: Final = (
    f"bool, elementwise. {_BROADCAST} The operands compare in their common type, Python numbers weak (NEP 50); a Python int"
    " outside the range of the integer tensor beside it compares by value and never raises."
)
binary("equal", f"x == y: {_COMPARISON}", result=BOOL_RESULT, check_overflow=False, names=("x", "y"))
binary("not_equal", f"x != y: {_COMPARISON}", result=BOOL_RESULT, check_overflow=False, names=("x", "y"))
_ORDER: Final = " Complex values order as NumPy (real part, then imaginary part) where the backend has an order, else raise ArgumentTypeError."
binary("greater_than", f"x > y: {_COMPARISON}{_ORDER}", result=BOOL_RESULT, check_overflow=False, names=("x", "y"))
binary("greater_or_equal", f"x >= y: {_COMPARISON}{_ORDER}", result=BOOL_RESULT, check_overflow=False, names=("x", "y"))

_pow_spec = binary("pow", "", register_it=False, bool_as=_INT8, names=("base", "exp"))


@specifies(
    "pow",
    f"base ** exp. {_ARITHMETIC} Two bools give int8. An integer result with a negative Python int exponent raises ValueError (integers to negative integer powers); a negative entry of a tensor exponent too, checked on the data (bk.rules.check_integer_power).",
    operands=_pow_spec.operand_dtype,
)
def _pow(base: Tensor, exp: Tensor) -> ShapeDtype:
    result: ShapeDtype = _pow_spec.infer(base, exp)
    if result.dtype.kind is int and type(exp) is int and exp < 0:
        raise ValueError(f"pow: integers to negative integer powers are not allowed ({result.dtype.name} ** {exp}); cast the base to float first")
    return result


# ---------------------------------------------------------------- where and clip


def _where_operands(condition: Tensor, x: Tensor = None, y: Tensor = None) -> DType | None:
    if x is None or y is None:
        return None
    return promote("where", (as_operand(x, "where", "x"), as_operand(y, "where", "y")), check_overflow=False)


@specifies(
    "where",
    "where(condition, x, y): x where condition holds, else y. The shape broadcasts condition, x and y as in NumPy (ShapeMismatchError otherwise). The dtype is the common type of x and y, Python numbers weak (NEP 50); a Python int outside the range of the other branch's integer dtype wraps, as numpy.where. where(condition) alone gives the (nnz, ndim) int64 indices of true elements (nnz unknown). Only one of x and y: ValueError.",
    operands=_where_operands,
)
def _where(condition: Tensor, x: Tensor = None, y: Tensor = None) -> ShapeDtype:
    if x is None and y is None:
        cond = strong(condition, "where", "condition")
        return ShapeDtype((None, cond.ndim), INT64)
    if x is None or y is None:
        raise ValueError("where: pass both x and y, or neither (to get the indices of true elements)")
    flags = as_operand(condition, "where", "condition")
    left, right = as_operand(x, "where", "x"), as_operand(y, "where", "y")
    if isinstance(flags, ShapeDtype):
        check_kinds("where", flags.dtype, NUMERIC, "condition")
    dtype = promote("where", (left, right), check_overflow=False)
    return ShapeDtype(broadcast_shapes("where", shape_of(flags), shape_of(left), shape_of(right)), dtype)


def _clip_operands(x: Tensor, minimum: Any, maximum: Any) -> DType:
    return SAME(strong(x, "clip", "x").dtype)


@specifies(
    "clip",
    "x limited to [minimum, maximum]; the dtype is x's for bounds of any kind (int8 clipped to -1.5 stays int8, bool stays bool; floats take the set precision). The shape broadcasts x and the bounds as in NumPy (ShapeMismatchError otherwise). A bound may be None (no limit).",
    operands=_clip_operands,
)
def _clip(x: Tensor, minimum: Any, maximum: Any) -> ShapeDtype:
    operand = strong(x, "clip", "x")
    shapes = [operand.shape]
    for name, bound in (("minimum", minimum), ("maximum", maximum)):
        if bound is not None:
            shapes.append(shape_of(as_operand(bound, "clip", name)))
    return ShapeDtype(broadcast_shapes("clip", *shapes), SAME(operand.dtype))


# ---------------------------------------------------------------- casts


@specifies("cast", "x converted to dtype, same shape (float to int truncates toward zero; complex to real keeps the real part, to bool tests != 0).")
def _cast(x: Tensor, dtype: DTypeLike) -> ShapeDtype:
    operand = as_operand(x, "cast", "x")
    if dtype is None:
        from .._errors import ArgumentTypeError

        raise ArgumentTypeError("cast: dtype must be a bk.DType, got None")
    target = as_dtype_arg(dtype, "cast")
    if type(x) is int and target.kind is int:  # a Python int must fit an int dtype (NumPy 2, NEP 50)
        bits = cast(int, target.bits)  # an int DType always has bits
        low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if target.signed else (0, 2**bits - 1)
        if not low <= x <= high:
            raise OverflowError(f"cast: Python int {x} does not fit {target.name} ([{low}, {high}])")
    return ShapeDtype(shape_of(operand), target)


def _keep_shape(x: Any, op: str) -> ShapeDtype:
    return strong(x, op, "x")


@specifies("to_float", "x as floats, same shape: the set precision; when none is set floats keep theirs and other dtypes give float32.")
def _to_float(x: Tensor) -> ShapeDtype:
    operand = _keep_shape(x, "to_float")
    return ShapeDtype(operand.shape, at_precision(operand.dtype) if operand.dtype.kind is float else default_float())


@specifies("to_int32", "x as int32, same shape.")
def _to_int32(x: Tensor) -> ShapeDtype:
    return ShapeDtype(_keep_shape(x, "to_int32").shape, _INT32)


@specifies("to_int64", "x as int64, same shape.")
def _to_int64(x: Tensor) -> ShapeDtype:
    return ShapeDtype(_keep_shape(x, "to_int64").shape, INT64)


@specifies(
    "to_complex",
    "x as complex values, same shape: the complex type of the set precision; when none is set complex values keep theirs, float64 gives complex128, other floats, bools and ints complex64.",
)
def _to_complex(x: Tensor) -> ShapeDtype:
    operand = _keep_shape(x, "to_complex")
    dtype = complex_of(operand.dtype) if operand.dtype.kind in (float, complex) else default_complex()
    return ShapeDtype(operand.shape, dtype)


@specifies(
    "auto_cast",
    "A tuple: every value (shape kept; a Python number is 0-d) in the common type of all, Python numbers weak (NEP 50). bool_to_int turns an all-bool result into int32; int_to_float an integer result into the default float. A Python int outside the range of an integer result raises OverflowError, unless int_to_float applies.",
)
def _auto_cast(*tensors: Tensor, bool_to_int: bool = False, int_to_float: bool = False) -> tuple[ShapeDtype, ...]:
    operands = [as_operand(t, "auto_cast", f"tensors[{i}]") for i, t in enumerate(tensors)]
    if not operands:
        return ()
    dtype = promote("auto_cast", operands, check_overflow=False)
    if dtype.kind is bool and bool_to_int:
        dtype = _INT32
    if dtype.kind is int and int_to_float:
        dtype = default_float()
    if dtype.kind is int:
        from ._base import check_int_range

        check_int_range("auto_cast", dtype, [o for o in operands if isinstance(o, Weak)])
    return tuple(ShapeDtype(shape_of(o), dtype) for o in operands)


