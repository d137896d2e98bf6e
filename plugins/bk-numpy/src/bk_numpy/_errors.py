"""NumPy's exceptions translated into bk's (docs/semantics.md), in `except` branches only.

NumPy reports most mistakes with the right built-in class but not with bk's: its own
`numpy.exceptions.AxisError` for a bad axis, a `ValueError` for shapes that do not fit. The
translation runs only after NumPy has refused, so it costs nothing on the way through.
"""

from __future__ import annotations

from typing import Final, NoReturn

import numpy as np

from bk import AxisError, IndexOutOfRangeError, ShapeMismatchError
from bk._errors import BK_ERRORS, reraise_as

__all__ = ["reraise"]

_SHAPE_PHRASES: Final = (
    "broadcast",
    "must have the same shape",
    "input array dimensions",
    "cannot reshape",
    "same number of dimensions",
    "shapes",
    "mismatch in its core dimension",
    "not aligned",
    "shape-mismatch",
)


def reraise(op: str, error: Exception) -> NoReturn:
    """Raises the bk class that `error` (raised by NumPy inside the bk operation `op`) stands for, or `error` itself."""
    if isinstance(error, BK_ERRORS):
        raise error
    message = str(error)
    if isinstance(error, np.exceptions.AxisError) or "repeated axis" in message:
        reraise_as(AxisError, op, error)
    if isinstance(error, IndexError) and any(p in message for p in ("out of bounds", "out-of-bounds", "out of range")):
        reraise_as(IndexOutOfRangeError, op, error)
    if isinstance(error, ValueError) and any(p in message for p in _SHAPE_PHRASES):
        reraise_as(ShapeMismatchError, op, error)
    raise error
