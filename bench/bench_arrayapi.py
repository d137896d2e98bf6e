"""bk-arrayapi on array-api-strict: the cost of bk over the namespace itself, and of dispatch."""

from __future__ import annotations

import numpy as np
from _harness import Figure, interleaved_ns

import bk

NAME = "bench_strict"


def run() -> list[Figure]:
    try:
        import array_api_strict as xp

        import bk_arrayapi
    except ImportError:
        return []
    bk_arrayapi.register(NAME, "array_api_strict")
    try:
        return _measure(bk.backend(NAME), xp)
    finally:
        bk_arrayapi.unregister(NAME)


def _measure(backend: bk.Backend, xp: object) -> list[Figure]:
    a = xp.asarray(np.linspace(0.0, 1.0, 10))  # type: ignore[attr-defined]
    b = xp.asarray(np.linspace(1.0, 2.0, 10))  # type: ignore[attr-defined]
    n = np.ones(10)
    bk.choose_backend(a), bk.choose_backend(n)  # the first call of a type loads its backend and caches the owner
    namespace = {"bk_add": backend.add, "xp_add": xp.add, "a": a, "b": b, "n": n, "choose": bk.choose_backend}  # type: ignore[attr-defined]
    statements = {"bk": "bk_add(a, b)", "xp": "xp_add(a, b)", "choose_strict": "choose(a)", "choose_numpy": "choose(n)"}
    ns = interleaved_ns(statements, repeat=51, number=20_000, namespace=namespace)
    return [
        Figure(
            "add(float64[10]) via bk-arrayapi / array_api_strict.add",
            ns["bk"] / ns["xp"],
            1.3,
            "x",
            f"bk {ns['bk']:.0f} ns, namespace {ns['xp']:.0f} ns",
        ),
        Figure(
            "choose_backend(strict array) / choose_backend(ndarray)",
            ns["choose_strict"] / ns["choose_numpy"],
            1.1,
            "x",
            f"strict {ns['choose_strict']:.0f} ns, NumPy {ns['choose_numpy']:.0f} ns (target: as fast)",
        ),
    ]
