"""The machinery of the operation specs: `ShapeDtype`, `OpSpec`, the registry and the shared rules.

Everything here works on templates (shape and dtype) only and never allocates data whose size
depends on the shapes.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

import numpy as np

from .. import _context
from .._axes import normalize_axes, normalize_axis
from .._dtype import DType, from_numpy_dtype
from .._errors import ArgumentTypeError, ShapeMismatchError
from .._rules.arguments import PYTHON_NUMBERS, is_python_number
from .._rules.weak import check_python_ints, scalar_dtype, weak_result

__all__ = [
    "BOOL",
    "FLOAT_KINDS",
    "INT64",
    "INTEGER_KINDS",
    "NUMERIC",
    "OpSpec",
    "ShapeDtype",
    "Weak",
    "as_dtype_arg",
    "as_operand",
    "as_shape",
    "as_tensor_dtype",
    "batch_size",
    "broadcast_shapes",
    "check_kinds",
    "complex_of",
    "default_complex",
    "default_float",
    "eval_shape",
    "float_of",
    "is_python_number",
    "op_spec",
    "op_specs",
    "promote",
    "reduce_shape",
    "register",
    "specifies",
    "strong",
]

Shape = tuple[int | None, ...]

BOOL: Final = DType(bool)
INT64: Final = DType(int, 64)
NUMERIC: Final = frozenset({bool, int, float, complex})
"""Every numeric kind: what most operations accept."""
INTEGER_KINDS: Final = frozenset({bool, int})
FLOAT_KINDS: Final = frozenset({float, complex})
_KIND_NAMES: Final = {bool: "bool", int: "integer", float: "float", complex: "complex", object: "object", str: "str"}


# ---------------------------------------------------------------- templates


class ShapeDtype:
    """The template of a tensor: its shape and `DType`, no data (as `jax.ShapeDtypeStruct`).

    Args:
        shape: A sequence of sizes; `None` for a size that is unknown (it depends on the data).
        dtype: A `bk.DType`, or anything `DType.as_dtype` accepts (a NumPy dtype, a name).

    Raises:
        ValueError: for a negative size or a value that names no dtype.
        TypeError: for a size that is not an int or `None`.
    """

    __slots__ = ("_dtype", "_hash", "_shape")
    _shape: Shape
    _dtype: DType
    _hash: int | None

    def __init__(self, shape: Iterable[int | None], dtype: Any) -> None:
        shape = tuple(shape)
        for size in shape:
            if type(size) is not int or size < 0:
                break
        else:  # the common case: plain non-negative ints
            object.__setattr__(self, "_shape", shape)
            object.__setattr__(self, "_dtype", dtype if isinstance(dtype, DType) else _parse_dtype(dtype))
            object.__setattr__(self, "_hash", None)
            return
        sizes = []
        for size in shape:
            if size is not None:
                if isinstance(size, bool):
                    raise TypeError(f"ShapeDtype sizes must be ints or None, not bool {size!r}")
                size = operator.index(size)
                if size < 0:
                    raise ValueError(f"ShapeDtype sizes must be 0 or more, got {size} in {tuple(shape)}")
            sizes.append(size)
        object.__setattr__(self, "_shape", tuple(sizes))
        object.__setattr__(self, "_dtype", dtype if isinstance(dtype, DType) else _parse_dtype(dtype))
        object.__setattr__(self, "_hash", None)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("ShapeDtype is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return ShapeDtype, (self._shape, self._dtype)

    @property
    def shape(self) -> Shape:
        """The sizes; `None` where a size depends on the data."""
        return self._shape

    @property
    def dtype(self) -> DType:
        """The element type."""
        return self._dtype

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self._shape)

    @property
    def size(self) -> int | None:
        """The number of elements, `None` when a size is unknown (and none is 0)."""
        if 0 in self._shape:
            return 0
        if None in self._shape:
            return None
        result = 1
        for n in self._shape:
            result *= n  # type: ignore[operator]
        return result

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ShapeDtype):
            return NotImplemented
        return self._shape == other._shape and self._dtype == other._dtype

    def __hash__(self) -> int:
        if self._hash is None:
            object.__setattr__(self, "_hash", hash((self._shape, self._dtype)))
        return self._hash  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"ShapeDtype(shape={self._shape}, dtype={self._dtype.name})"


def _parse_dtype(value: Any) -> DType:
    """A `DType` from a `DType`, a bk name, a Python type or anything `numpy.dtype()` accepts ('f4', np.int8)."""
    try:
        return DType.as_dtype(value)  # type: ignore[return-value]
    except (TypeError, ValueError):
        try:
            return from_numpy_dtype(np.dtype(value))
        except TypeError:
            raise ValueError(f"cannot interpret {value!r} as a dtype; pass a bk.DType, a name such as 'float32' or a NumPy dtype") from None


class Weak:
    """A Python `bool`, `int`, `float` or `complex` next to tensors: weakly typed (NEP 50)."""

    __slots__ = ("kind", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.kind: type = type(value)

    def __repr__(self) -> str:
        return f"Weak({self.value!r})"


Operand = ShapeDtype | Weak


def as_operand(value: Any, op: str, name: str = "x") -> Operand:
    """A tensor argument as a template (`ShapeDtype`) or, for a Python number, a `Weak` scalar.

    Anything with `shape` and `dtype` is a tensor (NumPy arrays and scalars, framework tensors,
    `ShapeDtype`); lists and tuples of numbers are strong arrays, as `numpy.asarray` makes them.

    Raises:
        ArgumentTypeError: for `None`, strings, bytes and other values that are not tensors.
    """
    if type(value) in PYTHON_NUMBERS:
        return Weak(value)
    if isinstance(value, ShapeDtype):
        return value
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None and not isinstance(value, type):
        try:
            return ShapeDtype(tuple(shape), dtype)
        except (TypeError, ValueError) as error:
            raise ArgumentTypeError(f"{op}: {name} has a shape or dtype bk does not know: {error}") from None
    if isinstance(value, (list, tuple)):
        try:
            array = np.asarray(value)  # as large as the list itself: no allocation beyond the argument
        except (TypeError, ValueError) as error:
            raise ArgumentTypeError(f"{op}: {name} must be a tensor, a number or a nested list of numbers: {error}") from None
        if array.dtype.kind in "OSUV":
            raise ArgumentTypeError(f"{op}: {name} must be a nested list of numbers, got {type(value).__name__} of {array.dtype}")
        return ShapeDtype(array.shape, from_numpy_dtype(array.dtype))
    if value is None or isinstance(value, (str, bytes)):
        raise ArgumentTypeError(f"{op}: {name} must be a tensor or a number, got {type(value).__name__} {value!r}")
    raise ArgumentTypeError(f"{op}: {name} must be a tensor or a number, got {type(value).__name__}")


def as_tensor_dtype(weak: Weak) -> DType:
    """The dtype `as_tensor` gives a Python number alone: bool, int64, the default float or complex."""
    return scalar_dtype(weak.kind, _context.get_precision())


def strong(value: Any, op: str, name: str = "x", kinds: frozenset[type] = NUMERIC) -> ShapeDtype:
    """A tensor argument as a `ShapeDtype`; a Python number alone takes `as_tensor`'s dtype.

    Raises:
        ArgumentTypeError: for a value that is not a tensor, or a dtype kind outside `kinds`.
    """
    operand = as_operand(value, op, name)
    if isinstance(operand, Weak):
        operand = ShapeDtype((), as_tensor_dtype(operand))
    check_kinds(op, operand.dtype, kinds, name)
    return operand


def check_kinds(op: str, dtype: DType, kinds: frozenset[type], name: str = "x") -> None:
    """Raises `ArgumentTypeError` when `dtype`'s kind is not among `kinds`."""
    if dtype.kind not in kinds:
        accepted = ", ".join(_KIND_NAMES[k] for k in (bool, int, float, complex) if k in kinds)
        verb = "are" if " and " in name else "is"
        raise ArgumentTypeError(f"{op}: {name} of dtype {dtype.name} {verb} not supported; {op} takes {accepted} values")


def as_shape(value: Any, op: str, name: str = "shape") -> tuple[int, ...]:
    """A shape argument (a sequence of non-negative ints, or one int) as a tuple.

    Raises:
        ArgumentTypeError: for sizes that are not ints.
        ValueError: for negative sizes.
    """
    if isinstance(value, (str, bytes)) or value is None:
        raise ArgumentTypeError(f"{op}: {name} must be a sequence of ints, got {type(value).__name__} {value!r}")
    items = (value,) if not isinstance(value, Iterable) else tuple(value)
    sizes = []
    for size in items:
        if isinstance(size, bool):
            raise ArgumentTypeError(f"{op}: {name} must hold ints, got bool {size!r}")
        try:
            sizes.append(operator.index(size))
        except TypeError:
            raise ArgumentTypeError(f"{op}: {name} must hold ints, got {type(size).__name__} {size!r}") from None
    if any(s < 0 for s in sizes):
        raise ValueError(f"{op}: negative dimensions are not allowed in {name} {tuple(sizes)}")
    return tuple(sizes)


def as_dtype_arg(value: Any, op: str, default: DType | None = None) -> DType:
    """A `dtype` argument as a `DType`; `None` gives `default` (the float type of the precision if not given)."""
    if value is None:
        return default or default_float()
    try:
        dtype: DType = DType.as_dtype(value) if not isinstance(value, DType) else value  # type: ignore[assignment]
    except (TypeError, ValueError) as error:
        raise ArgumentTypeError(f"{op}: dtype must be a bk.DType, got {value!r} ({error})") from None
    if dtype.kind not in NUMERIC:
        raise ArgumentTypeError(f"{op}: dtype {value!r} is not a numeric dtype; bk tensors hold bool, int, float and complex values (bk.float32, bk.int64, ...)")
    return dtype


# ---------------------------------------------------------------- dtypes


def default_float() -> DType:
    """The float type of new tensors: the current precision, float32 when it is `None`."""
    return DType(float, _context.get_precision() or 32)


def default_complex() -> DType:
    """The complex type of new tensors: complex64, or complex128 at precision 64."""
    return DType(complex, 2 * max(_context.get_precision() or 32, 32))


def float_of(dtype: DType) -> DType:
    """`dtype` as computed by a float function (`sqrt`, `mean`, ...): bool and int give the default float;
    float and complex keep their precision, or take the set one."""
    if dtype.kind in (bool, int):
        return default_float()
    return at_precision(dtype)


def at_precision(dtype: DType) -> DType:
    """Float and complex `dtype` converted to the current precision when one is set; others unchanged."""
    precision = _context.get_precision()
    if precision is None or dtype.kind not in (float, complex):
        return dtype
    return DType(float, precision) if dtype.kind is float else DType(complex, 2 * max(precision, 32))


def complex_of(dtype: DType) -> DType:
    """The complex type of `dtype`'s precision (complex64 for float32 and narrower, complex128 for float64),
    or of the set precision; bool and int give the default complex."""
    precision = _context.get_precision()
    if precision is not None:
        return DType(complex, 2 * max(precision, 32))
    if dtype.kind is complex:
        return dtype
    if dtype.kind is float:
        return DType(complex, 2 * max(int(dtype.bits or 32), 32))
    return default_complex()


def real_of(dtype: DType) -> DType:
    """The real type of complex `dtype` (complex64 gives float32); others unchanged."""
    if dtype.kind is complex:
        return DType(float, int(dtype.bits or 64) // 2)
    return dtype


def promote(op: str, operands: Sequence[Operand], *, check_overflow: bool = True) -> DType:
    """The common dtype of `operands`, Python numbers weak (NEP 50), under the current precision.

    Tensors promote with `bk.combine_types` (NumPy's promotion; floats take the set precision);
    Python numbers only raise the kind (`int8` with `2` stays `int8`, `int32` with `1.5` gives the
    default float, `float16` with `1j` complex64). Without tensors the first number takes
    `as_tensor`'s dtype.

    Raises:
        OverflowError: with `check_overflow`, for a Python int outside the range of an integer result
            (NumPy 2).
        ArgumentTypeError: for str or object dtypes.
    """
    dtypes = tuple(o.dtype for o in operands if isinstance(o, ShapeDtype))
    weak = [o for o in operands if isinstance(o, Weak)]
    for dtype in dtypes:
        if dtype.kind not in NUMERIC:
            raise ArgumentTypeError(f"{op}: {dtype.name} tensors are not supported; pass numeric values")
    result = weak_result(dtypes, tuple(scalar.kind for scalar in weak), _context.get_precision())
    if check_overflow and result.kind is int:
        check_int_range(op, result, weak)
    return result


def check_int_range(op: str, dtype: DType, weak: Iterable[Weak]) -> None:
    """Raises `OverflowError` for a Python int among `weak` outside the range of the integer `dtype`."""
    check_python_ints(dtype, (scalar.value for scalar in weak if scalar.kind is int), op)



def int_argument(value: Any, op: str, name: str) -> int:
    """An argument that must be an int (an axis, an offset, a count) as an int: Python ints and NumPy
    integer scalars (anything `operator.index` takes), never a bool.

    Raises:
        ArgumentTypeError: for bools, floats, tensors with a shape and anything else.
    """
    if isinstance(value, (bool, np.bool_)) or getattr(value, "shape", ()) != ():
        raise ArgumentTypeError(f"{op}: {name} must be an int but got {type(value).__name__} {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ArgumentTypeError(f"{op}: {name} must be an int but got {type(value).__name__} {value!r}") from None

# ---------------------------------------------------------------- shapes


def shape_of(operand: Operand) -> Shape:
    """The shape of an operand; `()` for a Python number."""
    return operand.shape if isinstance(operand, ShapeDtype) else ()


def batch_size(op: str, *sizes: int | None) -> int | None:
    """The batch size of operands whose batch sizes are equal or 1 (those of 1 broadcast); None while unknown.

    Raises:
        ShapeMismatchError: for known sizes other than 1 that differ.
    """
    known = {s for s in sizes if s is not None and s != 1}
    if len(known) > 1:
        raise ShapeMismatchError(f"{op}: batch sizes must be equal or 1 but got {sizes}")
    if known:
        return known.pop()
    return None if None in sizes else 1


def broadcast_shapes(op: str, *shapes: Shape) -> Shape:
    """The broadcast shape of `shapes` (NumPy's rule); an unknown size (`None`) takes a known size
    other than 1 beside it, else stays unknown.

    Raises:
        ShapeMismatchError: for known sizes other than 1 that differ.
    """
    if len(shapes) == 1:
        return shapes[0]
    if len(shapes) == 2 and shapes[0] == shapes[1]:
        return shapes[0]
    rank = max((len(s) for s in shapes), default=0)
    result: list[int | None] = []
    for position in range(-rank, 0):
        sizes = [s[position] for s in shapes if len(s) >= -position]
        known = {n for n in sizes if n is not None and n != 1}
        if len(known) > 1:
            listed = " and ".join(str(tuple(s)) for s in shapes)
            raise ShapeMismatchError(f"{op}: shapes {listed} do not broadcast")
        if known:
            result.append(known.pop())
        elif None in sizes:
            result.append(None)
        else:
            result.append(1)
    return tuple(result)


def reduce_shape(op: str, shape: Shape, axis: Any, keepdims: bool = False) -> tuple[Shape, tuple[int, ...]]:
    """The shape after reducing `axis` (None: all, an int, or a tuple) and the reduced axes.

    Raises:
        AxisError: for an axis out of range or named twice.
        ArgumentTypeError: for an axis that is not an int.
    """
    ndim = len(shape)
    axes = normalize_axes(axis, ndim, op)
    reduced = tuple(range(ndim)) if axes is None else axes
    if keepdims:
        return tuple(1 if i in reduced else n for i, n in enumerate(shape)), reduced
    return tuple(n for i, n in enumerate(shape) if i not in reduced), reduced


def single_axis(op: str, axis: Any, ndim: int) -> int:
    """One int axis in `[0, ndim)`; see `bk._axes.normalize_axis`."""
    return normalize_axis(axis, ndim, op)


# ---------------------------------------------------------------- specs and the registry


class OpSpec:
    """The rule of one catalogue operation: accepted arguments, result dtype and shape, errors.

    Attributes:
        name: The catalogue name (`Backend.<name>`).
        rule: One paragraph of plain text stating the rule (shown in the method's docstring).
        params: `(argument name, kind)` pairs, the kinds as the infer function annotates them
            (`'Tensor'`, `'Axis'`, `'Shape'`, `'DTypeLike'`, `'int'`, ...).

    Args:
        name: The catalogue name.
        rule: The rule's text (whitespace is normalised).
        infer: Takes the operation's arguments and returns the result's template(s) or raises.
        params: The argument kinds; by default read from `infer`'s parameter annotations.
        operands: Optional, takes the same arguments and returns the `DType` the tensor operands
            are computed in (the cast plan of elementwise operations and reductions).
    """

    __slots__ = ("_checked", "_infer", "_operands", "name", "params", "rule")

    def __init__(
        self,
        name: str,
        rule: str,
        infer: Callable[..., Any],
        params: tuple[tuple[str, str], ...] | None = None,
        operands: Callable[..., DType | None] | None = None,
    ) -> None:
        self.name = name
        self.rule = " ".join(rule.split())
        self._infer = infer
        self._operands = operands
        self.params = params if params is not None else _params_of(infer)
        self._checked = _checked_params(infer, self.params)

    def operand_dtype(self, *args: Any, **kwargs: Any) -> DType | None:
        """The `DType` the tensor operands are converted to before the kernel runs, for these arguments.

        For elementwise operations the common type the operands compute in (`add` of two bools:
        int32, `div` of ints: the default float, `greater_than(int8, 2)`: int8, while the result is
        bool); for reductions the input's cast (`mean` of ints: the default float). `None` where the
        operation has no single such dtype (shape operations keep each input's own), or where the
        operands cannot be converted to one (a comparison with a Python int beyond the range of the
        integer tensor beside it compares by value).

        Raises:
            Exception: the error `infer` raises for a dtype or argument mistake.
        """
        return None if self._operands is None else self._operands(*args, **kwargs)

    def check_arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Raises `ArgumentTypeError` for a flag, count, mode or tolerance argument of the wrong Python type
        (what `infer` checks first); for the wrapper of a trusted kernel, which no plan precedes."""
        _check_arguments(self.name, self._checked, args, kwargs)

    @property
    def quick_checks(self) -> tuple[tuple[int, frozenset[type]], ...]:
        """`(position, types)` of the checked arguments taken by position: a value whose class is in `types`
        passes without `check_arguments` (a bool flag that is a bool, a count that is an int)."""
        return tuple((index, _QUICK[kind] | ({type(None)} if default is None else set())) for index, _, kind, default in self._checked if index >= 0)

    def infer(self, *args: Any, **kwargs: Any) -> Any:
        """The template of the result (`ShapeDtype`, or a tuple of them) for these arguments.

        Tensor arguments are anything with `shape` and `dtype` (NumPy arrays, `bk.ShapeDtype`,
        framework tensors); Python numbers are weak. Nothing proportional to the shapes is allocated.

        Raises:
            Exception: the error an eager backend raises for the same call: `bk.ShapeMismatchError`,
                `bk.AxisError`, `bk.ArgumentTypeError`, `bk.IndexOutOfRangeError`, `ValueError` or
                `OverflowError`, with a message that names the operation.
        """
        try:
            if self._checked:
                _check_arguments(self.name, self._checked, args, kwargs)
            return self._infer(*args, **kwargs)
        except TypeError as error:
            if isinstance(error, ArgumentTypeError):
                _rename(error, self.name)
            if isinstance(error, ArgumentTypeError) or not _is_call_error(error):
                raise
            raise ArgumentTypeError(f"{self.name}: {error}; signature {self.signature()}") from None
        except (ValueError, IndexError, OverflowError) as error:
            _rename(error, self.name)
            raise

    def signature(self) -> str:
        """`name(arg, ...)` as the infer function takes them."""
        return f"{self.name}{self.call_signature}"

    @property
    def call_signature(self) -> inspect.Signature:
        """The arguments `infer` takes (the catalogue's names and defaults), as an `inspect.Signature`."""
        return inspect.signature(self._infer)

    def __repr__(self) -> str:
        return f"OpSpec({self.name!r})"


def _rename(error: BaseException, op: str) -> None:
    """Raises `error` again naming `op` where it does not: a spec that delegates to another operation's rule
    (`gather_1d` to `gather`'s) raised it under that operation's name, or a helper (`ShapeDtype` for a
    negative size) without one. Every error of a spec starts with the operation the user called."""
    text = str(error)
    if text.startswith(f"{op}:") or len(error.args) != 1:
        return
    head, sep, rest = text.partition(": ")
    raise type(error)(f"{op}: {rest if sep and head in _REGISTRY else text}") from None


_CHECKED_KINDS: Final = frozenset(("bool", "int", "int | None", "str", "float"))
"""The argument kinds (annotations of the infer functions) whose Python type the core checks for every operation,
before the spec's own rule and before any kernel: flags, counts, offsets, modes, tolerances."""


def _checked_params(infer: Callable[..., Any], params: tuple[tuple[str, str], ...]) -> tuple[tuple[int, str, str, Any], ...]:
    """`(position, name, kind, default)` of the parameters of a checked kind (`_CHECKED_KINDS`)."""
    try:
        parameters = list(inspect.signature(infer).parameters.values())
    except (TypeError, ValueError):
        return ()
    checked = []
    for position, ((name, kind), parameter) in enumerate(zip(params, parameters, strict=False)):
        if kind in _CHECKED_KINDS and parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            index = position if parameter.kind is not parameter.KEYWORD_ONLY else -1
            checked.append((index, name, kind, parameter.default))
    return tuple(checked)


_QUICK: Final = {
    "bool": frozenset((bool,)), "int": frozenset((int,)), "int | None": frozenset((int, type(None))), "str": frozenset((str,)), "float": frozenset((float, int)),
}  # fmt: skip


def _check_arguments(op: str, checked: tuple[tuple[int, str, str, Any], ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Raises `ArgumentTypeError` naming `op` and the argument for a flag that is not a bool, a count or offset
    that is not an int, a mode that is not a string, a tolerance that is not a real number (`None` only where
    it is the default). One rule for every operation, so that no kernel reads `lower='yes'` as true."""
    for index, name, kind, default in checked:
        if 0 <= index < len(args):
            value = args[index]
        elif name in kwargs:
            value = kwargs[name]
        else:
            continue
        if value is None and (default is None or kind == "int | None"):
            continue
        if kind == "bool":
            if value.__class__ is bool:  # not numpy.bool_: NumPy's own reductions refuse it as keepdims
                continue
            wanted = "a bool (True or False)"
        elif kind == "str":
            if isinstance(value, str):
                continue
            wanted = "a string"
        elif kind == "float":
            if not isinstance(value, (str, bytes, bool, np.bool_)) and (isinstance(value, (int, float, np.integer, np.floating)) or getattr(value, "shape", None) == ()):
                continue
            wanted = "a real number"
        else:  # an int, or an int or None
            if not isinstance(value, (bool, np.bool_)) and getattr(value, "shape", ()) == ():
                try:
                    operator.index(value)
                    continue
                except TypeError:
                    pass
            wanted = "an int or None" if kind == "int | None" else "an int"
        raise ArgumentTypeError(f"{op}: {name} must be {wanted}, got {type(value).__name__} {value!r}")


def _is_call_error(error: TypeError) -> bool:
    text = str(error)
    return "argument" in text and ("positional" in text or "keyword" in text or "missing" in text)


def _params_of(function: Callable[..., Any]) -> tuple[tuple[str, str], ...]:
    annotations = getattr(function, "__annotations__", {})
    params = []
    for parameter in inspect.signature(function).parameters.values():
        kind = annotations.get(parameter.name, "Any")
        kind = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
        prefix = "*" if parameter.kind is parameter.VAR_POSITIONAL else "**" if parameter.kind is parameter.VAR_KEYWORD else ""
        params.append((prefix + parameter.name, kind))
    return tuple(params)


_REGISTRY: dict[str, OpSpec] = {}
_VIEW: Final = MappingProxyType(_REGISTRY)


def register(spec: OpSpec, *, replace: bool = False) -> OpSpec:
    """Adds `spec` to the registry (`bk.op_spec(spec.name)` returns it) and returns it.

    Raises:
        ValueError: if an operation of that name is registered already and `replace` is False.
    """
    if spec.name in _REGISTRY and not replace:
        raise ValueError(f"an operation spec named {spec.name!r} is registered already; pass replace=True to replace it")
    _REGISTRY[spec.name] = spec
    return spec


def specifies(name: str, rule: str, *, operands: Callable[..., DType | None] | None = None, replace: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: registers the decorated infer function as the spec of operation `name`.

    The function takes the operation's arguments (with the catalogue's names and defaults,
    annotated with their kinds) and returns the result's `ShapeDtype` (or a tuple of them); it
    raises the bk error of each mistake. It is returned unchanged. `operands` (optional, same
    arguments) gives `OpSpec.operand_dtype`.
    """

    def decorate(infer: Callable[..., Any]) -> Callable[..., Any]:
        register(OpSpec(name, rule, infer, operands=operands), replace=replace)
        return infer

    return decorate


def op_spec(name: str) -> OpSpec:
    """The spec of the catalogue operation `name`.

    Raises:
        ValueError: for an operation without a spec, naming close matches.
    """
    spec = _REGISTRY.get(name)
    if spec is None:
        import difflib  # only on error paths

        close = difflib.get_close_matches(str(name), list(_REGISTRY), n=3)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise ValueError(f"no operation spec named {name!r}.{hint} bk.op_specs() lists the {len(_REGISTRY)} specs.")
    return spec


def op_specs() -> Mapping[str, OpSpec]:
    """Every operation spec by name (a read-only mapping)."""
    return _VIEW


def eval_shape(op_name: str, *args: Any, **kwargs: Any) -> Any:
    """The result template of `op_name(*args, **kwargs)`: `bk.op_spec(op_name).infer(*args, **kwargs)`."""
    return op_spec(op_name).infer(*args, **kwargs)


# Public as `bk.<name>`: `bk` imports this module on first use of one of these names, or with the first backend.
for _public in (ShapeDtype, OpSpec, op_spec, op_specs, eval_shape):
    _public.__module__ = "bk"
del _public
