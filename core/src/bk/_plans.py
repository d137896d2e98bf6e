"""The plan of one call signature: its key, its compilation from the operation's spec and record, and
its run around the kernel (`bk._dispatcher` caches plans per key and calls `run`).

A plan (`Plan`) says what happens around the kernel for one call signature: the operand casts to the
dtype the operation computes in (`OpSpec.operand_dtype`, one size up for a lacking kernel), the core
composites where a rule needs the data (`bk._rules`), the answers without a kernel (`axis=()`), and the
result casts to the spec's dtypes. The steps are in `bk._dispatcher`'s docstring.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from ._context import quiet as unrecorded
from ._conversions import converted, numbers_only
from ._dtype import DType, from_numpy_dtype, to_numpy_dtype
from ._errors import ArgumentTypeError, UnsupportedDtypeError
from ._explain import VERDICTS, signature_of, template
from ._kernels import raw_kernel
from ._operations import SEQUENCE, operation
from ._rules.arguments import PYTHON_NUMBERS
from ._rules.compare import compare_beyond_range
from ._rules.division import divide_integers, zero_divisor_rule
from ._rules.gaps import fill_dtype, kernel_gaps, lacks_kernel
from ._rules.indices import check_indices, index_rule
from ._rules.order import COMPLEX_FILLED, NAN_FILLED, complex_composite, missing_for, nan_composite, signed_image
from ._rules.powers import check_integer_power, integer_power_rule
from ._rules.shifts import shift_counts, shift_rule
from ._rules.weak import int_range

if TYPE_CHECKING:
    from ._backend import Backend


CACHE_LIMIT: Final = 4096


class Unkeyable(Exception):
    """An argument the key cannot describe (a dict, an unhashable object): the plan is compiled for this call only."""


_PLAIN: Final = frozenset((bool, float, complex, str, type(None), type(Ellipsis)))


_NATIVE: dict[tuple[type, type], bool] = {}  # (backend class, value type) -> whether values of the type are native tensors


def value_key(backend: Backend, value: Any) -> Any:
    """What a value contributes to a call's signature: a tensor's type, dtype and full shape, a sequence's
    keys, a Python number of an operand its kind (an int its range), any other value itself with its type."""
    kind = type(value)
    if kind in _PLAIN:
        return (kind, value)
    if kind is int:
        return (int, value)
    native = _NATIVE.get((type(backend), kind))
    if native is None:
        native = _NATIVE[type(backend), kind] = backend.is_tensor(value, only_native=True)
    if native:
        shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
        if isinstance(shape, tuple) and dtype is not None:  # a tensor that describes itself (NumPy, PyTorch, JAX, Array API)
            return (kind, dtype, shape)
        try:
            return (kind, backend.dtype(value), tuple(backend.staticshape(value)), backend.is_sparse(value))
        except Exception as error:
            raise Unkeyable from error
    if kind is tuple or kind is list:
        for v in value:
            if type(v) is not int:
                return (kind, tuple([value_key(backend, v) for v in value]))
        return (kind, value if kind is tuple else tuple(value))  # ints only (a shape, axes): the values themselves
    if kind is slice:
        return (slice, value.start, value.stop, value.step)
    if hasattr(value, "shape") and hasattr(value, "dtype"):  # a NumPy constant, or another framework's tensor (`_foreign`)
        return (kind, value.dtype, tuple(value.shape))
    try:
        hash(value)
    except TypeError:
        raise Unkeyable from None
    return (kind, value)


def operand_part(backend: Backend, value: Any) -> Any:
    """`value_key` for an operand of an elementwise operation: a Python number counts by kind (an int
    by its range); a tensor with a tuple shape (NumPy, JAX, Array API) by its type, dtype and shape."""
    kind = type(value)
    if kind is float or kind is bool or kind is complex:
        return kind
    if kind is int:
        return (int, value < 0, (value if value >= 0 else ~value).bit_length())
    shape = getattr(value, "shape", None)
    if shape.__class__ is tuple:
        return (kind, value.dtype, shape)
    return value_key(backend, value)


def value_part(backend: Backend, value: Any) -> Any:
    """`value_key`, with the common cases first: a tuple of ints (a shape, axes) and a `DType` key as
    themselves (no other key is a tuple of ints, and DTypes are interned), `None` as itself, a tensor
    of a tuple shape by its type, dtype and shape."""
    kind = type(value)
    if kind is tuple:
        for v in value:
            if type(v) is not int:
                return value_key(backend, value)
        return value
    if kind is DType or value is None:
        return value
    shape = getattr(value, "shape", None)
    if shape.__class__ is tuple:
        return (type(value), value.dtype, shape)
    return value_key(backend, value)


class Plan:
    """What the dispatcher does around one kernel for one call signature (see the module's docstring).

    Attributes:
        direct: Every step is an identity: the kernel is called with the arguments as they are.
        operand: The dtype the operands are cast to (None: each keeps its own).
        casts: Positions of the arguments that are converted or cast before the kernel.
        results: The spec's result dtype(s): a `DType`, a tuple of them (None where a result is not a
            tensor), or None when the result is not looked at.
        check_results: Whether the kernel's result dtypes are still to be compared with `results`;
            once a kernel gave the spec's dtypes for a signature, it is not asked again.
        degenerate: A function answering the call without the kernel (`axis=()`), or None.
        by_value, zero_divisor, int_power, composite: the core composites around the kernel.
        constants: The Python-number operands of this signature as tensors of the operand dtype, by
            value (at most 16), so that `add(x, 2.0)` converts `2.0` once. Kernels never change their inputs.
    """

    __slots__ = (
        "by_value", "casts", "check_results", "composite", "constants", "degenerate", "direct", "int_power", "lists", "operand", "plain",
        "results", "sequence", "wraps", "zero_divisor",
    )  # fmt: skip

    def __init__(self) -> None:
        self.direct = False
        self.plain = False  # only conversions and casts of the operands (not of a sequence's tensors)
        self.sequence = False
        self.operand: Any = None
        self.casts: tuple[int, ...] = ()
        self.lists: dict[int, Any] = {}  # position -> the dtype of a list of Python numbers there, where no operand dtype applies
        self.results: Any = None
        self.check_results = False
        self.degenerate: Callable[..., Any] | None = None
        self.by_value: str | None = None
        self.zero_divisor = False
        self.int_power = False
        self.composite: Callable[..., Any] | None = None
        self.constants: dict[Any, Any] = {}  # Python-number operands converted, by value (NaN never matches: converted again)
        self.wraps = False  # a Python int beyond the operand's int range wraps into it (`where`, as numpy.where)


_DIRECT: Final = Plan()


_DIRECT.direct = True


def check_device(backend: Backend, device: Any, op: str) -> None:
    """The core's device-ownership rule, checked by the plan of `allocate_on_device` before the kernel: `device`
    must be a `bk.ComputeDevice` of `backend` itself (`list_devices()`), never another backend's.

    Raises:
        ArgumentTypeError: for a value that is not a `bk.ComputeDevice`.
        ValueError: for a device of another backend.
    """
    from ._device import ComputeDevice

    if not isinstance(device, ComputeDevice):
        raise ArgumentTypeError(f"{op}: expected a bk.ComputeDevice of the {backend.name} backend, got {type(device).__name__} {device!r}; pick one from list_devices()")
    if device.backend is not backend:
        raise ValueError(
            f"{op}: {device.name!r} is not a device of the {backend.name} backend (it belongs to {device.backend}); "
            "pick one from list_devices(), or move the tensor with bk.convert()"
        )


def _foreign(backend: Backend, value: Any) -> bool:
    """Whether `value` (or a tensor in a list of them) is a tensor of another framework (NumPy's values are constants)."""
    if isinstance(value, (list, tuple)):
        return any(_foreign(backend, v) for v in value)
    if isinstance(value, type) or not (hasattr(value, "shape") and hasattr(value, "dtype")) or backend.is_tensor(value, only_native=True):
        return False  # a class (`numpy.float32` as a dtype) is no tensor
    return type(value).__module__.partition(".")[0] != "numpy"


def tensor_positions(spec: Any, op: str, family: str | None) -> tuple[int, ...]:
    """The positions of the arguments the operand dtype applies to: the spec's tensor parameters."""
    declared = operation(op).operands
    if declared is not None:
        return declared
    return tuple(i for i, (_, kind) in enumerate(spec.params) if kind == "Tensor")


def compile_plan(backend: Backend, op: str, spec: Any, family: str | None, positions: tuple[int, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Plan:
    """The plan of one call signature. Raises the spec's error for a call the spec refuses."""
    if any(_foreign(backend, a) for a in (*args, *kwargs.values())):
        return _DIRECT  # another framework's tensor: the kernel raises the error that names the mix-up
    try:
        templates = tuple(template(backend, a) for a in args)
        named = {k: template(backend, v) for k, v in kwargs.items()}
    except Exception:  # a value the backend cannot describe (sparse tensors, ...): the kernel alone
        return _DIRECT
    try:
        bound = signature_of(spec).bind(*templates, **named).arguments
    except TypeError:  # the call does not fit the catalogue's signature: the kernel's Python error tells
        return _DIRECT
    try:
        result = spec.infer(*templates, **named)
    except VERDICTS:
        raise  # the spec's verdict, before any kernel runs
    except Exception:  # a spec that cannot handle these values decides nothing
        return _DIRECT
    record = operation(op)
    if record.checks_device:
        check_device(backend, bound.get("device"), op)
    plan = Plan()
    operand = spec.operand_dtype(*templates, **named)
    if operand is None and record.common_operands:
        operand = _common_operand(backend, args, positions, result)
    tensors = _operand_dtypes(backend, args, positions)
    if operand is None and tensors:
        operand = _at_precision(tensors, result)
    order_fill = _order_fill(backend, op, tensors, operand)  # NumPy's complex and NaN order where the framework lacks it
    if operand is None and record.compares:
        plan.by_value = op
    # a dtype the backend has no kernel for: computed one size up, cast back by the result cast
    missing = kernel_gaps(type(backend), op) if type(backend).lacking_kernels else ()
    if missing and order_fill is None:
        computed = operand if operand is not None else (tensors[0] if tensors and all(d == tensors[0] for d in tensors) else None)
        if computed is not None and lacks_kernel(missing, computed):
            operand = fill_dtype(type(backend), op, computed)  # one size up, or through another kind
            order_fill = signed_image(backend, op, computed) if operand is None else None  # uint64 orders through int64
            operand = computed if order_fill is not None else operand
            if operand is None:
                raise UnsupportedDtypeError(
                    f"{op}: unsupported for dtype {computed.name}: {backend.name} has no {op} kernel of {computed.name} "
                    "(declared in lacking_kernels) nor of a dtype the core could compute it in"
                )
    absent = type(backend).unsupported_dtypes
    if operand is not None and operand in absent:
        operand = None  # never a cast to a dtype the framework lacks: the kernel computes as it can
    plan.operand = operand
    # the operands converted or cast before the kernel
    casts = []
    lists: dict[int, Any] = {}
    if positions == SEQUENCE:
        target = operand or (result.dtype if isinstance(result, _shape_dtype()) else None)
        sequence = args[0] if target is not None and args and isinstance(args[0], (list, tuple)) else ()
        if any(not backend.is_tensor(v, only_native=True) or backend.dtype(v) != target for v in sequence):
            plan.operand, casts, plan.sequence = target, [0], True
    else:
        for i, a in enumerate(args):
            if i not in positions:
                continue
            if backend.is_tensor(a, only_native=True):
                if operand is not None and backend.dtype(a) != operand:
                    casts.append(i)
            elif type(a) in PYTHON_NUMBERS:
                if operand is not None:
                    casts.append(i)
            elif isinstance(a, (list, tuple)) and numbers_only(a):
                casts.append(i)
                if operand is None:  # a list of Python numbers is weak beside the tensors, as the numbers in it
                    lists[i] = _weak_list_dtype(backend, a, tensors)
            elif hasattr(a, "shape") and hasattr(a, "dtype") and backend.is_tensor(a):  # an array the backend converts (NumPy's beside torch tensors)
                casts.append(i)
    plan.casts = tuple(casts)
    plan.wraps = record.wraps_python_ints
    plan.lists = lists
    plan.zero_divisor = zero_divisor_rule(op, operand) and backend.supports("equal") and backend.supports("where")
    plan.int_power = integer_power_rule(op, operand) and len(args) > 1
    if op == "clip":
        from ._rules.clip import clip as clip_rule

        plan.composite = lambda b, kernel, x, low, high: clip_rule(b, x, low, high, lambda v, lo, hi: kernel(b, v, lo, hi))
        if order_fill is not None:  # complex values: minimum(maximum(x, low), high), each in NumPy's order
            plan.composite = lambda b, kernel, x, low, high: clip_rule(b, x, low, high)
    elif order_fill is not None:
        plan.composite = order_fill
    elif shift_rule(backend, op, operand, args[1] if len(args) > 1 else None):  # counts outside [0, bits): NumPy's results
        plan.composite = lambda b, kernel, x, count: shift_counts(b, op, lambda v, c: kernel(b, v, c), x, count)
    elif op == "pad":
        plan.composite = _pad_or_composite
    elif op not in type(backend).checked_indices and (rule := index_rule(op, bound)) is not None:  # an index outside its dimension
        plan.composite = _checked_indices(op, spec, *rule)
    if plan.composite is None:
        plan.composite = _parsed_dtypes(spec, args, kwargs)  # `ones(shape, 'int64')`: the kernel gets a bk.DType
    if family == "reduction":
        axis = bound.get("axis")  # templates keep every value but tensors
        needs = record.degenerate_needs
        if isinstance(axis, (tuple, list)) and len(axis) == 0 and all(backend.supports(n) for n in needs):
            plan.degenerate = _degenerate_reduction(op)
    elif record.no_axes is not None and _no_axes_given(bound.get(record.no_axes)) and all(backend.supports(n) for n in record.no_axes_needs):
        plan.degenerate = _no_axes(op, bound.get("ord", 2))
    if absent:
        _check_absent_results(backend, op, result, absent)
    if isinstance(result, _shape_dtype()):
        plan.results = None if result.dtype in absent else result.dtype
    elif isinstance(result, tuple) and result and all(isinstance(r, _shape_dtype()) or r is None for r in result):
        plan.results = tuple(r.dtype if r is not None and r.dtype not in absent else None for r in result)
    plan.check_results = plan.results is not None
    plan.direct = not (plan.casts or plan.by_value or plan.zero_divisor or plan.int_power or plan.composite or plan.degenerate or plan.check_results)
    return plan


def _order_fill(backend: Backend, op: str, tensors: list[DType], operand: Any) -> Any:
    """The core's composite of `op` where `backend` declares its framework cannot order these operands as
    NumPy (`Backend.complex_unordered`, `Backend.nan_unordered`; `bk._rules.order`), or None."""
    cls = type(backend)
    if not operation(op).ordering or not (cls.complex_unordered or getattr(cls, "nan_unordered", frozenset())):
        return None
    kinds = {d.kind for d in tensors} | ({operand.kind} if operand is not None else set())
    if complex in kinds and op in cls.complex_unordered:
        names = ", ".join(sorted({d.name for d in tensors if d.kind is complex}) or [operand.name])
        why = f"{op}: unsupported for dtype {names}: {backend.name} cannot order complex values (declared in complex_unordered)"
        composite = complex_composite(op) if op != "clip" else _CLIP_FILL
        if composite is None:
            raise UnsupportedDtypeError(f"{why}, and the core fills the complex order of {', '.join(sorted(COMPLEX_FILLED))} only; compare real parts or absolute values instead")
        missing = missing_for(backend, op)
        if missing:
            raise UnsupportedDtypeError(f"{why}, and the core's complex order needs {', '.join(missing)}, which it does not support")
        return composite
    if float in kinds and op in getattr(cls, "nan_unordered", ()) and op in NAN_FILLED and not missing_for(backend, op):
        return nan_composite(op)
    return None


_CLIP_FILL: Final = object()  # clip: the clip rule around the backend's maximum and minimum (each filled)


def _check_absent_results(backend: Backend, op: str, result: Any, absent: frozenset[Any]) -> None:
    """Raises `UnsupportedDtypeError` for a call whose spec result has a dtype the framework lacks altogether."""
    shape_dtype = _shape_dtype()
    for r in result if isinstance(result, tuple) else (result,):
        if isinstance(r, shape_dtype) and r.dtype in absent:
            raise UnsupportedDtypeError(
                f"{op}: unsupported for dtype {r.dtype.name}: the result is {r.dtype.name}, which {backend.name} lacks (declared in unsupported_dtypes)"
            )


@functools.cache
def _shape_dtype() -> Any:
    from ._specs import ShapeDtype

    return ShapeDtype


def _at_precision(tensors: list[DType], result: Any) -> DType | None:
    """Under a set precision, the dtype that float (or complex) operands of one kind are computed in where the
    spec's result is of the precision: the precision's (docs/semantics.md: a precision applies to the inputs,
    so `svd` or `matmul` of float32 under `bk.precision(64)` computes in float64, not in float32 cast up
    afterwards); None for other operands, without a precision, or where the result keeps the input's dtype."""
    from ._context import get_precision

    precision = get_precision()
    kind = tensors[0].kind
    if precision is None or kind not in (float, complex) or any(d.kind is not kind for d in tensors):
        return None
    target = DType(float, precision) if kind is float else DType(complex, 2 * max(precision, 32))
    primary = result[0] if isinstance(result, tuple) and result else result
    if not isinstance(primary, _shape_dtype()) or primary.dtype != target or all(d == target for d in tensors):
        return None
    return target


def _checked_indices(op: str, spec: Any, name: str, sizes: Any, negative: bool) -> Callable[..., Any]:
    """A composite that checks the indices of a gather or scatter on the data before the kernel
    (`bk.rules.check_indices`: `IndexOutOfRangeError` for one outside its dimension), so that no kernel clamps,
    drops or wraps one, as some frameworks do. Symbolic values (tracing, lazy graphs) are not checked."""
    position = next(i for i, (parameter, _) in enumerate(spec.params) if parameter == name)

    def checked(backend: Backend, kernel: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        indices = args[position] if position < len(args) else kwargs.get(name)
        if backend.is_tensor(indices, only_native=True):
            check_indices(backend, indices, sizes, op, "index", negative)
        return kernel(backend, *args, **kwargs)

    return checked


def _pad_or_composite(backend: Backend, kernel: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`pad`'s kernel, or the core's composite (`bk._rules.extrapolation.pad_composite`) where the kernel returns
    `NotImplemented` for a mode it does not support, as the catalogue's docstring allows."""
    result = kernel(backend, *args, **kwargs)
    if result is NotImplemented:
        from ._rules.extrapolation import pad_composite

        return pad_composite(backend, *args, **kwargs)
    return result


def _parsed_dtypes(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Callable[..., Any] | None:
    """A composite passing the kernel a `bk.DType` for each dtype argument the spec read from another value (a name,
    a NumPy dtype, a Python type: `bk._specs.as_dtype_arg`), or None when every one is a `DType` or `None`."""
    from ._specs import as_dtype_arg

    parsed = []
    for i, (name, kind) in enumerate(spec.params):
        if kind != "DTypeLike":
            continue
        value = args[i] if i < len(args) else kwargs.get(name)
        if value is not None and value.__class__ is not DType:
            parsed.append((i, name, as_dtype_arg(value, spec.name)))
    if not parsed:
        return None

    def with_dtypes(backend: Backend, kernel: Callable[..., Any], *call: Any, **named: Any) -> Any:
        values = list(call)
        for i, name, dtype in parsed:
            if i < len(values):
                values[i] = dtype
            else:
                named[name] = dtype
        return kernel(backend, *values, **named)

    return with_dtypes


def _common_operand(backend: Backend, args: tuple[Any, ...], positions: tuple[int, ...], result: Any) -> Any:
    """The dtype the tensor operands of a `COMMON_OPERANDS` operation are computed in, or None."""
    from ._context import get_precision
    from ._rules.weak import weak_result

    strong, kinds = [], []
    for i, a in enumerate(args):
        if i not in positions:
            continue
        if type(a) in PYTHON_NUMBERS:
            kinds.append(type(a))
        elif backend.is_tensor(a, only_native=True):
            strong.append(backend.dtype(a))
        elif hasattr(a, "dtype") and hasattr(a, "shape"):  # a NumPy constant beside the backend's tensors
            strong.append(from_numpy_dtype(a.dtype))
        else:
            return None  # a list or another value: as the kernel takes it
    if not strong:
        return None
    same = all(d == strong[0] for d in strong) and not kinds
    try:
        common = strong[0] if same else weak_result(tuple(strong), tuple(kinds), get_precision())
    except Exception:
        return None
    primary = result[0] if isinstance(result, tuple) and result else result  # lstsq: the solution first
    if isinstance(primary, _shape_dtype()) and primary.dtype.kind in (float, complex) and common.kind in (bool, int):
        return primary.dtype  # a float result of integer operands (`solve` of ints): computed in that float
    return None if same else common  # one dtype already: nothing to cast


def _weak_list_dtype(backend: Backend, value: Any, tensors: list[Any]) -> Any:
    """The dtype a list of Python numbers takes beside tensors of `tensors` dtypes: their common type
    raised to the list's kind (NEP 50: `quantile(float64, [0.5])` is float64), or as `as_tensor` makes it alone."""
    from ._context import get_precision
    from ._rules.weak import KINDS, weak_result

    kinds: set[type] = set()

    def collect(items: Any) -> None:
        for v in items:
            if isinstance(v, (list, tuple)):
                collect(v)
            else:
                kinds.add(type(v))

    collect(value)
    if not tensors or not kinds:
        return None
    kind = max(kinds, key=KINDS.index)
    if kind is bool or kind is int:
        return None  # indices, counts, flags: as `as_tensor` makes them (int64, bool), never a tensor's float
    try:
        return weak_result(tuple(tensors), (kind,), get_precision())
    except Exception:
        return None


def _operand_dtypes(backend: Backend, args: tuple[Any, ...], positions: tuple[int, ...]) -> list[Any]:
    """The dtypes of the native tensors among the operands (the spec's tensor arguments; clip's x)."""
    if positions == SEQUENCE:
        values = list(args[0]) if args and isinstance(args[0], (list, tuple)) else []
    else:
        values = [a for i, a in enumerate(args) if i in positions or (not positions and i == 0)]
    return [backend.dtype(v) for v in values if backend.is_tensor(v, only_native=True)]


def _degenerate_reduction(op: str) -> Callable[..., Any]:
    """The answer of a reduction over no axes (`axis=()`): every element is reduced alone, as NumPy."""

    def alone(backend: Backend, x: Any, dtype: Any) -> Any:
        value = raw_kernel(backend, "as_tensor")(x) if not backend.is_tensor(x, only_native=True) else x
        if op in ("var", "std"):  # the spread of one value: 0, NaN where the value is not finite
            spread = backend.abs(backend.sub(value, value))
            value = backend.mul(spread, spread) if op == "var" else spread
        elif op == "count_nonzero":  # one element counts 1 where it is not zero
            value = backend.not_equal(value, 0)
        return value if backend.dtype(value) == dtype else raw_kernel(backend, "cast")(value, dtype)

    return alone


def _no_axes_given(axes: Any) -> bool:
    """Whether `axes` names no axis at all: an empty tuple or list (`None` names every axis)."""
    return isinstance(axes, (tuple, list)) and len(axes) == 0


def _no_axes(op: str, order: Any) -> Callable[..., Any]:
    """The answer of `op` over no axes: `x` unchanged (`squeeze`, `flip`, `roll`, `moveaxis`, the shifts), or in the
    result's dtype (`logsumexp`: log(exp(x)) is x; the transforms of no axes: x as complex or real values);
    `vector_norm`: |x| (for `ord=0` the count of nonzero values, 0 or 1)."""

    def unchanged(backend: Backend, x: Any, dtype: Any) -> Any:
        value = raw_kernel(backend, "as_tensor")(x) if not backend.is_tensor(x, only_native=True) else x
        if op == "vector_norm":
            value = backend.not_equal(value, 0) if order == 0 else backend.abs(value)
        elif op == "irfftn" and backend.dtype(value).kind is complex:
            value = backend.real(value)
        if dtype is None or backend.dtype(value) == dtype:
            return value
        return raw_kernel(backend, "cast")(value, dtype)

    return unchanged


def run_plan(
    backend: Backend, op: str, kernel: Callable[..., Any], plan: Plan, positions: tuple[int, ...], args: tuple[Any, ...], kwargs: dict[str, Any], quiet: bool = False
) -> Any:
    if plan.degenerate is not None:
        return plan.degenerate(backend, args[0] if args else next(iter(kwargs.values())), plan.results)
    if plan.by_value is not None:  # an int beyond the tensor's range: every element compares alike
        constant = compare_beyond_range(backend, plan.by_value, *args)
        if constant is not None:
            return constant
    if plan.casts:
        if quiet:  # under a profile: the conversions unrecorded
            with unrecorded():
                args = _converted_operands(backend, plan, positions, args)
        else:
            args = _converted_operands(backend, plan, positions, args)
    if plan.int_power:
        check_integer_power(backend, args[1], "pow", args[0])
    if plan.composite is not None:
        result = plan.composite(backend, kernel, *args, **kwargs)
    elif plan.zero_divisor:
        result = divide_integers(backend, lambda a, b: kernel(backend, a, b, **kwargs), args[0], args[1])
    else:
        result = kernel(backend, *args, **kwargs)
    if plan.check_results:
        if quiet:
            with unrecorded():
                return _cast_results(backend, plan, result)
        result = _cast_results(backend, plan, result)
    return result


def _converted_operands(backend: Backend, plan: Plan, positions: tuple[int, ...], args: tuple[Any, ...]) -> Any:
    if positions == SEQUENCE:
        return (type(args[0])(_as_operand(backend, v, plan.operand) for v in args[0]), *args[1:])
    return prepare_operands(backend, plan, args)


def _cast_results(backend: Backend, plan: Plan, result: Any) -> Any:
    """The kernel's result(s) in the spec's dtype(s); remembers a kernel that gave them already."""
    wanted = plan.results
    cast = raw_kernel(backend, "cast")
    if isinstance(wanted, tuple):
        if not isinstance(result, (tuple, list)) or len(result) != len(wanted):
            return result  # not the results the spec describes (a named tuple of other length): left alone
        parts = list(result)
        changed = False
        for i, (value, dtype) in enumerate(zip(parts, wanted, strict=True)):
            if dtype is not None and backend.is_tensor(value, only_native=True) and backend.dtype(value) != dtype:
                parts[i], changed = cast(value, dtype), True
        if not changed:
            _settle(plan)
            return result
        return type(result)(*parts) if hasattr(result, "_fields") else type(result)(parts)
    if not backend.is_tensor(result, only_native=True):
        result = raw_kernel(backend, "as_tensor")(result)
    if backend.dtype(result) != wanted:
        return cast(result, wanted)
    _settle(plan)
    return result


def prepare_operands(backend: Backend, plan: Plan, args: tuple[Any, ...]) -> list[Any]:
    """The arguments with the plan's conversions and casts: Python numbers converted once per value
    (`Plan.constants`), tensors cast to the operand dtype."""
    prepared = list(args)
    operand = plan.operand
    constants = plan.constants
    for i in plan.casts:
        value = prepared[i]
        kind = type(value)
        if kind is float:
            token: Any = (value, kind, _copysign(1.0, value))  # -0.0 apart from 0.0
        elif kind is int or kind is bool:
            token = (value, kind)
        else:
            converted = _as_operand(backend, value, plan.lists.get(i, operand))
            if (kind is list or kind is tuple) and len(backend._devices) > 1:  # beside tensors on a GPU: there too
                converted = _on_device_of_operands(backend, converted, prepared)
            prepared[i] = converted
            continue
        tensor = constants.get(token)
        if tensor is None:
            tensor = _as_operand(backend, value, operand, plan.wraps)
            if len(constants) >= 16:
                constants.clear()
            if backend.is_available(tensor):  # never a symbolic one (made while a graph is traced): it belongs to that graph
                constants[token] = tensor
        prepared[i] = tensor
    return prepared


def _on_device_of_operands(backend: Backend, tensor: Any, operands: list[Any]) -> Any:
    """`tensor` (converted from a list) on the device of the first native tensor among `operands`."""
    for other in operands:
        if other is not tensor and backend.is_tensor(other, only_native=True):
            device = backend.get_device(other)
            return tensor if backend.get_device(tensor) == device else backend.allocate_on_device(tensor, device)
    return tensor


def _settle(plan: Plan) -> None:
    plan.check_results = False
    if not (plan.by_value or plan.zero_divisor or plan.int_power or plan.composite or plan.degenerate):
        plan.direct = not plan.casts
        plan.plain = bool(plan.casts) and plan.sequence is False


def _as_operand(backend: Backend, value: Any, dtype: Any, wraps: bool = False) -> Any:
    """`value` as a tensor of `dtype` (or as `as_tensor` makes it, when `dtype` is None), through the
    backend's raw `as_tensor` and `cast`: a native tensor cast, a Python number or list converted (at
    `dtype` directly, through NumPy: `0.1` for a float64 operand is float64's 0.1, not float32's). With
    `wraps`, a Python int beyond an int `dtype`'s range wraps into it (NumPy's `where`), else it raises."""
    if not backend.is_tensor(value, only_native=True):
        if dtype is None:
            value = converted(backend, value)
        else:
            target = to_numpy_dtype(dtype)
            if wraps and type(value) is int and target.kind in "iu" and -(2**63) <= value < 2**64:
                array = np.asarray(value, dtype=np.int64 if value < 2**63 else np.uint64).astype(target)
            else:
                array = np.asarray(value, dtype=target)
            value = raw_kernel(backend, "as_tensor")(array)
    if dtype is not None and backend.dtype(value) != dtype:
        return raw_kernel(backend, "cast")(value, dtype)
    return value


_copysign: Final = math.copysign


# ---------------------------------------------------------------- fast calls derived from the plans


def fast_call_entry(
    backend: Backend, tensor: Any, op: str, arity: int, weak_numbers: bool, lacking: frozenset[Any] = frozenset(), either_side: bool = False
) -> tuple[bool, bool, tuple[int, int] | None]:
    """What `op`'s fast call on `backend` serves for tensors of `tensor`'s dtype (`bk.rules.framework_call`), derived from
    the plans the core compiles for `tensor`: `(tensors, floats, ints)` as `_fastplan.DirectCall` learns them, asked the
    first time a call's first tensor has a dtype the fast call has not seen (so a dtype the program never made is never
    made here: JAX's 64-bit mode stays as it is).

    The dtype serves one tensor (two of one dtype) where the plan of that call takes no step around the kernel; with
    `weak_numbers`, a Python float (int) beside it where the plan's only step is the number's conversion to the dtype,
    for the ints around 1 whose plans all take no other step, within the range the dtype holds exactly (shift counts:
    `[0, bits)`). The plans decide, so a rule changed in a spec or in `bk._rules` changes the fast call with them;
    nothing here restates a rule. Nothing is served for the dtypes and kinds in `lacking` (where the framework's
    function is not the kernel), nor for complex values of an operation whose kernel the core follows with the special
    complex values (the fast call would skip them). With `either_side` the numbers it gives hold before the tensor too
    (a plugin's `caller` that serves `op(2.0, x)`). With `arity` 3 (`where`) the calls have a bool condition first,
    and no Python int is served."""
    from ._specs import op_spec

    nothing = (False, False, None)
    try:
        dtype = backend.dtype(tensor)
    except Exception:  # a tensor the backend does not describe: the plan serves it
        return nothing
    if dtype in type(backend).unsupported_dtypes or dtype in lacking or dtype.kind in lacking:
        return nothing
    record = operation(op)
    if record.special_values and dtype.kind is complex:
        return nothing
    spec = op_spec(op)
    positions = tensor_positions(spec, op, record.family)
    lead: tuple[Any, ...] = ()
    if arity == 3:  # a choice (`where`): a bool condition before the two operands
        try:
            lead = (backend.as_tensor(np.asarray(True)),)  # 0-d: broadcasts against any tensor
        except Exception:  # a backend without bools: the plan serves every call
            return nothing
    n = len(lead)
    tensors = _takes_no_step(backend, op, spec, positions, (*lead, *(tensor,) * (arity - n)), dtype, ())
    if arity - n != 2 or not weak_numbers:
        return tensors, False, None
    orders = (False, True) if either_side else (False,)
    floats = dtype.kind in (float, complex) and all(
        _takes_no_step(backend, op, spec, positions, (*lead, 0.5, tensor) if first else (*lead, tensor, 0.5), dtype, (n,) if first else (n + 1,))
        for first in orders
    )
    ints = None
    if dtype.kind in (int, float, complex) and not lead:
        found = [bounds for first in orders if (bounds := _step_free_ints(backend, op, spec, positions, tensor, dtype, first)) is not None]
        if len(found) == len(orders):  # the ints free of steps in every order
            ints = max(low for low, _ in found), min(high for _, high in found)
    return tensors, floats, ints


def _takes_no_step(backend: Backend, op: str, spec: Any, positions: tuple[int, ...], args: tuple[Any, ...], dtype: DType, numbers: tuple[int, ...]) -> bool:
    """Whether the plan of `args` does nothing around the kernel but convert the Python numbers at `numbers` to `dtype`."""
    try:
        with unrecorded():
            plan = compile_plan(backend, op, spec, operation(op).family, positions, args, {})
    except Exception:  # the spec refuses the call: the plan raises, never the fast call
        return False
    if plan.by_value or plan.zero_divisor or plan.int_power or plan.composite or plan.degenerate or plan.sequence or plan.lists:
        return False
    if not set(plan.casts) <= set(numbers) or (numbers and plan.operand != dtype) or plan.operand not in (None, dtype):
        return False
    return plan.results is None or isinstance(plan.results, DType)


def _step_free_ints(
    backend: Backend, op: str, spec: Any, positions: tuple[int, ...], sample: Any, dtype: DType, first: bool = False
) -> tuple[int, int] | None:
    """The Python ints `b` whose call `op(sample, b)` (`op(b, sample)` if `first`) takes no step but `b`'s conversion:
    the interval around 1 between the nearest probes whose plans take another step (a shift count of -1 or of the
    width), within the dtype's exact ints; None when 1 itself takes a step."""
    low, high = _exact_ints(backend, dtype)
    probes = sorted({v for v in (-1, 0, 1, 2, 7, 8, 15, 16, 31, 32, 63, 64) if low <= v <= high} | {low, high})
    free = {v: _takes_no_step(backend, op, spec, positions, (v, sample) if first else (sample, v), dtype, (0,) if first else (1,)) for v in probes}
    if not free.get(1, False):
        return None
    start = probes.index(1)
    lo = hi = start
    while lo > 0 and free[probes[lo - 1]]:
        lo -= 1
    while hi < len(probes) - 1 and free[probes[hi + 1]]:
        hi += 1
    return probes[lo], probes[hi]


def _exact_ints(backend: Backend, dtype: DType) -> tuple[int, int]:
    """The Python ints a tensor of `dtype` holds exactly, within int64 (a float's integers up to 2 / eps)."""
    if dtype.kind is int:
        low, high = int_range(dtype)
        return max(low, -(2**63)), min(high, 2**63 - 1)
    bound = round(2 / backend.finfo(dtype).eps)
    return -bound, bound
