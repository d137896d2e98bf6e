"""The entry point is light, the distribution is declared right, and the backend owns dask arrays."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import tomllib

import bk
import bk_dask
import bk_dask.plugin

ROOT = Path(__file__).parents[1]


def test_plugin_module_imports_no_framework() -> None:
    code = (
        "import sys, bk, bk_dask, bk_dask.plugin\n"
        "names = [s.name for s in bk_dask.plugin.bk_backends()]\n"
        "bk.backends()\n"
        "heavy = [m for m in ('dask', 'distributed', 'bk_dask._backend', 'torch', 'jax', 'tensorflow') if m in sys.modules]\n"
        "print(names, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['dask'] []"


def test_spec_contract() -> None:
    (spec,) = bk_dask.plugin.bk_backends()
    assert (spec.name, spec.load, spec.priority, spec.api, spec.modules) == (
        "dask",
        "bk_dask._backend:DaskBackend",
        10,
        bk.API_VERSION,
        ("dask",),
    )


def test_dependencies_pull_in_no_other_framework() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [d.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip().lower() for d in project["dependencies"]]
    assert names == ["bk-core", "bk-numpy", "numpy", "dask", "distributed"]
    assert project["entry-points"]["bk.backends"] == {"dask": "bk_dask.plugin"}
    assert [d.split(">")[0] for d in project["optional-dependencies"]["dashboard"]] == ["bokeh"]  # what the Dask dashboard needs


def test_version_matches_changelog() -> None:
    assert f"## {bk_dask.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_backend_owns_dask_arrays_and_numpy_values_are_constants(b: bk.Backend) -> None:
    import dask.array as da

    x = da.ones(3, chunks=2)
    assert bk.choose_backend(x) is b
    assert bk.choose_backend(np.ones(3), x, 1.5) is b  # NumPy values and numbers lose to dask arrays
    assert bk.choose_backend(np.ones(3)) is bk.backend("numpy")
    assert b.is_tensor(x, only_native=True) and not b.is_tensor(np.ones(3), only_native=True) and b.is_tensor([1, 2])


def test_kernels_declare_themselves_with_a_reason(b: bk.Backend) -> None:
    """Trust is declared on each kernel (`bk.rules.kernel`), with why: bk-numpy on every block, the
    reductions, the conversions; `pow`, `clip`, the `to_*` conversions and the rest take the core's plan."""
    cls = type(b)
    declared = cls.declared_kernels()
    trusted = {op for op, declaration in declared.items() if declaration.trusted}
    assert trusted == cls.trusted_operations
    assert {"add", "sin", "where", "sum", "mean", "log1p", "negative", "as_tensor", "cast"} <= trusted
    assert all(declared[op].why for op in trusted)
    assert not trusted & {"pow", "clip", "to_float", "to_int64", "argmax", "cumsum", "quantile", "matmul"}
    assert not any(declaration.fast or declaration.explains for declaration in declared.values())
