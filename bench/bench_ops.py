"""bk-numpy's arithmetic against raw NumPy ufuncs."""

from __future__ import annotations

import numpy as np
from _harness import Figure, interleaved_ns

import bk

OPS = {"add": np.add, "mul": np.multiply, "sub": np.subtract, "div": np.divide}


def run() -> list[Figure]:
    if "numpy" not in bk.backends():
        return []
    backend = bk.backend("numpy")
    from bk_numpy import _math

    path = "C fast path" if _math.C_FAST_PATH else "Python: C fast path not built"
    figures = []
    for size, target in ((10, 1.25), (1_000_000, 1.03)):
        a = np.random.default_rng(0).random(size, dtype=np.float32) + 1
        b = np.random.default_rng(1).random(size, dtype=np.float32) + 1
        # many short batches: the minimum is found even while other processes come and go
        repeat, number = (101, 5000) if size == 10 else (101, 20)
        for name, ufunc in OPS.items():
            namespace = {"raw": ufunc, "ours": getattr(backend, name), "a": a, "b": b}
            ns = interleaved_ns({"raw": "raw(a, b)", "ours": "ours(a, b)"}, repeat=repeat, number=number, namespace=namespace)
            raw, ours = ns["raw"], ns["ours"]
            figures.append(Figure(f"bk_numpy {name}, {size:,} float32 / numpy", ours / raw, target, "x", f"({ours:.0f} ns vs {raw:.0f} ns; {path})"))
    return figures
