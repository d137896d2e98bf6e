"""Exceptions of the core."""

from __future__ import annotations

__all__ = ["NoBackendFound"]


class NoBackendFound(Exception):
    """No backend can handle the given values, or they belong to backends that cannot be mixed."""
