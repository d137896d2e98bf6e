"""The entry point is light, the distribution is declared right, and the backend loads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import tomllib

import bk
import bk_torch
import bk_torch.plugin

ROOT = Path(__file__).parents[1]


def test_plugin_module_imports_no_framework() -> None:
    code = (
        "import sys, bk, bk_torch, bk_torch.plugin\n"
        "names = [s.name for s in bk_torch.plugin.bk_backends()]\n"
        "bk.backends()\n"
        "heavy = [m for m in ('torch', 'bk_torch._backend', 'jax', 'tensorflow') if m in sys.modules]\n"
        "print(names, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['torch'] []"


def test_spec_contract() -> None:
    (spec,) = bk_torch.plugin.bk_backends()
    assert (spec.name, spec.modules, spec.load, spec.priority, spec.api) == (
        "torch",
        ("torch",),
        "bk_torch._backend:TorchBackend",
        10,
        bk.API_VERSION,
    )


def test_dependencies_pull_in_no_other_framework() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [d.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip().lower() for d in project["dependencies"]]
    assert names == ["bk-core", "numpy", "torch"]  # NumPy is imported by bk-torch itself (declared)
    assert project["entry-points"]["bk.backends"] == {"torch": "bk_torch.plugin"}


def test_version_matches_changelog() -> None:
    assert f"## {bk_torch.__version__}" in (ROOT / "CHANGELOG.md").read_text()


def test_backend_loads_and_owns_torch_tensors(b: bk.Backend) -> None:
    import torch

    assert b.name == "torch"
    assert bk.choose_backend(torch.zeros(2)) is b
    assert b.is_module(torch.nn.Linear(2, 2)) and not b.is_module(torch.zeros(2))


def test_kernels_declare_themselves(b: bk.Backend) -> None:
    """The hot unary functions, the reductions and the conversions are trusted, each with its reason, where
    they are defined (`bk.rules.kernel`); the binary operators are planned, each with a fast call."""
    from bk_torch._operators import BINARY_OPERATORS, OperatorsMixin

    declared = type(b).declared_kernels()
    trusted = {op for op, declaration in declared.items() if declaration.trusted}
    assert trusted == type(b).trusted_operations == {
        "abs", "round", "isfinite", "isnan", "isinf", "real", "imag", "conj", "as_tensor", "cast",
        "sum", "prod", "mean", "std", "max", "min", "any", "all",
    }  # fmt: skip
    assert all(declared[op].why for op in trusted)
    assert {op for op, declaration in declared.items() if declaration.explains} == {"sum", "mean", "max"}
    made_by_operator = {name for name, value in vars(OperatorsMixin).items() if getattr(value, "__qualname__", None) == name}
    assert made_by_operator == set(BINARY_OPERATORS)  # `unsigned_gaps` covers every operator `_operator` makes
    assert all(declared[op].fast is not None and not declared[op].trusted for op in BINARY_OPERATORS)
