"""`bk.DType` <-> the namespace's dtype objects, and the dtypes of Python numbers.

The mapping comes from `__array_namespace_info__().dtypes()` (the standard's names), plus
`float16` where the namespace has that attribute (it is outside the standard). Mixed operations
promote by the core's plan (`bk._dispatcher`), which casts the operands before the kernels.
"""

from __future__ import annotations

import contextlib
from typing import Any, Final

from bk import DType, get_precision
from bk.rules import scalar_dtype

__all__ = ["DTypeMap", "default_dtype", "python_scalar_dtype"]

_STANDARD: Final = {
    "bool": DType(bool),
    "int8": DType(int, 8),
    "int16": DType(int, 16),
    "int32": DType(int, 32),
    "int64": DType(int, 64),
    "uint8": DType(int, 8, signed=False),
    "uint16": DType(int, 16, signed=False),
    "uint32": DType(int, 32, signed=False),
    "uint64": DType(int, 64, signed=False),
    "float16": DType(float, 16),
    "float32": DType(float, 32),
    "float64": DType(float, 64),
    "complex64": DType(complex, 64),
    "complex128": DType(complex, 128),
}


class DTypeMap:
    """The dtypes one namespace offers, both ways.

    Args:
        xp: The namespace.
        namespace: Its import name, for messages.
    """

    def __init__(self, xp: Any, namespace: str) -> None:
        self.namespace = namespace
        available = dict(xp.__array_namespace_info__().dtypes())
        half = getattr(xp, "float16", None)
        if half is not None and "float16" not in available:
            available["float16"] = half
        self.to_native: dict[DType, Any] = {_STANDARD[n]: d for n, d in available.items() if n in _STANDARD}
        self._from_native: dict[Any, DType] = {}
        self._pairs = [(d, bk_dtype) for bk_dtype, d in self.to_native.items()]
        for native, bk_dtype in self._pairs:
            with contextlib.suppress(TypeError):  # an unhashable dtype object is found by equality
                self._from_native[native] = bk_dtype

    def has(self, dtype: DType) -> bool:
        """Whether the namespace has `dtype`."""
        return dtype in self.to_native

    def native(self, dtype: DType) -> Any:
        """The namespace's dtype object for `dtype`.

        Raises:
            NotImplementedError: when the namespace has no such dtype (float16 or bfloat16 in many).
        """
        try:
            return self.to_native[dtype]
        except KeyError:
            have = ", ".join(d.name for d in self.to_native)
            raise NotImplementedError(f"{self.namespace} has no {dtype.name} dtype; it has {have}") from None

    def from_native(self, native: Any) -> DType:
        """The `DType` of a namespace dtype object.

        Raises:
            TypeError: for a dtype this namespace did not declare.
        """
        try:
            return self._from_native[native]
        except (KeyError, TypeError):
            pass
        for candidate, bk_dtype in self._pairs:
            if candidate == native:
                return bk_dtype
        if getattr(native, "isnative", True) is False:  # NumPy dtypes of another byte order (big-endian)
            return self.from_native(native.newbyteorder("="))
        raise TypeError(f"{native!r} is not one of the dtypes {self.namespace} declares")


def python_scalar_dtype(x: Any) -> DType:
    """The `DType` of a Python number as the reference defines it: int is int32, float float64."""
    if isinstance(x, bool):
        return DType(bool)
    if isinstance(x, int):
        return DType(int, 32)
    if isinstance(x, float):
        return DType(float, 64)
    return DType(complex, 128)


def default_dtype(kind: type) -> DType:
    """The dtype `as_tensor` gives a Python number of `kind`: bool, int64, the float / complex type of the precision."""
    return scalar_dtype(kind, get_precision())
