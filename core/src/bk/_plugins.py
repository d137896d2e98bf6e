"""Plugin discovery: entry points of the group `bk.backends`, pluggy hooks, lazy loading.

Discovery imports only the light entry-point modules; a backend's implementation (and so its
framework) is imported the first time the backend is used. Every failure is isolated to the
plugin that caused it: it is recorded, reported by `bk.info()`, and warned about (or raised with
`BK_STRICT_PLUGINS=1`).

Ownership is decided the same way whatever the install order: the distribution named `bk-<name>`
owns the backend name `<name>`; any other name goes to the first claim in the order of
distribution names, and later claims are refused. A module's types go first to the distribution
named after the module (`bk-torch` for `torch`), then to a distribution named after its backend
(`bk-tf` for `tensorflow`), then to the first in the order of distribution names. A refused
claim warns, naming both distributions.
"""

from __future__ import annotations

import _thread  # the C module under `threading`, which costs a millisecond to import
import importlib
import os
import re
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import pluggy

from . import hookspecs
from ._entrypoints import PLUGIN_MODULES, EntryPointInfo, find_entry_points, shared_scan
from ._errors import did_you_mean
from ._markers import PROJECT

if TYPE_CHECKING:
    from ._backend import Backend

__all__ = ["API_VERSION", "BackendSpec", "PluginError", "PluginWarning", "REGISTRY"]

API_VERSION: Final = 1
"""The version of the plugin contract this core implements; `BackendSpec.api` must equal it."""

ENTRY_POINT_GROUP: Final = "bk.backends"

# The plugins of the bk project: a backend name or a framework module -> the distribution to install.
FIRST_PARTY: Final = {"numpy": "bk-numpy", "torch": "bk-torch", "jax": "bk-jax", "tf": "bk-tf", "lazy": "bk-lazy", "dask": "bk-dask", "arrayapi": "bk-arrayapi"}
FRAMEWORK_PLUGINS: Final = {"numpy": "bk-numpy", "scipy": "bk-numpy", "torch": "bk-torch", "jax": "bk-jax", "jaxlib": "bk-jax", "tensorflow": "bk-tf", "keras": "bk-tf", "dask": "bk-dask"}
_NORMALIZE: Final = re.compile(r"[-_.]+")
_BK_DIR: Final = os.path.dirname(os.path.abspath(__file__)) + os.sep


_SPEC_FIELDS: Final = ("name", "modules", "load", "priority", "api", "description", "framework", "features")


class BackendSpec:
    """How to find and load one backend, returned by a plugin's `bk_backends` hook.

    Args:
        name: Unique backend name, such as `'torch'`.
        modules: Top-level modules whose types this backend owns, such as `('torch',)`.
        load: `'module:attribute'` of the `Backend` subclass (or factory); imported on first use only.
        priority: Dispatch priority: NumPy 0, frameworks 10. Values of a lower-priority backend are
            constants next to those of a higher one.
        api: The `bk.API_VERSION` the plugin was written for.
        description: One line about the backend.
        framework: Distribution name of the framework, for `bk.info()` (defaults to `modules[0]`).
        features: Optional static manifest of the features the plugin claims.
    """

    # A frozen value class written out rather than a frozen dataclass: `dataclasses` and the code it
    # generates cost a few milliseconds at `import bk`, and every program that lists backends pays them.

    __match_args__ = _SPEC_FIELDS

    name: str
    modules: tuple[str, ...]
    load: str
    priority: int
    api: int
    description: str
    framework: str | None
    features: tuple[str, ...] | None

    def __init__(
        self,
        name: str,
        modules: tuple[str, ...],
        load: str,
        priority: int = 0,
        api: int = API_VERSION,
        description: str = "",
        framework: str | None = None,
        features: tuple[str, ...] | None = None,
    ) -> None:
        for field, value in zip(_SPEC_FIELDS, (name, modules, load, priority, api, description, framework, features), strict=True):
            object.__setattr__(self, field, value)
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"BackendSpec.name must be an identifier-like string but got {self.name!r}")
        if isinstance(self.modules, str) or not all(isinstance(m, str) for m in self.modules):
            raise ValueError(f"BackendSpec.modules must be a tuple of module names but got {self.modules!r}")
        object.__setattr__(self, "modules", tuple(self.modules))
        if not isinstance(self.load, str) or ":" not in self.load:
            raise ValueError(f"BackendSpec.load must look like 'package.module:ClassName' but got {self.load!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, field) for field in _SPEC_FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{field}={getattr(self, field)!r}" for field in _SPEC_FIELDS)
        return f"{type(self).__qualname__}({fields})"

    def __setattr__(self, name: str, value: Any) -> None:
        from dataclasses import FrozenInstanceError  # as a frozen dataclass raises

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")


class PluginError(Exception):
    """A plugin could not be discovered or loaded (raised for it with `BK_STRICT_PLUGINS=1`)."""


class PluginWarning(UserWarning):
    """A plugin was skipped; the message names its distribution and why."""


class PluginProblem(NamedTuple):
    """A recorded plugin failure, as reported by `bk.info()`."""

    distribution: str
    entry_point: str
    reason: str

    def __str__(self) -> str:
        return f"plugin {self.entry_point!r} of distribution {self.distribution!r}: {self.reason}"


class Entry:
    """A discovered backend."""

    def __init__(self, spec: BackendSpec, distribution: str, version: str, entry_point: str, backend: Backend | None = None, error: str | None = None) -> None:
        self.spec = spec
        self.distribution = distribution
        self.version = version
        self.entry_point = entry_point
        self.backend = backend
        self.error = error
        self.lock = _thread.allocate_lock()

    def __repr__(self) -> str:
        return (
            f"Entry(spec={self.spec!r}, distribution={self.distribution!r}, version={self.version!r}, "
            f"entry_point={self.entry_point!r}, backend={self.backend!r}, error={self.error!r})"
        )


def _env_list(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


_IMPL_MARK: Final = f"{PROJECT}_impl"  # the attribute that `bk.hookimpl` sets on implementations


class _Manager(pluggy.PluginManager):
    """pluggy's manager, looking at a plugin's `bk_*` names only.

    pluggy inspects every attribute of a registered module (with `inspect.getattr_static`) to find
    hook implementations. Every hook of bk is named `bk_...` (as pytest's are `pytest_...`), so a
    module's other names are skipped unless they carry the `bk.hookimpl` mark (an implementation
    renamed with `specname=`): discovery stays fast with many plugins installed.
    """

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if isinstance(plugin, ModuleType) and not name.startswith("bk_") and not hasattr(vars(plugin).get(name), _IMPL_MARK):
            return None
        return super().parse_hookimpl_opts(plugin, name)


class Registry:
    """All discovered backends and plugin problems of this process."""

    def __init__(self) -> None:
        self._lock = _thread.RLock()
        self.entries: dict[str, Entry] = {}
        self.by_module: dict[str, list[Entry]] = {}
        self.problems: list[PluginProblem] = []
        # entry-point and distribution names of plugins not loaded on purpose -> why (blocked, not autoloaded)
        self.skipped: dict[str, str] = {}
        self.manager: pluggy.PluginManager | None = None
        self.discovered = False
        self.generation = 0

    # ---------------------------------------------------------------- discovery

    def ensure(self) -> None:
        """Discovers plugins once."""
        if not self.discovered:
            with self._lock:
                if not self.discovered:
                    self._discover()

    def refresh(self) -> None:
        """Discovers again, keeping loaded backends that are still installed."""
        with self._lock:
            old = self.entries
            self.entries, self.by_module, self.problems, self.skipped = {}, {}, [], {}
            PLUGIN_MODULES.clear()
            self._discover()
            for name, entry in self.entries.items():
                previous = old.get(name)
                if previous is not None and previous.spec == entry.spec:
                    entry.backend, entry.error = previous.backend, previous.error
            self.generation += 1

    def _discover(self) -> None:
        manager = _Manager(PROJECT)
        manager.add_hookspecs(hookspecs)
        self.manager = manager
        with shared_scan():  # a plugin's hook may read another entry-point group: the files are read once
            infos = self._selected_entry_points(find_entry_points(ENTRY_POINT_GROUP))
            claims: list[tuple[EntryPointInfo, BackendSpec]] = []
            for info in sorted(infos, key=lambda i: (_normalized(i.distribution), i.name)):
                module = self._import_plugin(info)
                if module is not None:
                    self._register(manager, info, module, claims)
        self._settle_names(claims)
        self._settle_modules()
        self.discovered = True

    def _selected_entry_points(self, infos: list[EntryPointInfo]) -> list[EntryPointInfo]:
        known = {i.name for i in infos} | {i.distribution for i in infos}
        blocked = _env_list("BK_BLOCK_PLUGINS")
        wanted = _env_list("BK_PLUGINS")
        for variable, names in (("BK_BLOCK_PLUGINS", blocked), ("BK_PLUGINS", wanted)):
            for unknown in sorted(set(names) - known):
                _warn(f"{variable} names {unknown!r}, but no installed plugin has that name; installed: {', '.join(sorted(i.name for i in infos)) or 'none'}")
        if wanted and not _env_flag("BK_DISABLE_PLUGIN_AUTOLOAD"):
            _warn(
                f"BK_PLUGINS={os.environ.get('BK_PLUGINS', '')} has no effect: every installed plugin is loaded unless "
                "BK_DISABLE_PLUGIN_AUTOLOAD=1 is set too; set it to load only the plugins that BK_PLUGINS names"
            )
        selected = []
        for i in infos:
            if i.name in blocked or i.distribution in blocked:
                why = f"plugin {i.name!r} of distribution {i.distribution!r} is blocked by BK_BLOCK_PLUGINS={os.environ.get('BK_BLOCK_PLUGINS', '')}; remove {i.name!r} from that variable to use it"
            elif _env_flag("BK_DISABLE_PLUGIN_AUTOLOAD") and i.name not in wanted and i.distribution not in wanted:
                listed = ",".join([*wanted, i.name])
                why = (
                    f"plugin {i.name!r} of distribution {i.distribution!r} is installed but was not loaded: BK_DISABLE_PLUGIN_AUTOLOAD "
                    f"is set and BK_PLUGINS does not name it; set BK_PLUGINS={listed} or unset BK_DISABLE_PLUGIN_AUTOLOAD"
                )
            else:
                selected.append(i)
                continue
            self.skipped.setdefault(i.name, why)
            self.skipped.setdefault(_normalized(i.distribution), why)
        return selected

    def _import_plugin(self, info: EntryPointInfo) -> Any:
        module_name, _, attribute = info.value.partition(":")
        try:
            obj: Any = importlib.import_module(module_name.strip())
            for part in filter(None, attribute.strip().split(".")):
                obj = getattr(obj, part)
            return obj
        except Exception as error:
            reason = f"cannot import entry point {info.value!r}: {type(error).__name__}: {error}"
            if _raised_outside(module_name.strip(), error):  # the framework, imported against the contract: reinstalling is no help
                reason += f"{_OUTSIDE}. {load_failure_advice(info.distribution, module_name.strip(), error)}"
            self._problem(info, reason)
            return None

    def _register(self, manager: pluggy.PluginManager, info: EntryPointInfo, plugin: Any, claims: list[tuple[EntryPointInfo, BackendSpec]]) -> None:
        try:
            manager.register(plugin, name=f"{info.distribution}:{info.name}")
        except Exception as error:
            self._problem(info, f"invalid hook implementation: {error}")
            return
        for impl in manager.hook.bk_backends.get_hookimpls():
            if impl.plugin is plugin:
                self._collect(info, impl.function, claims)

    def _collect(self, info: EntryPointInfo, hook: Any, claims: list[tuple[EntryPointInfo, BackendSpec]]) -> None:
        try:
            specs = hook()
        except Exception as error:
            self._problem(info, f"its bk_backends() hook raised {type(error).__name__}: {error}")
            return
        if not isinstance(specs, (list, tuple)):
            specs = [specs]
        for spec in specs:
            if self._valid_spec(info, spec):
                claims.append((info, spec))

    def _valid_spec(self, info: EntryPointInfo, spec: Any) -> bool:
        if not isinstance(spec, BackendSpec):
            self._problem(info, f"bk_backends() must return bk.BackendSpec objects, not {type(spec).__name__}")
            return False
        if spec.api != API_VERSION:
            self._problem(
                info,
                f"backend {spec.name!r} was written for bk API {spec.api}, but this bk-core provides API {API_VERSION}; "
                f"install a version of {info.distribution} made for this bk-core, or a bk-core for API {spec.api}",
            )
            return False
        return True

    def _settle_names(self, claims: list[tuple[EntryPointInfo, BackendSpec]]) -> None:
        """Gives each backend name to one claim: `bk-<name>` first, then in the order of distribution names."""

        def rank(claim: tuple[EntryPointInfo, BackendSpec]) -> tuple[bool, str, str]:
            info, spec = claim
            return (not _named_after(info.distribution, spec.name), _normalized(info.distribution), info.name)

        for info, spec in sorted(claims, key=rank):
            existing = self.entries.get(spec.name)
            if existing is None:
                self.entries[spec.name] = Entry(spec, info.distribution, info.version, info.name)
                PLUGIN_MODULES[spec.name] = tuple(spec.modules)
                continue
            self._problem(
                info,
                f"backend name {spec.name!r} is already provided by distribution {existing.distribution!r} "
                f"({_why_owner(existing.distribution, spec.name)}); the claim of {info.distribution!r} is refused. "
                f"Uninstall one of them, or block this one with BK_BLOCK_PLUGINS={info.name}",
            )

    def _settle_modules(self) -> None:
        """Gives the types of each module to one distribution (see the module docstring)."""

        def rank(claim: tuple[Entry, str]) -> tuple[int, str, str]:
            entry, module = claim
            tier = 0 if _named_after(entry.distribution, module) else 1 if _named_after(entry.distribution, entry.spec.name) else 2
            return (tier, _normalized(entry.distribution), entry.spec.name)

        refused: set[tuple[str, str]] = set()
        claims = [(entry, module) for entry in self.entries.values() for module in entry.spec.modules]
        for entry, module in sorted(claims, key=rank):
            owners = self.by_module.setdefault(module, [])
            if not owners or owners[0].distribution == entry.distribution:  # one distribution may share a module among its backends
                owners.append(entry)
                continue
            if (entry.distribution, module) in refused:
                continue
            refused.add((entry.distribution, module))
            owner = owners[0]
            self._problem(
                PluginProblem(entry.distribution, entry.entry_point, ""),
                f"its backend {entry.spec.name!r} claims the types of module {module!r}, which belong to backend "
                f"{owner.spec.name!r} of distribution {owner.distribution!r} ({_why_owner(owner.distribution, module, owner.spec.name)}); "
                f"the claim is refused: {module} values keep going to {owner.spec.name!r}, and {entry.spec.name!r} stays usable by name",
            )

    def _problem(self, info: EntryPointInfo | PluginProblem, reason: str) -> None:
        problem = PluginProblem(info.distribution, info.name if isinstance(info, EntryPointInfo) else info.entry_point, reason)
        self.problems.append(problem)
        if _env_flag("BK_STRICT_PLUGINS"):
            raise PluginError(f"{problem} (BK_STRICT_PLUGINS is set)")
        _warn(f"bk skipped {problem}")

    # ---------------------------------------------------------------- loading

    def names(self) -> list[str]:
        self.ensure()
        return sorted(self.entries)

    def entry(self, name: str) -> Entry:
        """The entry of backend `name`.

        Raises:
            ValueError: for an unknown name, listing the installed backends and close matches.
        """
        self.ensure()
        entry = self.entries.get(name)
        if entry is None:
            raise ValueError(self.missing_message(name))
        return entry

    def missing_message(self, name: object) -> str:
        """Why no backend is called `name`: its plugin failed, is blocked or not autoloaded, or it is not installed."""
        self.ensure()
        if isinstance(name, str):
            why = self.skipped.get(name) or self.skipped.get(_normalized(f"bk-{name}"))
            if why is not None:
                return f"backend {name!r} is not available: {why}"
            failed = [p for p in self.problems if p.entry_point == name or _named_after(p.distribution, name)]
            if failed and _OUTSIDE in failed[0].reason:  # the reason carries its own advice
                return f"backend {name!r} is not available: {failed[0]}"
            if failed:
                return f"backend {name!r} is not available: {failed[0]}. Fix or reinstall it: pip install --force-reinstall {failed[0].distribution}"
        return unknown_backend_message(name, list(self.entries))

    def load(self, name: str) -> Backend:
        """The backend `name`, importing and instantiating it on first use.

        Raises:
            ValueError: for an unknown name.
            PluginError: if the backend's `load` target cannot be imported or is not a `Backend`.
        """
        entry = self.entry(name)
        backend = entry.backend
        if backend is not None:
            return backend
        with entry.lock:
            if entry.backend is None:
                entry.backend = self._instantiate(entry)
            return entry.backend

    def _instantiate(self, entry: Entry) -> Backend:
        from ._backend import Backend

        module_name, _, attribute = entry.spec.load.partition(":")
        try:
            target: Any = importlib.import_module(module_name)
            for part in attribute.split("."):
                target = getattr(target, part)
            backend = target() if callable(target) and not isinstance(target, Backend) else target
        except Exception as error:
            entry.error = f"cannot load {entry.spec.load!r}: {type(error).__name__}: {error}"
            raise PluginError(
                f"backend {entry.spec.name!r} of distribution {entry.distribution!r} failed to load: {type(error).__name__}: {error}\n"
                f"{load_failure_advice(entry.distribution, module_name, error)}"
            ) from error
        if not isinstance(backend, Backend):
            entry.error = f"{entry.spec.load!r} gave a {type(backend).__name__}, not a bk.Backend"
            raise PluginError(f"backend {entry.spec.name!r} of distribution {entry.distribution!r}: {entry.error}")
        if backend.name != entry.spec.name:
            entry.error = f"{entry.spec.load!r} created a backend named {backend.name!r}, not {entry.spec.name!r}"
            raise PluginError(f"backend {entry.spec.name!r} of distribution {entry.distribution!r}: {entry.error}")
        backend._bk_priority = entry.spec.priority
        entry.error = None
        return backend

    def convert_hook(self, tensor: Any, source: Backend, target: Backend) -> Any:
        """The first non-None result of the plugins' `bk_convert` hooks."""
        self.ensure()
        if self.manager is None:
            return None
        return self.manager.hook.bk_convert(tensor=tensor, source=source, target=target)


def load_failure_advice(distribution: str, module_name: str, error: BaseException) -> str:
    """What to do about `error`, raised while importing `module_name` of plugin `distribution`.

    Reinstalling helps only when the plugin's own files are missing: a framework that is not
    installed, a framework that fails (or warns, under `-W error`) while importing, and a bug in
    the plugin's code each get their own advice.
    """
    own = module_name.split(".")[0]
    if isinstance(error, ModuleNotFoundError) and error.name:
        missing = error.name.split(".")[0]
        if missing == own:
            return f"Its own module {error.name!r} is missing: reinstall it (pip install --force-reinstall {distribution})."
        return (
            f"It imports {missing!r}, which is not installed here: install the framework it needs "
            f"({_install_hint(distribution, missing)}), or check that {distribution} declares {missing!r} in its dependencies."
        )
    origin = _raised_in(error)
    top = origin.split(".")[0] if origin else ""
    if top and top not in (own, "bk"):
        if isinstance(error, Warning):
            category = type(error).__name__
            return (
                f"The warning was raised inside {origin!r} while it was imported, and a warning filter made it an error "
                f"(python -W error, or pytest's filterwarnings = error). It is not {distribution}'s: ignore {top}'s own "
                f"warnings (pytest: filterwarnings = [\"error\", \"ignore::{category}:{top}\"]), or import {top} under "
                "warnings.catch_warnings() before bk loads the backend."
            )
        return (
            f"It was raised inside {origin!r}, not by {distribution}: check that {top} itself imports "
            f"(python -c 'import {top}') and that its version is one that {distribution} supports."
        )
    return (
        f"It was raised by {distribution}'s own code ({origin or module_name}): report it to its authors with the traceback "
        f"(the exception's __cause__), or check that {distribution} supports the installed bk-core."
    )


_OUTSIDE: Final = " (raised outside the plugin's own modules)"


def _raised_outside(module_name: str, error: BaseException) -> bool:
    """Whether `error`, raised while importing `module_name`, came from another distribution (a framework)."""
    own = module_name.split(".")[0]
    if isinstance(error, ModuleNotFoundError) and error.name:
        return error.name.split(".")[0] != own
    top = _raised_in(error).split(".")[0]
    return bool(top) and top not in (own, "bk")


def _raised_in(error: BaseException) -> str:
    """The module of the innermost Python frame of `error`'s traceback, import machinery left out."""
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        name = str(frame.f_globals.get("__name__", ""))
        if name and not name.startswith(("importlib", "_frozen_importlib")):
            return name
    return ""


def _install_hint(distribution: str, module: str) -> str:
    """How to install `module` for `distribution`: through the extra that declares it (`bk-tf[cpu]` for
    tensorflow), else through the plugin's own dependencies."""
    import importlib.metadata

    try:
        requirements = importlib.metadata.requires(distribution) or []
    except Exception:  # metadata unreadable: the generic advice is still right
        requirements = []
    wanted = _normalized(module)
    extras = []
    for requirement in requirements:
        name = _normalized(re.split(r"[\s<>=!~;\[(@]", requirement.strip(), maxsplit=1)[0])
        extra = re.search(r"extra\s*==\s*[\"']([^\"']+)", requirement)
        if extra and (name == wanted or name.startswith(wanted + "-")):
            extras.append(extra.group(1))
    if extras:
        return f"{distribution} declares it in its extras {', '.join(extras)}: pip install '{distribution}[{extras[0]}]'"
    return f"pip install {distribution} installs what it declares"


def _normalized(distribution: str) -> str:
    return _NORMALIZE.sub("-", distribution).lower()


def _named_after(distribution: str, name: str) -> bool:
    """Whether `distribution` is `bk-<name>` (`bk-my-lib` for `my_lib`)."""
    return _normalized(distribution) == _normalized(f"bk-{name}")


def _why_owner(distribution: str, *names: str) -> str:
    for name in names:
        if _named_after(distribution, name):
            return f"the distribution named bk-{name.replace('_', '-')} owns {name!r}"
    return "it claimed it first, in the order of distribution names"


def warn_plugin(message: str) -> None:
    """Warns with a `PluginWarning` attributed to the first caller outside bk (the user's call site)."""
    frame = sys._getframe(1)
    level = 2  # the caller of this function
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_BK_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, PluginWarning, stacklevel=level)


_warn = warn_plugin


def install_hint(name: str) -> str:
    """What installs the plugin of backend `name`: a command that works where the user stands.

    For the bk project's own plugins that is `pip install bk-NAME` from a package index and, when
    this bk-core runs from a checkout of the repository (an editable or local install), the
    plugin's folder in that checkout too.
    """
    if name in FIRST_PARTY:
        distribution = FIRST_PARTY[name]
        local = _checkout_path(distribution)
        if local is None:
            return f"To add it: pip install {distribution}"
        return f"To add it: pip install {distribution} (from a package index), or from this checkout: pip install {local}"
    return (
        f"No plugin of the bk project provides it (theirs: {', '.join(sorted(FIRST_PARTY.values()))}, "
        "e.g. pip install bk-torch); install the third-party plugin that does"
    )


def _checkout_path(distribution: str) -> str | None:
    """The folder of `distribution` in the repository checkout bk-core was installed from, or None.

    Relative to the working directory (`./plugins/bk-torch`) when it lies below it.
    """
    root = os.path.dirname(os.path.dirname(os.path.dirname(_BK_DIR.rstrip(os.sep))))  # core/src/bk -> the repository
    folder = os.path.join(root, "plugins", distribution)
    if not os.path.isfile(os.path.join(folder, "pyproject.toml")):
        return None
    relative = os.path.relpath(folder)
    return f"./{relative}" if not relative.startswith("..") else folder


# Names people try for a backend that bk calls otherwise: the frameworks' own names and import aliases.
BACKEND_ALIASES: Final = {
    "tensorflow": "tf",
    "tensorflow-cpu": "tf",
    "keras": "tf",
    "pytorch": "torch",
    "jax.numpy": "jax",
    "jnp": "jax",
    "np": "numpy",
    "scipy": "numpy",
    "dask.array": "dask",
    "da": "dask",
}
# Array-API libraries that bk-arrayapi serves once declared (docs/arrayapi.md); any importable module counts too.
ARRAY_API_LIBRARIES: Final = ("array_api_strict", "cupy", "ndonnx", "sparse", "dpctl", "mlx", "marray", "arrayfire")


def _alias_hint(name: str, installed: list[str]) -> str:
    """`" The TensorFlow backend is called 'tf': bk.backend('tf')."` for a framework's own name, else ''."""
    target = BACKEND_ALIASES.get(name.strip().lower())
    if target is None:
        return ""
    state = "" if target in installed else f" (not installed: {install_hint(target)[len('To add it: '):]})"
    return f" bk calls that backend {target!r}: bk.backend({target!r}){state}."


def _array_api_hint(name: str) -> str:
    """How to serve `name` through bk-arrayapi when it may be an Array-API library, else ''."""
    import importlib.util  # error path only

    module = name.strip()
    top = module.partition(".")[0]
    if not module.replace(".", "").replace("_", "").isalnum() or module in FIRST_PARTY or top in sys.stdlib_module_names:
        return ""
    known = top in ARRAY_API_LIBRARIES
    try:
        found = known or importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        return ""
    alias = module.rpartition(".")[2].replace("array_api_", "") or module
    return (
        f" If {module!r} is an Array-API library, serve it through bk-arrayapi: declare it with the environment "
        f"variable BK_ARRAYAPI={alias}={module} (name=module pairs, comma-separated; see docs/arrayapi.md), "
        f"then bk.backend({alias!r})."
    )


def unknown_backend_message(name: object, installed: list[str]) -> str:
    if isinstance(name, str):
        alias = _alias_hint(name, installed)
        if alias:
            return f"no backend named {name!r};{alias} Installed: {', '.join(sorted(installed)) or 'none'}."
    hint = did_you_mean(name, installed) if isinstance(name, str) else ""
    listing = ", ".join(sorted(installed)) or "none"
    array_api = _array_api_hint(name) if isinstance(name, str) else ""
    if array_api:
        return f"no backend named {name!r}; installed: {listing}.{hint}{array_api}"
    return f"no backend named {name!r}; installed: {listing}.{hint} {install_hint(str(name))}."


REGISTRY: Final = Registry()

