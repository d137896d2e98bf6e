"""A framework whose tensor is a NumPy array subclass: kernels are bare NumPy calls."""
import numpy as np


class PlainArray(np.ndarray):
    """NumPy's array under another name, owned by the plain plugin."""


def wrap(value):
    return np.asarray(value).view(PlainArray)
