"""Exceptions of the core, and the exception classes every backend raises for bad input.

The rules (which class for which mistake) are written down in `docs/semantics.md`. Each class
subclasses the built-in exception that NumPy raises for the same mistake, so code that catches
`ValueError`, `IndexError` or `TypeError` keeps working, while `except bk.AxisError` catches
the same mistake on every backend.
"""

from __future__ import annotations

__all__ = [
    "ArgumentTypeError",
    "AxisError",
    "IndexOutOfRangeError",
    "NoBackendFound",
    "ShapeMismatchError",
    "did_you_mean",
]


class NoBackendFound(Exception):
    """No backend can handle the given values, or they belong to backends that cannot be mixed."""


class AxisError(ValueError, IndexError):
    """An axis is out of range for the tensor's rank, or is not an integer axis (as `numpy.exceptions.AxisError`)."""


class ShapeMismatchError(ValueError):
    """Shapes that cannot be broadcast, stacked, multiplied or reshaped into each other."""


class IndexOutOfRangeError(IndexError):
    """An index (gather, scatter, segment id, boolean mask length) lies outside the indexed dimension."""


class ArgumentTypeError(TypeError):
    """An argument has a type the operation does not accept (`None` as a tensor, a string axis, ...)."""


def did_you_mean(word: str, candidates: list[str]) -> str:
    """`" Did you mean 'a', 'b'?"` for the close matches of `word`, or `""`."""
    import difflib  # only on error paths: keeps `import bk` fast

    close = difflib.get_close_matches(word, candidates, n=3)
    return f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
