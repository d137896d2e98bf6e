"""Devices: the workers of the active `distributed.Client`, or the local machine without one."""

from __future__ import annotations

import os
import platform
import sys
from typing import TYPE_CHECKING, Any

from bk import ComputeDevice

if TYPE_CHECKING:
    from bk import Backend

__all__ = ["ARRAY_DEVICE", "active_client", "configured_workers", "local_device", "worker_devices"]

ARRAY_DEVICE = "cpu"
"""The device every NumPy-backed Dask array reports (`array_api_compat.device`), wherever it computes."""


def active_client() -> Any:
    """The `distributed.Client` that dask computes on now, or `None` (never starts one).

    `distributed` is only consulted once something imported it: without that import no client
    can exist.
    """
    if "distributed" not in sys.modules:
        return None
    from distributed import default_client

    try:
        return default_client()
    except ValueError:  # no client
        return None


def configured_workers(backend: Backend) -> list[ComputeDevice] | None:
    """The workers of the scheduler that dask's configuration names (`DASK_SCHEDULER_ADDRESS`, or
    `scheduler-address` in a dask config file), asked through a short-lived client that is never
    made the default; `None` when none is configured. Starts nothing: it only connects."""
    import dask

    address = dask.config.get("scheduler-address", None)
    if not address:
        return None
    from distributed import Client

    with Client(address, set_as_default=False, timeout="10s") as client:
        return worker_devices(backend, client)


def local_device(backend: Backend) -> ComputeDevice:
    """This machine: dask's threaded scheduler computes here when no client is active."""
    name = platform.node() or platform.machine() or "localhost"
    description = f"{platform.system()} {platform.machine()}, dask's local threaded scheduler"
    return ComputeDevice(backend, name, "CPU", _physical_memory(), os.cpu_count() or -1, description, ref="local")


def worker_devices(backend: Backend, client: Any) -> list[ComputeDevice]:
    """One `ComputeDevice` per worker of `client`'s cluster: its name, memory limit and threads."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    devices = []
    for address, worker in sorted(workers.items()):
        name = str(worker.get("name", address))
        memory = int(worker.get("memory_limit") or -1)
        threads = int(worker.get("nthreads") or -1)
        description = f"dask worker {name} at {address} ({threads} threads, memory limit {_gib(memory)})"
        devices.append(ComputeDevice(backend, f"worker {name}", "CPU", memory, threads, description, ref=address))
    return devices


def _gib(size: int) -> str:
    return "none" if size <= 0 else f"{size / 2**30:.2f} GiB"


def _physical_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # not on POSIX systems
        return -1
