"""The public surface of `bk`: complete, sorted, and reporting `bk` as its module."""

from __future__ import annotations

import subprocess
import sys

import bk


def test_all_is_sorted_and_complete():
    assert bk.__all__ == sorted(bk.__all__)
    public = {name for name in dir(bk) if not name.startswith("_")}  # dir() includes what loads on first use
    assert public == set(bk.__all__) - {"__version__"}
    assert all(hasattr(bk, name) for name in bk.__all__)


def test_profiling_loads_on_first_use():
    code = "import sys, bk; assert 'bk._profile' not in sys.modules; bk.profile; assert 'bk._profile' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_listing_backends_loads_neither_the_backend_base_class_nor_info_objects_convert_json_or_plugin_versions():
    code = (
        "import sys, bk; bk.backends(); "
        "loaded = [m for m in sys.modules if m in ('bk._info', 'bk._object', 'bk._convert', 'bk._backend', 'bk._dtype', 'bk._device', 'bk._solve', 'json') or m.startswith('bk_') and m.endswith('._version')]; "
        "assert not loaded, loaded; "
        "from bk import OBJECTS, info; import bk_numpy; "
        "assert info().__class__ is bk.Info and OBJECTS.name == 'object' and bk_numpy.__version__ and bk.OBJECTS is OBJECTS"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_public_classes_report_bk_as_module_when_loaded_before_bk_names_them():
    code = (
        "from bk._backend import Backend; from bk._dtype import DType, combine_types; from bk._device import ComputeDevice; "
        "from bk._solve import SolveResult; "
        "assert {o.__module__ for o in (Backend, DType, combine_types, ComputeDevice, SolveResult)} == {'bk'}; "
        "import bk; assert bk.Backend is Backend and bk.DType is DType and 'Backend' in dir(bk)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_public_objects_report_bk_as_module():
    for name in bk.__all__:
        obj = getattr(bk, name)
        if isinstance(obj, type) or (callable(obj) and hasattr(obj, "__qualname__")):
            assert obj.__module__ == "bk", name


def test_hookspecs_are_public():
    assert callable(bk.hookspecs.bk_backends) and callable(bk.hookspecs.bk_convert)


def test_import_bk_imports_no_framework_and_does_not_discover():
    code = "import sys, bk; assert not [m for m in ('torch', 'jax', 'tensorflow', 'scipy') if m in sys.modules]; assert not bk._plugins.REGISTRY.discovered"
    subprocess.run([sys.executable, "-c", code], check=True)
