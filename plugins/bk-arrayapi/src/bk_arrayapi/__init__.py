"""bk-arrayapi: any namespace of the Python Array API standard as a bk backend.

Importing this package imports neither `array_api_compat` nor any namespace; a declared backend
is loaded by `bk.backend(name)` or by dispatch on one of its arrays.

    import bk_arrayapi
    bk_arrayapi.register("strict", "array_api_strict")
"""

from ._version import __version__
from .plugin import ENTRY_POINT_GROUP, ENV_VAR, declarations, register, unregister

__all__ = ["ENTRY_POINT_GROUP", "ENV_VAR", "__version__", "declarations", "register", "unregister"]
