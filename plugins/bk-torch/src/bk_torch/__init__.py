"""bk-torch: the PyTorch backend of bk.

Importing this package does not import PyTorch; the backend is loaded by `bk.backend("torch")`.
"""

from ._version import __version__

__all__ = ["__version__"]
