"""Dispatch cost: `choose_backend` on NumPy values, against phiml's."""

from __future__ import annotations

import numpy as np
from _harness import Figure, per_call_ns

import bk


def run() -> list[Figure]:
    if "numpy" not in bk.backends():
        return []
    a, b = np.ones(10, np.float32), np.ones(10, np.float32)
    bk.choose_backend(a)  # first call loads the backend and caches the type
    one = per_call_ns(lambda: bk.choose_backend(a))
    two = per_call_ns(lambda: bk.choose_backend(a, b))
    lookup = per_call_ns(lambda: {np.ndarray: 1}.get(type(a)))
    note_one = note_two = f"(a dict lookup: {lookup:.0f} ns)"
    try:
        from phiml import backend as phiml_backend

        phiml_one = per_call_ns(lambda: phiml_backend.choose_backend(a))
        phiml_two = per_call_ns(lambda: phiml_backend.choose_backend(a, b))
        note_one = f"phiml {phiml_one:.0f} ns: {phiml_one / one:.1f}x slower"
        note_two = f"phiml {phiml_two:.0f} ns: {phiml_two / two:.1f}x slower"
    except ImportError:
        note_one += "; phiml not installed for comparison"
    return [
        Figure("choose_backend(ndarray)", one, 150.0, "ns", note_one),
        Figure("choose_backend(ndarray, ndarray)", two, 250.0, "ns", note_two),
    ]
