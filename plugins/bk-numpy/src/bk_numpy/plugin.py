"""Entry point of the `bk.backends` group; imports neither SciPy nor the backend implementation."""

from __future__ import annotations

import bk

__all__ = ["bk_backends"]


@bk.hookimpl
def bk_backends() -> list[bk.BackendSpec]:
    """Declares the `numpy` backend; `bk_numpy._backend` is imported on first use only."""
    return [
        bk.BackendSpec(
            name="numpy",
            modules=("numpy", "scipy"),
            load="bk_numpy._backend:NumPyBackend",
            priority=0,  # NumPy values are constants next to framework tensors
            api=bk.API_VERSION,
            description="NumPy and SciPy on the CPU: dense arrays and scipy.sparse COO/CSR/CSC",
            framework="numpy",
        )
    ]
