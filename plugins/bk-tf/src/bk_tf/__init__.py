"""bk-tf: the TensorFlow backend of bk.

Importing this package imports neither TensorFlow nor the backend implementation; the backend is
loaded by `bk.backend("tf")`.
"""

from ._version import __version__

__all__ = ["__version__"]
