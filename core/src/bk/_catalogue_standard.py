"""Array API standard operations of the catalogue: creation, elementwise, shape and data, dtype queries.

A mixin of `Backend`: every method is a catalogue feature (see `_features.py`), either a generic
default built from other catalogue operations or an optional feature a plugin overrides.
"""

from __future__ import annotations

__all__ = ["StandardOpsMixin"]


class StandardOpsMixin:
    """The Array API standard's creation, elementwise, shape/data and dtype-query operations."""
