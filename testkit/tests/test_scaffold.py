"""`testkit new`: the generated plugin distribution, its checks of names, and a real install and certify."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

import pytest

import bk
from bk_testkit import check_backend
from bk_testkit._cli import main
from bk_testkit._scaffold import ScaffoldError, feature_topics, framework_distribution, render, scaffold, validate

ROOT = pathlib.Path(__file__).resolve().parents[2]
REQUIRED = ("is_tensor", "as_tensor", "is_available", "numpy", "dtype", "staticshape", "cast")
FILES = {
    "pyproject.toml",
    "README.md",
    "CHANGELOG.md",
    ".gitignore",
    "src/bk_tkscaffold/__init__.py",
    "src/bk_tkscaffold/plugin.py",
    "src/bk_tkscaffold/_backend.py",
    "src/bk_tkscaffold/_version.py",
    "src/bk_tkscaffold/py.typed",
    "tests/test_plugin.py",
    "tests/test_conformance.py",
    "tests/conftest.py",
    ".github/workflows/certify.yml",
}
_TODO_LINE = re.compile(r"^#   (\w+) ", re.MULTILINE)


def todo_features(backend_source: str) -> list[str]:
    """The feature ids of the TODO list at the end of a generated `_backend.py`."""
    return _TODO_LINE.findall(backend_source.split("TODO: optional features", 1)[1])


def minor_range() -> str:
    major, minor = bk.__version__.split(".")[:2]
    return f">={major}.{minor},<{major}.{int(minor) + 1}"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    parent = tmp_path_factory.mktemp("generated")
    scaffold("tkscaffold", parent=parent)
    return parent / "bk-tkscaffold"


@pytest.fixture(scope="module")
def backend(generated: pathlib.Path) -> bk.Backend:
    """The generated backend class, imported from its file and instantiated."""
    spec = importlib.util.spec_from_file_location("tkscaffold_generated_backend", generated / "src/bk_tkscaffold/_backend.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    instance: bk.Backend = module.TkscaffoldBackend()
    return instance


# ---------------------------------------------------------------- the generated files


def test_layout_is_that_of_a_first_party_plugin(generated: pathlib.Path) -> None:
    files = {p.relative_to(generated).as_posix() for p in generated.rglob("*") if p.is_file()}
    assert files == FILES


def test_pyproject_declares_entry_point_core_range_and_version(generated: pathlib.Path) -> None:
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((generated / "pyproject.toml").read_text())
    assert project["project"]["name"] == "bk-tkscaffold"
    assert project["project"]["entry-points"]["bk.backends"] == {"tkscaffold": "bk_tkscaffold.plugin"}
    assert f"bk-core{minor_range()}" in project["project"]["dependencies"]
    assert project["tool"]["hatch"]["version"]["path"] == "src/bk_tkscaffold/_version.py"
    assert project["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["src/bk_tkscaffold"]


def test_plugin_owns_no_types_and_pins_the_api(generated: pathlib.Path) -> None:
    plugin = (generated / "src/bk_tkscaffold/plugin.py").read_text()
    assert "modules=()," in plugin  # NumPy arrays stay bk-numpy's
    assert f"api={bk.API_VERSION}," in plugin  # a literal: a core with another API skips the plugin
    assert 'load="bk_tkscaffold._backend:TkscaffoldBackend"' in plugin


def test_workflow_certifies_and_uploads_the_report(generated: pathlib.Path) -> None:
    workflow = (generated / ".github/workflows/certify.yml").read_text()
    assert "testkit certify tkscaffold --json certify.json" in workflow
    assert "actions/upload-artifact" in workflow


def test_workflow_installs_bk_from_one_variable_before_the_test_extra(tmp_path: pathlib.Path) -> None:
    """While bk is not on an index, BK_SOURCE (a git URL or a checkout) provides bk-core, bk-numpy and bk-testkit."""
    scaffold("tkgit", parent=tmp_path, bk_source="git+https://example.org/bk.git@main")
    workflow = (tmp_path / "bk-tkgit/.github/workflows/certify.yml").read_text()
    assert 'BK_SOURCE: "git+https://example.org/bk.git@main"' in workflow
    install = workflow.index("Install bk from BK_SOURCE")
    assert install < workflow.index('pip install ".[test]"')
    for distribution, folder in (("bk-core", "core"), ("bk-numpy", "plugins/bk-numpy"), ("bk-testkit", "testkit")):
        assert f'"{distribution} @ $BK_SOURCE#subdirectory={folder}"' in workflow  # a git URL
        assert f'"$BK_SOURCE/{folder}"' in workflow  # a path to a checkout
    for folder in ("core", "plugins/bk-numpy", "testkit"):
        assert (ROOT / folder / "pyproject.toml").is_file()  # the subdirectories the workflow names exist
    scaffold("tkplain", parent=tmp_path, bk_source="")
    assert 'BK_SOURCE: ""' in (tmp_path / "bk-tkplain/.github/workflows/certify.yml").read_text()
    readme = (tmp_path / "bk-tkplain/README.md").read_text()
    assert "BK_SOURCE" in readme and "pip install ./core ./plugins/bk-numpy ./testkit" in readme


def test_workflow_steps_run_in_a_shell(tmp_path: pathlib.Path) -> None:
    """The install step's shell code, run with pip replaced by echo, picks the form that fits BK_SOURCE."""
    scaffold("tkshell", parent=tmp_path, bk_source="")
    workflow = (tmp_path / "bk-tkshell/.github/workflows/certify.yml").read_text()
    script = workflow.split("run: |\n", 1)[1].split("      - name:", 1)[0]
    for source, expected in (("git+https://example.org/bk.git", "bk-testkit @ git+https://example.org/bk.git#subdirectory=testkit"), ("/src/bk", "/src/bk/testkit")):
        result = subprocess.run(["sh", "-c", "pip() { echo \"$@\"; }\n" + script], env={"BK_SOURCE": source, "PATH": os.environ["PATH"]}, capture_output=True, text=True)
        assert result.returncode == 0 and expected in result.stdout, result.stdout + result.stderr


def test_new_takes_the_distribution_name_and_a_bk_source(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "bk-tk-dist", "--bk-source", "/checkout/bk"]) == 0
    assert (tmp_path / "bk-tk-dist/src/bk_tk_dist/plugin.py").is_file()
    assert 'BK_SOURCE: "/checkout/bk"' in (tmp_path / "bk-tk-dist/.github/workflows/certify.yml").read_text()


@pytest.mark.parametrize("name", ["bk-paddle", "paddle"])
def test_the_folder_is_named_after_the_distribution_never_the_framework(
    name: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder `paddle/` in the working directory would shadow `import paddle` (issue 24)."""
    monkeypatch.chdir(tmp_path)
    assert main(["new", name]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["bk-paddle"]
    assert (tmp_path / "bk-paddle/src/bk_paddle/_backend.py").is_file()
    out = capsys.readouterr().out
    assert "in bk-paddle/:" in out and "pip install -e './bk-paddle[test]'" in out and "testkit certify paddle" in out


_WARNING_FRAMEWORK = """
import warnings
warnings.warn("tkwarnfw.old is deprecated", DeprecationWarning)  # located in tkwarnfw
warnings.warn("importing tkwarnfw this way is deprecated", DeprecationWarning, stacklevel=2)  # located at the importer
"""
_WARNING_TESTS = """
import warnings

import pytest


def test_the_framework_imports():
    import tkwarnfw  # noqa: F401


def test_a_warning_of_the_plugins_own_code_is_still_an_error():
    with pytest.raises(UserWarning):
        warnings.warn("the plugin's own", UserWarning)
"""


def test_the_frameworks_import_warnings_are_not_fatal_but_the_plugins_are(tmp_path: pathlib.Path) -> None:
    """filterwarnings = error stays for the plugin's code; the framework's import-time warnings are ignored (issue 24)."""
    files = render(validate("tkwarn", framework="tkwarnfw"))
    root = tmp_path / "bk-tkwarn"
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    (tmp_path / "fw").mkdir()
    (tmp_path / "fw/tkwarnfw.py").write_text(_WARNING_FRAMEWORK)
    (root / "tests/test_framework_warnings.py").write_text(_WARNING_TESTS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(tmp_path / "fw")])}

    def pytest_run() -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_framework_warnings.py"]
        return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)

    assert '"ignore:::tkwarnfw(\\\\.|$)",' in files["pyproject.toml"]
    result = pytest_run()
    assert result.returncode == 0 and "2 passed" in result.stdout, result.stdout + result.stderr
    (root / "tests/conftest.py").unlink()  # the warning located at the importer then escapes the pyproject filter
    result = pytest_run()
    assert "1 failed, 1 passed" in result.stdout and "importing tkwarnfw this way is deprecated" in result.stdout, result.stdout


def test_templates_and_plugin_author_docs_use_only_public_bk_names() -> None:
    """What the scaffold and the tutorial show a plugin author is public API (issue 24): no `bk._module`."""
    templates = sorted((ROOT / "testkit/src/bk_testkit/templates").iterdir())
    pages = [ROOT / p for p in ("docs/write-a-plugin.md", "docs/certify-in-ci.md", "testkit/README.md")]
    for path in [*templates, *pages]:
        private = re.findall(r"\bbk\._\w+", path.read_text())
        assert not private, f"{path.relative_to(ROOT)} names private modules {private}"
    tutorial = (ROOT / "docs/write-a-plugin.md").read_text()
    assert "(semantics.md)" in tutorial
    for name in ("normalize_axis", "normalize_axes", "check_tensor_argument", "reraise_as", "BK_ERRORS"):
        assert f"bk.{name}" in tutorial, name
    assert "unsupported_dtypes" in tutorial
    assert "float16_supported" not in tutorial and "bfloat16_supported" not in tutorial


def test_generated_code_passes_ruff_with_the_repository_settings(generated: pathlib.Path) -> None:
    ruff = shutil.which("ruff", path=str(pathlib.Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    result = subprocess.run([ruff, "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(generated)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_backend_claims_the_required_set_and_nothing_in_its_todo_list(generated: pathlib.Path, backend: bk.Backend) -> None:
    todo = todo_features((generated / "src/bk_tkscaffold/_backend.py").read_text())
    unclaimed = [f for f in bk.Backend.features() if not backend.supports(f)]
    assert sorted(todo) == sorted(unclaimed)
    assert len(todo) == len(set(todo))
    assert all(backend.supports(f) for f in REQUIRED)
    readme = (generated / "README.md").read_text()
    claimed = len(bk.Backend.features()) - len(unclaimed)
    assert f"{claimed} of the {len(bk.Backend.features())} features" in readme


def test_required_set_conforms(backend: bk.Backend) -> None:
    result = check_backend(backend, features=[*REQUIRED, "float64"])
    assert sorted(result.with_status("certified")) == sorted([*REQUIRED, "float64"])


def test_every_feature_has_one_topic() -> None:
    topics = feature_topics()
    listed = [f for features in topics.values() for f in features]
    assert sorted(listed) == sorted(bk.Backend.features())
    assert {"creation", "reductions", "linear algebra", "sparse"} <= set(topics)
    assert "sum" in topics["reductions"]
    assert list(topics)[-1] == "capabilities"


def test_framework_sets_modules_and_the_dependency_on_its_distribution() -> None:
    files = render(validate("tkframed", framework="yaml"))  # the module yaml comes from the distribution PyYAML
    assert '"PyYAML",' in files["pyproject.toml"]
    assert 'modules=("yaml",),' in files["src/bk_tkframed/plugin.py"]
    assert "`yaml`" in files["README.md"]
    assert "'yaml'" in files["tests/test_plugin.py"]  # the entry point must not import the framework


def test_framework_dist_names_the_dependency_apart_from_the_module() -> None:
    """A module named otherwise than its distribution (paddle from paddlepaddle) gets the right dependency (issue 39)."""
    files = render(validate("tkdist", framework="tkmodule", framework_dist="tk-module-dist"))
    assert '"tk-module-dist",' in files["pyproject.toml"] and '"tkmodule",' not in files["pyproject.toml"]
    assert 'modules=("tkmodule",),' in files["src/bk_tkdist/plugin.py"]
    assert 'framework="tk-module-dist"' in files["src/bk_tkdist/plugin.py"]
    with pytest.raises(ScaffoldError, match="--framework-dist takes a distribution name"):
        validate("tkdist", framework="tkmodule", framework_dist="not a name")
    with pytest.raises(ScaffoldError, match="give --framework MODULE too"):
        validate("tkdist", framework_dist="tk-module-dist")


@pytest.mark.parametrize(("module", "distribution"), [("paddle", "paddlepaddle"), ("sklearn", "scikit-learn"), ("PIL", "pillow"), ("tknotinstalled", "tknotinstalled")])
def test_a_framework_that_is_not_installed_depends_on_its_known_distribution(module: str, distribution: str) -> None:
    if importlib.util.find_spec(module) is not None:
        pytest.skip(f"{module} is installed here")
    assert framework_distribution(module) == distribution


# ---------------------------------------------------------------- the command line and its errors


def test_cli_creates_the_folder_and_says_what_next(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "tkscaffold", "--framework", "tknotinstalled"]) == 0
    out = capsys.readouterr().out
    assert "pip install -e './bk-tkscaffold[test]'" in out and "testkit certify tkscaffold" in out
    assert "tknotinstalled is not installed here" in out and "--framework-dist" in out
    assert '"tknotinstalled",' in (tmp_path / "bk-tkscaffold/pyproject.toml").read_text()


def test_cli_takes_the_frameworks_distribution(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", "tkdistcli", "--framework", "tknotinstalled", "--framework-dist", "tk-real-dist"]) == 0
    assert "is not installed here" not in capsys.readouterr().out
    assert '"tk-real-dist",' in (tmp_path / "bk-tkdistcli/pyproject.toml").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["MyLib"], "invalid backend name 'MyLib'"),
        (["my-lib"], "invalid backend name"),
        (["1lib"], "invalid backend name"),
        (["class"], "no Python keyword"),
        (["numpy"], "a backend named 'numpy' is already installed"),
        (["testkit"], "a module named 'bk_testkit' is already installed"),
        (["core"], "a distribution named 'bk-core' is already installed"),
        (["tkscaffold", "--framework", "numpy"], "the types of 'numpy' belong to the installed backend 'numpy'"),
        (["tkscaffold", "--framework", "scipy.sparse"], "top-level module"),
        ([], "required: NAME"),
    ],
)
def test_bad_names_exit_2_and_create_nothing(
    args: list[str], message: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["new", *args]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_existing_folder_exits_2_and_is_left_alone(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bk-tkscaffold").mkdir()
    (tmp_path / "bk-tkscaffold/keep.txt").write_text("mine")
    assert main(["new", "tkscaffold"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "bk-tkscaffold").iterdir()] == ["keep.txt"]


# ---------------------------------------------------------------- a real install into a fresh virtual environment


def _fresh_venv(root: pathlib.Path) -> pathlib.Path:
    """A virtual environment that sees the dev environment's packages (numpy, pytest, bk-core, ...) after its own."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True)
    dev_site = sysconfig.get_paths()["purelib"]
    (pathlib.Path(site.stdout.strip()) / "_bk_dev_environment.pth").write_text(f"import site; site.addsitedir({dev_site!r})\n")
    return python


def _run(python: pathlib.Path, *args: str, cwd: pathlib.Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("BK_")}
    env["BK_STRICT_PLUGINS"] = "1"  # as in the generated CI workflow
    return subprocess.run([str(python), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_generated_plugin_installs_with_pip_and_certifies(tmp_path: pathlib.Path) -> None:
    python = _fresh_venv(tmp_path / "venv")
    pip = ("-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "--disable-pip-version-check", "-q")
    testkit = ("-c", "import sys; from bk_testkit._cli import main; sys.exit(main())")
    # The testkit from a wheel, so that the templates must be packaged; then `testkit new` from it.
    installed = _run(python, *pip, str(ROOT / "testkit"), cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr
    where = _run(python, "-c", "import bk_testkit; print(bk_testkit.__file__)", cwd=tmp_path)
    assert pathlib.Path(where.stdout.strip()).resolve().is_relative_to((tmp_path / "venv").resolve()), where.stdout + where.stderr
    for args in (["tkscaffold"], ["tkframed", "--framework", "tkfakeframework"]):
        new = _run(python, *testkit, "new", *args, cwd=tmp_path)
        assert new.returncode == 0, new.stdout + new.stderr
        installed = _run(python, *pip, f"./bk-{args[0]}", cwd=tmp_path)  # pip install ./bk-NAME
        assert installed.returncode == 0, installed.stdout + installed.stderr

    # the [test] extra resolves without an index once bk-core and bk-testkit are installed (as the CI's BK_SOURCE step does)
    with_extra = _run(python, *[a for a in pip if a != "--no-deps"], "./bk-tkscaffold[test]", cwd=tmp_path)
    assert with_extra.returncode == 0, with_extra.stdout + with_extra.stderr

    certify = _run(python, *testkit, "certify", "tkscaffold", "tkframed", "--json", "report.json", cwd=tmp_path)
    assert certify.returncode == 0, certify.stdout + certify.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    for name in ("tkscaffold", "tkframed"):
        entry = report["backends"][name]
        assert (entry["distribution"], entry["version"]) == (f"bk-{name}", "0.1.0")
        features = entry["features"]
        assert all(features[f]["status"] == "certified" for f in REQUIRED)
        assert not [f for f, r in features.items() if r["status"] == "failed"]
        assert {r["status"] for r in features.values() if r["claimed"]} == {"certified"}
        todo = todo_features((tmp_path / f"bk-{name}" / f"src/bk_{name}/_backend.py").read_text())
        assert sorted(todo) == sorted(f for f, r in features.items() if not r["claimed"])

    tests = _run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=tmp_path / "bk-tkscaffold")
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "4 passed" in tests.stdout
