"""The catalogue seen from outside: feature descriptions and `testkit list-features`."""

from __future__ import annotations

from typing import Final

from bk import Backend

from . import cases as _cases  # noqa: F401 - registers every case
from ._case import CATALOGUE

__all__ = ["catalogue", "describe_feature"]

_CAPABILITY_TEXT: Final = {
    "gradients": "Automatic differentiation: jacobian/hessian/custom_gradient against finite differences.",
    "jit": "jit_compile gives the eager result and does not re-trace for the same shapes.",
    "dlpack": "DLPack round trip with NumPy, sharing memory.",
    "sparse": "Sparse COO tensors against dense.",
    "float64": "Computes in 64-bit floating point.",
    "devices": "Device listing, default device, allocate_on_device and get_device round trip.",
}


def describe_feature(feature: str) -> str:
    """One line about a feature: the first line of its `Backend` docstring, or the capability's text."""
    if feature in _CAPABILITY_TEXT:
        return _CAPABILITY_TEXT[feature]
    doc = (getattr(Backend, feature).__doc__ or "").strip().splitlines()
    return doc[0] if doc else ""


def catalogue() -> dict[str, int]:
    """Every feature id with its number of conformance cases (0 where none exists yet)."""
    return {f: len(CATALOGUE.get(f, ())) for f in Backend.features()}
