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
    return figures + small_calls()


# Small calls with Python scalars and the everyday unary functions and reductions (issue 21): each
# beside the framework's own call on 10 elements, in one run, target 1.5x.
SMALL_CALLS = {
    "add(a, 2.0)": ("ours.add(a, 2.0)", "{ns}.add(a, 2.0)"),
    "mul(a, 2.0)": ("ours.mul(a, 2.0)", "{ns}.{mul}(a, 2.0)"),
    "add(int8, 3)": ("ours.add(i8, 3)", "{ns}.add(i8, 3)"),
    "sin(a)": ("ours.sin(a)", "{ns}.sin(a)"),
    "exp(a)": ("ours.exp(a)", "{ns}.exp(a)"),
    "sum(a)": ("ours.sum(a)", "{ns}.sum(a)"),
    "max(a)": ("ours.max(a)", "{ns}.{max}(a)"),
    "where(c, a, 0.0)": ("ours.where(c, a, 0.0)", "{ns}.where(c, a, 0.0)"),
}


def small_calls() -> list[Figure]:
    figures = []
    for name, module, values in _frameworks():
        ns_name, mul, maximum = ("np", "multiply", "max") if name == "numpy" else ("torch", "mul", "amax")
        namespace = {"ours": bk.backend(name), ns_name: module, **values}
        for label, (ours, raw) in SMALL_CALLS.items():
            statement = raw.format(ns=ns_name, mul=mul, max=maximum)
            ns = interleaved_ns({"raw": statement, "ours": ours}, repeat=41, number=2000, namespace=namespace)
            figures.append(Figure(f"bk_{name} {label}, 10 elements / {statement}", ns["ours"] / ns["raw"], 1.5, "x", f"({ns['ours']:.0f} ns vs {ns['raw']:.0f} ns)"))
    return figures


def _frameworks() -> list[tuple[str, object, dict[str, object]]]:
    found = []
    rng = np.random.default_rng(0)
    a = rng.random(10, dtype=np.float32) + 1
    if "numpy" in bk.backends():
        found.append(("numpy", np, {"a": a, "i8": np.arange(10, dtype=np.int8), "c": a > 1.5}))
    if "torch" in bk.backends():
        import torch

        t = torch.from_numpy(a.copy())
        found.append(("torch", torch, {"a": t, "i8": torch.arange(10, dtype=torch.int8), "c": t > 1.5}))
    return found
