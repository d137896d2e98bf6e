"""The one device NumPy computes on: the CPU of this process."""

from __future__ import annotations

import os
import platform
from typing import TYPE_CHECKING

from bk import ComputeDevice

if TYPE_CHECKING:
    from bk import Backend

__all__ = ["cpu_device"]


def cpu_device(backend: Backend) -> ComputeDevice:
    """The CPU, with its physical memory and core count where the system tells them."""
    name = platform.processor() or platform.machine() or "CPU"
    description = f"{platform.system()} {platform.machine()}, NumPy in this process"
    return ComputeDevice(backend, name, "CPU", _physical_memory(), os.cpu_count() or -1, description, ref="cpu")


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # not on POSIX systems
        return -1
