"""NumPy's exceptions by type, in `except` branches only: the core's specs decide the rest.

NumPy reports an axis out of range with its own `numpy.exceptions.AxisError`: that type means
`bk.AxisError`. Every other error (a `ValueError` for shapes that do not fit, an `IndexError` for an
index out of bounds) is raised as it is: the core's wrapper around each kernel asks the operation's
spec what the call did wrong (see `bk.explain_failure`). No message is read.
"""

from __future__ import annotations

from typing import NoReturn

import numpy as np

from bk import BK_ERRORS, AxisError, reraise_as

__all__ = ["reraise"]


def reraise(op: str, error: Exception) -> NoReturn:
    """Raises `error` (raised by NumPy inside the bk operation `op`) as bk's class where its type says which."""
    if isinstance(error, BK_ERRORS):
        raise error
    if isinstance(error, np.exceptions.AxisError):
        reraise_as(AxisError, op, error)
    raise error
