"""Kernel failures become the bk error of the operation's spec: the core maps errors, plugins own kernels.

A plugin's kernel is allowed to fail with its framework's own exception for bad input (NumPy's
`ValueError`, JAX's `TypeError`, TensorFlow's `InvalidArgumentError`, ...). `Backend` wraps every
kernel a plugin defines, once, when the plugin's class is created; the wrapper is only an `except`
branch, so it costs nothing until something raises. There, `explain_failure` decides the bk class
without reading the framework's message:

1. bk's own classes (`docs/semantics.md`) pass unchanged when they name the operation.
2. The operation's spec (`bk.op_spec(op)`) is asked about the same arguments (their templates:
   shape and dtype). When the spec refuses the call, its error is raised, chained from the
   framework's: a shape mismatch, an axis out of range, a dtype kind the operation does not take.
3. Exception types the plugin declared with a meaning (`Backend.framework_errors`, such as
   TensorFlow's `NotFoundError` for a dtype it has no kernel for) raise that class.
4. The spec accepts the call, so the data was at fault: when the framework's exception is one the
   plugin declared as bad input (`Backend.kernel_errors`), the operation's data-error class is
   raised (`IndexOutOfRangeError` for an index outside the indexed dimension, `ValueError` for
   `bincount` of negative values, ...; `DATA_ERRORS`).
5. Anything else is raised unchanged (named after the operation): a bug stays visible as what it is.

The hot operations of a plugin that catch inline (bk-numpy's C operators, every method that is not
a plain Python function) and those the plugin lists in `Backend.unchecked_operations` are not wrapped.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NoReturn

from ._errors import BK_ERRORS, IndexOutOfRangeError
from ._rules.arguments import PYTHON_NUMBERS
from ._rules.compare import COMPARISONS, compare_beyond_range
from ._rules.division import divide_integers, zero_divisor_rule
from ._rules.powers import check_integer_power, integer_power_rule
from ._rules.special import SPECIAL_VALUES, fix_special_values

if TYPE_CHECKING:
    from ._backend import Backend

__all__ = ["DATA_ERRORS", "check_dtypes", "explain_failure", "spec_verdict", "wrap_generic_defaults", "wrap_kernels"]

_INDICES: Final = (
    "gather",
    "gather_1d",
    "gather_nd",
    "gather_by_component_indices",
    "batched_gather_nd",
    "batched_gather_1d",
    "batch_gather",
    "scatter",
    "scatter_nd",
    "scatter_1d_scalar",
    "scatter_nd_scalar",
    "indexed_segment_sum",
    "take",
    "take_along_axis",
    "multi_slice",
)
DATA_ERRORS: Final[dict[str, type[Exception]]] = {
    **dict.fromkeys(_INDICES, IndexOutOfRangeError),
    **dict.fromkeys(("bincount", "batched_bincount", "unravel_index", "ravel_multi_index", "repeat", "pow"), ValueError),
}
"""The bk class of a mistake in the data (not in shapes, dtypes or arguments) for operations that have one."""

# What the spec's verdict may be: the classes of docs/semantics.md and the built-in ones they derive from.
_VERDICTS: Final = (*BK_ERRORS, ValueError, TypeError, IndexError, OverflowError)
# The methods every backend calls on itself all the time, and those that transform functions: never wrapped.
_NEVER: Final = frozenset(
    (
        "is_tensor", "as_tensor", "is_available", "numpy", "dtype", "staticshape", "shape", "ndims", "cast", "combine_types",
        "auto_cast", "jit_compile", "jit_compile_grad", "jit_compile_hessian", "jacobian", "hessian", "custom_gradient",
        "while_loop", "call", "vectorized_call", "numpy_call", "list_devices", "get_default_device", "set_default_device",
        "get_device", "get_device_by_ref", "block_until_ready", "is_module", "is_sparse", "nn_library", "prefers_channels_last",
        "requires_fixed_shapes_when_tracing", "seed", "variable", "compute_count", "supports", "features",
        "linear_solve", "conjugate_gradient", "conjugate_gradient_adaptive", "bi_conjugate_gradient", "minimize", "linear",
    )
)  # fmt: skip
_WRAPPED: Final = "__bk_kernel__"
_NAMED: Final = (ValueError, TypeError, IndexError, OverflowError)  # exactly these built-in types get the operation's name


def _template(backend: Backend | None, value: Any) -> Any:
    """`value` as the spec sees it: native tensors become `ShapeDtype`s (sequences element by element).

    Without a backend, values go to the spec as they are (NumPy arrays describe themselves).
    """
    from ._specs import ShapeDtype

    if backend is None:
        return value
    if isinstance(value, (list, tuple)) and value and any(backend.is_tensor(v, only_native=True) for v in value):
        return type(value)(_template(backend, v) for v in value) if isinstance(value, list) else tuple(_template(backend, v) for v in value)
    if type(value).__module__ == "numpy" and not hasattr(value, "__len__"):
        return value  # a NumPy scalar describes itself: a 0-d operand, or an int where the spec wants one (an axis)
    if backend.is_tensor(value, only_native=True):
        if backend.is_sparse(value):
            raise LookupError("sparse")  # the specs describe dense tensors: no verdict
        return ShapeDtype(tuple(backend.staticshape(value)), backend.dtype(value))
    return value


def spec_verdict(backend: Backend | None, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> BaseException | None:
    """The error `op`'s spec gives for these arguments, or None when it accepts them (or cannot tell)."""
    from ._specs import op_specs

    spec = op_specs().get(op)
    if spec is None:
        return None
    try:
        templates = tuple(_template(backend, a) for a in args)
        named = {k: _template(backend, v) for k, v in kwargs.items()}
    except Exception:  # a value the backend cannot describe: no verdict
        return None
    try:
        _signature(spec).bind(*templates, **named)
    except TypeError:  # the call does not fit the spec's arguments: a Python-level mistake, not the spec's to judge
        return None
    try:
        spec.infer(*templates, **named)
    except _VERDICTS as verdict:
        return verdict
    except Exception:  # a spec that cannot handle these values decides nothing
        return None
    return None


_DTYPE_VERDICTS: dict[tuple[Any, ...], Any] = {}


def check_dtypes(backend: Backend, op: str, *operands: Any) -> None:
    """Raises the spec's error when the elementwise operation `op` does not take the dtypes of the native
    tensors `operands` (complex values in `floor`, `signbit`, `sigmoid`, `arctan2`, ...): the kind rule of
    the operation's spec, for hot kernels that check before they call their framework. The verdict is
    cached per (operation, tensor types and native dtypes), so a call costs one dict lookup; shapes are
    not looked at."""
    try:
        key: Any = (op, *[(type(o), o.dtype) for o in operands])  # the type first: dtypes of two frameworks never meet in __eq__
        verdict = _DTYPE_VERDICTS.get(key, _UNKNOWN)
    except (AttributeError, TypeError):  # a tensor without a hashable native dtype: asked every time
        key, verdict = None, _UNKNOWN
    if verdict is _UNKNOWN:
        from ._specs import ShapeDtype

        error = spec_verdict(None, op, tuple(ShapeDtype((), backend.dtype(o)) for o in operands), {})
        verdict = None if error is None else (type(error), str(error))
        if key is not None:
            _DTYPE_VERDICTS[key] = verdict
    if verdict is not None:
        raise verdict[0](verdict[1])


_UNKNOWN: Final = object()


@functools.cache
def _signature(spec: Any) -> inspect.Signature:
    return spec.call_signature  # type: ignore[no-any-return]


def explain_failure(backend: Backend | None, op: str, error: BaseException, args: tuple[Any, ...], kwargs: dict[str, Any]) -> NoReturn:
    """Raises the bk error that `error` (raised by `backend`'s kernel of `op` for these arguments) means.

    For plugin authors who catch inside a kernel that the core does not wrap (see
    `Backend.unchecked_operations`): call it in the `except` branch. `backend` may be None when the
    arguments are NumPy arrays or other objects with `shape` and a NumPy `dtype`. Never reads the
    framework's message: the spec decides mistakes of shape, axis and kind; the plugin's declared
    `kernel_errors` and `DATA_ERRORS` decide mistakes in the data; anything else is raised unchanged.
    """
    if isinstance(error, BK_ERRORS) and str(error).startswith(f"{op}:"):
        raise error  # the kernel's own verdict, naming the operation
    verdict = spec_verdict(backend, op, args, kwargs)
    if verdict is not None:
        raise verdict from error
    text = (str(error).strip().splitlines() or [type(error).__name__])[0]
    for kind, meaning in (type(backend).framework_errors.items() if backend is not None else ()):
        if isinstance(error, kind):
            raise meaning(f"{op}: {text}") from error
    if isinstance(error, BK_ERRORS):  # raised by an operation the kernel called (maximum, as_tensor, ...): its class stands
        raise type(error)(f"{op}: {error}") from error
    if isinstance(error, tuple(type(backend).kernel_errors) if backend is not None else (IndexError,)):
        data = DATA_ERRORS.get(op)
        if data is not None:
            raise data(f"{op}: {text}") from error
    text = str(error).strip()
    if type(error) in _NAMED and text and not text.startswith(f"{op}:"):  # name the operation, as bk's own errors do
        raise type(error)(f"{op}: {text}") from error
    raise error


def _wrap(op: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(kernel)
    def checked(self: Backend, *args: Any, **kwargs: Any) -> Any:
        try:
            return kernel(self, *args, **kwargs)
        except (TypeError, ValueError, IndexError, ArithmeticError, *self.kernel_errors) as error:  # type: ignore[misc]
            explain_failure(self, op, error, args, kwargs)

    setattr(checked, _WRAPPED, kernel)
    return checked


def wrap_kernels(cls: type[Backend], catalogue: tuple[str, ...]) -> None:
    """Wraps the kernels `cls` defines (its own methods and its mixins', not the base class's defaults).

    With `cls.core_rules`, elementwise operations and reductions also get the spec's cast plan before
    the kernel and the spec's result dtype after it (see `_ruled`).
    """
    from ._backend import Backend
    from ._specs import FAMILY, op_specs

    skip = (_NEVER - {"as_tensor", "cast"} if cls.core_rules else _NEVER) | frozenset(cls.unchecked_operations)
    for name in catalogue:
        if name in skip:
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or owner is Backend or owner in Backend.__mro__:
            continue
        method = vars(owner)[name]
        if not _is_plain_function(method) or getattr(method, _WRAPPED, None) is not None or method is getattr(Backend, name, None):
            continue  # a C operator, wrapped already, or the base class's own default put back (supports() must see it)
        if name in SPECIAL_VALUES:
            method = _with_special_values(name, method)
        if not cls.core_rules:
            checked_first = cls.spec_first and name in op_specs() and name not in _hot()
            setattr(cls, name, _verdict_first(name, method) if checked_first else _wrap(name, method))
        elif name == "as_tensor":
            setattr(cls, name, _ruled_as_tensor(method))
        else:
            setattr(cls, name, _ruled(name, method, FAMILY.get(name)) if name in op_specs() else _wrap(name, method))


def _with_special_values(op: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`kernel` with the Array API standard's values at the special complex inputs of `op` (`bk._rules.special`)."""

    @functools.wraps(kernel)
    def fixed(self: Backend, x: Any, *args: Any, **kwargs: Any) -> Any:
        result = kernel(self, x, *args, **kwargs)
        if self.dtype(result).kind is complex:
            return fix_special_values(self, op, x if self.is_tensor(x, only_native=True) else self.as_tensor(x), result)
        return result

    return fixed


@functools.cache
def _hot() -> frozenset[str]:
    """The operations whose kernels run before any check on plugins with their own rules (`core_rules`
    False): elementwise operations, reductions and `where`, where a check per call would cost more than
    the kernel on small tensors. Their mistakes are explained after the kernel fails."""
    from ._specs import FAMILY

    return frozenset(FAMILY) | {"where"}


_VERDICT_CACHE_LIMIT: Final = 4096


class _Foreign(Exception):
    """An argument is a tensor of another framework: no verdict, the kernel's own error tells."""


_PLAIN: Final = frozenset((bool, int, float, complex, str, type(None)))
_NATIVE: dict[tuple[type, type], bool] = {}  # (backend class, value type) -> whether values of the type are native tensors


def _shape_key(backend: Backend, value: Any) -> Any:
    """The part of a call's signature a value contributes to the spec's verdict: a tensor's type, dtype and
    shape, a sequence's keys, any other value itself with its type (`1`, `1.0` and `True` differ).

    Raises:
        TypeError: for unhashable values (NumPy arrays beside a backend of another framework, dicts):
            no cache entry.
    """
    kind = type(value)
    if kind in _PLAIN:
        return (kind, value)
    native = _NATIVE.get((type(backend), kind))
    if native is None:
        native = _NATIVE[type(backend), kind] = backend.is_tensor(value, only_native=True)
    if native:
        shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
        if isinstance(shape, tuple) and dtype is not None:  # a tensor that describes itself (NumPy, PyTorch, JAX, Array API)
            return (kind, dtype, shape)
        return (kind, backend.dtype(value), tuple(backend.staticshape(value)))
    if hasattr(value, "shape") and hasattr(value, "dtype") and kind.__module__ != "numpy":
        raise _Foreign  # another framework's tensor: the kernel raises the error that names the mix-up
    if kind is tuple or kind is list:
        for v in value:
            if type(v) is not int:
                return (kind, tuple([_shape_key(backend, v) for v in value]))
        return (kind, tuple(value))
    hash(value)
    return (kind, value)


def wrap_generic_defaults(base: type, catalogue: tuple[str, ...]) -> None:
    """Puts the spec's verdict before the core's own generic defaults (on the mixin that defines each, so
    every backend inherits the same wrapped method and `supports()` still sees the base class's default): a default
    composed of other operations raises its own operation's error for a mistake, not the first inner
    operation's. Hot operations and the methods every backend calls on itself are left alone."""
    from ._features import uses_of
    from ._specs import op_specs

    specs = op_specs()
    for name in catalogue:
        method: Any = getattr(base, name, None)
        if name in _NEVER or name in _hot() or name not in specs or not _is_plain_function(method) or uses_of(method) is None:
            continue
        owner = next(k for k in base.__mro__ if name in vars(k))  # the defaults' module keeps the method
        setattr(owner, name, _verdict_first(name, method, only_if_spec_first=True))


def _verdict_first(op: str, kernel: Callable[..., Any], only_if_spec_first: bool = False) -> Callable[..., Any]:
    """`kernel` behind its spec's verdict (`Backend.spec_first`): a call the spec refuses raises the spec's
    bk error before the kernel runs; the signatures the spec accepted (operation, shapes, dtypes, the other
    arguments' values, precision) are remembered, so a repeated call costs a set lookup. Kernel failures
    are explained as by every wrapper (`explain_failure`)."""
    from ._context import get_precision

    accepted: set[Any] = set()
    explained = _wrap(op, kernel)  # the kernel with its failures explained, as every wrapper does

    @functools.wraps(kernel)
    def checked(self: Backend, *args: Any, **kwargs: Any) -> Any:
        if only_if_spec_first and not type(self).spec_first:
            return kernel(self, *args, **kwargs)
        try:
            parts = [_shape_key(self, a) for a in args]
            if kwargs:
                parts += [(k, _shape_key(self, v)) for k, v in kwargs.items()]
            parts.append(get_precision())
            key: Any = tuple(parts)
            known = key in accepted
        except _Foreign:
            key, known = None, True
        except Exception:  # unhashable arguments, or values the backend cannot describe: ask the spec every time
            key, known = None, False
        if not known:
            verdict = spec_verdict(self, op, args, kwargs)
            if verdict is not None:
                raise verdict
            if key is not None:
                if len(accepted) >= _VERDICT_CACHE_LIMIT:
                    accepted.clear()
                accepted.add(key)
        return explained(self, *args, **kwargs)

    setattr(checked, _WRAPPED, kernel)
    return checked


# ---------------------------------------------------------------- the rules before and after a kernel

_SEQUENCE: Final = (-1,)  # the first argument is a sequence of tensors
_OPERANDS: Final = {"unary": (0,), "binary": (0, 1), "reduction": (0,), "where": (1, 2), "stack": _SEQUENCE, "concat": _SEQUENCE}


class _Plan:
    """What the spec says about one signature: the dtype operands are cast to, the result's dtype,
    and the composites around the kernel where the rule needs the data (zero divisors, negative
    integer exponents)."""

    __slots__ = ("by_value", "int_power", "operand", "result", "zero_divisor")

    def __init__(self, operand: Any, result: Any, by_value: str | None, zero_divisor: bool, int_power: bool = False) -> None:
        self.operand, self.result, self.by_value, self.zero_divisor, self.int_power = operand, result, by_value, zero_divisor, int_power


def _key_of(backend: Backend, value: Any) -> Any:
    """The part of a call's signature a value contributes: a tensor's dtype, rank and emptiness, a
    Python number's kind (an int's size too: NEP 50 checks its range), any other value itself."""
    kind = type(value)
    if kind is int:
        return (int, value.bit_length(), value < 0)
    if kind in (bool, float, complex) or value is None:
        return kind
    if backend.is_tensor(value, only_native=True):
        shape = backend.staticshape(value)
        return (backend.dtype(value), len(shape), 0 in shape)
    hash(value)  # TypeError for lists and other unhashable values: no cache entry
    return (kind, value)


def _plan(backend: Backend, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Plan:
    from ._specs import op_spec

    spec = op_spec(op)
    templates = tuple(_template(backend, a) for a in args)
    named = {k: _template(backend, v) for k, v in kwargs.items()}
    result = spec.infer(*templates, **named)  # the spec's verdict: raises the bk error of a mistake
    if isinstance(result, tuple) or not hasattr(result, "dtype"):  # several results: the verdict alone
        return _Plan(None, None, None, False)
    operand = spec.operand_dtype(*templates, **named)
    by_value = op if operand is None and op in COMPARISONS else None
    return _Plan(operand, result.dtype, by_value, zero_divisor_rule(op, operand), integer_power_rule(op, operand))


def _ruled(op: str, kernel: Callable[..., Any], family: str | None) -> Callable[..., Any]:
    """`kernel` behind the spec: the verdict of each signature (operation, dtypes, Python-number
    kinds, precision) is computed once and cached; operands are cast to the spec's operand dtype,
    the result to its dtype; integer division by zero, comparisons with out-of-range Python ints and
    `clip` run as core composites of catalogue operations. For plugins whose kernels are bare framework
    calls (`Backend.core_rules`)."""
    from ._context import get_precision

    positions = _OPERANDS.get(family or op, ())  # the arguments cast to the spec's operand dtype
    cache: dict[Any, _Plan] = {}
    run = _clip_composite(kernel) if op == "clip" else kernel

    @functools.wraps(kernel)
    def ruled(self: Backend, *args: Any, **kwargs: Any) -> Any:
        try:
            key: Any = (tuple(_key_of(self, a) for a in args), tuple((k, _key_of(self, v)) for k, v in kwargs.items()), get_precision())
            plan = cache.get(key)
        except TypeError:
            key = plan = None
        try:
            if plan is None:
                plan = _plan(self, op, args, kwargs)
                if key is not None:
                    cache[key] = plan
            return _run(self, run, plan, positions, args, kwargs)
        except (TypeError, ValueError, IndexError, ArithmeticError, *self.kernel_errors) as error:  # type: ignore[misc]
            explain_failure(self, op, error, args, kwargs)

    setattr(ruled, _WRAPPED, kernel)
    return ruled


def _run(backend: Backend, kernel: Callable[..., Any], plan: _Plan, positions: tuple[int, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if plan.by_value is not None:  # an int beyond the tensor's range: every element compares alike
        constant = compare_beyond_range(backend, plan.by_value, *args)
        if constant is not None:
            return constant
    operand = plan.operand
    if positions == _SEQUENCE:  # stack, concat: every tensor of the sequence takes the result's dtype
        target = operand or plan.result
        if target is not None and args and isinstance(args[0], (list, tuple)):
            args = (type(args[0])(_as_operand(backend, v, target) for v in args[0]), *args[1:])
    elif operand is not None:
        args = tuple(_as_operand(backend, a, operand) if i in positions else a for i, a in enumerate(args))
    if plan.int_power and len(args) > 1:
        check_integer_power(backend, args[1])
    if plan.zero_divisor and backend.supports("equal") and backend.supports("where"):
        result = divide_integers(backend, lambda a, b: kernel(backend, a, b, **kwargs), args[0], args[1])
    else:
        result = kernel(backend, *args, **kwargs)
    if plan.result is not None and backend.dtype(result) != plan.result:
        result = backend.cast(backend.as_tensor(result), plan.result)
    return result


def _clip_composite(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`clip` as the core's rule (`bk._rules.clip`) around the framework's clip `kernel`."""
    from ._rules.clip import clip

    def clipped(backend: Backend, x: Any, minimum: Any, maximum: Any) -> Any:
        return clip(backend, x, minimum, maximum, lambda value, low, high: kernel(backend, value, low, high))

    return clipped


def _as_operand(backend: Backend, value: Any, dtype: Any) -> Any:
    """`value` as a tensor of `dtype`: a native tensor cast, a Python number converted (the spec has
    checked that it fits); anything else as it is."""
    if type(value) in PYTHON_NUMBERS:
        return backend.cast(backend.as_tensor(value), dtype)
    if backend.is_tensor(value, only_native=True) and backend.dtype(value) != dtype:
        return backend.cast(value, dtype)
    return value


def _is_plain_function(method: Any) -> bool:
    return isinstance(method, types.FunctionType) and not getattr(method, "__isabstractmethod__", False)


def _ruled_as_tensor(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`as_tensor` behind docs/semantics.md's rules: Python ints (and lists of them) are int64, Python
    floats the float type of the precision (float32 by default), Python complex numbers its complex
    type, and under a set precision every float or complex result takes it."""
    from ._context import get_precision
    from ._dtype import DType

    int64 = DType(int, 64)

    @functools.wraps(kernel)
    def as_tensor(self: Backend, x: Any, convert_external: bool = True) -> Any:
        result = kernel(self, x, convert_external)
        if result is x and type(x) in PYTHON_NUMBERS:
            return result  # a Python number kept as it is (convert_external=False)
        dtype = self.dtype(result)
        python = type(x) in (int, float, complex) or (isinstance(x, (list, tuple)) and not self.is_tensor(x, only_native=True))
        if dtype.kind is int and python and dtype != int64:
            return self.cast(result, int64)  # Python ints are int64
        if dtype.kind not in (float, complex):
            return result
        precision = get_precision()
        if python or precision is not None:
            wanted = self.float_type if dtype.kind is float else self.complex_type
            if (python or dtype.bits != wanted.bits) and dtype != wanted:
                return self.cast(result, wanted)
        return result

    setattr(as_tensor, _WRAPPED, kernel)
    return as_tensor
