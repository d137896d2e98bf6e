"""`OBJECTS`: a backend for plain Python values (numbers, booleans, strings)."""

from __future__ import annotations

import numbers
from typing import Any, Final

import numpy as np

from ._backend import Backend
from ._device import ComputeDevice
from ._dtype import DType
from ._kernels import kernel

_PYTHON_OBJECTS: Final = "Python objects: no dtype rules apply, so every kernel is called as it is"

__all__ = ["OBJECTS", "ObjectBackend"]

_PY_TYPES: Final = {bool: bool, int: int, float: float, complex: complex, str: str}


class ObjectBackend(Backend):
    """Treats Python scalars (and lists or tuples of them) as zero-dimensional tensors.

    It loses dispatch to every other backend and implements only the required set and a few
    comparisons; `supports()` tells which.
    """

    _bk_python_objects = True  # strings are its values: the core's refusal of values with no bk dtype does not apply

    _bk_priority = -1

    def __init__(self) -> None:
        cpu = ComputeDevice(self, "CPU", "CPU", -1, -1, "Python interpreter", ref="python")
        super().__init__("object", [cpu], cpu)

    def is_tensor(self, x: Any, only_native: bool = False) -> bool:
        if isinstance(x, (str, bytes, numbers.Number)) and not isinstance(x, np.generic):
            return True
        if not only_native and isinstance(x, (list, tuple)):
            return all(self.is_tensor(e) for e in x)
        return False

    @kernel(trusted=True, why=_PYTHON_OBJECTS)
    def as_tensor(self, x: Any, convert_external: bool = True) -> Any:
        if not self.is_tensor(x):
            raise TypeError(f"the object backend handles Python numbers and strings, not {type(x).__name__}")
        return x

    def is_available(self, tensor: Any) -> bool:
        return True

    def numpy(self, tensor: Any) -> np.ndarray:
        return np.asarray(tensor)

    def dtype(self, array: Any) -> DType:
        if isinstance(array, bool):
            return DType(bool)
        if isinstance(array, int):
            return DType(int, 64)
        if isinstance(array, float):
            return DType(float, 64)
        if isinstance(array, complex):
            return DType(complex, 128)
        if isinstance(array, str):
            return DType(str)
        return DType(object)

    def staticshape(self, tensor: Any) -> tuple[int, ...]:
        if isinstance(tensor, (list, tuple)):
            return (len(tensor), *(self.staticshape(tensor[0]) if tensor else ()))
        return ()

    def cast(self, x: Any, dtype: DType) -> Any:
        if isinstance(x, (list, tuple)):
            return type(x)(self.cast(e, dtype) for e in x)
        return _PY_TYPES.get(dtype.kind, lambda v: v)(x)

    @kernel(trusted=True, why=_PYTHON_OBJECTS)
    def equal(self, x: Any, y: Any) -> Any:
        return x == y

    @kernel(trusted=True, why=_PYTHON_OBJECTS)
    def copy(self, tensor: Any, only_mutable: bool = False) -> Any:
        return tensor if only_mutable or not isinstance(tensor, list) else list(tensor)


OBJECTS: Final = ObjectBackend()
"""The backend for plain Python values."""
