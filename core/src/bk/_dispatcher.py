"""The one call path: every catalogue operation of every backend reaches its kernel through a plan.

`Backend.__init_subclass__` puts `dispatch(op, kernel)` in front of every kernel a backend class
defines, as each kernel declares itself (`bk.rules.kernel`, `Backend.register_kernel`; `wrap_kernel`), and
the base class puts it in front of every generic default, once. What it needs to know about an operation
is a field of the operation's record (`bk._operations`), never a name set of its own. Per call signature
(the backend class, each tensor's type, dtype and full shape, each Python number's kind and range,
the other arguments' values, the precision) the dispatcher compiles a `Plan` from the operation's
spec (`bk.op_spec(op)`) and caches it (bounded; `bk._plans`):

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
   values ordered as NumPy where a backend declares its framework cannot (`Backend.complex_unordered`);
6. the result casts to the spec's dtypes, tuples included.

A plan whose steps are all identities calls the kernel directly: the key and one dict lookup are
the whole cost. A kernel's fast call (`kernel(fast=...)`, derived from the plans by
`bk.rules.framework_call`) is tried before the key. A kernel declared trusted (`kernel(trusted=True,
why=...)`, for a tuned kernel that applies the rules itself, or a lazy framework's recorder) is called
as it is, and the testkit checks its values, dtypes and errors against the spec on every case.

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
import types
import warnings
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, NoReturn, TypeGuard

from ._context import quiet
from ._conversions import checked_as_tensor, checked_cast, ruled_as_tensor, ruled_cast
from ._dtype import DType
from ._errors import BK_ERRORS
from ._explain import explain_by_class, explain_failure, positional
from ._kernels import LEGACY, FrameworkCall, check_check, core_backend, declaration
from ._kernels import WRAPPED as _WRAPPED
from ._operations import COMMON_OPERANDS, DATA_ERRORS, ORDERING, SEQUENCE, operation, operations
from ._plans import (
    CACHE_LIMIT,
    Plan,
    Unkeyable,
    compile_plan,
    fast_call_entry,
    operand_part,
    prepare_operands,
    run_plan,
    tensor_positions,
    value_key,
    value_part,
)
from ._rules.conventions import canonical_result
from ._rules.special import fix_special_values

if TYPE_CHECKING:
    from ._backend import Backend

__all__ = [
    "C_FRONT", "COMMON_OPERANDS", "DATA_ERRORS", "ORDERING", "bind_framework_call", "dispatch", "listed_call", "native_call", "wrap_generic_defaults", "wrap_kernel", "wrap_kernels",
]  # fmt: skip


def _wrap(op: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`kernel` with its failures explained (`explain_failure`): a trusted kernel's wrapper, and the
    wrapper of the operations that have no spec (queries, devices, function transforms)."""

    from ._specs import op_specs

    spec = op_specs().get(op)
    flags = spec.quick_checks if spec is not None else ()  # keepdims of a trusted reduction: no plan checks its type
    names = tuple(name for name, _ in spec.params) if spec is not None else ()

    @functools.wraps(kernel)
    def checked(self: Backend, *args: Any, **kwargs: Any) -> Any:
        if kwargs and spec is not None:  # the catalogue's keywords, whatever the kernel names its parameters
            args, kwargs = positional(spec, args, kwargs)
        for index, accepted in flags:
            if index < len(args):
                if args[index].__class__ not in accepted:
                    spec.check_arguments(args, kwargs)  # type: ignore[union-attr]
            elif kwargs and names[index] in kwargs and kwargs[names[index]].__class__ not in accepted:  # a keyword left unbound
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
    only get their failures explained. `as_tensor` gets the rules of Python numbers (`ruled_as_tensor`).
    """
    _note_legacy_trusted(cls)
    if getattr(cls, "evaluates_lazily", False):
        _explain_reads(cls)
    for name in catalogue:
        wrap_kernel(cls, name)
    cls.trusted_operations = frozenset(name for name, declared in cls.declared_kernels().items() if declared.trusted)


def _note_legacy_trusted(cls: type[Backend]) -> None:
    """Keeps on `cls` the names of a `trusted_operations` set in its class body or in that of a plugin class it
    derives from (the earlier API: `bk.rules.kernel(trusted=True)` on each kernel replaces it, and `bk._kernels.declaration`
    reads them), with a deprecation warning for the class body that sets one."""
    import warnings

    own = vars(cls).get("trusted_operations")
    legacy = frozenset().union(*(getattr(base, LEGACY, frozenset()) for base in cls.__mro__[1:]))
    if own is not None:
        warnings.warn(
            f"{cls.__name__}.trusted_operations is deprecated: declare each trusted kernel with @bk.rules.kernel(trusted=True, why=...) "
            "where it is defined, or with Backend.register_kernel (docs/write-a-plugin.md)",
            DeprecationWarning,
            stacklevel=5,
        )
        legacy |= frozenset(own)
    setattr(cls, LEGACY, legacy)


def wrap_kernel(cls: type[Backend], name: str) -> None:
    """Puts the dispatcher in front of the kernel of `name` that `cls` (or a mixin of it) defines, as the kernel
    declares itself: the one path of a method in the class body and of `Backend.register_kernel`."""
    record = operation(name)
    if record.infrastructure and name not in ("as_tensor", "cast"):
        return
    found = declaration(cls, name)
    if found is None:
        return
    owner, declared = found
    method = vars(owner)[name]
    if getattr(method, _WRAPPED, None) is not None or method is getattr(core_backend(), name, None):
        return  # wrapped already (a mixin shared by two classes), or the base class's own default put back
    trusted = declared.trusted
    has_spec = record.spec is not None
    if not _is_plain_function(method):
        if not trusted and has_spec:
            raise TypeError(
                f"{cls.__name__}.{name} is not a Python function (a C operator?): the core cannot put the "
                f"operation's plan in front of it; declare it trusted (Backend.register_kernel({name!r}, ..., trusted=True, why=...))"
            )
        return
    if trusted and declared.explains:
        return  # a trusted kernel that maps its own failures and applies every rule itself: called exactly as it is
    if record.special_values:
        method = _with_special_values(name, method)  # functools.wraps keeps the declaration
    if record.convention:
        method = _in_convention(name, method)
    if name == "as_tensor" or name == "cast":
        if not trusted:
            setattr(cls, name, ruled_as_tensor(method) if name == "as_tensor" else ruled_cast(method))
        elif not getattr(cls, "_bk_python_objects", False):  # trusted: only the values with no bk dtype refused
            setattr(cls, name, checked_as_tensor(method) if name == "as_tensor" else checked_cast(method))
    elif trusted or not has_spec:
        setattr(cls, name, _owned(cls, name, _wrap(name, method)))
    else:
        fast = bind_framework_call(declared.fast, name) if isinstance(declared.fast, FrameworkCall) else declared.fast
        setattr(cls, name, _owned(cls, name, dispatch(name, method, fast=fast)))
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
            explain_by_class(self, made_by(value) or name, error)  # the arguments are long gone: no spec to ask

    setattr(read, _WRAPPED, method)
    return read


def _owned(cls: type, name: str, method: Any) -> Any:
    """`method`, named as the attribute `name` of `cls` it becomes (not as the kernel of a mixin it wraps), so
    that pickle and cloudpickle find it by reference where they look: `NumPyBackend.add`."""
    with contextlib.suppress(AttributeError, TypeError):  # a method that keeps its names
        method.__qualname__, method.__module__ = f"{cls.__qualname__}.{name}", cls.__module__
    return method


def wrap_generic_defaults(base: type, catalogue: tuple[str, ...]) -> None:
    """Puts the dispatcher in front of the core's own generic defaults (on `Backend`, so every backend
    inherits the same dispatched method and `supports()` still sees the base class's default): a default
    is served exactly as a plugin's kernel, and a mistake raises its own operation's error, not the first
    inner operation's. Each is named `Backend.<name>`, where pickle finds it; the registry keeps the
    definition itself."""
    from ._features import uses_of
    for name in catalogue:
        method: Any = getattr(base, name, None)
        if not _is_plain_function(method) or uses_of(method) is None:
            continue
        record = operation(name)
        if record.guarded:
            setattr(base, name, _owned(base, name, _guarded(name, method)))
        elif not record.infrastructure and record.spec is not None:
            setattr(base, name, _owned(base, name, dispatch(name, method, default=True)))


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


def _load_fast_plan() -> Any:
    """The C front of `dispatch` (`_fastplan*.c`: the key, the plan lookup and the direct calls in C), or None.

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
"""Whether the dispatcher's key, plan lookup and direct calls run in C (`_fastplan*.c`)."""


def listed_call(
    function: Callable[..., Any],
    tensor_type: type[Any],
    dtypes: Any,
    arity: int,
    float_dtypes: Any = (),
    int_dtypes: Mapping[Any, tuple[int, int]] | None = None,
    check: tuple[str, Any] | None = None,
) -> Callable[..., Any]:
    """A fast call (`bk.rules.kernel(fast=...)`) that is one call of the framework's `function`, for the dtypes
    listed by hand: `function(x)` (`arity` 1) or `function(a, b)` (`arity` 2) for tensors of exactly
    `tensor_type` whose dtype (`x.dtype`) is one of `dtypes` (None, for one tensor: any dtype; its dtype is not
    read), two of them of one dtype; and `function(a, b)` for a tensor `a` and a Python number `b` after it that
    keeps `a`'s dtype (the frameworks' weak scalars, NEP 50): a Python float where `a`'s dtype is one of
    `float_dtypes`, a Python int where `a`'s dtype is a key of `int_dtypes` (dtype -> `(low, high)`, bounds
    within int64) and the int lies in that range. With `check` (an attribute name and a value), only where
    the first tensor's attribute is that value (`("layout", torch.strided)`).
    `NotImplemented` for every other call, which the plan serves.

    Prefer `framework_call`, which derives these tables from the specs: a table written here restates the
    rules. It is for a call whose dtypes no spec decides (`zeros_like` of any dtype). In C where the
    dispatcher's front is built (`_fastplan.DirectCall`: no Python frame at all), else the same test in Python.
    """
    dtypes, floats = None if dtypes is None else frozenset(dtypes), frozenset(float_dtypes)
    ints = dict(int_dtypes or {})
    if arity not in (1, 2):
        raise ValueError(f"listed_call: arity must be 1 or 2, got {arity!r}")
    if dtypes is None and arity != 1:
        raise ValueError("listed_call: dtypes=None (any dtype) is for one tensor (arity 1)")
    check_check("listed_call", check)
    if _FASTPLAN is not None:
        return _FASTPLAN.DirectCall(function, tensor_type, dtypes, arity, floats, ints, check)  # type: ignore[no-any-return]
    return _python_direct_call(function, tensor_type, arity, check, [dtypes, floats, ints], None)


def factory_call(
    function: Callable[..., Any], dtypes: Mapping[Any, Any], *, sizes_apart: bool = False, device: str | None = None
) -> Callable[..., Any]:
    """A fast call (`bk.rules.kernel(fast=...)`) of a creation operation `op(shape, dtype)` (`zeros`, `ones`,
    `empty`) that is one call of the framework's factory: `function(shape, dtype=dtypes[dtype])` for a tuple
    `shape` and a `DType` that `dtypes` maps to the framework's dtype. With `sizes_apart`, the sizes are passed one
    by one, `function(*shape, ...)` (a 0-d shape as `()`; PyTorch parses them faster than a tuple); with `device`,
    a dotted path of the backend's attributes (`"_default_device.ref"`), `device=` that attribute, read at each call.
    `NotImplemented` for every other call (a list as shape, no dtype), which the plan serves.

    The factory's own errors (a negative size) are explained as the kernel's would be. In C where the
    dispatcher's front is built (`_fastplan.DirectCall`: no Python frame, which costs a fifth of `torch.zeros(10)`;
    a shape of more than 8 sizes apart takes the plan there), else the same in Python.
    """
    table = dict(dtypes)
    path = tuple(device.split(".")) if device else ()
    if not callable(function) or not all(path):
        raise ValueError(f"factory_call: needs a callable and a dotted attribute path as device, got {function!r} and {device!r}")
    if _FASTPLAN is not None:
        return _FASTPLAN.DirectCall(function, None, table, 0, sizes_apart=sizes_apart, device=path or None)  # type: ignore[no-any-return]

    def factory(backend: Any, *args: Any) -> Any:
        if len(args) != 2 or type(args[0]) is not tuple:
            return NotImplemented
        shape, dtype = args
        try:
            keywords = {"dtype": table[dtype]}
            if path:
                keywords["device"] = functools.reduce(getattr, path, backend)
        except (KeyError, TypeError, AttributeError):  # no dtype, one not mapped or unhashable, no device: the plan
            return NotImplemented
        return function(*shape, **keywords) if sizes_apart and shape else function(shape, **keywords)

    return factory


def native_call(*args: Any, **kwargs: Any) -> Callable[..., Any]:
    """Deprecated: `listed_call`, the same fast call under its earlier name ("native" names only the framework's
    own tensor types)."""
    warnings.warn(
        "bk.rules.native_call is deprecated: use bk.rules.listed_call (the same), or bk.rules.framework_call, which derives the dtypes",
        DeprecationWarning,
        stacklevel=2,
    )
    return listed_call(*args, **kwargs)


def _python_direct_call(
    function: Callable[..., Any], tensor_type: type[Any], arity: int, check: tuple[str, Any] | None, tables: list[Any], derive: Callable[..., Any] | None
) -> Callable[..., Any]:
    """`_fastplan.DirectCall` in Python: `tables` is `[dtypes, float_dtypes, int_dtypes]`; with `derive`, they grow by the
    entries `derive(backend, tensor)` gives the first time a call misses a dtype."""
    name, wanted = check if check is not None else (None, None)
    seen: set[Any] = set()

    def attempt(args: tuple[Any, ...]) -> Any:
        dtypes, floats, ints = tables
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

    def direct(self: Any, *args: Any) -> Any:
        result = attempt(args)
        if result is not NotImplemented or derive is None or len(args) != arity or type(args[0]) is not tensor_type or args[0].dtype in seen:
            return result
        dtype = args[0].dtype
        seen.add(dtype)
        serves, floats, bounds = derive(self, args[0])
        if serves:
            tables[0] = frozenset(tables[0]) | {dtype}
        if floats:
            tables[1] = frozenset(tables[1]) | {dtype}
        if bounds is not None:
            tables[2] = {**tables[2], dtype: bounds}
        return attempt(args) if serves or floats or bounds is not None else result

    return direct


def _python_choice_call(function: Callable[..., Any], tensor_type: type[Any], derive: Callable[..., Any]) -> Callable[..., Any]:
    """The core's fast call of a choice, `function(condition, x, y)` (`where`), in Python: for a condition of exactly
    `tensor_type` whose dtype is bool and x and y of one dtype, or one of them a Python float, as the tables that
    `derive(backend, tensor)` gives for x's (or y's) dtype say; whether a condition's dtype object is bool is asked
    of the backend once per object. The served call reads each dtype once and calls nothing else."""
    dtypes: set[Any] = set()  # the dtypes of x and y served (grown in place: the closure reads them directly)
    floats: set[Any] = set()  # those served beside a Python float
    seen: set[Any] = set()
    conditions: dict[Any, bool] = {}

    def choice(self: Any, *args: Any) -> Any:
        if len(args) == 3:
            condition, x, y = args
            if type(condition) is tensor_type and conditions.get(condition.dtype) is True:
                if type(x) is tensor_type:
                    dtype = x.dtype
                    if type(y) is tensor_type:
                        if dtype in dtypes and y.dtype == dtype:
                            return function(condition, x, y)
                    elif type(y) is float and dtype in floats:
                        return function(condition, x, y)
                elif type(x) is float and type(y) is tensor_type and y.dtype in floats:
                    return function(condition, x, y)
        return learn(self, args)

    def learn(self: Any, args: tuple[Any, ...]) -> Any:
        """A call the tables do not serve: learn its condition's and its operand's dtype once, then try again."""
        if len(args) != 3 or type(args[0]) is not tensor_type:
            return NotImplemented
        condition, x, y = args
        if condition.dtype not in conditions:
            try:
                conditions[condition.dtype] = self.dtype(condition).kind is bool
            except Exception:  # a dtype the backend does not describe: the plan serves it
                conditions[condition.dtype] = False
        tensor = x if type(x) is tensor_type else y if type(y) is tensor_type else None
        if tensor is None or tensor.dtype in seen or not conditions[condition.dtype]:
            return NotImplemented
        seen.add(tensor.dtype)
        serves, served_floats, _ = derive(self, tensor)
        if serves:
            dtypes.add(tensor.dtype)
        if served_floats:
            floats.add(tensor.dtype)
        return choice(self, *args) if serves or served_floats else NotImplemented

    return choice


def bind_framework_call(declared: FrameworkCall, op: str) -> Callable[..., Any]:
    """The fast call of `op`'s kernel that `declared` describes (`bk.rules.framework_call`): its tables are derived
    dtype by dtype, the first time a call misses one (`bk._plans.fast_call_entry`)."""
    if not operation(op).allows_framework_call:
        raise TypeError(
            f"{op}: bk.rules.framework_call is for operations of one or two tensors and nothing else (or a condition and two, as "
            "`where`), whose fast call the core derives "
            "from their plans; write this fast call by hand"
        )
    takes = len(operation(op).spec.params)  # (allows_framework_call: it has a spec)
    if declared.arity != takes:
        raise TypeError(f"{op}: its bk.rules.framework_call takes {declared.arity} tensors, the operation {takes}")
    either_side = declared.caller is not None or declared.arity == 3  # DirectCall alone serves a number second only
    derive = functools.partial(
        fast_call_entry, op=op, arity=declared.arity, weak_numbers=declared.weak_numbers, lacking=declared.lacking, either_side=either_side
    )
    if declared.caller is not None:  # the plugin's own compiled call, with the tables derived here
        return declared.caller(declared.function, declared.tensor_type, declared.arity, derive)  # type: ignore[no-any-return]
    if declared.arity == 3:
        return _python_choice_call(declared.function, declared.tensor_type, derive)
    empty: frozenset[Any] = frozenset()
    if _FASTPLAN is not None:
        return _FASTPLAN.DirectCall(declared.function, declared.tensor_type, empty, declared.arity, empty, {}, declared.check, derive)  # type: ignore[no-any-return]
    return _python_direct_call(declared.function, declared.tensor_type, declared.arity, declared.check, [empty, empty, {}], derive)


def dispatch(op: str, kernel: Callable[..., Any], default: bool = False, fast: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """`kernel` of the operation `op` behind the one call path: the plan of each call signature is
    compiled once from the spec (`compile_plan`), cached (at most 4,096 signatures per operation), and
    run around the kernel; a plan of identities is a direct call. For a generic `default`, a backend
    that does not support it (`supports()` is False: an operation it uses is missing) gets
    `NotImplementedError` before anything runs, as for any feature it does not claim."""
    from ._context import GLOBALS, get_precision
    from ._specs import op_spec

    spec = op_spec(op)
    family = operation(op).family
    elementwise = family in ("unary", "binary") or op in ("where", "clip")
    positions = tensor_positions(spec, op, family)
    cache: dict[Any, Plan] = {}
    keyed = value_key
    settings = GLOBALS

    part = operand_part if elementwise else value_part
    names = [name for name, _ in spec.params]
    operand_names = frozenset(names[:1] if positions == SEQUENCE else [names[i] for i in positions if 0 <= i < len(names)])

    @functools.wraps(kernel)
    def dispatched(self: Backend, *args: Any, **kwargs: Any) -> Any:
        if kwargs and not operand_names.isdisjoint(kwargs):  # an operand by keyword: positional, so that the plan casts it
            args, kwargs = positional(spec, args, kwargs)
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
                key = (*key, *[(k, keyed(self, v)) for k, v in kwargs.items()])
            plan = cache.get(key)
        except (Unkeyable, AttributeError, TypeError):  # TypeError: an unhashable dtype
            key = plan = None
        if plan is None:
            if default and not self.supports(op):
                _unsupported_default(self, op)
            if settings.profiling:
                with quiet():
                    plan = compile_plan(self, op, spec, family, positions, args, kwargs)
            else:
                plan = compile_plan(self, op, spec, family, positions, args, kwargs)
            if key is not None:
                if len(cache) >= CACHE_LIMIT:
                    cache.clear()
                cache[key] = plan
        try:
            if plan.direct:
                return kernel(self, *args, **kwargs)
            if settings.profiling:  # the plan's own calls are kept out of the profile
                return run_plan(self, op, kernel, plan, positions, args, kwargs, quiet=True)
            if plan.plain:  # operands converted and cast, nothing else
                return kernel(self, *prepare_operands(self, plan, args), **kwargs)
            return run_plan(self, op, kernel, plan, positions, args, kwargs)
        except (TypeError, ValueError, IndexError, ArithmeticError, *self.kernel_errors) as error:  # type: ignore[misc]
            explain_failure(self, op, error, args, kwargs)

    setattr(dispatched, _WRAPPED, kernel)
    dispatched.__bk_plans__ = cache  # type: ignore[attr-defined]  # for tests and `bk.info`-style introspection
    dispatched.__bk_fast_call__ = fast  # type: ignore[attr-defined]  # the fast call as bound (derived tables)
    if _FASTPLAN is None:
        return dispatched

    def run(self: Backend, plan: Plan, args: tuple[Any, ...]) -> Any:
        """The C front's call of a plan that is not direct (found under the key it built)."""
        try:
            if settings.profiling:
                return run_plan(self, op, kernel, plan, positions, args, {}, quiet=True)
            if plan.plain:
                return kernel(self, *prepare_operands(self, plan, args))
            return run_plan(self, op, kernel, plan, positions, args, {})
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
    front.__bk_fast_call__ = fast
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


