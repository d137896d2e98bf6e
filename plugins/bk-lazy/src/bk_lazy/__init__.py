"""bk-lazy: the lazy graph and template backend of bk.

Every operation of `bk.backend("lazy")` records a node (`LazyArray`) that knows its shape and
`DType` without data. `compute` evaluates a graph on the backend of its leaves' data; `Function`
compiles a graph once into a callable that runs on whatever backend its arguments belong to.

Importing this package imports no framework; the backend is loaded by `bk.backend("lazy")`.
"""

# The graph machinery loads on first use: listing backends imports `bk_lazy.plugin`, and so this
# package, and must stay light.
_LAZY = {
    "Function": "._function",
    **dict.fromkeys(("compute", "compute_constants", "compute_count"), "._compute"),
    **dict.fromkeys(("draw", "show"), "._draw"),
    "__version__": "._version",
    "get_source": "._source",
    **dict.fromkeys(
        (
            "LazyArray",
            "UnboundVariableError",
            "Variable",
            "array",
            "ascend",
            "call",
            "descend",
            "shared_intermediates",
            "to_device",
            "AUTORAY_NAMES",
        ),
        "._graph",
    ),
}

__all__ = [
    "AUTORAY_NAMES",
    "Function",
    "LazyArray",
    "UnboundVariableError",
    "Variable",
    "__version__",
    "array",
    "ascend",
    "call",
    "compute",
    "compute_constants",
    "compute_count",
    "descend",
    "draw",
    "get_source",
    "shared_intermediates",
    "show",
    "to_device",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bk_lazy' has no attribute {name!r}")
    from importlib import import_module

    value = globals()[name] = getattr(import_module(module, __name__), name)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
