"""The namespace's data-type inspection: `finfo`, `iinfo` and `isdtype` of a `DType`.

The namespace's functions (`_namespace_creation.py`) convert the framework's dtypes to `DType`s first; these
read NumPy's machine limits and the catalogue's kind test (`has_kind`). `namespace` is the namespace's
`Namespace` (its `as_native` and `as_dtype`), passed in, so this module imports no namespace module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._catalogue_dtypes import has_kind
from ._dtype import DType, to_numpy_dtype
from ._errors import ArgumentTypeError

__all__ = ["FInfo", "IInfo", "finfo", "iinfo", "is_kind"]


@dataclass(frozen=True)
class FInfo:
    """Machine limits of a floating-point dtype (`finfo`)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: Any


@dataclass(frozen=True)
class IInfo:
    """Machine limits of an integer dtype (`iinfo`)."""

    bits: int
    max: int
    min: int
    dtype: Any


def finfo(namespace: Any, dtype: DType) -> FInfo:
    """`finfo` of a float or complex `DType` (complex: of its real component)."""
    real = DType(float, dtype.precision) if dtype.kind is complex else dtype
    if real.kind is not float:
        raise ArgumentTypeError(f"finfo: {dtype} is not a floating-point dtype; use iinfo for integers")
    info = np.finfo(to_numpy_dtype(real))
    return FInfo(
        int(info.bits), float(info.eps), float(info.max), float(info.min), float(info.smallest_normal), namespace.as_native(real)
    )


def iinfo(namespace: Any, dtype: DType) -> IInfo:
    """`iinfo` of an integer `DType`."""
    if dtype.kind is not int:
        raise ArgumentTypeError(f"iinfo: {dtype} is not an integer dtype; use finfo for floats")
    info = np.iinfo(to_numpy_dtype(dtype))
    return IInfo(int(info.bits), int(info.max), int(info.min), namespace.as_native(dtype))


def is_kind(dtype: DType, kind: Any, namespace: Any) -> bool:
    """`isdtype`: whether `dtype` is of `kind` (a kind name, a dtype of the namespace, or a tuple of
    them); the catalogue's test (`has_kind`) after the namespace's dtypes become `DType`s."""
    if isinstance(kind, tuple):
        return any(is_kind(dtype, k, namespace) for k in kind)
    return has_kind(dtype, kind if isinstance(kind, str) else namespace.as_dtype(kind, "isdtype"))
