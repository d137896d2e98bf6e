"""bk-numpy: the NumPy and SciPy backend of bk.

Importing this package imports neither SciPy nor the backend implementation; the backend is
loaded by `bk.backend("numpy")`.
"""

from ._version import __version__

__all__ = ["__version__"]
