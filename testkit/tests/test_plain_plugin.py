"""A plain third-party plugin (bare NumPy calls, NumPy's own errors, no bk rule) certifies with 0 failed.

The plugin's files are in `plain_plugin/`; the core applies docs/semantics.md around its kernels
(the operation specs, through the one call path). A plugin that returns wrong values still fails, on
exactly those operations.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).parent / "plain_plugin"
BARE = pathlib.Path(__file__).parent / "bare_plugin"


def install(root: pathlib.Path, folder: pathlib.Path, name: str) -> pathlib.Path:
    """The plugin files of `folder` in `root`, installed there as the distribution `bk-NAME` (a
    `.dist-info` with its entry point), for a subprocess with `root` on its `PYTHONPATH`."""
    for source in folder.glob("*.py"):
        shutil.copy(source, root / source.name)
    info = root / f"bk_{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: bk-{name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[bk.backends]\n{name} = {name}_plugin\n")
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return install(tmp_path_factory.mktemp("plainsite"), HERE, "plain")


@pytest.fixture(scope="module")
def bare_site(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return install(tmp_path_factory.mktemp("baresite"), BARE, "bare")


def certify(site: pathlib.Path, name: str, *args: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    for variable in ("BK_DISABLE_PLUGIN_AUTOLOAD", "BK_PLUGINS", "BK_BLOCK_PLUGINS", "BK_STRICT_PLUGINS", "BK_ARRAYAPI"):
        environment.pop(variable, None)
    code = "import sys; from bk_testkit._cli import main; sys.exit(main())"
    result = subprocess.run([sys.executable, "-c", code, "certify", name, "--json", "-", *args], capture_output=True, text=True, env=environment, timeout=900)
    assert result.stdout.startswith("{"), result.stdout[:500] + result.stderr[-2000:]
    return result, json.loads(result.stdout)["backends"][name]["features"]


@pytest.mark.slow
def test_the_plain_plugin_certifies_with_no_failure(site):
    result, features = certify(site, "plain")
    failed = {f: r["failures"][:2] for f, r in features.items() if r["status"] == "failed"}
    assert result.returncode == 0 and not failed, (failed, result.stderr[-2000:])
    # the rules it never wrote, applied by the core: promotion, division by zero, error classes
    for feature in ("add", "div", "floordiv", "mod", "greater_than", "sum", "mean", "max", "where", "tensordot", "unravel_index", "as_tensor"):
        assert features[feature]["status"] == "certified", (feature, features[feature])


@pytest.mark.slow
def test_a_plain_plugin_with_wrong_values_fails_exactly_there(site):
    result, features = certify(site, "plainliar", "--features", "sum,cos,sin,add,mean")
    failed = sorted(f for f, r in features.items() if r["status"] == "failed")
    assert result.returncode == 1, result.stderr[-2000:]
    assert failed == ["cos", "sum"], {f: features[f]["failures"][:1] for f in failed}


@pytest.mark.slow
def test_a_bare_plugin_over_array_api_strict_certifies_with_no_failure(bare_site):
    """Bare array-api-strict calls that compute in whatever dtype they are given and check nothing: the
    core's one call path gives them every rule (the strict namespace refuses mixed dtypes, `mean` of
    ints, Python numbers of another kind with its own TypeError, so any rule the core left to the
    kernel would fail here)."""
    result, features = certify(bare_site, "bare")
    failed = {f: r["failures"][:2] for f, r in features.items() if r["status"] == "failed"}
    assert result.returncode == 0 and not failed, (failed, result.stderr[-2000:])
    for feature in ("add", "floordiv", "pow", "greater_than", "sum", "mean", "var", "cumsum", "matmul", "where", "tensordot", "abs", "sort"):
        assert features[feature]["status"] == "certified", (feature, features[feature])
