"""Exceptions of the core."""

from __future__ import annotations

__all__ = ["NoBackendFound", "did_you_mean"]


class NoBackendFound(Exception):
    """No backend can handle the given values, or they belong to backends that cannot be mixed."""


def did_you_mean(word: str, candidates: list[str]) -> str:
    """`" Did you mean 'a', 'b'?"` for the close matches of `word`, or `""`."""
    import difflib  # only on error paths: keeps `import bk` fast

    close = difflib.get_close_matches(word, candidates, n=3)
    return f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
