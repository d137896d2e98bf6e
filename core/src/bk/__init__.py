"""bk: one backend-agnostic array API, with backends installed as plugins."""

from . import hookspecs
from ._choose import (
    backend,
    backends,
    choose_backend,
    default_backend,
    init_backend,
    refresh,
    set_global_default_backend,
)
from ._context import context_backend, get_precision, precision, set_global_precision
from ._errors import ArgumentTypeError, AxisError, IndexOutOfRangeError, NoBackendFound, ShapeMismatchError, UnsupportedDtypeError
from ._markers import hookimpl, hookspec
from ._plugins import API_VERSION, BackendSpec, PluginError, PluginWarning
from ._version import __version__

__all__ = [
    "API_VERSION",
    "ArgumentTypeError",
    "AxisError",
    "BK_ERRORS",
    "Backend",
    "BackendCall",
    "BackendSpec",
    "ComputeDevice",
    "DType",
    "IndexOutOfRangeError",
    "Info",
    "NoBackendFound",
    "OBJECTS",
    "OpSpec",
    "PluginError",
    "PluginWarning",
    "Preconditioner",
    "Profile",
    "ShapeDtype",
    "ShapeMismatchError",
    "SolveResult",
    "UnsupportedDtypeError",
    "__version__",
    "array_namespace",
    "backend",
    "backends",
    "check_tensor_argument",
    "choose_backend",
    "combine_types",
    "context_backend",
    "convert",
    "default_backend",
    "eval_shape",
    "explain_failure",
    "from_numpy_dtype",
    "get_current_profile",
    "get_precision",
    "hookimpl",
    "hookspec",
    "hookspecs",
    "info",
    "init_backend",
    "normalize_axes",
    "normalize_axis",
    "op_spec",
    "op_specs",
    "precision",
    "profile",
    "profile_function",
    "refresh",
    "reraise_as",
    "rules",
    "set_global_default_backend",
    "set_global_precision",
    "to_numpy_dtype",
]

# Loaded on first use: `import bk` and listing backends stay fast. The backend base class, dtypes and
# devices load with the first backend (or the first use of these names), the rest when used.
_LAZY = {
    "Backend": "._backend",
    "ComputeDevice": "._device",
    **dict.fromkeys(("DType", "combine_types", "from_numpy_dtype", "to_numpy_dtype"), "._dtype"),
    **dict.fromkeys(("Preconditioner", "SolveResult"), "._solve"),
    **dict.fromkeys(("BackendCall", "Profile", "get_current_profile", "profile", "profile_function"), "._profile"),
    **dict.fromkeys(("Info", "info"), "._info"),  # and `json` with it
    "OBJECTS": "._object",
    "convert": "._convert",
    "explain_failure": "._explain",
    # for plugin authors: the checks and error translation every backend shares (docs/write-a-plugin.md)
    **dict.fromkeys(("BK_ERRORS", "check_tensor_argument", "reraise_as"), "._errors"),
    **dict.fromkeys(("normalize_axes", "normalize_axis"), "._axes"),
    "array_namespace": "._namespace",
    **dict.fromkeys(("OpSpec", "ShapeDtype", "eval_shape", "op_spec", "op_specs"), "._specs"),
}


def _as_public(obj: object) -> object:
    """Public objects report bk as their module."""
    if str(getattr(obj, "__module__", "")).startswith("bk."):
        obj.__module__ = "bk"
    return obj


_SUBMODULES = frozenset({"rules"})  # public modules loaded on first use: `bk.rules` (for plugin authors)


def __getattr__(name: str) -> object:
    from importlib import import_module

    if name in _SUBMODULES:
        submodule = globals()[name] = import_module(f".{name}", __name__)
        return submodule
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bk' has no attribute {name!r}")
    value = globals()[name] = _as_public(getattr(import_module(module, __name__), name))
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | _SUBMODULES)


for _name in __all__:
    if _name not in _LAZY and _name not in _SUBMODULES:
        _as_public(globals()[_name])
del _name
