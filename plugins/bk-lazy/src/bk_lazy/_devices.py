"""The one device of the lazy backend: the graph (values are computed on their leaves' backend)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bk import ComputeDevice

if TYPE_CHECKING:
    from bk import Backend

__all__ = ["graph_device"]


def graph_device(backend: Backend) -> ComputeDevice:
    """A CPU-typed device standing for the graph; memory and processors are those of the evaluator."""
    return ComputeDevice(
        backend, "graph", "CPU", -1, -1, "lazy graph nodes; computed on the backend of their leaves' data", ref="graph"
    )
