"""Enumerating the CPU, CUDA and MPS devices PyTorch can use; imported only with the backend."""

from __future__ import annotations

import os
import platform
from typing import TYPE_CHECKING

import torch

from bk import ComputeDevice

if TYPE_CHECKING:
    from bk import Backend

__all__ = ["list_torch_devices", "normalize_device"]


def normalize_device(device: torch.device | str | int) -> torch.device:
    """`device` with an explicit index for accelerators, so that `cuda` and `cuda:0` compare equal
    (an int is a CUDA index, as PyTorch reads it)."""
    device = torch.device(device)
    if device.type != "cpu" and device.index is None:
        index = torch.cuda.current_device() if device.type == "cuda" else 0
        return torch.device(device.type, index)
    return device


def list_torch_devices(backend: Backend) -> list[ComputeDevice]:
    """The CPU followed by every CUDA (or ROCm) device and the Apple MPS device, where present."""
    devices = [_cpu(backend)]
    if torch.cuda.is_available():
        devices.extend(_cuda(backend, i) for i in range(torch.cuda.device_count()))
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        devices.append(_mps(backend))
    return devices


def _cpu(backend: Backend) -> ComputeDevice:
    name = platform.processor() or platform.machine() or "CPU"
    description = f"{platform.system()} {platform.machine()}, {torch.get_num_threads()} threads"
    return ComputeDevice(backend, name, "CPU", _physical_memory(), os.cpu_count() or -1, description, torch.device("cpu"))


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # not on POSIX systems
        return -1


def _cuda(backend: Backend, index: int) -> ComputeDevice:
    properties = torch.cuda.get_device_properties(index)
    kind = "ROCm" if getattr(torch.version, "hip", None) else "CUDA"
    description = f"{kind} device {index}, compute capability {properties.major}.{properties.minor}"
    return ComputeDevice(
        backend,
        properties.name,
        "GPU",
        int(properties.total_memory),
        int(properties.multi_processor_count),
        description,
        torch.device("cuda", index),
    )


def _mps(backend: Backend) -> ComputeDevice:
    memory = -1
    recommended = getattr(getattr(torch, "mps", None), "recommended_max_memory", None)
    if recommended is not None:
        memory = int(recommended())
    return ComputeDevice(
        backend, "Apple MPS", "GPU", memory, -1, "Metal Performance Shaders (no float64)", torch.device("mps", 0)
    )
