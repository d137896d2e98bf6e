"""bk-arrayapi: any namespace of the Python Array API standard as a bk backend.

Importing this package imports neither `array_api_compat` nor any namespace; a declared backend
is loaded by `bk.backend(name)` or by dispatch on one of its arrays.

    import bk_arrayapi
    bk_arrayapi.register("strict", "array_api_strict")
"""

from .plugin import ENTRY_POINT_GROUP, ENV_VAR, declarations, register, unregister

__all__ = ["ENTRY_POINT_GROUP", "ENV_VAR", "__version__", "declarations", "register", "unregister"]


def __getattr__(name: str) -> str:
    """`__version__`, read on first use: listing backends imports this package, which stays this light."""
    if name == "__version__":
        from ._version import __version__

        globals()[name] = __version__
        return __version__
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
