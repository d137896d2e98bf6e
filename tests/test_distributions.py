"""Repository-level checks of every distribution: layout, and what installing a plugin pulls in."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
DISTRIBUTIONS = sorted(p.parent for p in [ROOT / "core" / "pyproject.toml", ROOT / "testkit" / "pyproject.toml", *ROOT.glob("plugins/*/pyproject.toml")] if p.exists())
PLUGINS = [d for d in DISTRIBUTIONS if d.parent.name == "plugins"]
# The frameworks each first-party plugin must not install.
FRAMEWORKS = {"torch": "torch", "jax": "jax", "jaxlib": "jax", "tensorflow": "tf", "tensorflow-cpu": "tf", "tensorflow_cpu": "tf"}


@pytest.mark.parametrize("dist", DISTRIBUTIONS, ids=lambda d: d.name)
def test_layout(dist: Path):
    """Every distribution looks the same (STYLE.md)."""
    project = tomllib.loads((dist / "pyproject.toml").read_text())
    package = project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"][0]
    assert project["build-system"]["build-backend"] == "hatchling.build"
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == f"{package}/_version.py"
    for path in ("README.md", "tests", f"{package}/py.typed", f"{package}/_version.py", f"{package}/__init__.py"):
        assert (dist / path).exists(), f"{dist.name} lacks {path}"
    if dist in PLUGINS:
        assert (dist / package / "plugin.py").exists() and (dist / package / "_backend.py").exists()
        assert "bk.backends" in project["project"]["entry-points"]
        assert any(d.startswith("bk-core") for d in project["project"]["dependencies"])


@pytest.mark.slow
@pytest.mark.parametrize("plugin", [p for p in PLUGINS if p.name != "bk-numpy"], ids=lambda d: d.name)
def test_installing_a_plugin_installs_no_other_framework(plugin: Path, tmp_path: Path):
    """`pip install ./core ./plugins/bk-X` into a fresh environment resolves only X's framework."""
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-build-isolation", "--quiet",
               "--report", str(report), "-c", str(ROOT / "constraints.txt"), str(ROOT / "core"), *_first_party_dependencies(plugin), str(plugin)]
    subprocess.run(command, check=True, capture_output=True, text=True)
    installed = {item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]}
    own = plugin.name.removeprefix("bk-")
    others = {name for name in installed if FRAMEWORKS.get(name, own) != own}
    assert not others, f"installing {plugin.name} would also install {sorted(others)}"
    assert "bk-core" in installed


def _first_party_dependencies(plugin: Path) -> list[str]:
    """The repository's own plugins that `plugin` depends on (bk-dask runs bk-numpy on its blocks),
    given to pip as local paths: they are not on a package index."""
    requirements = tomllib.loads((plugin / "pyproject.toml").read_text())["project"]["dependencies"]
    names = [r.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip() for r in requirements]
    return [str(ROOT / "plugins" / n) for n in names if n != "bk-core" and (ROOT / "plugins" / n).is_dir()]

