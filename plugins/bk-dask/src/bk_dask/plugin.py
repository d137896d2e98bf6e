"""Entry point of the `bk.backends` group; imports neither Dask nor the backend implementation."""

from __future__ import annotations

from typing import Any

import bk

__all__ = ["bk_backends", "bk_convert"]


@bk.hookimpl
def bk_backends() -> list[bk.BackendSpec]:
    """Declares the `dask` backend; `bk_dask._backend` is imported on first use only."""
    return [
        bk.BackendSpec(
            name="dask",
            modules=("dask",),
            load="bk_dask._backend:DaskBackend",
            priority=10,
            api=bk.API_VERSION,
            description="Dask: lazy, chunked arrays computed on threads or a dask.distributed cluster",
            framework="dask",
        )
    ]


@bk.hookimpl
def bk_convert(tensor: Any, source: bk.Backend, target: bk.Backend) -> Any:
    """Dask arrays leave through NumPy: computed once, then handed on without a copy where the
    target can share NumPy memory (DLPack). Other tensors enter through NumPy the same way and
    are chunked by `as_tensor`."""
    if source.name == "dask" and target.name != "numpy":
        return bk.convert(source.numpy(tensor), target)
    if target.name == "dask" and source.name != "numpy":
        return target.as_tensor(bk.convert(tensor, "numpy"))
    return None
