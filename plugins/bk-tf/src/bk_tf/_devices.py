"""The devices TensorFlow can compute on, as `bk.ComputeDevice`s."""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any

from bk import ComputeDevice

from ._framework import tf

if TYPE_CHECKING:
    from bk import Backend

__all__ = ["canonical_device", "device_of", "list_tf_devices"]


def list_tf_devices(backend: Backend) -> list[ComputeDevice]:
    """Every physical CPU, GPU and TPU that TensorFlow sees, CPU first.

    A device's `ref` is its TensorFlow device name, such as `'/device:GPU:0'`, usable in `tf.device`.
    """
    devices = []
    for device_type in ("CPU", "GPU", "TPU"):
        for index, physical in enumerate(tf.config.list_physical_devices(device_type)):
            devices.append(_describe(backend, physical, device_type, index))
    return devices


def _describe(backend: Backend, physical: Any, device_type: str, index: int) -> ComputeDevice:
    details: dict[str, Any] = {}
    with contextlib.suppress(ValueError, RuntimeError, AttributeError):  # not every device type reports details
        details = tf.config.experimental.get_device_details(physical) or {}
    name = str(details.get("device_name", f"{device_type}:{index}"))
    processors = (os.cpu_count() or -1) if device_type == "CPU" else -1
    description = f"TensorFlow {physical.name}" + (
        f", compute capability {details['compute_capability']}" if "compute_capability" in details else ""
    )
    return ComputeDevice(
        backend, name, device_type, _memory(device_type), processors, description, ref=f"/device:{device_type}:{index}"
    )


def _memory(device_type: str) -> int:
    if device_type != "CPU":
        return -1  # TensorFlow reports GPU memory only once it allocated some
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return -1


def device_of(tensor: Any) -> str:
    """The canonical device name (`'/device:GPU:0'`) of a tensor's `device` string."""
    name = str(getattr(tensor, "device", "") or "")
    marker = name.rfind("device:")
    if marker < 0:
        return "/device:CPU:0"
    return "/" + name[marker:].upper().replace("DEVICE:", "device:")


def canonical_device(spelling: Any) -> str | None:
    """The canonical name (`'/device:GPU:0'`) of any spelling TensorFlow accepts for a local device:
    `'/job:localhost/replica:0/task:0/device:CPU:0'` (what tensors report), `'/device:CPU:0'`,
    `'/CPU:0'`, `'cpu:0'`, `'GPU'` (index 0), a `tf.DeviceSpec`; `None` for anything else."""
    try:
        spec = spelling if isinstance(spelling, tf.DeviceSpec) else tf.DeviceSpec.from_string(str(spelling))
    except (ValueError, TypeError):
        return None
    if spec.device_type is None or spec.job not in (None, "localhost"):
        return None
    return f"/device:{spec.device_type.upper()}:{spec.device_index or 0}"
