"""Entry point of the `bk.backends` group; imports neither TensorFlow nor the backend implementation."""

from __future__ import annotations

import bk

__all__ = ["bk_backends"]


@bk.hookimpl
def bk_backends() -> list[bk.BackendSpec]:
    """Declares the `tf` backend; `bk_tf._backend` (and TensorFlow) is imported on first use only."""
    return [
        bk.BackendSpec(
            name="tf",
            modules=("tensorflow", "keras"),
            load="bk_tf._backend:TFBackend",
            priority=10,
            api=bk.API_VERSION,
            description="TensorFlow 2, eager by default: tf.function, GradientTape, tf.sparse COO, CPU/GPU/TPU",
            framework="tensorflow",
        )
    ]
