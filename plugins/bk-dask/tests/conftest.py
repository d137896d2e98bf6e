"""Shared fixtures: the `dask` backend, and ONE `distributed.LocalCluster` (2 worker processes, one
thread each, small memory limits, its dashboard on a free port when bokeh is installed) for the
whole session, started only if a test asks for it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

import bk


@pytest.fixture(scope="session")
def b() -> bk.Backend:
    """The dask backend, loaded once for the whole session."""
    return bk.backend("dask")


@pytest.fixture(scope="session")
def cluster_client() -> Iterator[Any]:
    """A client of a 2-worker `LocalCluster`; not the default client (tests opt in with `client`)."""
    import importlib.util

    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit="512MiB",
        dashboard_address=":0" if importlib.util.find_spec("bokeh") else None,  # the dashboard on a free port
        silence_logs=logging.ERROR,  # distributed's INFO lines about workers coming and going
    )
    client = Client(cluster, set_as_default=False)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@pytest.fixture
def client(cluster_client: Any) -> Iterator[Any]:
    """The session's cluster client, active (dask computes on it) for one test."""
    with cluster_client.as_current():
        yield cluster_client
