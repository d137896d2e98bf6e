"""The Array API both ways: bk-arrayapi on array-api-strict (the cost of bk over the namespace itself,
and of dispatch), and `bk.array_namespace` beside `array_api_compat`'s namespaces on NumPy and PyTorch.

Each namespace figure is the per-call time of one function of `bk.array_namespace(name)` divided by
that of the same call through `array_api_compat.numpy` / `array_api_compat.torch`, both timed side by
side in this run (10 float32 elements; matmul of 4x4). Targets (issue 32): reshape, matmul, asarray,
where and the creation functions at most 1.2x; elementwise functions and reductions at most 1.1x.
"""

from __future__ import annotations

import importlib
import re

import numpy as np
from _harness import Figure, interleaved_ns

import bk

NAME = "bench_strict"

# label: (statement, target); `xp` is the namespace under test, `x`, `y` 10 float32 elements,
# `m` a 4x4 float32 matrix, `c` a boolean condition, `data` a list of 10 floats, `f32` xp.float32
NAMESPACE_CALLS: dict[str, tuple[str, str, float]] = {
    # label: (the call through a namespace `xp`, the same through bk's catalogue `b`, target)
    "reshape(x, (2, 5))": ("xp.reshape(x, (2, 5))", "b.reshape(x, (2, 5))", 1.2),
    "matmul(m, m) 4x4": ("xp.matmul(m, m)", "b.matmul(m, m)", 1.2),
    "asarray(list, dtype=float32)": ("xp.asarray(data, dtype=f32)", "b.as_tensor(data)", 1.2),
    "asarray(x)": ("xp.asarray(x)", "b.as_tensor(x)", 1.2),
    "where(c, x, y)": ("xp.where(c, x, y)", "b.where(c, x, y)", 1.2),
    "zeros(10)": ("xp.zeros(10)", "b.zeros((10,), F32)", 1.2),
    "ones(10, dtype=float32)": ("xp.ones(10, dtype=f32)", "b.ones((10,), F32)", 1.2),
    "empty(10)": ("xp.empty(10)", "b.empty((10,), F32)", 1.2),
    "full(10, 2.0)": ("xp.full(10, 2.0)", "b.full((10,), 2.0, F32)", 1.2),
    "arange(10)": ("xp.arange(10)", "b.range(0, 10, 1, dtype=I64)", 1.2),
    "linspace(0, 1, 10)": ("xp.linspace(0.0, 1.0, 10)", "b.linspace(0.0, 1.0, 10)", 1.2),
    "eye(4)": ("xp.eye(4)", "b.eye(4, None, k=0, dtype=F32)", 1.2),
    "zeros_like(x)": ("xp.zeros_like(x)", "b.zeros_like(x)", 1.2),
    "ones_like(x)": ("xp.ones_like(x)", "b.ones_like(x)", 1.2),
    "full_like(x, 2.0)": ("xp.full_like(x, 2.0)", "b.full((10,), 2.0, F32)", 1.2),
    "empty_like(x)": ("xp.empty_like(x)", "b.empty((10,), F32)", 1.2),
    "add(x, y)": ("xp.add(x, y)", "b.add(x, y)", 1.1),
    "multiply(x, 2.0)": ("xp.multiply(x, 2.0)", "b.mul(x, 2.0)", 1.1),
    "sin(x)": ("xp.sin(x)", "b.sin(x)", 1.1),
    "exp(x)": ("xp.exp(x)", "b.exp(x)", 1.1),
    "sum(x)": ("xp.sum(x)", "b.sum(x, None, False)", 1.1),
    "mean(x, axis=0)": ("xp.mean(x, axis=0)", "b.mean(x, 0, False)", 1.1),
    "max(x)": ("xp.max(x)", "b.max(x, None, False)", 1.1),
}


def run() -> list[Figure]:
    return _strict_figures() + _namespace_figures("numpy") + _namespace_figures("torch")


def _strict_figures() -> list[Figure]:
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


def _namespace_figures(name: str) -> list[Figure]:
    """bk.array_namespace(name) / array_api_compat.<name>, call by call, measured side by side; the note
    gives the catalogue call alone too (`bk.backend(name).op`), the part of bk's time below the namespace."""
    try:
        peer = importlib.import_module(f"array_api_compat.{name}")
        backend = bk.backend(name)
    except (ImportError, ValueError):
        return []
    ours = bk.array_namespace(name)
    figures = []
    for label, (statement, catalogue, target) in NAMESPACE_CALLS.items():
        ns = _side_by_side(statement, catalogue, ours, peer, backend)
        figures.append(
            Figure(
                f"{name}: {label} bk / array_api_compat",
                ns["bk"] / ns["compat"],
                target,
                "x",
                f"bk {ns['bk']:.0f} ns (its catalogue call {ns['catalogue']:.0f} ns), compat {ns['compat']:.0f} ns",
            )
        )
    return figures


_OPERANDS = ("x", "y", "m", "c", "data", "f32")


def _side_by_side(statement: str, catalogue: str, ours: object, peer: object, backend: bk.Backend) -> dict[str, float]:
    """Per-call ns of `statement` with `xp` bound to bk's namespace and to the peer, and of the catalogue
    call on bk's operands, interleaved."""
    spaces = {key: _operands(xp) for key, xp in (("bk", ours), ("compat", peer))}
    timers = {key: statement.replace("xp.", f"{key}_xp.") for key in spaces}
    timers["catalogue"] = catalogue
    namespace: dict[str, object] = {"b": backend, "F32": bk.DType(float, 32), "I64": bk.DType(int, 64)}
    for key, space in spaces.items():  # each side's operands under its own names
        for operand in _OPERANDS:
            timers[key] = _rename(timers[key], operand, f"{key}_{operand}")
            namespace[f"{key}_{operand}"] = space[operand]
        namespace[f"{key}_xp"] = space["xp"]
    for operand in _OPERANDS:  # the catalogue call takes bk's operands
        timers["catalogue"] = _rename(timers["catalogue"], operand, f"bk_{operand}")
    return interleaved_ns(timers, repeat=21, number=2_000, namespace=namespace)


def _rename(statement: str, old: str, new: str) -> str:
    return re.sub(rf"(?<![\w.]){old}(?!\w)", new, statement)


def _operands(xp: object) -> dict[str, object]:
    x = xp.asarray(np.linspace(0.0, 1.0, 10, dtype=np.float32))  # type: ignore[attr-defined]
    return {
        "xp": xp,
        "x": x,
        "y": xp.asarray(np.linspace(1.0, 2.0, 10, dtype=np.float32)),  # type: ignore[attr-defined]
        "m": xp.asarray(np.arange(16, dtype=np.float32).reshape(4, 4)),  # type: ignore[attr-defined]
        "c": xp.asarray(np.arange(10) % 2 == 0),  # type: ignore[attr-defined]
        "data": [float(i) for i in range(10)],
        "f32": xp.float32,  # type: ignore[attr-defined]
    }
