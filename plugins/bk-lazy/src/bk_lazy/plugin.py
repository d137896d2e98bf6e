"""Entry point of the `bk.backends` group; imports neither the graph nor any framework."""

from __future__ import annotations

from typing import Any

import bk

__all__ = ["bk_backends", "bk_convert"]


@bk.hookimpl
def bk_backends() -> list[bk.BackendSpec]:
    """Declares the `lazy` backend; `bk_lazy._backend` is imported on first use only."""
    return [
        bk.BackendSpec(
            name="lazy",
            modules=("bk_lazy",),
            load="bk_lazy._backend:LazyBackend",
            priority=10,  # lazy nodes win over NumPy values and Python numbers (constants)
            api=bk.API_VERSION,
            description="Lazy graphs: every operation records a node with its shape and dtype; compute on any backend",
            framework="bk_lazy",
        )
    ]


@bk.hookimpl
def bk_convert(tensor: Any, source: bk.Backend, target: bk.Backend) -> Any:
    """To `lazy`: a leaf that keeps the tensor (so computing runs on its backend); from `lazy`: computes."""
    if target.name == "lazy" and source.name != "lazy":
        from ._graph import array

        return array(tensor)
    if source.name == "lazy" and target.name != "lazy":
        from ._compute import compute

        return compute(tensor, backend=target)
    return None
