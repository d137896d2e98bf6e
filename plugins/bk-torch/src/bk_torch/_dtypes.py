"""Mapping between `bk.DType` and `torch.dtype`; imported only with the backend."""

from __future__ import annotations

from typing import Final

import torch

from bk import DType

__all__ = ["from_torch_dtype", "to_torch_dtype"]

_TO_TORCH: Final[dict[DType, torch.dtype]] = {
    DType(bool): torch.bool,
    DType(int, 8): torch.int8,
    DType(int, 16): torch.int16,
    DType(int, 32): torch.int32,
    DType(int, 64): torch.int64,
    DType(int, 8, signed=False): torch.uint8,
    DType(float, 16): torch.float16,
    DType(float, 16, brain=True): torch.bfloat16,
    DType(float, 32): torch.float32,
    DType(float, 64): torch.float64,
    DType(complex, 64): torch.complex64,
    DType(complex, 128): torch.complex128,
}
# Wide unsigned integers exist since PyTorch 2.3, with few operations.
for _bits in (16, 32, 64):
    _unsigned = getattr(torch, f"uint{_bits}", None)
    if _unsigned is not None:
        _TO_TORCH[DType(int, _bits, signed=False)] = _unsigned
_FROM_TORCH: Final[dict[torch.dtype, DType]] = {v: k for k, v in _TO_TORCH.items()}


def to_torch_dtype(dtype: DType) -> torch.dtype:
    """The `torch.dtype` of `dtype`.

    Raises:
        TypeError: for types PyTorch has no tensors of (object, str, unsigned ints on old versions).
    """
    result = _TO_TORCH.get(dtype)
    if result is None:
        if not isinstance(dtype, DType):
            raise TypeError(
                f"expected a bk.DType but got {type(dtype).__name__} {dtype!r}; use bk.DType.parse('float32') for names"
            )
        raise TypeError(f"PyTorch has no tensors of dtype {dtype}; supported: {', '.join(d.name for d in _TO_TORCH)}")
    return result


def from_torch_dtype(dtype: torch.dtype) -> DType:
    """The `bk.DType` of a `torch.dtype`.

    Raises:
        TypeError: for PyTorch types bk cannot describe, such as quantized or float8 types.
    """
    result = _FROM_TORCH.get(dtype)
    if result is None:
        raise TypeError(f"torch dtype {dtype} has no bk.DType equivalent; cast the tensor to a standard type first")
    return result
