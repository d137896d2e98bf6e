"""Declaring namespaces: `register()`, the `BK_ARRAYAPI` environment variable and the `bk.arrayapi` entry-point group."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import array_api_strict
import pytest

import bk
import bk_arrayapi
from bk_arrayapi._backend import ArrayAPIBackend


def _run(code: str, env: dict[str, str] | None = None) -> str:
    """Runs `code` in a fresh interpreter (environment variables and entry points are read at discovery)."""
    environment = {k: v for k, v in os.environ.items() if k != "BK_ARRAYAPI"}
    environment.update(env or {})
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def registered() -> Iterator[str]:
    bk_arrayapi.register("strict_test", "array_api_strict")
    try:
        yield "strict_test"
    finally:
        bk_arrayapi.unregister("strict_test")


def test_no_declaration_no_backend() -> None:
    out = _run("import json, bk, bk_arrayapi.plugin as p; print(json.dumps([p.bk_backends(), bk.backends()]))")
    specs, names = json.loads(out)
    assert specs == []
    assert "strict" not in names


def test_entry_point_module_imports_no_namespace() -> None:
    code = (
        "import sys, bk_arrayapi.plugin as p; specs = p.bk_backends(); "
        "print([s.name for s in specs], sorted(m for m in ('array_api_strict', 'array_api_compat', 'bk_arrayapi._backend') if m in sys.modules))"
    )
    assert _run(code, {"BK_ARRAYAPI": "strict=array_api_strict"}) == "['strict'] []"


def test_listing_backends_imports_no_namespace() -> None:
    code = "import sys, bk; names = bk.backends(); print('strict' in names, 'array_api_strict' in sys.modules, 'array_api_compat' in sys.modules)"
    assert _run(code, {"BK_ARRAYAPI": "strict=array_api_strict"}) == "True False False"


def test_register_in_process(registered: str) -> None:
    assert registered in bk.backends()
    backend = bk.backend(registered)
    assert isinstance(backend, ArrayAPIBackend)
    assert backend.name == registered and backend.xp is array_api_strict
    assert bk.choose_backend(array_api_strict.asarray([1.0])) is backend


def test_register_accepts_a_module_and_owns_its_types() -> None:
    bk_arrayapi.register("strict_module", array_api_strict)
    try:
        declared = bk_arrayapi.declarations()["strict_module"]
        assert declared.namespace == "array_api_strict" and declared.modules == ("array_api_strict",)
        assert bk.backend("strict_module").namespace == "array_api_strict"
    finally:
        bk_arrayapi.unregister("strict_module")
    assert "strict_module" not in bk.backends()
    with pytest.raises(bk.NoBackendFound):
        bk.choose_backend(array_api_strict.asarray([1.0]))


def test_array_api_compat_namespaces_own_the_wrapped_library() -> None:
    assert bk_arrayapi.plugin.owner_modules("array_api_compat.dask.array") == ("dask",)
    assert bk_arrayapi.plugin.owner_modules("array_api_strict") == ("array_api_strict",)
    assert bk_arrayapi.plugin.owner_modules("mlx.core") == ("mlx",)


@pytest.mark.parametrize("name", ["1abc", "with-dash", "_private", ""])
def test_register_refuses_bad_names(name: str) -> None:
    with pytest.raises(ValueError, match="identifier"):
        bk_arrayapi.register(name, "array_api_strict")


def test_environment_variable() -> None:
    code = (
        "import bk, array_api_strict as xp; b = bk.backend('envstrict'); "
        "print(type(b).__mro__[1].__name__, bk.choose_backend(xp.asarray([1])) is b, b.namespace)"
    )
    assert _run(code, {"BK_ARRAYAPI": " envstrict = array_api_strict "}) == "ArrayAPIBackend True array_api_strict"


def test_environment_variable_bad_entries_warn_and_are_skipped() -> None:
    code = (
        "import warnings, bk\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    names = bk.backends()\n"
        "print('good' in names, sum('BK_ARRAYAPI' in str(w.message) for w in caught), all(w.category is bk.PluginWarning for w in caught))"
    )
    assert _run(code, {"BK_ARRAYAPI": "good=array_api_strict,noequals,9bad=array_api_strict"}) == "True 2 True"


def test_a_namespace_that_cannot_be_imported_fails_only_when_used() -> None:
    code = (
        "import bk\nprint('nope' in bk.backends())\n"
        "try:\n    bk.backend('nope')\nexcept bk.PluginError as e:\n    print('PluginError', 'no_such_module_xyz' in str(e))"
    )
    assert _run(code, {"BK_ARRAYAPI": "nope=no_such_module_xyz"}) == "True\nPluginError True"


def test_entry_point_group(tmp_path: Path) -> None:
    """A library publishes its namespace with an entry point of the group `bk.arrayapi`."""
    info = tmp_path / "mylib_bk-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mylib-bk\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[bk.arrayapi]\nepstrict = array_api_strict\n")
    code = "import bk, bk_arrayapi; b = bk.backend('epstrict'); print(b.namespace, bk_arrayapi.declarations()['epstrict'].source)"
    path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    assert _run(code, {"PYTHONPATH": path}) == "array_api_strict distribution mylib-bk"


def test_later_declarations_win(tmp_path: Path) -> None:
    """Entry points, then BK_ARRAYAPI, then register(): the same name is the last one's."""
    info = tmp_path / "mylib_bk-1.0.dist-info"
    info.mkdir()
    (info / "entry_points.txt").write_text("[bk.arrayapi]\nsame = array_api_strict\n")
    code = (
        "import bk_arrayapi as a; print(a.declarations()['same'].namespace)\n"
        "a.register('same', 'array_api_compat.numpy'); print(a.declarations()['same'].namespace)"
    )
    path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    out = _run(code, {"PYTHONPATH": path, "BK_ARRAYAPI": "same=array_api_compat.torch"})
    assert out.splitlines() == ["array_api_compat.torch", "array_api_compat.numpy"]
