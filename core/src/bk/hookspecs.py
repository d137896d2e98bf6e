"""The pluggy hook specifications that backend plugins implement (project name `bk`).

A plugin is a module named by an entry point in the group `bk.backends`. It must not import its
framework; it implements these hooks with the `bk.hookimpl` marker::

    import bk

    @bk.hookimpl
    def bk_backends():
        return [bk.BackendSpec(name="mylib", modules=("mylib",), load="bk_mylib._backend:MyBackend",
                               priority=10, api=1)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._markers import hookspec

if TYPE_CHECKING:
    from ._backend import Backend
    from ._plugins import BackendSpec

__all__ = ["bk_backends", "bk_convert"]


@hookspec
def bk_backends() -> list[BackendSpec]:  # type: ignore[empty-body]
    """The backends this plugin provides.

    Called once at discovery, before any backend is loaded; must not import the framework.

    Returns:
        A list of `bk.BackendSpec`, one per backend.
    """


@hookspec(firstresult=True)
def bk_convert(tensor: Any, source: Backend, target: Backend) -> Any:
    """An optional fast path for `bk.convert(tensor, target)`.

    Args:
        tensor: A native tensor of `source`.
        source: The backend that owns `tensor`.
        target: The backend to convert to.

    Returns:
        A native tensor of `target`, or `None` to let the core decide (DLPack or NumPy).
    """
