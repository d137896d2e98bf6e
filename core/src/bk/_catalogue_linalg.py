"""Array API standard linear algebra and FFT operations of the catalogue (`linalg` and `fft` extensions).

A mixin of `Backend`: every method is a catalogue feature (see `_features.py`), either a generic
default built from other catalogue operations or an optional feature a plugin overrides.
"""

from __future__ import annotations

__all__ = ["StandardLinalgMixin"]


class StandardLinalgMixin:
    """The Array API standard's `linalg` and `fft` operations."""
