"""Devices and DLPack: listing, default device, allocation and round trips."""

from __future__ import annotations

import numpy as np

from bk import ComputeDevice

from .._case import SkipCase, Trial, case


@case("list_devices")
def _list_devices(t: Trial) -> None:
    """Every device is a ComputeDevice of this backend; filtering by type; a CPU exists."""
    devices = t.b.list_devices()
    t.expect(len(devices) > 0, "list_devices()", "no devices")
    for device in devices:
        t.expect(isinstance(device, ComputeDevice) and device.backend is t.b, "list_devices()", f"{device!r} is not a ComputeDevice of this backend")
    for kind in ("CPU", "GPU", "TPU"):
        typed = t.b.list_devices(kind)
        t.expect(all(d.device_type == kind for d in typed), f"list_devices({kind!r})", f"gave {typed}")


@case("get_default_device")
def _get_default_device(t: Trial) -> None:
    """The default device is one of list_devices()."""
    t.expect(t.b.get_default_device() in t.b.list_devices(), "get_default_device()", "not in list_devices()")


@case("get_device_by_ref")
def _get_device_by_ref(t: Trial) -> None:
    """Looking up each device by its native reference gives it back."""
    for device in t.b.list_devices():
        t.expect(t.b.get_device_by_ref(device.ref) == device, "get_device_by_ref", f"lookup of {device.ref!r} failed")


@case("set_default_device")
def _set_default_device(t: Trial) -> None:
    """Setting each device (and 'CPU') as default takes effect; the original is restored."""
    original = t.b.get_default_device()
    try:
        for device in t.b.list_devices():
            t.expect(t.b.set_default_device(device) is not False, "set_default_device", f"refused {device!r}")
            t.expect(t.b.get_default_device() == device, "set_default_device", f"default is {t.b.get_default_device()!r}, not {device!r}")
    finally:
        t.b.set_default_device(original)


def _round_trip(t: Trial, kind: str) -> None:
    devices = t.b.list_devices(kind)
    if not devices:
        raise SkipCase(f"no {kind} device on this machine")
    x = np.arange(4, dtype=np.float32)
    for device in devices:
        moved = t.b.allocate_on_device(t.tensor(x), device)
        t.expect(t.b.get_device(moved) == device, f"allocate_on_device({kind})", f"get_device gives {t.b.get_device(moved)!r}, not {device!r}")
        t.check(moved, x, f"values after allocate_on_device({device.name})")


for _kind in ("CPU", "GPU"):
    for _feature in ("allocate_on_device", "devices"):
        case(_feature, name=f"round-trip-{_kind.lower()}")(lambda t, _k=_kind: _round_trip(t, _k))


@case("get_device")
def _get_device(t: Trial) -> None:
    """A new tensor lives on the default device."""
    device = t.b.get_device(t.tensor(np.ones(2, np.float32)))
    t.expect(device == t.b.get_default_device(), "get_device(new tensor)", f"{device!r}, not the default device {t.b.get_default_device()!r}")


@case("to_dlpack", "from_dlpack", "dlpack")
def _dlpack(t: Trial) -> None:
    """Round trip through DLPack with NumPy; memory is shared for aligned, contiguous CPU tensors;
    misaligned and strided arrays give the right values (frameworks may copy those)."""
    buffer = np.empty(6 + 16, np.float32)  # 64-byte aligned: every framework can share it
    start = (-buffer.ctypes.data % 64) // 4
    x = buffer[start : start + 6].reshape(2, 3)
    x[:] = np.arange(6).reshape(2, 3)
    for other, what in ((buffer[start + 1 : start + 7], "misaligned"), (np.arange(12, dtype=np.float32)[::2], "strided")):
        t.check(t.b.from_dlpack(other), other, f"from_dlpack({what} numpy array)")
    native = t.b.from_dlpack(x)
    t.check(native, x, "from_dlpack(numpy)")
    exported = t.b.to_dlpack(native)
    back = np.from_dlpack(exported)
    t.compare(back, x, "np.from_dlpack(to_dlpack(...))", t.b.dtype(native))
    if t.b.get_device(native).device_type == "CPU":
        t.expect(np.shares_memory(back, x), "dlpack round trip", "the NumPy array does not share memory with the original")
