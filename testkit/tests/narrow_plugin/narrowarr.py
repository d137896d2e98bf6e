"""A framework whose tensor is a NumPy array subclass, narrower than NumPy: it has no complex128, and it
cannot order complex values (its comparisons, maximum/minimum, max/min, sorts and searches refuse them)."""
import numpy as np


class NarrowArray(np.ndarray):
    """NumPy's array under another name, owned by the narrow plugin."""


def wrap(value):
    array = np.asarray(value)
    if array.dtype == np.complex128:
        raise TypeError("narrowarr has no complex128")
    return array.view(NarrowArray)


def ordered(function):
    """`function` as this framework has it: no order of complex values."""

    def refuses_complex(*args, **kwargs):
        if any(np.iscomplexobj(a) for a in args):
            raise TypeError(f"narrowarr: {function.__name__} of complex values is not supported")
        return wrap(function(*args, **kwargs))

    return refuses_complex


maximum, minimum, greater, greater_equal = ordered(np.maximum), ordered(np.minimum), ordered(np.greater), ordered(np.greater_equal)
amax, amin, argmax, argmin, clip = ordered(np.max), ordered(np.min), ordered(np.argmax), ordered(np.argmin), ordered(np.clip)
sort, argsort, searchsorted = ordered(np.sort), ordered(np.argsort), ordered(np.searchsorted)


def matmul(a, b):
    """Matrix products of floats and complex values only."""
    if np.asarray(a).dtype.kind in "biu" or np.asarray(b).dtype.kind in "biu":
        raise TypeError("narrowarr: matmul of integers is not supported")
    return wrap(np.matmul(a, b))
