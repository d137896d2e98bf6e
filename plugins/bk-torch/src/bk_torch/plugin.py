"""Entry point of the `bk.backends` group; imports neither PyTorch nor the backend implementation."""

from __future__ import annotations

import bk

__all__ = ["bk_backends"]


@bk.hookimpl
def bk_backends() -> list[bk.BackendSpec]:
    """Declares the `torch` backend; `bk_torch._backend` is imported on first use only."""
    return [
        bk.BackendSpec(
            name="torch",
            modules=("torch",),
            load="bk_torch._backend:TorchBackend",
            priority=10,
            api=bk.API_VERSION,
            description="PyTorch: CPU, CUDA and MPS tensors, autograd, sparse COO/CSR/CSC",
            framework="torch",
        )
    ]
