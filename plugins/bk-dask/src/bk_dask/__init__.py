"""bk-dask: the Dask backend of bk, chunked and lazy arrays on `dask.distributed`.

Importing this package imports neither Dask nor the backend implementation; the backend is
loaded by `bk.backend("dask")`.
"""

from ._version import __version__

__all__ = ["__version__"]
