"""Profiling is off by default and then costs nothing: bk_numpy's add on a backend that was profiled
against a fresh, never profiled instance of the same class, their batches taken in turn."""

from __future__ import annotations

import numpy as np
from _harness import Figure, interleaved_ns

import bk


def run() -> list[Figure]:
    if "numpy" not in bk.backends():
        return []
    profiled = bk.backend("numpy")
    fresh = type(profiled)()
    a = np.ones(10, np.float32)
    with bk.profile([profiled]):
        for _ in range(100):
            profiled.add(a, a)
    namespace = {"profiled": profiled, "fresh": fresh, "a": a}
    ns = interleaved_ns({"after": "profiled.add(a, a)", "never": "fresh.add(a, a)"}, repeat=21, namespace=namespace)
    with bk.profile([profiled]):
        during = interleaved_ns({"during": "profiled.add(a, a)"}, repeat=3, namespace=namespace)["during"]
    return [
        Figure("add, 10 float32, after a profile / never profiled", ns["after"] / ns["never"], 1.05, "x", f"({ns['after']:.0f} ns vs {ns['never']:.0f} ns)"),
        Figure("add while profiling (trace=True) / never profiled", during / ns["never"], float("inf"), "x", "(for scale; recording call sites is the cost)"),
    ]
