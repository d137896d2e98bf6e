"""The entry point is light, the distribution is declared right, and the backend owns JAX's types."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import tomllib

import bk
import bk_jax
import bk_jax.plugin

ROOT = Path(__file__).parents[1]


def test_plugin_module_imports_no_framework() -> None:
    code = (
        "import sys, bk, bk_jax, bk_jax.plugin\n"
        "names = [s.name for s in bk_jax.plugin.bk_backends()]\n"
        "bk.backends()\n"
        "heavy = [m for m in ('jax', 'jaxlib', 'bk_jax._backend', 'torch', 'tensorflow') if m in sys.modules]\n"
        "print(names, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['jax'] []"


def test_spec_contract() -> None:
    (spec,) = bk_jax.plugin.bk_backends()
    assert (spec.name, spec.load, spec.priority, spec.api) == ("jax", "bk_jax._backend:JaxBackend", 10, bk.API_VERSION)
    assert set(spec.modules) == {"jax", "jaxlib"}


def test_modules_cover_every_array_and_tracer_type(b: bk.Backend) -> None:
    import jax
    import jax.numpy as jnp

    (spec,) = bk_jax.plugin.bk_backends()
    seen = [type(jnp.zeros(1)), type(b.sparse_coo_tensor(np.zeros((1, 2), np.int32), np.ones(1, np.float32), (2, 2)))]
    jax.jit(lambda x: seen.append(type(x)) or x)(jnp.zeros(1))
    jax.grad(lambda x: seen.append(type(x)) or x)(1.0)
    jax.vmap(lambda x: seen.append(type(x)) or x)(jnp.zeros(2))
    for kind in seen:
        assert kind.__module__.partition(".")[0] in spec.modules, kind


def test_dependencies_pull_in_no_other_framework() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [d.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip().lower() for d in project["dependencies"]]
    assert names == ["bk-core", "numpy", "jax", "scipy"]  # NumPy and SciPy are imported by bk-jax itself (declared)
    assert project["entry-points"]["bk.backends"] == {"jax": "bk_jax.plugin"}


def test_version_matches_changelog() -> None:
    assert f"## {bk_jax.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_backend_owns_arrays_tracers_and_sparse_matrices(b: bk.Backend) -> None:
    import jax
    import jax.numpy as jnp

    assert b.name == "jax"
    assert bk.choose_backend(jnp.zeros(2)) is b
    assert bk.choose_backend(np.ones(2), jnp.zeros(2)) is b  # NumPy values lose to JAX arrays
    assert bk.choose_backend(b.sparse_coo_tensor(np.zeros((1, 2), np.int32), np.ones(1, np.float32), (2, 2))) is b
    owners = []
    jax.jit(lambda x: owners.append(bk.choose_backend(x)) or x)(jnp.zeros(2))
    assert owners == [b]
