"""The conformance catalogue, one module per topic; importing this package registers every case."""

from . import (  # noqa: F401
    autodiff,
    creation,
    devices,
    edges_binary,
    edges_indexing,
    edges_inputs,
    edges_more,
    edges_reductions,
    edges_shape,
    edges_sorting,
    edges_unary,
    elementwise,
    indexing,
    linalg,
    misc,
    operators,
    reductions,
    shape,
    solvers,
    sparse,
)
