"""Choosing the backend for values: ownership by type, decided once per type and cached.

A value is owned by the backend whose `BackendSpec.modules` contains the top-level module of its
type (or of a base class), or it is neutral (Python numbers, lists and tuples of neutral values).
Owners of lower priority (NumPy: 0) lose to those of higher priority (frameworks: 10): NumPy
values are constants next to framework tensors. Dispatch never imports a framework: a value of a
framework type exists only once the caller has imported that framework.
"""

from __future__ import annotations

import inspect  # already loaded by dataclasses: free here
import numbers
import os
from typing import TYPE_CHECKING, Any, Final

from . import _context
from ._errors import NoBackendFound
from ._plugins import FRAMEWORK_PLUGINS, REGISTRY, PluginError, warn_plugin

if TYPE_CHECKING:  # loaded with the first backend: listing backends does not need the base class
    from ._backend import Backend

__all__ = [
    "backend",
    "backends",
    "choose_backend",
    "default_backend",
    "init_backend",
    "refresh",
    "set_global_default_backend",
]

_NEUTRAL: Final = None
_SEQUENCE: Final = object()  # marker: look at the elements
_MISSING: Final = object()
# type -> owning backend, None (neutral) or _SEQUENCE
_OWNERS: dict[type, Any] = {}
# type -> owning backend, or None for every other type already classified: the fast path needs one
# subscript (cheaper than a `.get` call); only types never seen before miss
_OWNED: dict[type, Backend | None] = {}


def _reset_owner_cache() -> None:
    _OWNERS.clear()
    _OWNED.clear()
    for neutral in (int, float, bool, complex):
        _OWNERS[neutral] = _NEUTRAL
        _OWNED[neutral] = None
    for sequence in (list, tuple):
        _OWNERS[sequence] = _SEQUENCE
        _OWNED[sequence] = None


_reset_owner_cache()


_NO_VALUE: Final = object()  # marker of the unused leading parameters of `choose_backend`


def choose_backend(value: Any = _NO_VALUE, other: Any = _NO_VALUE, /, *values: Any, prefer_default: bool = False) -> Backend:
    """The backend that should handle an operation on `values`.

    Framework tensors win over NumPy values and Python numbers; values of two frameworks cannot
    be mixed; values that no backend owns (Python numbers, lists) go to the default backend.

    Args:
        *values: Tensors, NumPy arrays, numbers, or lists and tuples of them.
        prefer_default: Choose the default backend whenever it accepts all values.

    Raises:
        NoBackendFound: when two frameworks own the values (use `bk.convert` first), or when no
            installed backend can handle a value.
    """
    # The signature is `(*values, prefer_default=False)` (see `__signature__` below). The first two
    # values arrive as positional-only parameters: on CPython, one or two values then need no
    # tuple, and the fast path below (one or two values of one backend-owned type) costs about
    # two thirds of a `*values` version.
    try:
        owner = _OWNED[type(value)]  # KeyError for a type seen for the first time, and for no value
        if other is _NO_VALUE:
            if owner is not None and not prefer_default:
                return owner
        elif owner is not None and (type(other) is type(value) or owner is _OWNED[type(other)]) and not values and not prefer_default:
            return owner  # the same type twice (the common case) needs no second lookup
    except KeyError:
        pass
    if value is _NO_VALUE:
        return _choose((), prefer_default)
    if other is _NO_VALUE:
        return _choose((value,), prefer_default)
    return _choose((value, other, *values), prefer_default)


choose_backend.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  # what users may pass, as documented
    [inspect.Parameter("values", inspect.Parameter.VAR_POSITIONAL), inspect.Parameter("prefer_default", inspect.Parameter.KEYWORD_ONLY, default=False)]
)


def _choose(values: tuple[Any, ...], prefer_default: bool) -> Backend:
    owners: dict[Backend, Any] = {}
    for value in values:
        _collect_owners(value, owners)
    if prefer_default:
        default = default_backend()
        if all(o is default or (o._bk_priority < default._bk_priority and default.is_tensor(v)) for o, v in owners.items()):
            return default
    if not owners:
        return default_backend()
    top = max(o._bk_priority for o in owners)
    winners = [o for o in owners if o._bk_priority == top]
    if len(winners) > 1:
        names = " and ".join(sorted(w.name for w in winners))
        raise NoBackendFound(
            f"cannot mix values of {names} in one operation; "
            f"convert them to one backend first, e.g. bk.convert(value, bk.backend({winners[0].name!r}))"
        )
    return winners[0]


def _collect_owners(value: Any, owners: dict[Backend, Any]) -> None:
    owner = _OWNERS.get(type(value), _MISSING)
    if owner is _MISSING:
        owner = _owner_of_type(value)
    if owner is _SEQUENCE:
        for element in value:
            _collect_owners(element, owners)
    elif owner is not _NEUTRAL:
        owners.setdefault(owner, value)


def _owner_of_type(value: Any) -> Any:
    """Finds (and caches) the owner of `type(value)`; loads the owning backend if needed."""
    kind = type(value)
    for entry in _entries_for_type(kind):
        try:
            candidate = REGISTRY.load(entry.spec.name)
        except PluginError as error:
            raise NoBackendFound(f"a {kind.__module__}.{kind.__qualname__} belongs to backend {entry.spec.name!r}, which cannot be used: {error}") from error
        if candidate.is_tensor(value, only_native=True) or candidate.is_module(value):
            _OWNERS[kind] = _OWNED[kind] = candidate
            return candidate
    if isinstance(value, (list, tuple)):
        _OWNERS[kind] = _SEQUENCE
        _OWNED[kind] = None
        return _SEQUENCE
    if isinstance(value, numbers.Number) or kind.__module__.partition(".")[0] == "numpy":
        _OWNERS[kind] = _NEUTRAL  # numbers, and NumPy values when no installed backend owns NumPy
        _OWNED[kind] = None
        return _NEUTRAL
    if isinstance(value, (str, bytes)):
        from ._object import OBJECTS

        _OWNERS[kind] = _OWNED[kind] = OBJECTS
        return OBJECTS
    modules = ", ".join(sorted(REGISTRY.by_module)) or "none"
    top = kind.__module__.partition(".")[0]
    plugin = FRAMEWORK_PLUGINS.get(top)
    if plugin is not None:
        why = REGISTRY.skipped.get(top) or REGISTRY.skipped.get(plugin)
        advice = why if why is not None else f"install the bk plugin for {top}: pip install {plugin}"
    else:
        advice = f"or install a bk plugin that declares the module {top!r} in its BackendSpec.modules"
    raise NoBackendFound(
        f"no installed backend handles values of type {kind.__module__}.{kind.__qualname__}; "
        f"backends own types of these modules: {modules}. Convert the value to a tensor first, {advice}."
    )


def _entries_for_type(kind: type) -> list[Any]:
    REGISTRY.ensure()
    found = []
    for cls in kind.__mro__:
        top = cls.__module__.partition(".")[0]
        for entry in REGISTRY.by_module.get(top, ()):
            if entry not in found:
                found.append(entry)
    return found


# ---------------------------------------------------------------- the default backend


def default_backend() -> Backend:
    """The backend of the innermost `with backend:` block, else the global default.

    The global default is set by `set_global_default_backend()`, else by the environment variable
    `BK_DEFAULT_BACKEND`, else it is `numpy`.

    Raises:
        NoBackendFound: if no default is set and bk-numpy is not installed.
    """
    stack = _context.BACKEND_STACK.get()
    if stack:
        return stack[-1]
    result = _context.GLOBALS.default_backend
    if result is None:
        result = _initial_default()
    return result


def _initial_default() -> Backend:
    name = os.environ.get("BK_DEFAULT_BACKEND", "").strip()
    names = REGISTRY.names()
    if name and name not in names:
        warn_plugin(f"BK_DEFAULT_BACKEND={name!r} is ignored: {REGISTRY.missing_message(name)}")
        name = ""
    if not name:
        if "numpy" not in names:
            choose = (
                "bk.set_global_default_backend('NAME') or BK_DEFAULT_BACKEND=NAME "
                f"(installed: {', '.join(names) or 'none'})"
            )
            missing = REGISTRY.missing_message("numpy")
            if not missing.startswith("no backend named"):  # installed, but failed, blocked or not autoloaded
                raise NoBackendFound(f"no default backend: {missing}. Or choose another default with {choose}")
            raise NoBackendFound(f"no default backend: bk-numpy is not installed and none was chosen. Choose one with {choose}, or pip install bk-numpy")
        name = "numpy"
    backend_ = REGISTRY.load(name)
    _context.GLOBALS.default_backend = backend_
    return backend_


def set_global_default_backend(backend: str | Backend) -> Backend:
    """Sets the default backend of all threads and tasks (outside `with backend:` blocks).

    Args:
        backend: A backend or a backend name such as `'torch'`.

    Returns:
        The backend now used as default.

    Raises:
        ValueError: for an unknown name.
        TypeError: for anything but a name or a `Backend`.
    """
    if isinstance(backend, str):
        backend = REGISTRY.load(backend)
    elif not _is_backend(backend):
        raise TypeError(f"expected a backend name or a bk.Backend but got {type(backend).__name__}")
    _context.GLOBALS.default_backend = backend
    return backend


# ---------------------------------------------------------------- backends by name


def backend(name: str) -> Backend:
    """The installed backend called `name`, loading its plugin on first use.

    Raises:
        ValueError: for an unknown name, listing the installed backends and close matches.
        PluginError: if the plugin is installed but cannot load.
    """
    if isinstance(name, str):
        return REGISTRY.load(name)
    if _is_backend(name):
        return name
    raise TypeError(f"backend name must be a string but got {type(name).__name__}")


def _is_backend(value: Any) -> bool:
    from ._backend import Backend

    return isinstance(value, Backend)


def init_backend(name: str) -> Backend:
    """Loads the backend `name` now (importing its framework) and returns it; see `backend()`."""
    return backend(name)


def backends() -> list[str]:
    """Names of all installed backends, sorted; imports no framework."""
    return REGISTRY.names()


def refresh() -> list[str]:
    """Discovers plugins again (for backends installed after `import bk`) and returns all names."""
    REGISTRY.refresh()
    _reset_owner_cache()
    return REGISTRY.names()
