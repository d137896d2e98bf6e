"""`Backend`: the abstract base class of every backend, and the machinery of its catalogue.

`Backend` holds what is not an operation: identity and context, the class attributes a plugin
declares (`float64_supported`, `native_types`, `kernel_errors`, ...), `features()` and
`supports()`, and the wrapping of a subclass's kernels (`__init_subclass__`). Its operations are
built from the registry (`bk._operations.definitions`): each is defined once, as a function, in one of
the catalogue's modules, so that each module can be read on its own: the catalogue's signatures
(`_catalogue_core.py`: the required set and the optional operations), the generic defaults
(`_defaults.py`, `_defaults_algorithms.py`) and the Array API standard's operations
(`_catalogue_standard.py`, `_catalogue_dtypes.py`, `_catalogue_linalg.py`). Type checkers and editors
read them from the generated stub `_operation_signatures.pyi`. Operations follow `phiml.backend` in
name, arguments and meaning; see `_features.py` for how each definition declares whether it is
required, a generic default, or an optional feature, and `bk._specs` for the rule of each.
"""

from __future__ import annotations

import sys
from abc import ABC, update_abstractmethods
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

from . import (
    _catalogue_algorithms,
    _catalogue_core,
    _catalogue_dtypes,
    _catalogue_linalg,
    _catalogue_shapes,
    _catalogue_standard,
    _context,
    _defaults,
    _defaults_algorithms,
)
from ._device import ComputeDevice
from ._dtype import DType
from ._entrypoints import PLUGIN_MODULES
from ._errors import ArgumentTypeError, ShapeMismatchError, check_tensor_argument, did_you_mean
from ._features import CAPABILITIES, native_of, uses_of
from ._operations import register_definitions

if TYPE_CHECKING:  # the operations' signatures, generated from their definitions (`python -m bk._stub`)
    from ._operation_signatures import Operations as _Catalogue
else:  # at runtime the operations are set on `Backend` from the registry, below the class
    _Catalogue = ABC

__all__ = ["Backend"]

_FLOAT32: Final = DType(float, 32)
_COMPLEX64: Final = DType(complex, 64)

Tensor = Any

_INFRASTRUCTURE: Final = frozenset(
    {"name", "supports", "precision", "float_type", "complex_type", "features", "compute_count", "register_kernel", "declared_kernels"}
)


class Backend(_Catalogue):
    """A numerics library seen through one common API.

    Subclasses implement the required set (`is_tensor`, `as_tensor`, `is_available`, `numpy`,
    `dtype`, `staticshape`, `cast`) and override whichever optional features their framework
    provides. `supports()` reports which ones those are.

    Args:
        name: Unique name of the backend, such as `'numpy'` or `'torch'`.
        devices: All devices this backend can use.
        default_device: The device new tensors are created on.
    """

    float64_supported: ClassVar[bool] = True
    """Whether the framework computes in 64-bit floating point (the `float64` capability)."""

    unsupported_dtypes: ClassVar[frozenset[DType]] = frozenset()
    """The dtypes the framework lacks altogether, declared once, such as
    `frozenset({DType(int, 16, signed=False), DType(int, 32, signed=False), DType(int, 64, signed=False)})`
    for a framework without uint16/32/64, or `frozenset({DType(complex, 128)})`. The core never casts to
    one and builds no constant of one; a call whose result would be one raises `bk.UnsupportedDtypeError`
    ("unsupported for dtype complex128", with the reason), as do `as_tensor` and `cast` to one. The testkit
    sweeps no values of them and reports a case that needs one, as input or as result, as skipped
    ("framework lacks uint16"), never as failed. A framework without float64 at all declares
    `float64_supported = False`.

    This attribute, `lacking_kernels`, `complex_unordered`, `nan_unordered` and `precision_deficits` are
    the one declaration of what a framework lacks (`bk._rules.gaps.declared_gaps` lists them, as the
    certificate does)."""

    native_types: ClassVar[tuple[type, ...] | None] = None
    """The native tensor type(s) of this backend, whose Python operators generic defaults may use.

    `supports()` claims a default declared with `@generic(..., native=("__and__",))` only when
    every one of these types defines `__and__` (statically: looked up on the classes, never
    called). `None` (the default) infers them from the backend's `BackendSpec.modules`: the public
    classes defined in those (already imported) modules that have a `shape` attribute, such as
    `numpy.ndarray` or `torch.Tensor`; then a dunder counts when one of them defines it. A backend
    that is not installed as a plugin, or whose tensor type lives elsewhere, should list its types.
    """

    computing_operations: ClassVar[frozenset[str]] = frozenset()
    """Catalogue operations of a lazy backend that compute (evaluate data) by design, such as `nonzero`
    or `unique`, whose output size depends on the data. Each says so in its docstring. The testkit
    fails any other operation that computes. Eager backends: empty."""

    kernel_errors: ClassVar[tuple[type[BaseException], ...]] = (IndexError,)
    """The exception types with which this backend's framework reports bad data (NumPy's `IndexError`
    for an index out of bounds; PyTorch's `RuntimeError`, TensorFlow's `InvalidArgumentError`); not
    the built-in errors the plugin raises itself. When a kernel raises one of them and the operation's spec
    accepts the call's shapes and dtypes, the data was at fault and the operation's data-error class
    is raised (`IndexOutOfRangeError` for an index outside the indexed dimension, ...). Mistakes of
    shape, axis and dtype kind are decided by the operation's spec, whatever the kernel raised; see
    `bk.explain_failure`. No framework message is ever read."""

    trusted_operations: ClassVar[frozenset[str]] = frozenset()
    """The operations whose kernel this backend declares trusted, derived from the kernels' own declarations
    (`@bk.rules.kernel(trusted=True, why=...)` where each is defined, or `register_kernel(..., trusted=True)`);
    read it, never set it (a set in the class body still counts, with a `DeprecationWarning`). Every other
    kernel (and every generic default) is called through the operation's plan (`bk._dispatcher`): the
    spec's verdict first, operands converted and cast to the dtype the operation computes in, the core
    composites, the result cast to the spec's dtype. A trusted kernel is called as it is (only its
    failures are explained), so it must apply docs/semantics.md itself, typically with `bk.rules`; the
    testkit checks its values, result dtypes and errors against the spec on every case. For tuned hot
    kernels whose own checks cost less than a plan on small tensors, and for kernels that only record
    (a lazy framework's). A kernel that is not a Python function (a C operator) must be declared trusted."""

    checked_indices: ClassVar[frozenset[str]] = frozenset()
    """The gathers and scatters (`bk.rules.INDEX_OPERATIONS`) whose kernels refuse an index outside its dimension
    themselves: the framework raises one of `kernel_errors` (NumPy's `IndexError`) or the kernel calls
    `bk.rules.check_indices`. For every other one the core checks the indices on the data before the kernel
    (`IndexOutOfRangeError`), as some frameworks clamp, drop or wrap such an index (JAX's gathers clamp)."""

    shifts_every_count: ClassVar[bool] = False
    """Whether the framework's shifts (`shift_bits_left`, `shift_bits_right`) give NumPy's result for every count
    in the tensor of counts, negative or beyond the width (0, or -1 for a negative value shifted right), as
    NumPy's and XLA's do. Then the core puts no composite of those counts around the kernel, and the kernel's
    fast call (`bk.rules.framework_call`) serves two tensors of one integer dtype; a Python int count outside
    `[0, bits)` still takes the composite. False (the default): the kernel sees only counts in range, as C's and
    PyTorch's shifts need. The testkit's `edge-shift-counts` case checks the claim."""

    complex_unordered: ClassVar[frozenset[str]] = frozenset()
    """The ordering operations (`bk.rules.ORDERING`: `max`, `sort`, `argmax`, `maximum`, ...) that this
    backend's framework cannot apply to complex values, declared once (PyTorch's `argmax`, TensorFlow's
    `searchsorted`; `bk.rules.ORDERING` for a framework without any complex order). The core computes them
    in NumPy's order (real part first, then imaginary part; NaN as NumPy) from real and imaginary parts
    (`bk._rules.order`), so the kernel never sees complex values; `unique` of complex slices (a 2-d tensor
    along an axis) it cannot fill, and raises `bk.UnsupportedDtypeError` for it. A trusted kernel, which
    gets no plan, orders complex values itself."""

    lacking_kernels: ClassVar[Mapping[str, frozenset[DType | type]]] = {}
    """The dtypes the framework has no kernel for, per operation (`"*"`: every operation), linear algebra
    included, each a `DType` or a whole kind (`bool`, `int`, `float`, `complex`): such as
    `{"gamma_inc_l": frozenset({DType(float, 16)})}` for TensorFlow's `igamma`, or
    `{"matmul": frozenset({int, bool})}` for a framework without integer matrix products. The core computes
    such a call in the next dtype of the fill ladder that the framework has (`bk._rules.gaps.fill_dtype`:
    one size up, else another kind: bool through int8, ints in float64, float16 through float32, uint64 of
    modular operations through int64) and casts the result back, so the kernel never sees the dtype; with
    no rung left the call raises `bk.UnsupportedDtypeError` ("unsupported for dtype X") with the reason.
    Dtypes the framework lacks altogether are `unsupported_dtypes`."""

    nan_unordered: ClassVar[frozenset[str]] = frozenset()
    """The ordering operations whose framework puts NaN elsewhere than NumPy (`sort`, `argsort`,
    `searchsorted`, `unique`, `argmax`, `argmin`, `max`, `min`): NumPy sorts NaN last, `unique` gives one
    NaN, last, and its arg-reductions and reductions give the first NaN. The core computes them for float and complex values from `isnan`/`where`
    composites around the framework's kernels (`bk._rules.order`)."""

    precision_deficits: ClassVar[Mapping[str, Mapping[DType, DType]]] = {}
    """Results the framework computes at less than their dtype's accuracy, per operation (`"*"`: every
    operation): `{"sin": {DType(float, 64): DType(float, 32)}}` for float64 `sin` at float32 accuracy. The
    result keeps its dtype; the testkit compares it at the declared accuracy, and the certificate lists it."""

    evaluates_lazily: ClassVar[bool] = False
    """Whether the framework evaluates lazily and raises the errors of a computation only when its values
    are read (a singular `solve` fails in `numpy()`, not in `solve`). The core then puts the error mapping
    of kernels in front of the backend's own `numpy` and `block_until_ready`, the methods that materialise
    values: a failure raised there is explained as the failure of the operation that made the value read
    (`framework_errors`, then `kernel_errors` and the operation's data-error class; the core remembers the
    operation of each result whose type takes a weak reference). Eager frameworks: False."""

    framework_errors: ClassVar[Mapping[type[BaseException], type[Exception]]] = {}
    """What the framework's own exception types mean, where the type alone says it (TensorFlow's
    `NotFoundError`: no kernel for this dtype, `bk.ArgumentTypeError`). Consulted after the
    operation's spec, which decides mistakes of shape, axis and dtype kind."""

    _supports_cache: ClassVar[dict[str, bool]]
    _bk_priority: int = 0  # dispatch priority, set from the plugin's BackendSpec when loaded

    def __init__(self, name: str, devices: Sequence[ComputeDevice], default_device: ComputeDevice) -> None:
        self._name = name
        self._devices = tuple(devices)
        self._default_device = default_device

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._supports_cache = {}
        from ._dispatcher import wrap_kernels

        wrap_kernels(cls, _METHOD_FEATURES)  # every kernel behind the one call path (bk._dispatcher)

    @classmethod
    def register_kernel(
        cls, op: str, function: Callable[..., Any], *, trusted: bool = False, fast: Callable[..., Any] | None = None, explains: bool = False, why: str = ""
    ) -> None:
        """Registers `function(self, ...)` as this class's kernel of the operation `op`, with its declaration
        (`bk.rules.kernel`): for kernels made after the class exists (generated in a loop, a lazy framework's
        recorders), or to declare an inherited kernel anew (`Cls.register_kernel("sum", Cls.sum, trusted=True, why=...)`).
        It takes the path of a method defined in the class body: planned unless trusted, its failures explained,
        `trusted_operations` updated. Register before deriving classes from this one.

        Raises:
            ValueError: for a name that is not an operation of the catalogue (with the closest names).
            TypeError: on `Backend` itself, for a function that is not callable, or for a declaration that
                cannot hold (see `bk.rules.kernel`).
        """
        from ._dispatcher import wrap_kernel
        from ._kernels import REGISTERED, WRAPPED, declaration, declare

        if cls is Backend:
            raise TypeError("Backend.register_kernel: register kernels on a backend class, not on Backend itself")
        if op not in _METHOD_FEATURES:
            raise ValueError(f"{cls.__name__}.register_kernel: {op!r} is not an operation of the catalogue{did_you_mean(op, list(_METHOD_FEATURES))}")
        if not callable(function):
            raise TypeError(f"{cls.__name__}.register_kernel: the kernel of {op!r} must be callable, got {function!r}")
        declared = declare(trusted, fast, explains, why)
        if REGISTERED not in vars(cls):
            setattr(cls, REGISTERED, {})
        getattr(cls, REGISTERED)[op] = declared  # on the class: `function` may serve other classes
        setattr(cls, op, getattr(function, WRAPPED, function))  # an inherited kernel re-registered: the kernel, not its wrapper
        wrap_kernel(cls, op)
        found = declaration(cls, op)
        others = cls.trusted_operations - {op}
        cls.trusted_operations = others | {op} if found is not None and found[1].trusted else others
        cls._supports_cache = {}

    @classmethod
    def declared_kernels(cls) -> dict[str, Any]:
        """Every kernel this class (or a plugin class it derives from) defines, by operation, with its
        declaration (`bk.rules.KernelDeclaration`: trusted, fast call, why); generic defaults are not listed."""
        from ._kernels import declaration

        return {name: found[1] for name in _METHOD_FEATURES if (found := declaration(cls, name)) is not None}

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails, so it costs nothing on existing attributes.
        if name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        from ._names import suggest

        close = suggest(name, list(type(self).features()))
        hint = f"; see {', '.join(repr(c) for c in close)}" if close else ""
        raise AttributeError(
            f"backend {getattr(self, '_name', type(self).__name__)!r} has no operation {name!r}{hint}. The NumPy/PyTorch -> bk name table is in "
            "docs/migration.md; Backend.features() lists every operation."
        )

    # ------------------------------------------------------------ identity and context

    @property
    def name(self) -> str:
        """The unique name of this backend."""
        return self._name

    def __str__(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return self._name

    def __enter__(self) -> Backend:
        _context.push_backend(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        _context.pop_backend(self)

    @property
    def precision(self) -> int | None:
        """The current precision, see `bk.get_precision()`."""
        return _context.get_precision()

    @property
    def float_type(self) -> DType:
        """The float type of new tensors: the current precision, float32 when it is `None`."""
        if _context.GLOBALS.precision_free:  # read by kernels on every call: no lookup while no precision is set
            return _FLOAT32
        return DType(float, _context.get_precision() or 32)

    @property
    def complex_type(self) -> DType:
        """The complex type matching `float_type`: complex64 for precision 16, 32 and `None` (there is no
        complex32), complex128 for 64."""
        if _context.GLOBALS.precision_free:
            return _COMPLEX64
        return DType(complex, 2 * max(_context.get_precision() or 32, 32))

    # ------------------------------------------------------------ features

    @classmethod
    def features(cls) -> tuple[str, ...]:
        """Every feature id: the catalogue's method names followed by the named capabilities."""
        return (*_METHOD_FEATURES, *CAPABILITIES)

    def supports(self, feature: str | Callable[..., Any]) -> bool:
        """Whether this backend provides `feature`, answered without calling anything.

        Args:
            feature: A catalogue method name (`'sparse_coo_tensor'`), an unbound method
                (`Backend.sparse_coo_tensor`) or a named capability: `'gradients'`, `'jit'`,
                `'dlpack'`, `'sparse'`, `'float64'`, `'devices'`.

        Returns:
            True when this backend overrides the method, or when the base class's generic default
            applies and every operation that default uses is supported.

        Raises:
            ValueError: for an unknown feature, naming close matches.
        """
        name = feature if isinstance(feature, str) else getattr(feature, "__name__", repr(feature))
        cache = type(self)._supports_cache
        result = cache.get(name)
        if result is None:
            result = _resolve_support(type(self), name, (), self._has_native)
            cache[name] = result
        return result

    def compute_count(self) -> int | None:
        """How many times this backend has evaluated lazy values in this process so far.

        `None` for an eager backend (the default). A lazy backend counts every evaluation, whoever
        asks for it; the testkit reads the count before and after each case to find operations
        that compute behind the user's back (see `computing_operations`).
        """
        return None

    def _check_native(self, feature: str) -> None:
        """Raises NotImplementedError when `feature` is a default this backend's tensors cannot run.

        Called by generic defaults after a native operator raised TypeError: for a claimed feature
        the TypeError is a real error and the caller re-raises it.
        """
        if not self.supports(feature):
            needs = ", ".join(native_of(getattr(Backend, feature)))
            raise NotImplementedError(f"{self.name} does not support {feature}: its tensor type has no {needs}")

    def _operator_failed(self, feature: str, error: Exception, *operands: Tensor) -> None:
        """Turns the failure of a native operator into the errors of docs/semantics.md where it can tell.

        Raises `bk.ArgumentTypeError` for an operand that is `None` or a string, NotImplementedError
        when the native type lacks the operator and the feature is not claimed,
        `bk.ArgumentTypeError` when the operator refuses the operands' dtype (bitwise operations of
        floats, `mod` of complex values), `bk.ShapeMismatchError` when the operands' shapes do not
        broadcast; otherwise returns and the caller re-raises `error`. Runs only after a failure:
        the success path of an operator costs nothing more.
        """
        if isinstance(error, TypeError):
            for name, operand in zip("xy", operands, strict=False):
                check_tensor_argument(operand, feature, name)  # None or a string: ArgumentTypeError
            self._check_native(feature)
        # shapes first: JAX reports shapes that do not broadcast in `|` and `^` with a TypeError
        shapes = [tuple(self.staticshape(o)) for o in operands if self.is_tensor(o, only_native=True)]
        for sizes in zip(*(reversed(s) for s in shapes), strict=False) if len(shapes) > 1 else ():
            known = {n for n in sizes if n is not None and n != 1}
            if len(known) > 1:
                listed = " and ".join(str(tuple(s)) for s in shapes)
                raise ShapeMismatchError(f"{feature}: shapes {listed} do not broadcast") from error
        if isinstance(error, TypeError) and not isinstance(error, ArgumentTypeError):  # the operator refused the dtypes
            kinds = ", ".join(str(self.dtype(o)) for o in operands if self.is_tensor(o, only_native=True))
            raise ArgumentTypeError(f"{feature}: {kinds or 'these'} operands are not supported: {error}") from error

    def _has_native(self, dunder: str) -> bool:
        """Whether the native tensor type(s) define the Python operator `dunder`; calls nothing."""
        declared = type(self).native_types
        if declared is not None:
            return bool(declared) and all(_defines(t, dunder) for t in declared)
        return any(_defines(t, dunder) for t in _inferred_native_types(getattr(self, "_name", "")))


# Every operation is a method of `Backend`, defined once in the catalogue's modules (in reading order) and
# registered with the registry (`bk._operations`).
_CATALOGUE: Final = (
    _catalogue_core, _catalogue_algorithms, _defaults, _defaults_algorithms, _catalogue_standard, _catalogue_shapes, _catalogue_dtypes, _catalogue_linalg,
)  # fmt: skip
for _name, _definition in register_definitions(_CATALOGUE).items():
    setattr(Backend, _name, _definition)
update_abstractmethods(Backend)  # type: ignore[type-abstract]  # the required set is abstract


# ---------------------------------------------------------------- helpers


def _method_features() -> tuple[str, ...]:
    names = []
    for name in dir(Backend):
        if name.startswith("_") or name in _INFRASTRUCTURE:
            continue
        if callable(getattr(Backend, name)):
            names.append(name)
    return tuple(names)


_METHOD_FEATURES: Final = _method_features()
_REQUIRED: Final = frozenset(Backend.__abstractmethods__)


def _defines(cls: type, dunder: str) -> bool:
    """Whether instances of `cls` have the operator `dunder`: looked up in the MRO as Python does for
    operators (not on the metaclass, whose `type.__or__` builds unions), and not `object`'s
    comparison placeholders, which return NotImplemented."""
    for klass in cls.__mro__:
        if dunder in vars(klass):
            return klass is not object and vars(klass)[dunder] is not None
    return False


def _inferred_native_types(name: str) -> list[type]:
    """The tensor types of the modules that the plugin of backend `name` owns; imports nothing."""
    found: list[type] = []
    for module_name in PLUGIN_MODULES.get(name, ()):
        module = sys.modules.get(module_name)
        for attribute, value in vars(module).items() if module is not None else ():
            if attribute.startswith("_") or not isinstance(value, type) or value in found:
                continue
            if str(value.__module__).partition(".")[0] == module_name and hasattr(value, "shape"):
                found.append(value)
    return found


def _resolve_support(cls: type, name: str, visiting: tuple[str, ...], has_native: Callable[[str], bool]) -> bool:
    if name in CAPABILITIES:
        if name == "float64" and not getattr(cls, "float64_supported", True):
            return False
        return all(_resolve_support(cls, op, visiting, has_native) for op in CAPABILITIES[name])
    base = getattr(Backend, name, None)
    if base is None or name not in _METHOD_FEATURES:
        valid = [*_METHOD_FEATURES, *CAPABILITIES]
        hint = did_you_mean(name, valid)
        raise ValueError(f"unknown feature {name!r}.{hint} Features are Backend method names or one of {', '.join(CAPABILITIES)}.")
    if name in _REQUIRED or getattr(cls, name) is not base:
        return True
    uses = uses_of(base)
    if uses is None or name in visiting:
        return False
    if not all(has_native(dunder) for dunder in native_of(base)):
        return False
    return all(_resolve_support(cls, op, (*visiting, name), has_native) for op in uses)



# Public as `bk.<name>`: `bk` imports this module on first use of one of these names, or with the first backend.
for _name in __all__:
    globals()[_name].__module__ = "bk"
del _name

# Each catalogue method's docstring ends with its operation spec's rule ("Rule: ..."), from bk._specs.
from ._kernels import register_core as _register_core  # noqa: E402
from ._specs import annotate_docstrings as _annotate_docstrings  # noqa: E402  (the specs load with Backend)

_annotate_docstrings(Backend)
_register_core(Backend)  # the modules below ask bk._kernels for Backend instead of importing it

from ._dispatcher import wrap_generic_defaults as _wrap_generic_defaults  # noqa: E402

_wrap_generic_defaults(Backend, _METHOD_FEATURES)  # the generic defaults take the one call path, as plugins' kernels do
