"""Entry point of the `bk.backends` group; imports neither JAX nor the backend implementation."""

from __future__ import annotations

import bk

__all__ = ["bk_backends"]


@bk.hookimpl
def bk_backends() -> list[bk.BackendSpec]:
    """Declares the `jax` backend; `bk_jax._backend` is imported on first use only.

    JAX arrays are `jaxlib` types (`jaxlib._jax.ArrayImpl`), while tracers, sparse matrices and
    the `jax.Array` base class live in `jax`; the backend owns the types of both modules.
    """
    return [
        bk.BackendSpec(
            name="jax",
            modules=("jax", "jaxlib"),
            load="bk_jax._backend:JaxBackend",
            priority=10,
            api=bk.API_VERSION,
            description="JAX: CPU, GPU and TPU arrays, jit, autodiff, vmap, sparse BCOO/BCSR",
            framework="jax",
        )
    ]
