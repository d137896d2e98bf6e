"""Enumerating the CPU, GPU and TPU devices JAX can use; imported only with the backend."""

from __future__ import annotations

import os
import platform
from typing import TYPE_CHECKING, Any

import jax

from bk import ComputeDevice

if TYPE_CHECKING:
    from bk import Backend

__all__ = ["jax_default_device", "list_jax_devices"]

_TYPES = {"cpu": "CPU", "tpu": "TPU"}  # every other platform (cuda, rocm, gpu, metal) is a GPU


def list_jax_devices(backend: Backend) -> list[ComputeDevice]:
    """The CPU devices followed by the accelerators of JAX's default platform (GPUs or TPUs).

    JAX initialises its accelerator platform with `jax.devices()`; the CPU is always available.
    """
    devices = list(jax.devices("cpu"))
    devices += [d for d in jax.devices() if d.platform != "cpu"]
    return [_describe(backend, d) for d in devices]


def jax_default_device() -> Any:
    """The device JAX places new arrays on: `jax_default_device` if configured, else the first device."""
    configured = jax.config.jax_default_device
    if isinstance(configured, str):
        return jax.devices(configured)[0]
    return configured if configured is not None else jax.devices()[0]


def _describe(backend: Backend, device: Any) -> ComputeDevice:
    kind = _TYPES.get(device.platform, "GPU")
    if kind == "CPU":
        name = platform.processor() or platform.machine() or "CPU"
        memory, processors = _physical_memory(), os.cpu_count() or -1
    else:
        name = str(getattr(device, "device_kind", device.platform))
        memory, processors = _accelerator_memory(device), int(getattr(device, "core_count", -1) or -1)
    description = f"{device.platform} device id={device.id} ({getattr(device, 'device_kind', device.platform)})"
    return ComputeDevice(backend, name, kind, memory, processors, description, device)


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # not on POSIX systems
        return -1


def _accelerator_memory(device: Any) -> int:
    try:
        stats = device.memory_stats() or {}
    except Exception:  # some platforms do not report memory statistics
        return -1
    return int(stats.get("bytes_limit", -1))
