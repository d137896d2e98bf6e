"""Dispatch cost: `choose_backend` on NumPy values, against autoray's `infer_backend` and phiml's, each call timed as a statement."""

from __future__ import annotations

import numpy as np
from _harness import Figure, interleaved_ns

import bk


def run() -> list[Figure]:
    if "numpy" not in bk.backends():
        return []
    a, b = np.ones(10, np.float32), np.ones(10, np.float32)
    bk.choose_backend(a)  # first call loads the backend and caches the type
    namespace = {"choose": bk.choose_backend, "a": a, "b": b, "lookup": {np.ndarray: 1}.get}
    statements = {"one": "choose(a)", "two": "choose(a, b)", "lookup": "lookup(type(a))"}
    try:
        from autoray import infer_backend

        infer_backend(a)
        namespace["infer"] = infer_backend
        statements["autoray"] = "infer(a)"
    except ImportError:
        pass
    try:
        from phiml import backend as phiml_backend

        phiml_backend.choose_backend(a)
        namespace["phiml"] = phiml_backend.choose_backend
        statements |= {"phiml_one": "phiml(a)", "phiml_two": "phiml(a, b)"}
    except ImportError:
        pass
    ns = interleaved_ns(statements, repeat=101, number=20_000, namespace=namespace)  # type: ignore[arg-type]
    note_one = note_two = f"(a dict lookup: {ns['lookup']:.0f} ns); phiml not installed for comparison"
    if "phiml_one" in ns:
        note_one = f"phiml {ns['phiml_one']:.0f} ns: {ns['phiml_one'] / ns['one']:.1f}x slower; a dict lookup {ns['lookup']:.0f} ns"
        note_two = f"phiml {ns['phiml_two']:.0f} ns: {ns['phiml_two'] / ns['two']:.1f}x slower"
    figures = [
        Figure("choose_backend(ndarray)", ns["one"], 150.0, "ns", note_one),
        Figure("choose_backend(ndarray, ndarray)", ns["two"], 250.0, "ns", note_two),
    ]
    if "autoray" in ns:
        figures += [
            Figure("choose_backend(ndarray) / autoray infer_backend(ndarray)", ns["one"] / ns["autoray"], 1.0, "x", f"(autoray {ns['autoray']:.0f} ns in the same run)"),
            Figure("choose_backend(ndarray, ndarray) / autoray infer_backend(ndarray)", ns["two"] / ns["autoray"], 1.3, "x", "(two values: at most 1.3x one autoray call)"),
        ]
    if "phiml_one" in ns:
        figures += [
            Figure("phiml choose_backend(ndarray) / bk's", 1 / (ns["phiml_one"] / ns["one"]), 0.2, "x", "(target: bk at least 5x faster)"),
            Figure("phiml choose_backend(ndarray, ndarray) / bk's", 1 / (ns["phiml_two"] / ns["two"]), 0.2, "x", "(target: bk at least 5x faster)"),
        ]
    return figures
