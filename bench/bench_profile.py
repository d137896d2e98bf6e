"""Profiling is off by default and then costs nothing: bk_numpy's add before and after a profile ran."""

from __future__ import annotations

import numpy as np
from _harness import Figure, per_call_ns

import bk


def run() -> list[Figure]:
    if "numpy" not in bk.backends():
        return []
    backend = bk.backend("numpy")
    a = np.ones(10, np.float32)
    b = np.ones(10, np.float32)

    def dispatch_and_add() -> object:
        return bk.choose_backend(a, b).add(a, b)

    before = per_call_ns(dispatch_and_add, repeat=31)
    with bk.profile([backend]):
        backend.add(a, b)
        during = per_call_ns(dispatch_and_add, repeat=5)  # recorded: shown for scale, no target
    after = per_call_ns(dispatch_and_add, repeat=31)
    return [
        Figure("choose_backend + add, 10 float32, after a profile / before", after / before, 1.05, "x", f"({after:.0f} ns vs {before:.0f} ns)"),
        Figure("choose_backend + add while profiling (trace=True) / before", during / before, float("inf"), "x", "(for scale; recording call sites is the cost)"),
    ]
