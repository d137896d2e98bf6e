"""Kernels of the Array API standard's creation, elementwise, shape/data and dtype-query operations
(a mixin of `NumPyBackend`). The rules live in the core; this module holds kernels only."""

from __future__ import annotations

__all__ = ["StandardMixin"]


class StandardMixin:
    """Native kernels for operations of `bk._catalogue_standard`."""
