"""bk-lazy: the lazy graph and template backend of bk.

Every operation of `bk.backend("lazy")` records a node (`LazyArray`) that knows its shape and
`DType` without data. `compute` evaluates a graph on the backend of its leaves' data; `Function`
compiles a graph once into a callable that runs on whatever backend its arguments belong to.

Importing this package imports no framework; the backend is loaded by `bk.backend("lazy")`.
"""

from ._function import Function
from ._graph import (
    LazyArray,
    UnboundVariableError,
    Variable,
    array,
    ascend,
    compute,
    compute_count,
    descend,
    shared_intermediates,
)
from ._source import get_source
from ._version import __version__

__all__ = [
    "Function",
    "LazyArray",
    "UnboundVariableError",
    "Variable",
    "__version__",
    "array",
    "ascend",
    "compute",
    "compute_count",
    "descend",
    "get_source",
    "shared_intermediates",
]
