"""The one call path: every catalogue operation of every backend reaches its kernel through a plan.

`Backend.__init_subclass__` puts `dispatch(op, kernel)` in front of every kernel a backend class
defines, and the base class puts it in front of every generic default, once. Per call signature
(the backend class, each tensor's type, dtype and full shape, each Python number's kind and range,
the other arguments' values, the precision) the dispatcher compiles a `Plan` from the operation's
spec (`bk.op_spec(op)`) and caches it (bounded):

1. the spec's verdict: a call the spec refuses raises the spec's bk error before any kernel runs;
2. lists and Python numbers where the spec takes a tensor become tensors (through the backend's raw
   `as_tensor`, never through a wrapped method);
3. the operand casts to the dtype the operation computes in (`OpSpec.operand_dtype`): the common
   type of elementwise operands, the accumulator of sums and products of small ints, the float of
   means and variances of ints, the common type of mixed operands of `matmul`, `isin`, `solve`, ...;
   one size up for a dtype the backend declares it has no kernel for (`Backend.lacking_kernels`);
4. the core composites where a rule needs the data: integer division by zero, comparisons with
   Python ints beyond a tensor's range, integer powers, `clip`'s bounds;
5. degenerate arguments answered without the kernel (a reduction over `axis=()`), and complex
   values refused by the ordering operations a backend declares it cannot apply to them
   (`Backend.complex_unordered`);
6. the result casts to the spec's dtypes, tuples included.

A plan whose steps are all identities calls the kernel directly: the key and one dict lookup are
the whole cost. The only escape hatch is a kernel a backend declares trusted
(`Backend.trusted_operations`, for a C fast path or a tuned kernel that applies the rules itself):
it is called as it is, and the testkit checks its dtypes and errors against the spec on every case.

Kernel failures become the bk error of the operation's spec (`explain_failure`), without reading
the framework's message:

1. bk's own classes (`docs/semantics.md`) pass unchanged when they name the operation.
2. The operation's spec is asked about the same arguments (their templates: shape and dtype).
   When the spec refuses the call, its error is raised, chained from the framework's.
3. Exception types the plugin declared with a meaning (`Backend.framework_errors`) raise that class.
4. The spec accepts the call, so the data was at fault: when the framework's exception is one the
   plugin declared as bad input (`Backend.kernel_errors`), the operation's data-error class is
   raised (`DATA_ERRORS`).
5. Anything else is raised unchanged (named after the operation): a bug stays visible as what it is.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import math
import types
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeGuard

import numpy as np

from ._dtype import DType, from_numpy_dtype, to_numpy_dtype
from ._errors import BK_ERRORS, ArgumentTypeError, UnsupportedDtypeError, check_tensor_argument
from ._kernels import core_backend, declared, is_core, raw_kernel
from ._operations import COMMON_OPERANDS, DATA_ERRORS, ORDERING, SEQUENCE, operation, operations
from ._rules.arguments import PYTHON_NUMBERS, check_convertible
from ._rules.compare import compare_beyond_range
from ._rules.conventions import canonical_result
from ._rules.division import divide_integers, zero_divisor_rule
from ._rules.gaps import fill_dtype, kernel_gaps, lacks_kernel
from ._rules.indices import check_indices, index_rule
from ._rules.order import COMPLEX_FILLED, NAN_FILLED, complex_composite, missing_for, nan_composite, signed_image
from ._rules.powers import check_integer_power, integer_power_rule
from ._rules.shifts import shift_counts, shift_rule
from ._rules.special import fix_special_values

if TYPE_CHECKING:
    from ._backend import Backend

__all__ = [
    "COMMON_OPERANDS", "DATA_ERRORS", "ORDERING", "Plan", "check_dtypes", "explain_failure", "native_call", "raw_kernel", "spec_verdict", "trusted_kernels",
    "wrap_generic_defaults", "wrap_kernel", "wrap_kernels",
]  # fmt: skip

# What the spec's verdict may be: the classes of docs/semantics.md and the built-in ones they derive from.
_VERDICTS: Final = (*BK_ERRORS, ValueError, TypeError, IndexError, OverflowError)
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
    except TypeError as error:  # the call does not fit the catalogue's signature (the kernel failed on it): as the spec says
        return ArgumentTypeError(f"{op}: {error}; signature {spec.signature()}")
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

    For plugin authors who catch inside a trusted kernel (see `Backend.trusted_operations`) or
    inside a helper of their own: call it in the `except` branch. `backend` may be None when the
    arguments are NumPy arrays or other objects with `shape` and a NumPy `dtype`. Never reads the
    framework's message: the spec decides mistakes of shape, axis and kind; the plugin's declared
    `kernel_errors` and `DATA_ERRORS` decide mistakes in the data; anything else is raised unchanged.
    """
    if isinstance(error, BK_ERRORS) and str(error).startswith(f"{op}:"):
        raise error  # the kernel's own verdict, naming the operation
    verdict = spec_verdict(backend, op, args, kwargs)
    if verdict is not None:
        raise verdict from error
    _explain_by_class(backend, op, error)


def _explain_by_class(backend: Backend | None, op: str, error: BaseException) -> NoReturn:
    """`explain_failure` after the spec accepted the call (or has no arguments to judge: a lazily evaluating
    framework's error raised when a value is read): the error's class decides."""
    text = (str(error).strip().splitlines() or [type(error).__name__])[0]
    for kind, meaning in (type(backend).framework_errors.items() if backend is not None else ()):
        if isinstance(error, kind):
            raise meaning(f"{op}: {text}") from error
    if isinstance(error, BK_ERRORS):  # raised by an operation the kernel called (maximum, as_tensor, ...): its class stands
        raise type(error)(f"{op}: {error}") from error
    if isinstance(error, tuple(type(backend).kernel_errors) if backend is not None else (IndexError,)):
        data = operation(op).data_error
        if data is not None:
            raise data(f"{op}: {text}") from error
    text = str(error).strip()
    if type(error) in _NAMED and text and not text.startswith(f"{op}:"):  # name the operation, as bk's own errors do
        raise type(error)(f"{op}: {text}") from error
    raise error


def _wrap(op: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`kernel` with its failures explained (`explain_failure`): a trusted kernel's wrapper, and the
    wrapper of the operations that have no spec (queries, devices, function transforms)."""

    from ._specs import op_specs

    spec = op_specs().get(op)
    flags = spec.quick_checks if spec is not None else ()  # keepdims of a trusted reduction: no plan checks its type

    @functools.wraps(kernel)
    def checked(self: Backend, *args: Any, **kwargs: Any) -> Any:
        if kwargs and spec is not None:  # the catalogue's keywords, whatever the kernel names its parameters
            args, kwargs = _positional(spec, args, kwargs)
        for index, accepted in flags:
            if index < len(args) and args[index].__class__ not in accepted:
                spec.check_arguments(args, kwargs)  # type: ignore[union-attr]
        try:
            return kernel(self, *args, **kwargs)
        except (TypeError, ValueError, IndexError, ArithmeticError, *self.kernel_errors) as error:  # type: ignore[misc]
            explain_failure(self, op, error, args, kwargs)

    setattr(checked, _WRAPPED, kernel)
    return checked


def wrap_kernels(cls: type[Backend], catalogue: tuple[str, ...]) -> None:
    """Puts the dispatcher in front of every kernel `cls` defines (its own methods and its mixins', not
    the base class's generic defaults, which `wrap_generic_defaults` serves once for every backend), as
    each kernel declares itself (`bk.rules.kernel`), and sets `cls.trusted_operations` from the declarations.

    Operations with a spec get a plan (`dispatch`); a trusted kernel, and an operation without a spec,
    only get their failures explained. `as_tensor` gets the rules of Python numbers (`_ruled_as_tensor`).
    """
    legacy = _legacy_trusted(cls)
    if getattr(cls, "evaluates_lazily", False):
        _explain_reads(cls)
    for name in catalogue:
        wrap_kernel(cls, name, legacy)
    cls.trusted_operations = trusted_kernels(cls, catalogue)


def _legacy_trusted(cls: type[Backend]) -> frozenset[str]:
    """The names of a `trusted_operations` set in the class body of `cls` or of a plugin class it derives from
    (the earlier API: `bk.rules.kernel(trusted=True)` on each kernel replaces it), with a deprecation warning."""
    own = vars(cls).get("trusted_operations")
    inherited = frozenset().union(*(getattr(base, "__bk_legacy_trusted__", frozenset()) for base in cls.__mro__[1:]))
    if own is None:
        cls.__bk_legacy_trusted__ = inherited  # type: ignore[attr-defined]
        return inherited
    legacy = inherited | frozenset(own)
    cls.__bk_legacy_trusted__ = legacy  # type: ignore[attr-defined]
    return legacy


def trusted_kernels(cls: type[Backend], catalogue: tuple[str, ...]) -> frozenset[str]:
    """The operations whose kernel `cls` (or a plugin class it derives from) declares trusted."""
    legacy: frozenset[str] = getattr(cls, "__bk_legacy_trusted__", frozenset())
    trusted: set[str] = set()
    for name in catalogue:
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or is_core(owner):
            continue  # a generic default: always planned
        if name in legacy or declared(owner, name).trusted:
            trusted.add(name)
    return frozenset(trusted)


def wrap_kernel(cls: type[Backend], name: str, legacy: frozenset[str] = frozenset()) -> None:
    """Puts the dispatcher in front of the kernel of `name` that `cls` (or a mixin of it) defines, as the kernel
    declares itself: the one path of a method in the class body and of `Backend.register_kernel`."""
    record = operation(name)
    if record.infrastructure and name not in ("as_tensor", "cast"):
        return
    owner = next((k for k in cls.__mro__ if name in vars(k)), None)
    if owner is None or is_core(owner):
        return
    method = vars(owner)[name]
    if getattr(method, _WRAPPED, None) is not None or method is getattr(core_backend(), name, None):
        return  # wrapped already (a mixin shared by two classes), or the base class's own default put back
    declaration = declared(owner, name)
    trusted = declaration.trusted or name in legacy
    has_spec = record.spec is not None
    if not _is_plain_function(method):
        if not trusted and has_spec:
            raise TypeError(
                f"{cls.__name__}.{name} is not a Python function (a C operator?): the core cannot put the "
                f"operation's plan in front of it; declare it trusted (Backend.register_kernel({name!r}, ..., trusted=True, why=...))"
            )
        return
    if trusted and declaration.explains and not record.special_values:
        return  # a trusted kernel that maps its own failures: called as it is
    if record.special_values:
        method = _with_special_values(name, method)  # functools.wraps keeps the declaration
    if record.convention:
        method = _in_convention(name, method)
    if name == "as_tensor" or name == "cast":
        if not trusted:
            setattr(cls, name, _ruled_as_tensor(method) if name == "as_tensor" else _ruled_cast(method))
        elif not getattr(cls, "_bk_python_objects", False):  # trusted: only the values with no bk dtype refused
            setattr(cls, name, _checked_as_tensor(method) if name == "as_tensor" else _checked_cast(method))
    elif trusted or not has_spec:
        setattr(cls, name, _owned(cls, name, _wrap(name, method)))
    else:
        setattr(cls, name, _owned(cls, name, dispatch(name, method, fast=declaration.fast)))
    if getattr(cls, "evaluates_lazily", False) and name not in ("as_tensor", "cast"):
        setattr(cls, name, _owned(cls, name, _remembering(name, vars(cls)[name])))  # which operation made a value read later


_MADE_BY: Final[weakref.WeakKeyDictionary[Any, str]] = weakref.WeakKeyDictionary()


def _remembering(op: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`kernel` of a lazy backend, remembering that `op` made its result (where the result takes a weak reference)."""

    @functools.wraps(kernel)
    def remembered(self: Backend, *args: Any, **kwargs: Any) -> Any:
        result = kernel(self, *args, **kwargs)
        with contextlib.suppress(TypeError):
            _MADE_BY[result] = op
        return result

    setattr(remembered, _WRAPPED, getattr(kernel, _WRAPPED, kernel))
    return remembered


def made_by(value: Any) -> str | None:
    """The operation of a lazy backend that made `value` (`Backend.evaluates_lazily`), or None."""
    try:
        return _MADE_BY.get(value)
    except TypeError:
        return None


def _explain_reads(cls: type) -> None:
    """Puts the error mapping of kernels in front of the methods of a lazy backend that read values
    (`numpy`, `block_until_ready`), which `cls` itself defines: a failure raised while a value is
    computed is explained as the failure of the operation that made the value (`explain_failure`:
    `framework_errors`, then `kernel_errors` and the operation's data-error class)."""
    for name in (name for name, record in operations().items() if record.reads_values):
        method = vars(cls).get(name)
        if _is_plain_function(method) and getattr(method, _WRAPPED, None) is None:
            setattr(cls, name, _explained_read(name, method))


def _explained_read(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def read(self: Backend, value: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, value, *args, **kwargs)
        except Exception as error:
            if isinstance(error, BK_ERRORS) or not isinstance(error, (*self.kernel_errors, *type(self).framework_errors)):
                raise
            _explain_by_class(self, made_by(value) or name, error)  # the arguments are long gone: no spec to ask

    setattr(read, _WRAPPED, method)
    return read


def _owned(cls: type, name: str, method: Any) -> Any:
    """`method`, named as the attribute `name` of `cls` it becomes (not as the kernel of a mixin it wraps), so
    that pickle and cloudpickle find it by reference where they look: `NumPyBackend.add`."""
    with contextlib.suppress(AttributeError, TypeError):  # a method that keeps its names
        method.__qualname__, method.__module__ = f"{cls.__qualname__}.{name}", cls.__module__
    return method


def wrap_generic_defaults(base: type, catalogue: tuple[str, ...]) -> None:
    """Puts the dispatcher in front of the core's own generic defaults (on the mixin that defines each, so
    every backend inherits the same dispatched method and `supports()` still sees the base class's
    default): a default is served exactly as a plugin's kernel, and a mistake raises its own operation's
    error, not the first inner operation's."""
    from ._features import uses_of
    for name in catalogue:
        method: Any = getattr(base, name, None)
        if not _is_plain_function(method) or uses_of(method) is None:
            continue
        owner = next(k for k in base.__mro__ if name in vars(k))  # the defaults' module keeps the method
        record = operation(name)
        if record.guarded:
            setattr(owner, name, _guarded(name, method))
        elif not record.infrastructure and record.spec is not None:
            setattr(owner, name, dispatch(name, method, default=True))


def _guarded(op: str, default: Callable[..., Any]) -> Callable[..., Any]:
    """A generic default without a spec behind `supports()`: a backend that does not support it gets
    `NotImplementedError` naming what is missing, never a failure deep inside the default."""

    @functools.wraps(default)
    def guarded(self: Backend, *args: Any, **kwargs: Any) -> Any:
        if not self.supports(op):
            _unsupported_default(self, op)
        return default(self, *args, **kwargs)

    return guarded


def _in_convention(op: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`kernel` with its result in bk's convention of eigenvalue order and vector phases (`bk._rules.conventions`)."""

    @functools.wraps(kernel)
    def canonical(self: Backend, *args: Any, **kwargs: Any) -> Any:
        return canonical_result(self, op, kernel(self, *args, **kwargs))

    return canonical


def _with_special_values(op: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`kernel` with the Array API standard's values at the special complex inputs of `op` (`bk._rules.special`)."""

    @functools.wraps(kernel)
    def fixed(self: Backend, x: Any, *args: Any, **kwargs: Any) -> Any:
        result = kernel(self, x, *args, **kwargs)
        if self.dtype(result).kind is complex:
            return fix_special_values(self, op, x if self.is_tensor(x, only_native=True) else self.as_tensor(x), result)
        return result

    return fixed


def _is_plain_function(method: Any) -> TypeGuard[types.FunctionType]:
    return isinstance(method, types.FunctionType) and not getattr(method, "__isabstractmethod__", False)


# ---------------------------------------------------------------- the plan of a call signature

_CACHE_LIMIT: Final = 4096


class _Unkeyable(Exception):
    """An argument the key cannot describe (a dict, an unhashable object): the plan is compiled for this call only."""


_PLAIN: Final = frozenset((bool, float, complex, str, type(None), type(Ellipsis)))
_NATIVE: dict[tuple[type, type], bool] = {}  # (backend class, value type) -> whether values of the type are native tensors


def _value_key(backend: Backend, value: Any) -> Any:
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
            raise _Unkeyable from error
    if kind is tuple or kind is list:
        for v in value:
            if type(v) is not int:
                return (kind, tuple([_value_key(backend, v) for v in value]))
        return (kind, value if kind is tuple else tuple(value))  # ints only (a shape, axes): the values themselves
    if kind is slice:
        return (slice, value.start, value.stop, value.step)
    if hasattr(value, "shape") and hasattr(value, "dtype"):  # a NumPy constant, or another framework's tensor (`_foreign`)
        return (kind, value.dtype, tuple(value.shape))
    try:
        hash(value)
    except TypeError:
        raise _Unkeyable from None
    return (kind, value)


def _operand_part(backend: Backend, value: Any) -> Any:
    """`_value_key` for an operand of an elementwise operation: a Python number counts by kind (an int
    by its range); a tensor with a tuple shape (NumPy, JAX, Array API) by its type, dtype and shape."""
    kind = type(value)
    if kind is float or kind is bool or kind is complex:
        return kind
    if kind is int:
        return (int, value < 0, (value if value >= 0 else ~value).bit_length())
    shape = getattr(value, "shape", None)
    if shape.__class__ is tuple:
        return (kind, value.dtype, shape)
    return _value_key(backend, value)


def _value_part(backend: Backend, value: Any) -> Any:
    """`_value_key`, with the common cases first: a tuple of ints (a shape, axes) and a `DType` key as
    themselves (no other key is a tuple of ints, and DTypes are interned), `None` as itself, a tensor
    of a tuple shape by its type, dtype and shape."""
    kind = type(value)
    if kind is tuple:
        for v in value:
            if type(v) is not int:
                return _value_key(backend, value)
        return value
    if kind is DType or value is None:
        return value
    shape = getattr(value, "shape", None)
    if shape.__class__ is tuple:
        return (type(value), value.dtype, shape)
    return _value_key(backend, value)


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


def _load_fast_plan() -> Any:
    """The C front of `dispatch` (`_fastplan.c`: the key and the plan lookup of a call in C), or None.

    It is built at install time where a C compiler is found (core/hatch_build.py); without it, or
    with `BK_PURE_PYTHON=1`, the same path runs in Python, with the same plans and results."""
    import os

    if os.environ.get("BK_PURE_PYTHON", "") not in ("", "0"):
        return None
    try:
        from . import _fastplan
    except ImportError:
        return None
    return _fastplan


_FASTPLAN: Final = _load_fast_plan()
C_FRONT: Final = _FASTPLAN is not None
"""Whether the dispatcher's key and plan lookup run in C (`_fastplan.c`)."""


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


def native_call(
    function: Callable[..., Any],
    tensor_type: type[Any],
    dtypes: Any,
    arity: int,
    float_dtypes: Any = (),
    int_dtypes: Mapping[Any, tuple[int, int]] | None = None,
    check: tuple[str, Any] | None = None,
) -> Callable[..., Any]:
    """A fast path (`fast_path`) that is one call of the framework's `function`: `function(x)` (`arity` 1) or
    `function(a, b)` (`arity` 2) for tensors of exactly `tensor_type` whose dtype (`x.dtype`) is one of
    `dtypes` (None, for one tensor: any dtype; its dtype is not read), two of them of one dtype; and `function(a, b)` for a tensor `a` and a Python number `b` after
    it that keeps `a`'s dtype (the frameworks' weak scalars, NEP 50): a Python float where `a`'s dtype is one
    of `float_dtypes`, a Python int where `a`'s dtype is a key of `int_dtypes` (dtype -> `(low, high)`, bounds
    within int64) and the int lies in that range. With `check` (an attribute name and a value), only where
    the first tensor's attribute is that value (`("layout", torch.strided)`).
    `NotImplemented` for every other call, which the plan serves.

    In C where the dispatcher's front is built (`_fastplan.NativeCall`: no Python frame at all), else the
    same test in Python. List only dtypes for which `function` gives the spec's result dtype and values.
    """
    dtypes, floats = None if dtypes is None else frozenset(dtypes), frozenset(float_dtypes)
    ints = dict(int_dtypes or {})
    if arity not in (1, 2):
        raise ValueError(f"native_call: arity must be 1 or 2, got {arity!r}")
    if dtypes is None and arity != 1:
        raise ValueError("native_call: dtypes=None (any dtype) is for one tensor (arity 1)")
    if check is not None and not (isinstance(check, tuple) and len(check) == 2 and isinstance(check[0], str)):
        raise TypeError(f"native_call: check must be None or (attribute name, value), got {check!r}")
    if _FASTPLAN is not None:
        return _FASTPLAN.NativeCall(function, tensor_type, dtypes, arity, floats, ints, check)  # type: ignore[no-any-return]
    name, wanted = check if check is not None else (None, None)

    def native(self: Any, *args: Any) -> Any:
        a: Any = args[0] if args else None
        if len(args) != arity or type(a) is not tensor_type:
            return NotImplemented
        if name is not None and getattr(a, name, None) is not wanted:
            return NotImplemented
        if arity == 1:
            return function(a) if dtypes is None or a.dtype in dtypes else NotImplemented
        b: Any = args[1]
        kind = type(b)
        if kind is tensor_type:
            return function(a, b) if a.dtype == b.dtype and a.dtype in dtypes else NotImplemented
        if kind is float:
            return function(a, b) if a.dtype in floats else NotImplemented
        if kind is int:
            bounds = ints.get(a.dtype)
            if bounds is not None and bounds[0] <= b <= bounds[1]:
                return function(a, b)
        return NotImplemented

    return native


def dispatch(op: str, kernel: Callable[..., Any], default: bool = False, fast: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """`kernel` of the operation `op` behind the one call path: the plan of each call signature is
    compiled once from the spec (`_compile`), cached (at most 4,096 signatures per operation), and
    run around the kernel; a plan of identities is a direct call. For a generic `default`, a backend
    that does not support it (`supports()` is False: an operation it uses is missing) gets
    `NotImplementedError` before anything runs, as for any feature it does not claim."""
    from ._context import GLOBALS, get_precision
    from ._specs import op_spec

    spec = op_spec(op)
    family = operation(op).family
    elementwise = family in ("unary", "binary") or op in ("where", "clip")
    positions = _tensor_positions(spec, op, family)
    cache: dict[Any, Plan] = {}
    value_key = _value_key
    settings = GLOBALS

    part = _operand_part if elementwise else _value_part
    names = [name for name, _ in spec.params]
    operand_names = frozenset(names[:1] if positions == SEQUENCE else [names[i] for i in positions if 0 <= i < len(names)])

    @functools.wraps(kernel)
    def dispatched(self: Backend, *args: Any, **kwargs: Any) -> Any:
        if kwargs and not operand_names.isdisjoint(kwargs):  # an operand by keyword: positional, so that the plan casts it
            args, kwargs = _positional(spec, args, kwargs)
        if fast is not None and not kwargs and settings.precision_free:
            try:
                done = fast(self, *args)
            except (TypeError, ValueError, IndexError, ArithmeticError, *self.kernel_errors) as error:  # type: ignore[misc]
                explain_failure(self, op, error, args, kwargs)
            if done is not NotImplemented:
                return done
        try:
            precision = None if settings.precision_free else get_precision()
            count = len(args)
            if count == 2:  # the common arities spelled out: a tuple built at once is the cheapest key
                key: Any = (self.__class__, precision, part(self, args[0]), part(self, args[1]))
            elif count == 1:
                key = (self.__class__, precision, part(self, args[0]))
            else:
                key = (self.__class__, precision, *[part(self, a) for a in args])
            if kwargs:
                key = (*key, *[(k, value_key(self, v)) for k, v in kwargs.items()])
            plan = cache.get(key)
        except (_Unkeyable, AttributeError, TypeError):  # TypeError: an unhashable dtype
            key = plan = None
        if plan is None:
            if default and not self.supports(op):
                _unsupported_default(self, op)
            if settings.profiling:
                with _quiet():
                    plan = _compile(self, op, spec, family, positions, args, kwargs)
            else:
                plan = _compile(self, op, spec, family, positions, args, kwargs)
            if key is not None:
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                cache[key] = plan
        try:
            if plan.direct:
                return kernel(self, *args, **kwargs)
            if settings.profiling:  # the plan's own calls are kept out of the profile
                return _run(self, op, kernel, plan, positions, args, kwargs, quiet=True)
            if plan.plain:  # operands converted and cast, nothing else
                return kernel(self, *_prepare(self, plan, args), **kwargs)
            return _run(self, op, kernel, plan, positions, args, kwargs)
        except (TypeError, ValueError, IndexError, ArithmeticError, *self.kernel_errors) as error:  # type: ignore[misc]
            explain_failure(self, op, error, args, kwargs)

    setattr(dispatched, _WRAPPED, kernel)
    dispatched.__bk_plans__ = cache  # type: ignore[attr-defined]  # for tests and `bk.info`-style introspection
    if _FASTPLAN is None:
        return dispatched

    def run(self: Backend, plan: Plan, args: tuple[Any, ...]) -> Any:
        """The C front's call of a plan that is not direct (found under the key it built)."""
        try:
            if settings.profiling:
                return _run(self, op, kernel, plan, positions, args, {}, quiet=True)
            if plan.plain:
                return kernel(self, *_prepare(self, plan, args))
            return _run(self, op, kernel, plan, positions, args, {})
        except (TypeError, ValueError, IndexError, ArithmeticError, *self.kernel_errors) as error:  # type: ignore[misc]
            explain_failure(self, op, error, args, {})

    def failed(self: Backend, args: tuple[Any, ...], error: BaseException) -> NoReturn:
        """The C front's direct kernel call failed with `error`: explained as `dispatched` does."""
        if isinstance(error, (TypeError, ValueError, IndexError, ArithmeticError, *self.kernel_errors)):
            explain_failure(self, op, error, args, {})
        raise error

    front = _FASTPLAN.Dispatched(kernel, dispatched, run, failed, cache, settings, DType, elementwise, fast)
    functools.update_wrapper(front, kernel)
    setattr(front, _WRAPPED, kernel)
    front.__bk_plans__ = cache
    result: Callable[..., Any] = front
    return result


def _unsupported_default(backend: Backend, op: str) -> NoReturn:
    from ._features import native_of, uses_of

    default = getattr(core_backend(), op)
    dunders = [d for d in native_of(default) if not backend._has_native(d)]
    missing = [u for u in (uses_of(default) or ()) if not backend.supports(u)]
    if dunders:
        needs = f": its tensor type has no {', '.join(dunders)}"
    else:
        needs = f": its generic default needs {', '.join(missing)}" if missing else ""
    raise NotImplementedError(f"{op}: {backend.name} does not support {op}{needs}")


def _foreign(backend: Backend, value: Any) -> bool:
    """Whether `value` (or a tensor in a list of them) is a tensor of another framework (NumPy's values are constants)."""
    if isinstance(value, (list, tuple)):
        return any(_foreign(backend, v) for v in value)
    if isinstance(value, type) or not (hasattr(value, "shape") and hasattr(value, "dtype")) or backend.is_tensor(value, only_native=True):
        return False  # a class (`numpy.float32` as a dtype) is no tensor
    return type(value).__module__.partition(".")[0] != "numpy"


def _positional(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The call's arguments with those the catalogue's signature takes by position passed by position."""
    try:
        bound = _signature(spec).bind(*args, **kwargs)
    except TypeError:  # not a call of the catalogue's signature: the kernel's Python error tells
        return args, kwargs
    return bound.args, bound.kwargs


def _tensor_positions(spec: Any, op: str, family: str | None) -> tuple[int, ...]:
    """The positions of the arguments the operand dtype applies to: the spec's tensor parameters."""
    declared = operation(op).operands
    if declared is not None:
        return declared
    return tuple(i for i, (_, kind) in enumerate(spec.params) if kind == "Tensor")


def _compile(backend: Backend, op: str, spec: Any, family: str | None, positions: tuple[int, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Plan:
    """The plan of one call signature. Raises the spec's error for a call the spec refuses."""
    if any(_foreign(backend, a) for a in (*args, *kwargs.values())):
        return _DIRECT  # another framework's tensor: the kernel raises the error that names the mix-up
    try:
        templates = tuple(_template(backend, a) for a in args)
        named = {k: _template(backend, v) for k, v in kwargs.items()}
    except Exception:  # a value the backend cannot describe (sparse tensors, ...): the kernel alone
        return _DIRECT
    try:
        bound = _signature(spec).bind(*templates, **named).arguments
    except TypeError:  # the call does not fit the catalogue's signature: the kernel's Python error tells
        return _DIRECT
    try:
        result = spec.infer(*templates, **named)
    except _VERDICTS:
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
            elif isinstance(a, (list, tuple)) and _numbers_only(a):
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


def _numbers_only(value: Any) -> bool:
    for v in value:
        if isinstance(v, (list, tuple)):
            if not _numbers_only(v):
                return False
        elif type(v) not in PYTHON_NUMBERS:
            return False
    return True


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


def _quiet() -> Any:
    from ._context import quiet

    return quiet()


def _run(
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
            with _quiet():
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
            with _quiet():
                return _cast_results(backend, plan, result)
        result = _cast_results(backend, plan, result)
    return result


def _converted_operands(backend: Backend, plan: Plan, positions: tuple[int, ...], args: tuple[Any, ...]) -> Any:
    if positions == SEQUENCE:
        return (type(args[0])(_as_operand(backend, v, plan.operand) for v in args[0]), *args[1:])
    return _prepare(backend, plan, args)


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


def _prepare(backend: Backend, plan: Plan, args: tuple[Any, ...]) -> list[Any]:
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
            value = _converted(backend, value)
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


def _converted(backend: Backend, value: Any) -> Any:
    """A Python number or list as `bk`'s `as_tensor` rules make it (ints int64, floats the precision's)."""
    return _apply_number_rules(backend, value, raw_kernel(backend, "as_tensor")(value))


def _ruled_as_tensor(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`as_tensor` behind docs/semantics.md's rules: Python ints (and lists of them) are int64, Python
    floats the float type of the precision (float32 by default), Python complex numbers its complex
    type, and under a set precision every float or complex result takes it. A value with no bk dtype
    raises `bk.ArgumentTypeError` (`bk.rules.check_convertible`)."""

    @functools.wraps(kernel)
    def as_tensor(self: Backend, x: Any, convert_external: bool = True) -> Any:
        if x.__class__ is not float:
            check_convertible(x, "as_tensor")
        try:
            return _apply_number_rules(self, x, kernel(self, x, convert_external))
        except Exception as error:
            _absent_dtype(self, "as_tensor", x, error)
            raise

    setattr(as_tensor, _WRAPPED, kernel)
    return as_tensor


def _checked_as_tensor(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """A trusted `as_tensor` (it applies the number rules itself) behind the refusal of values with no bk
    dtype: strings, objects, datetimes, `float128`, Python ints beyond int64 (`bk.rules.check_convertible`)."""

    @functools.wraps(kernel)
    def as_tensor(self: Backend, x: Any, convert_external: bool = True) -> Any:
        if x.__class__ is not float:
            check_convertible(x, "as_tensor")
        return kernel(self, x, convert_external)

    setattr(as_tensor, _WRAPPED, kernel)
    return as_tensor


def _cast_dtype(dtype: Any) -> Any:
    """`cast`'s `dtype` as a `DType` (anything the spec reads: a name, a NumPy dtype), or `bk.ArgumentTypeError`
    for a value that names no dtype, or a dtype that is not numeric."""
    if dtype.__class__ is DType and dtype.kind in _NUMERIC_KINDS:
        return dtype
    from ._specs import as_dtype_arg

    if dtype is None:
        raise ArgumentTypeError("cast: dtype must be a bk.DType such as bk.float32, got None")
    return as_dtype_arg(dtype, "cast")


def _checked_cast(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """A trusted `cast` behind the refusal of values and dtypes bk has no tensors of (`_cast_dtype`)."""

    @functools.wraps(kernel)
    def cast(self: Backend, x: Any, dtype: Any) -> Any:
        if dtype.__class__ is not DType or dtype.kind not in _NUMERIC_KINDS:
            dtype = _cast_dtype(dtype)
        if x.__class__ is not float:
            check_convertible(x, "cast")
        return kernel(self, x, dtype)

    setattr(cast, _WRAPPED, kernel)
    return cast


def _ruled_cast(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`cast` with the errors of docs/semantics.md: None or a string raises `bk.ArgumentTypeError`; a kernel
    that fails on a Python number or list gets it converted first."""

    @functools.wraps(kernel)
    def cast(self: Backend, x: Any, dtype: Any) -> Any:
        if x is None or x.__class__ is str or x.__class__ is bytes:
            check_tensor_argument(x, "cast")  # ArgumentTypeError: a framework would make NaN or a string tensor of it
        if dtype.__class__ is not DType or dtype.kind not in _NUMERIC_KINDS:
            dtype = _cast_dtype(dtype)
        if x.__class__ is not float:
            check_convertible(x, "cast")
        try:
            return kernel(self, x, dtype)
        except (TypeError, ValueError, AttributeError, *self.kernel_errors) as error:  # type: ignore[misc]
            _absent_dtype(self, "cast", dtype, error)
            if not self.is_tensor(x, only_native=True) and self.is_tensor(x):
                return kernel(self, _converted(self, x), dtype)
            if isinstance(error, AttributeError):
                raise ArgumentTypeError(f"cast: x must be a tensor of {self.name}, got {type(x).__name__}") from error
            explain_failure(self, "cast", error, (x, dtype), {})

    setattr(cast, _WRAPPED, kernel)
    return cast


def _absent_dtype(backend: Backend, op: str, value: Any, error: BaseException) -> None:
    """After `as_tensor` or `cast` failed: raises `UnsupportedDtypeError` when the dtype asked for (`value` a
    `DType`, or the dtype NumPy gives `value`, or the precision's for Python numbers) is one the backend
    declares it lacks (`Backend.unsupported_dtypes`): a declared gap, not a failure."""
    absent = type(backend).unsupported_dtypes
    if not absent:
        return
    wanted: Any = value
    if not isinstance(value, DType):
        try:
            wanted = from_numpy_dtype(np.asarray(value).dtype)
        except Exception:
            return
        if type(value) in PYTHON_NUMBERS and wanted.kind in (float, complex):
            wanted = backend.float_type if wanted.kind is float else backend.complex_type
    if wanted in absent:
        raise UnsupportedDtypeError(f"{op}: unsupported for dtype {wanted.name}: {backend.name} lacks {wanted.name} (declared in unsupported_dtypes)") from error


def _apply_number_rules(backend: Backend, x: Any, result: Any) -> Any:
    from ._context import GLOBALS, get_precision

    kind = type(x)
    python = kind in _PYTHON_SCALARS or ((kind is list or kind is tuple) and _numbers_only(x))
    if not python and GLOBALS.precision_free:
        return result  # a tensor kept as it is: nothing to apply
    if result is x and kind in PYTHON_NUMBERS:
        return result  # a Python number kept as it is (convert_external=False)
    dtype = backend.dtype(result)
    if dtype.kind is int and python and dtype != INT64:
        try:
            return raw_kernel(backend, "cast")(result, INT64)  # Python ints are int64
        except (TypeError, ValueError):  # a framework that holds no int64 now (JAX without x64): its own int
            return result
    if dtype.kind not in (float, complex):
        return result
    precision = get_precision()
    if python or precision is not None:
        wanted = backend.float_type if dtype.kind is float else backend.complex_type
        if (python or dtype.bits != wanted.bits) and dtype != wanted:
            return raw_kernel(backend, "cast")(result, wanted)
    return result


_PYTHON_SCALARS: Final = frozenset((int, float, complex))
_NUMERIC_KINDS: Final = frozenset((bool, int, float, complex))
_copysign: Final = math.copysign
INT64: Final = DType(int, 64)
