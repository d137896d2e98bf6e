"""Shapes and dtypes without data: the core's operation specs, read on templates.

Every node's shape and `DType` come from `bk.op_spec(name).infer(...)`, which takes anything with
`shape` and `dtype` (a `LazyArray` among them), treats Python numbers as weak, reads the current
precision, raises the bk error an eager backend raises for the same call, and never allocates
data. Sizes that depend on the data are `None`.
"""

from __future__ import annotations

from typing import Any

import bk
from bk import Backend

__all__ = ["infer", "numpy_backend", "spec_of"]

_NUMPY: list[Backend] = []


def numpy_backend() -> Backend:
    """The backend graphs without data of another framework compute on."""
    if not _NUMPY:
        try:
            _NUMPY.append(bk.backend("numpy"))
        except ValueError as error:
            raise RuntimeError("bk-lazy computes graphs with the NumPy backend by default: pip install bk-numpy") from error
    return _NUMPY[0]


def spec_of(op: str) -> Any:
    """The core's operation spec of `op`, or `None` where the core has none."""
    return bk.op_specs().get(op)


def infer(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`(shape, dtype)` of `op` on these arguments (nodes among them), or a list of them for several
    results, from the core's operation spec; raises the bk error the call deserves."""
    result = bk.op_spec(op).infer(*args, **kwargs)
    if isinstance(result, (tuple, list)):
        return [(tuple(r.shape), r.dtype) for r in result]
    return tuple(result.shape), result.dtype
