"""bk-jax: the JAX backend of bk.

Importing this package does not import JAX; the backend is loaded by `bk.backend("jax")`.
"""

from ._version import __version__

__all__ = ["__version__"]
