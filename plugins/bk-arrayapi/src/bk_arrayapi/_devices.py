"""Devices of a namespace, as `__array_namespace_info__().devices()` lists them.

The type of each device (CPU, GPU, ...) is read from the DLPack device type of a one-element
array allocated there, never from the device's or the library's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from bk import ComputeDevice

if TYPE_CHECKING:
    from bk import Backend

__all__ = ["list_devices"]

# DLPack device types (dlpack.h): kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL, kDLVulkan, kDLMetal,
# kDLVPI, kDLROCM, kDLROCMHost, ..., kDLCUDAManaged, kDLOneAPI
_DLPACK_TYPES: Final = {1: "CPU", 2: "GPU", 3: "CPU", 4: "GPU", 7: "GPU", 8: "GPU", 10: "GPU", 11: "CPU", 13: "GPU", 14: "GPU"}


def list_devices(backend: Backend, xp: Any, namespace: str) -> tuple[list[ComputeDevice], ComputeDevice]:
    """All devices of the namespace, and the default one (that of a new array)."""
    info = xp.__array_namespace_info__()
    refs = [ref for ref in info.devices() if ref is not None]  # None (JAX) is "the default placement", no device
    default_ref = _default_ref(xp, info)
    if default_ref is not None and default_ref not in refs:
        refs.insert(0, default_ref)
    devices = [ComputeDevice(backend, str(ref), _device_type(xp, ref), -1, -1, f"{namespace} device {ref}", ref=ref) for ref in refs]
    # a default of None (JAX) means "where the library places new arrays": that of a new array
    if default_ref is None:
        default_ref = _array_device(xp)
    default = next((d for d in devices if d.ref == default_ref), devices[0])
    return devices, default


def _array_device(xp: Any) -> Any:
    try:
        from array_api_compat import device

        return device(xp.asarray(0))
    except Exception:  # a namespace whose arrays do not tell their device
        return None


def _default_ref(xp: Any, info: Any) -> Any:
    try:
        return info.default_device()
    except Exception:  # optional in older revisions of the standard
        return None


def _device_type(xp: Any, ref: Any) -> str:
    try:
        kind = int(xp.zeros((1,), device=ref).__dlpack_device__()[0])
    except Exception:  # no DLPack on this device: the standard's default is host memory
        return "CPU"
    return _DLPACK_TYPES.get(kind, "CPU")
