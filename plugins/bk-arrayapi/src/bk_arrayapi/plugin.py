"""Entry point of the `bk.backends` group: one backend for every declared Array-API namespace.

This module imports neither `array_api_compat` nor any namespace: it only reads declarations.
A namespace is declared in one of three ways (a later one wins for the same backend name):

1. an entry point of the group `bk.arrayapi` (`name = "module"`), which a library publishes;
2. the environment variable `BK_ARRAYAPI="strict=array_api_strict,other=module"`;
3. `bk_arrayapi.register("strict", "array_api_strict")` in the running process.

The backend's name is the declarer's choice. It owns the array types of the namespace's library:
the top-level module of the namespace (`array_api_strict`), or for a namespace of
`array_api_compat` the library it wraps (`array_api_compat.dask.array` owns `dask` types).
"""

from __future__ import annotations

import os
import sys
import warnings
from types import ModuleType
from typing import Final, NamedTuple

import bk
from bk._entrypoints import EntryPointInfo, find_entry_points

__all__ = ["ENTRY_POINT_GROUP", "ENV_VAR", "Declaration", "bk_backends", "declarations", "register", "unregister"]

ENV_VAR: Final = "BK_ARRAYAPI"
"""Environment variable: comma-separated `name=module` pairs."""

ENTRY_POINT_GROUP: Final = "bk.arrayapi"
"""Entry-point group of third-party namespaces: `name = "module"`."""

_LOADER: Final = "bk_arrayapi._backend:LOADERS"


class Declaration(NamedTuple):  # not a dataclass: `dataclasses` costs milliseconds at discovery
    """One namespace declared as a bk backend.

    Args:
        name: The backend name (an identifier).
        namespace: Import name of the Array-API namespace, such as `'array_api_strict'`.
        modules: Top-level modules whose types the backend owns.
        source: Where it was declared, for `bk.info()` and messages.
    """

    name: str
    namespace: str
    modules: tuple[str, ...]
    source: str


_REGISTERED: dict[str, Declaration] = {}


def owner_modules(namespace: str) -> tuple[str, ...]:
    """The top-level module whose array types a namespace's backend owns.

    `array_api_compat.<lib>...` wraps `<lib>`, whose arrays it returns; any other namespace owns
    the types of its own top-level module.
    """
    parts = namespace.split(".")
    if parts[0] == "array_api_compat" and len(parts) > 1:
        return (parts[1],)
    return (parts[0],)


def register(name: str, namespace: str | ModuleType, modules: tuple[str, ...] | None = None) -> None:
    """Declares `namespace` as the bk backend `name` in this process, and makes bk see it.

    The namespace is imported when the backend is first used, not now.

    Args:
        name: The backend name, an identifier such as `'strict'`.
        namespace: The namespace module or its import name, such as `'array_api_strict'` or
            `'array_api_compat.dask.array'`. A library that is not itself compliant (`torch`,
            `dask.array`) is wrapped through `array_api_compat`.
        modules: Top-level modules whose array types the backend owns; see `owner_modules`.

    Raises:
        ValueError: for a name that is not an identifier or an empty namespace.
    """
    namespace_name = namespace.__name__ if isinstance(namespace, ModuleType) else namespace
    _check(name, namespace_name, "register()")
    owned = tuple(modules) if modules is not None else owner_modules(namespace_name)
    _REGISTERED[name] = Declaration(name, namespace_name, owned, "bk_arrayapi.register()")
    bk.refresh()


def unregister(name: str) -> None:
    """Removes a declaration made with `register` (no effect on the other two ways)."""
    if _REGISTERED.pop(name, None) is not None:
        bk.refresh()


def declarations() -> dict[str, Declaration]:
    """Every declared namespace by backend name: entry points, then `BK_ARRAYAPI`, then `register()`."""
    found: dict[str, Declaration] = {}
    for info in _published():
        if _valid(info.name, info.value, f"entry point {info.name!r} of distribution {info.distribution!r}"):
            found[info.name] = Declaration(info.name, info.value, owner_modules(info.value), f"distribution {info.distribution}")
    for item in filter(None, (part.strip() for part in os.environ.get(ENV_VAR, "").split(","))):
        name, sep, namespace = (s.strip() for s in item.partition("="))
        if not sep:
            _warn(f"{ENV_VAR} entry {item!r} is ignored: write name=module, such as strict=array_api_strict")
        elif _valid(name, namespace, f"{ENV_VAR} entry {item!r}"):
            found[name] = Declaration(name, namespace, owner_modules(namespace), f"{ENV_VAR}")
    found.update(_REGISTERED)
    return found


_SCANNED: dict[tuple[tuple[str, int], ...], list[EntryPointInfo]] = {}


def _published() -> list[EntryPointInfo]:
    """The entry points of the group; scanned again only when a directory of `sys.path` changed
    (installing a distribution adds a folder there), so `bk.refresh()` and `register()` stay cheap."""
    key = tuple((entry, _mtime(entry)) for entry in sys.path)
    found = _SCANNED.get(key)
    if found is None:
        _SCANNED.clear()
        found = _SCANNED[key] = find_entry_points(ENTRY_POINT_GROUP)
    return found


def _mtime(path: str) -> int:
    try:
        return os.stat(path or os.getcwd()).st_mtime_ns
    except OSError:
        return 0


@bk.hookimpl
def bk_backends() -> list[bk.BackendSpec]:
    """One spec per declared namespace; `bk_arrayapi._backend` is imported on first use only."""
    return [
        bk.BackendSpec(
            name=d.name,
            modules=d.modules,
            load=f"{_LOADER}.{d.name}",
            priority=10,
            api=bk.API_VERSION,
            description=f"the Array-API namespace {d.namespace} (declared by {d.source})",
            framework=d.modules[0],
        )
        for d in declarations().values()
    ]


def _check(name: str, namespace: str, where: str) -> None:
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
        raise ValueError(f"{where}: a backend name must be an identifier not starting with '_', such as 'strict', but got {name!r}")
    if not isinstance(namespace, str) or not all(p.isidentifier() for p in namespace.split(".")):
        raise ValueError(f"{where}: the namespace must be a module or an import name such as 'array_api_strict', but got {namespace!r}")


def _valid(name: str, namespace: str, where: str) -> bool:
    try:
        _check(name, namespace, where)
    except ValueError as error:
        _warn(f"{error}; it is ignored")
        return False
    return True


def _warn(message: str) -> None:
    warnings.warn(f"bk-arrayapi: {message}", bk.PluginWarning, stacklevel=3)
