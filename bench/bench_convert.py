"""Converting a 256 MB float32 tensor between backends that share memory through DLPack."""

from __future__ import annotations

import timeit

import numpy as np
from _harness import Figure

import bk

PAIRS = (("numpy", "torch"), ("torch", "numpy"), ("numpy", "jax"), ("jax", "numpy"), ("torch", "jax"), ("jax", "torch"), ("tf", "numpy"), ("numpy", "tf"))


def aligned_ones(count: int) -> np.ndarray:
    """float32 ones in 64-byte aligned memory: TensorFlow shares only aligned buffers (and copies others)."""
    buffer = np.empty(count + 16, np.float32)
    start = (-buffer.ctypes.data % 64) // 4
    array = buffer[start : start + count]
    array[:] = 1
    return array


def run() -> list[Figure]:
    names = set(bk.backends())
    array = aligned_ones(64 * 1024 * 1024)  # 256 MB
    figures = []
    for source_name, target_name in PAIRS:
        if not {source_name, target_name} <= names:
            continue
        source, target = bk.backend(source_name), bk.backend(target_name)
        tensor = source.as_tensor(array)
        source.block_until_ready(tensor)
        bk.convert(tensor, target)
        seconds = min(timeit.repeat(lambda s=tensor, t=target: bk.convert(s, t), number=1, repeat=5))
        figures.append(Figure(f"convert 256 MB float32 {source_name} -> {target_name}", seconds * 1e3, 1.0, "ms"))
    return figures
