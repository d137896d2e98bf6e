"""`ComputeDevice`: a physical device as one backend sees it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from ._backend import Backend

__all__ = ["ComputeDevice"]

DEVICE_TYPES: Final = ("CPU", "GPU", "TPU")


class ComputeDevice:
    """A physical device that a backend can compute on.

    Two devices are equal when their native references are equal. Different backends
    represent the same hardware with different objects.

    Args:
        backend: The backend this device belongs to.
        name: Name of the device, such as `'CPU'` or `'NVIDIA H100'`.
        device_type: `'CPU'`, `'GPU'` or `'TPU'`.
        memory: Memory that can be allocated, in bytes; -1 if unknown.
        processor_count: CPU cores or GPU multiprocessors; -1 if unknown.
        description: Further information, such as the driver version.
        ref: The framework's own object or string for this device.

    Raises:
        ValueError: for a `device_type` other than CPU, GPU or TPU.
    """

    __slots__ = ("backend", "description", "device_type", "memory", "name", "processor_count", "ref")

    def __init__(
        self,
        backend: Backend,
        name: str,
        device_type: str,
        memory: int,
        processor_count: int,
        description: str,
        ref: Any,
    ) -> None:
        if device_type not in DEVICE_TYPES:
            raise ValueError(f"device_type must be one of {DEVICE_TYPES} but got {device_type!r}")
        self.backend = backend
        self.name = name
        self.device_type = device_type
        self.memory = memory
        self.processor_count = processor_count
        self.description = description
        self.ref = ref

    def __repr__(self) -> str:
        memory = f"{self.memory / 1024**2:.0f} MB" if self.memory > 0 else "memory: n/a"
        processors = f"{self.processor_count} processors" if self.processor_count > 0 else "processors: n/a"
        description = self.description.replace("\n", "  ")
        if len(description) > 40:
            description = description[:37] + "..."
        return f"{self.backend} device '{self.name}' ({self.device_type}) | {memory} | {processors} | {description}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComputeDevice) and other.ref == self.ref

    def __hash__(self) -> int:
        return hash(self.ref)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly description of this device."""
        return {
            "name": self.name,
            "type": self.device_type,
            "memory": self.memory,
            "processor_count": self.processor_count,
            "description": self.description,
        }


# Public as `bk.<name>`: `bk` imports this module on first use of one of these names, or with the first backend.
for _name in __all__:
    globals()[_name].__module__ = "bk"
del _name
