"""bk-torch: the PyTorch backend of bk.

Importing this package does not import PyTorch; the backend is loaded by `bk.backend("torch")`.
"""

__all__ = ["__version__"]


def __getattr__(name: str) -> str:
    """`__version__`, read on first use: listing backends imports this package, which stays this light."""
    if name == "__version__":
        from ._version import __version__

        globals()[name] = __version__
        return __version__
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
