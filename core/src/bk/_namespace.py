"""`bk.array_namespace`: any backend as a namespace of the Array API standard (2024.12).

The namespace's functions are the catalogue's operations under the standard's names (the one table
is `_namespace_table.py`), its arrays the framework's own tensors, and its dtypes the framework's
own dtype objects. A namespace is built once per backend and cached; a call through it costs the
catalogue call plus, at most, one dict lookup (for a `dtype=` argument).
"""

from __future__ import annotations

import contextlib
import functools
import math
import types
from collections.abc import Callable
from typing import Any, Final

from ._dtype import DType
from ._errors import ArgumentTypeError
from ._namespace_dtypes import FInfo, IInfo, finfo, iinfo, is_kind  # noqa: F401 (the namespace's own names)

__all__ = ["array_namespace"]

API_VERSION: Final = "2024.12"
_KNOWN_VERSIONS: Final = ("2021.12", "2022.12", "2023.12", "2024.12")

# The standard's dtypes, by name, as bk DTypes.
STANDARD_DTYPES: Final = {
    name: DType.parse(name)
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
}
_CACHE: dict[int, types.ModuleType] = {}


def array_namespace(*arrays: Any, api_version: str | None = None) -> types.ModuleType:
    """The Array API namespace of a backend, for its arrays, a `Backend`, or a backend name.

    `bk.array_namespace(x, y)` serves the backend that owns the arrays (as
    `array_api_compat.array_namespace`), `bk.array_namespace(backend)` that backend and
    `bk.array_namespace("tf")` the backend of that name. Its functions are the backend's
    catalogue operations under the standard's names; arrays stay the framework's tensors and its
    dtypes are the framework's dtype objects (`torch.float32`, `tf.float32`, NumPy dtypes).

    Args:
        *arrays: Arrays of one backend, or one `Backend`, or one backend name.
        api_version: `None` or a released version of the standard up to '2024.12' (all served by
            the 2024.12 namespace).

    Returns:
        The namespace, cached per backend (the same object on every call).

    Raises:
        TypeError: without arguments.
        ValueError: for an unknown version or backend name.
        bk.NoBackendFound: when the arrays belong to two frameworks.
    """
    if api_version is not None and api_version not in _KNOWN_VERSIONS:
        raise ValueError(
            f"array_namespace: api_version {api_version!r} is not a released version this namespace serves; use one of {', '.join(_KNOWN_VERSIONS)} or None"
        )
    if not arrays:
        raise TypeError("array_namespace() needs arrays, a bk.Backend or a backend name such as 'torch'")
    from ._backend import Backend
    from ._choose import backend, choose_backend

    first = arrays[0]
    if len(arrays) == 1 and isinstance(first, str):
        target = backend(first)
    elif len(arrays) == 1 and isinstance(first, Backend):
        target = first
    else:
        target = choose_backend(*arrays)
    namespace = _CACHE.get(id(target))
    if namespace is None or namespace.backend is not target:
        namespace = _CACHE[id(target)] = Namespace(target).module
    return namespace


class Namespace:
    """The Array API namespace of one backend (see `bk.array_namespace`): `module`, and the dtype
    tables and devices its functions use.

    The namespace itself is `module`, a plain module object like the namespaces of NumPy or
    array-api-compat (a module subclass would cost each `xp.sin` lookup a few percent of a small
    call: Python specializes attribute lookups on modules only): its functions, dtypes and constants
    are attributes; `linalg` and `fft` are sub-namespaces. A standard function whose catalogue
    operations the backend does not support is absent, so `hasattr(xp, name)` tells.
    """

    def __init__(self, backend: Any) -> None:
        from . import _namespace_table as table

        self.backend = backend
        name = f"bk.array_namespace({backend.name!r})"
        module = self.module = types.ModuleType(name, f"The Array API {API_VERSION} namespace of bk's {backend.name!r} backend.")
        module.backend = backend  # type: ignore[attr-defined]
        module.__array_api_version__ = API_VERSION  # type: ignore[attr-defined]
        self._native = native_dtypes(backend)  # DType -> native dtype
        self._dtypes = {native: dtype for dtype, native in self._native.items()}  # native -> DType
        self._default = {
            "real floating": STANDARD_DTYPES["float32"],
            "complex floating": STANDARD_DTYPES["complex64"],
            "integral": STANDARD_DTYPES["int64"],
            "indexing": STANDARD_DTYPES["int64"],
        }
        for dtype_name, dtype in STANDARD_DTYPES.items():
            if dtype in self._native:
                setattr(module, dtype_name, self._native[dtype])
        module.e, module.pi, module.inf, module.nan, module.newaxis = math.e, math.pi, math.inf, math.nan, None  # type: ignore[attr-defined]
        self._devices = Devices(backend)
        _explain_missing(module, lambda: table.install(module, backend, table.MAIN, self))
        for sub, entries in (("linalg", table.LINALG), ("fft", table.FFT)):
            namespace = types.ModuleType(f"{name}.{sub}")
            namespace.backend = backend  # type: ignore[attr-defined]
            _explain_missing(namespace, functools.partial(table.install, namespace, backend, entries, self))
            setattr(module, sub, namespace)
        module.__array_namespace_info__ = lambda: Info(self)  # type: ignore[attr-defined]

    # ------------------------------------------------------------ dtype conversion (used by the adapters)

    def as_dtype(self, dtype: Any, operation: str) -> DType:
        """The `DType` of a dtype of this namespace (or a `bk.DType`, or a NumPy dtype)."""
        try:
            return self._dtypes[dtype]
        except (KeyError, TypeError):
            pass
        if isinstance(dtype, DType):
            return dtype
        try:
            result = DType.as_dtype(dtype)
        except (ValueError, TypeError):
            result = None
        if result is None or result not in self._native:
            raise ArgumentTypeError(
                f"{operation}: {dtype!r} is not a dtype of the {self.backend.name!r} namespace; use one of its attributes such as xp.float32"
            )
        return result

    def as_native(self, dtype: DType) -> Any:
        """The native dtype of a `DType`."""
        return self._native[dtype]

    def dtype_of(self, x: Any) -> DType:
        """The `DType` of an array, a dtype or a Python scalar (`bool`, `int`, `float`, `complex`)."""
        if self.backend.is_tensor(x, only_native=True) or isinstance(x, (bool, int, float, complex)):
            result: DType = self.backend.dtype(x)
            return result
        return self.as_dtype(x, "result_type")


def _explain_missing(namespace: types.ModuleType, install: Callable[[], None]) -> None:
    """Fills a namespace module by `install()`, with its `_missing` table (the standard functions the
    backend cannot run, and why); where one is missing, the module `__getattr__` of PEP 562 names the
    reason when it is looked up. Only there: Python specializes the attribute lookups of a module without
    `__getattr__` (a plain module, not a subclass), which saves `xp.sin(x)` a few percent of a small call."""
    namespace._missing = {}  # type: ignore[attr-defined]
    install()
    if namespace._missing:
        namespace.__getattr__ = lambda name: _missing_attribute(namespace, name)  # type: ignore[method-assign]


def _missing_attribute(namespace: Any, name: str) -> Any:
    if name.startswith("__") or name not in vars(namespace).get("_missing", {}):
        raise AttributeError(f"{namespace.__name__} has no attribute {name!r}")
    raise AttributeError(f"{namespace.__name__} has no {name!r}: {namespace._missing[name]}")


def native_dtypes(backend: Any) -> dict[DType, Any]:
    """The framework's dtype object for each standard dtype the backend can create.

    A backend may declare them with a method `array_api_dtypes()` returning `{DType: native}`;
    otherwise each is the native `.dtype` of `backend.zeros((0,), dtype)`. Dtypes it cannot create,
    declares in `Backend.unsupported_dtypes`, or (float64, complex128) without the `float64`
    capability are left out.
    """
    declared = getattr(backend, "array_api_dtypes", None)
    if callable(declared):
        return dict(declared())
    found: dict[DType, Any] = {}
    lacking: frozenset[DType] = getattr(backend, "unsupported_dtypes", frozenset())
    for dtype in STANDARD_DTYPES.values():
        if dtype in lacking or (dtype.precision == 64 and not backend.supports("float64")):
            continue
        try:
            native = backend.zeros((0,), dtype).dtype
        except Exception:
            continue
        found[dtype] = native
    return found


# ---------------------------------------------------------------- inspection


class Info:
    """`__array_namespace_info__()`: what the namespace offers."""

    def __init__(self, namespace: Namespace) -> None:
        self._ns = namespace

    def capabilities(self) -> dict[str, Any]:
        """'boolean indexing', 'data-dependent shapes' and 'max dimensions'."""
        b = self._ns.backend
        dds = all(b.supports(op) for op in ("nonzero", "unique", "boolean_mask"))
        return {"boolean indexing": dds and _boolean_indexing(b), "data-dependent shapes": dds, "max dimensions": None}

    def default_device(self) -> Any:
        """The device new arrays are created on, as their `device` reports it."""
        devices: Devices = self._ns._devices
        return devices.default()

    def devices(self) -> list[Any]:
        """The devices of the backend, as the arrays created on each report them (`device(x)`)."""
        devices: Devices = self._ns._devices
        return devices.listed()

    def default_dtypes(self, *, device: Any = None) -> dict[str, Any]:
        """The default dtypes: float32, complex64, int64 and int64 for indices (the same on every device)."""
        ns = self._ns
        if device is not None:
            ns._devices.resolve(device, "default_dtypes")
        return {kind: ns.as_native(dtype) for kind, dtype in ns._default.items()}

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, Any]:
        """The dtypes of the namespace by name, optionally only those of `kind`, or those that
        arrays on `device` can hold (array-api-strict's device 'no_float64' has no float64)."""
        ns = self._ns
        held = None if device is None else _held_on(ns, ns._devices.resolve(device, "dtypes"))
        return {
            name: ns.as_native(d)
            for name, d in STANDARD_DTYPES.items()
            if d in ns._native and (kind is None or is_kind(d, kind, ns)) and (held is None or d in held)
        }


def _held_on(ns: Namespace, device: Any) -> set[DType] | None:
    """The dtypes an array on `device` can hold, found by moving an empty array of each there;
    `None` (all of them) on the default device or where arrays cannot be moved."""
    b = ns.backend
    if not b.supports("allocate_on_device") or device == b.get_default_device():
        return None
    held = set()
    for dtype in ns._native:
        try:
            b.allocate_on_device(b.zeros((0,), dtype), device)
        except (ValueError, TypeError, RuntimeError):
            continue
        held.add(dtype)
    return held


class Devices:
    """The devices of one namespace, spelled as the namespace's arrays report them.

    A device's *spelling* is what `x.device` gives for an array `x` created on it: the framework's
    own object or string (`'cpu'` for NumPy, `torch.device('cpu')`, a JAX `Device`, TensorFlow's
    `'/job:localhost/replica:0/task:0/device:CPU:0'`). A backend whose arrays carry no `device`
    declares the spelling with a method `array_api_device(device: ComputeDevice)` (bk-dask: `'cpu'`,
    as `array_api_compat.device` says of Dask arrays); otherwise it is read from a one-element array
    allocated there, or is the device's `ref` when arrays tell nothing (bk-lazy: `'graph'`).

    `resolve` accepts every spelling of a device: the one its arrays report, its `ref`, a
    `bk.ComputeDevice`, and whatever the plugin's `get_device_by_ref` understands (the framework's
    other spellings: `'cpu'` for PyTorch, `'/device:CPU:0'` or `'CPU:0'` for TensorFlow, a worker's
    address for Dask).
    """

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self._spelled: dict[Any, Any] = {}  # ComputeDevice -> the device its arrays report
        self._known: dict[Any, Any] = {}  # a spelling already resolved -> ComputeDevice

    def spelling(self, device: Any) -> Any:
        """What arrays created on `device` (a `ComputeDevice` of the backend) report as their device."""
        try:
            return self._spelled[device]
        except KeyError:
            pass
        declared = getattr(self.backend, "array_api_device", None)
        spelled = declared(device) if callable(declared) else _probe_device(self.backend, device)
        self._spelled[device] = spelled
        return spelled

    def of(self, x: Any) -> Any:
        """`device(x)`: the device an array of this namespace reports, or that of the backend's device for it."""
        reported = reported_device(x)
        if reported is not None:
            return reported
        if not self.backend.is_tensor(x, only_native=True):
            raise ArgumentTypeError(
                f"device: expected an array of the {self.backend.name!r} namespace but got {type(x).__name__}"
            )
        return self.spelling(self.backend.get_device(x))

    def default(self) -> Any:
        """The spelling of the backend's default device."""
        return self.spelling(self.backend.get_default_device())

    def listed(self) -> list[Any]:
        """The spellings of the backend's devices, each once, the default's first."""
        result = [self.default()]
        for device in self.backend.list_devices():
            spelled = self.spelling(device)
            if not any(_same(spelled, seen) for seen in result):
                result.append(spelled)
        return result

    def resolve(self, device: Any, operation: str) -> Any:
        """The `ComputeDevice` of any spelling of one of the backend's devices.

        Raises:
            ValueError: naming `operation` and the namespace's devices, for anything else.
        """
        from ._device import ComputeDevice

        if isinstance(device, ComputeDevice):
            if device.backend is not self.backend:
                raise ValueError(
                    f"{operation}: {device.name!r} is a device of backend {device.backend}, not of {self.backend.name!r}"
                )
            return device
        try:
            return self._known[device]
        except (KeyError, TypeError):
            pass
        found = self._find(device)
        if found is None:
            raise ValueError(
                f"{operation}: {device!r} is not a device of the {self.backend.name!r} namespace; "
                f"its devices are {self.listed()} (xp.__array_namespace_info__().devices())"
            )
        with contextlib.suppress(TypeError):  # an unhashable spelling is resolved each time
            self._known[device] = found
        return found

    def _find(self, device: Any) -> Any:
        default = self.backend.get_default_device()
        if _same(device, self.spelling(default)) or _same(device, default.ref):
            return default
        with contextlib.suppress(KeyError, ValueError, TypeError, AttributeError):
            return self.backend.get_device_by_ref(device)
        for candidate in self.backend.list_devices():
            if _same(device, self.spelling(candidate)):
                return candidate
        return None


def reported_device(x: Any) -> Any:
    """`x.device` where an array carries it (NumPy, PyTorch, JAX, TensorFlow, Array API arrays); `None` where
    it does not, or where it tells nothing (JAX tracers under `jit`, symbolic TensorFlow tensors: `''`)."""
    try:
        reported = x.device
    except Exception:  # no such attribute, or a property that refuses (tracers)
        return None
    if reported is None or callable(reported) or (isinstance(reported, str) and not reported):
        return None
    return reported


def _probe_device(backend: Any, device: Any) -> Any:
    """The device a one-element array allocated on `device` reports, or `device.ref` where it reports none."""
    try:
        x = backend.zeros((1,), DType(float, 32))
        if device != backend.get_default_device():
            x = backend.allocate_on_device(x, device)
    except Exception:  # a device the backend cannot allocate on from here (a busy worker, a lost GPU)
        return device.ref
    reported = reported_device(x)
    return device.ref if reported is None else reported


def _same(a: Any, b: Any) -> bool:
    """Whether two device spellings are equal (objects of different frameworks may refuse to compare)."""
    try:
        return a is b or (type(a) is type(b) and bool(a == b))
    except Exception:
        return False


def _boolean_indexing(backend: Any) -> bool:
    """Whether `x[mask]` works on the native tensors (probed once on two elements)."""
    try:
        x = backend.zeros((2,), DType(float, 32))
        selected = x[backend.as_tensor([True, False])]
        return tuple(backend.staticshape(selected)) == (1,)
    except Exception:
        return False
