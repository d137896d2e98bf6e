"""Plugin discovery with real throw-away plugins: every failure stays with its plugin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import bk

BROKEN_IMPORT = "raise ImportError('this plugin is broken on purpose')\n"
HOOK_RAISES = """
import bk

@bk.hookimpl
def bk_backends():
    raise RuntimeError("hook failed on purpose")
"""
MISSING_LOAD = """
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="ghost", modules=("ghostlib",), load="ghost_backend_missing:GhostBackend", priority=10)]
"""
NOT_A_BACKEND = """
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="notabackend", modules=("nab",), load="collections:OrderedDict", priority=10)]
"""


def problems() -> list[str]:
    return [p["reason"] for p in bk.info()["problems"]]


def test_fake_plugin_is_discovered_and_loaded_lazily(site):
    site.fake_framework("fakea")
    assert site.activate("fakea") == ["fakea"]
    assert "fakea_backend" not in sys.modules  # listing loads nothing
    backend = bk.backend("fakea")
    assert backend.name == "fakea" and isinstance(backend, bk.Backend)
    assert bk.backend("fakea") is backend
    report = bk.info()
    assert report["backends"][0]["distribution"] == "bk-fakea"
    assert report["backends"][0]["loaded"] is True


def test_plugin_that_fails_to_import_is_skipped_with_a_warning(site):
    site.fake_framework("fakea")
    site.module("broken_plugin", BROKEN_IMPORT)
    site.distribution("bk-broken", {"broken": "broken_plugin"})
    with pytest.warns(bk.PluginWarning, match=r"bk-broken.*broken on purpose"):
        names = site.activate("fakea", "broken")
    assert names == ["fakea"]
    assert bk.backend("fakea").name == "fakea"
    assert any("broken on purpose" in reason for reason in problems())


def test_hook_that_raises_is_skipped(site):
    site.fake_framework("fakea")
    site.module("broken_hook", HOOK_RAISES)
    site.distribution("bk-brokenhook", {"brokenhook": "broken_hook"})
    with pytest.warns(bk.PluginWarning, match=r"bk-brokenhook.*hook failed on purpose"):
        names = site.activate("fakea", "brokenhook")
    assert names == ["fakea"]


def test_incompatible_api_is_skipped(site):
    site.fake_framework("fakea")
    site.fake_framework("fakefuture", api=bk.API_VERSION + 1)
    with pytest.warns(bk.PluginWarning, match=r"bk-fakefuture.*API 2"):
        names = site.activate("fakea", "fakefuture")
    assert names == ["fakea"]


def test_duplicate_name_is_skipped_and_the_first_wins(site):
    site.fake_framework("fakea")
    # a second distribution that reuses the backend name 'fakea'
    site.module("dup_plugin", PLUGIN_DUP)
    site.distribution("zz-impostor", {"impostor": "dup_plugin"})
    with pytest.warns(bk.PluginWarning, match=r"zz-impostor.*already provided by distribution 'bk-fakea'"):
        names = site.activate("fakea", "impostor")
    assert names == ["fakea"]
    assert bk.info()["backends"][0]["distribution"] == "bk-fakea"


PLUGIN_DUP = """
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="fakea", modules=("fakea",), load="nowhere:Nothing", priority=10)]
"""


def test_plugin_reusing_the_name_numpy_is_skipped(site):
    site.module("numpy_plugin", NUMPY_PLUGIN.format(load="fakea_backend:FakeBackend"))
    site.fake_framework("fakea")
    site.distribution("bk-numpy-original", {"fakenumpy": "numpy_plugin"})
    site.module("impostor_plugin", NUMPY_PLUGIN.format(load="nowhere:Nothing"))
    site.distribution("zz-evil-numpy", {"evilnumpy": "impostor_plugin"})
    with pytest.warns(bk.PluginWarning, match=r"zz-evil-numpy.*'numpy' is already provided by distribution 'bk-numpy-original'"):
        names = site.activate("fakenumpy", "evilnumpy")
    assert names == ["numpy"]
    assert next(b for b in bk.info()["backends"] if b["name"] == "numpy")["distribution"] == "bk-numpy-original"


NUMPY_PLUGIN = """
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="numpy", modules=("numpy",), load="{load}", priority=0)]
"""


def test_missing_load_target_fails_only_that_backend(site):
    site.fake_framework("fakea")
    site.module("ghost_plugin", MISSING_LOAD)
    site.distribution("bk-ghost", {"ghost": "ghost_plugin"})
    assert site.activate("fakea", "ghost") == ["fakea", "ghost"]
    with pytest.raises(bk.PluginError, match=r"'ghost' of distribution 'bk-ghost' failed to load.*ghost_backend_missing"):
        bk.backend("ghost")
    assert bk.backend("fakea").name == "fakea"
    ghost = next(b for b in bk.info()["backends"] if b["name"] == "ghost")
    assert ghost["loaded"] is False and "ghost_backend_missing" in ghost["error"]


def test_load_target_that_is_not_a_backend(site):
    site.module("nab_plugin", NOT_A_BACKEND)
    site.distribution("bk-nab", {"nab": "nab_plugin"})
    site.activate("nab")
    with pytest.raises(bk.PluginError, match="not a bk.Backend"):
        bk.backend("notabackend")


def test_strict_mode_turns_warnings_into_errors(site, monkeypatch):
    site.module("broken_plugin", BROKEN_IMPORT)
    site.distribution("bk-broken", {"broken": "broken_plugin"})
    monkeypatch.setenv("BK_STRICT_PLUGINS", "1")
    with pytest.raises(bk.PluginError, match="bk-broken"):
        site.activate("broken")
    monkeypatch.delenv("BK_STRICT_PLUGINS")


def test_block_list_skips_named_plugins(site, monkeypatch):
    site.fake_framework("fakea")
    site.fake_framework("fakeb")
    monkeypatch.setenv("BK_BLOCK_PLUGINS", "fakeb")
    assert site.activate("fakea", "fakeb") == ["fakea"]


def test_unknown_names_in_variables_warn_but_never_fail(site, monkeypatch):
    site.fake_framework("fakea")
    monkeypatch.setenv("BK_BLOCK_PLUGINS", "nosuchplugin")
    with pytest.warns(bk.PluginWarning, match="BK_BLOCK_PLUGINS names 'nosuchplugin'"):
        assert site.activate("fakea") == ["fakea"]


def test_default_backend_from_environment(site, monkeypatch):
    site.fake_framework("fakea")
    site.fake_framework("fakeb")
    site.activate("fakea", "fakeb")
    monkeypatch.setenv("BK_DEFAULT_BACKEND", "fakeb")
    assert bk.default_backend().name == "fakeb"


def test_unknown_default_backend_warns(site, monkeypatch):
    site.fake_framework("fakea")
    site.activate("fakea")
    monkeypatch.setenv("BK_DEFAULT_BACKEND", "fakeaa")
    with pytest.warns(bk.PluginWarning, match="Did you mean 'fakea'"), pytest.raises(bk.NoBackendFound, match="was not loaded: BK_DISABLE_PLUGIN_AUTOLOAD is set") as raised:
        bk.default_backend()
    assert "BK_PLUGINS=fakea,numpy" in str(raised.value) and "pip install" not in str(raised.value)


def test_refresh_picks_up_plugins_installed_later(site, monkeypatch):
    site.fake_framework("fakea")
    site.activate("fakea")
    assert bk.backends() == ["fakea"]
    site.fake_framework("fakeb")
    monkeypatch.setenv("BK_PLUGINS", "fakea,fakeb")
    assert bk.backends() == ["fakea"]
    assert bk.refresh() == ["fakea", "fakeb"]


def test_installing_a_backend_does_not_change_the_default(site, monkeypatch):
    site.fake_framework("fakea")
    site.activate("fakea")
    bk.set_global_default_backend("fakea")
    site.fake_framework("fakeb", priority=100)
    monkeypatch.setenv("BK_PLUGINS", "fakea,fakeb")
    bk.refresh()
    assert bk.default_backend().name == "fakea"


def test_unknown_backend_name_lists_installed_and_close_matches(site):
    site.fake_framework("fakea")
    site.activate("fakea")
    with pytest.raises(ValueError, match=r"no backend named 'fakeaa'; installed: fakea\. Did you mean 'fakea'\?.*third-party plugin") as raised:
        bk.backend("fakeaa")
    assert "bk-NAME" not in str(raised.value)


def test_backend_spec_validates_its_fields():
    with pytest.raises(ValueError, match="identifier"):
        bk.BackendSpec(name="my backend", modules=("x",), load="x:Y")
    with pytest.raises(ValueError, match="tuple of module names"):
        bk.BackendSpec(name="x", modules="x", load="x:Y")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="package.module:ClassName"):
        bk.BackendSpec(name="x", modules=("x",), load="x.Y")


def test_backend_spec_is_a_frozen_value():
    import copy
    import dataclasses
    import pickle

    spec = bk.BackendSpec("x", ["x", "y"], "x:Y", priority=10, description="d")  # type: ignore[arg-type]
    assert spec.modules == ("x", "y") and spec.api == bk.API_VERSION and spec.framework is None and spec.features is None
    same = bk.BackendSpec(name="x", modules=("x", "y"), load="x:Y", priority=10, api=bk.API_VERSION, description="d")
    assert spec == same and hash(spec) == hash(same) and len({spec, same}) == 1
    assert spec != bk.BackendSpec("x", ("x", "y"), "x:Y", priority=0, description="d") and spec != ("x", ("x", "y"))
    assert repr(spec) == "BackendSpec(name='x', modules=('x', 'y'), load='x:Y', priority=10, api=1, description='d', framework=None, features=None)"
    assert pickle.loads(pickle.dumps(spec)) == spec and copy.deepcopy(spec) == spec
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "z"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del spec.load
    match spec:
        case bk.BackendSpec(name, modules, load):
            assert (name, modules, load) == ("x", ("x", "y"), "x:Y")


def test_bk_convert_hook_is_a_fast_path(site):
    site.fake_framework("fakea")
    site.fake_framework("fakeb")
    site.module("convert_plugin", CONVERT_HOOK)
    site.distribution("bk-fastconvert", {"fastconvert": "convert_plugin"})
    site.activate("fakea", "fakeb", "fastconvert")
    import fakea

    result = bk.convert(fakea.Tensor(np.arange(3)), bk.backend("fakeb"))
    assert getattr(result, "converted_by_hook", False)


CONVERT_HOOK = """
import bk

@bk.hookimpl
def bk_convert(tensor, source, target):
    if source.name == "fakea" and target.name == "fakeb":
        result = target.as_tensor(source.numpy(tensor))
        result.converted_by_hook = True
        return result
    return None
"""


def test_python_m_bk_info_json_reports_everything(site):
    site.fake_framework("fakea")
    site.module("broken_plugin", BROKEN_IMPORT)
    site.distribution("bk-broken", {"broken": "broken_plugin"})
    env = {**os.environ, "PYTHONPATH": str(site.path), "BK_DISABLE_PLUGIN_AUTOLOAD": "1", "BK_PLUGINS": "fakea,broken"}
    result = subprocess.run([sys.executable, "-W", "ignore", "-m", "bk", "info", "--json"], capture_output=True, text=True, check=True, env=env)
    report = json.loads(result.stdout)
    assert report["core"] == bk.__version__
    (fakea,) = report["backends"]
    assert fakea["name"] == "fakea" and fakea["distribution"] == "bk-fakea" and fakea["version"] == "1.0"
    assert fakea["loaded"] is True and fakea["devices"][0]["type"] == "CPU"
    assert report["problems"][0]["distribution"] == "bk-broken"
    text = subprocess.run([sys.executable, "-W", "ignore", "-m", "bk", "info"], capture_output=True, text=True, check=True, env=env).stdout
    assert "fakea" in text and "bk-broken" in text and "broken on purpose" in text


def test_many_plugins_are_discovered_without_loading_any(site):
    names = []
    for i in range(30):
        name = f"fakemany{i}"
        site.module(f"{name}_plugin", MANY.format(name=name))
        site.distribution(f"bk-{name}", {name: f"{name}_plugin"})
        names.append(name)
    assert site.activate(*names) == sorted(names)
    assert not any(m.endswith("_never_imported") for m in sys.modules)


MANY = """
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="{name}", modules=("{name}",), load="{name}_never_imported:B", priority=10)]
"""


FRAMEWORK_PLUGIN = '''
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="fakefw", modules=("fakefwmod", "fakehelper"), load="fakefw_backend:FakeBackend", priority=10, api=bk.API_VERSION)]
'''


def test_info_names_the_framework_version_of_the_distribution_that_provides_its_module(site):
    """Like tensorflow-cpu providing `tensorflow`: the version comes from the distribution of the module."""
    site.module("fakefw_plugin", FRAMEWORK_PLUGIN)
    site.distribution("bk-fakefw", {"fakefw": "fakefw_plugin"})
    for dist, version, module in (("fakefwmod-cpu", "2.5", "fakefwmod"), ("fakehelper", "9.9", "fakehelper")):
        info = site.path / f"{dist.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        (info / "top_level.txt").write_text(f"{module}\n")
    site.activate("fakefw")
    (entry,) = [b for b in bk.info()["backends"] if b["name"] == "fakefw"]
    assert entry["framework_version"] == "2.5" and not entry["loaded"]


RENAMED_HOOK = '''
import bk

@bk.hookimpl(specname="bk_backends")
def declare():
    return [bk.BackendSpec(name="fakerenamed", modules=("fakerenamed",), load="fakerenamed_backend:FakeBackend", priority=10, api=bk.API_VERSION)]
'''


def test_a_hook_implementation_renamed_with_specname_is_found(site):
    site.module("fakerenamed_plugin", RENAMED_HOOK)
    site.module("fakerenamed", "")
    site.distribution("bk-fakerenamed", {"fakerenamed": "fakerenamed_plugin"})
    assert "fakerenamed" in site.activate("fakerenamed")


# ---------------------------------------------------------------- one owner per name and per module, whatever the install order

DUPE = """
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="numpy", modules=("numpy",), load="dupe_missing_module:Nothing", priority=99)]
"""


def test_a_plugin_claiming_numpy_never_takes_it_over(site, monkeypatch):
    site.module("dupe_plugin", DUPE)
    site.distribution("bk-dupe", {"dupe": "dupe_plugin"})  # sorts before bk-numpy, and sits in front of it on sys.path
    monkeypatch.setenv("BK_PLUGINS", "dupe,numpy")
    with pytest.warns(bk.PluginWarning, match=r"'bk-dupe'.*name 'numpy' is already provided by distribution 'bk-numpy'.*named bk-numpy owns") as caught:
        names = bk.refresh()
    assert names == ["numpy"]
    assert [w.filename for w in caught] == [__file__] * len(caught)  # attributed to the caller, not to bk's internals
    backend = bk.choose_backend(np.zeros(2))
    assert backend.name == "numpy" and type(backend).__module__.startswith("bk_numpy")
    (problem,) = [p for p in bk.info()["problems"] if p["distribution"] == "bk-dupe"]
    assert "refused" in problem["reason"] and "bk-numpy" in problem["reason"]
    assert "bk-dupe" in str(bk.info()) and "refused" in str(bk.info())
    monkeypatch.setenv("BK_STRICT_PLUGINS", "1")
    with pytest.raises(bk.PluginError, match="bk-dupe.*BK_STRICT_PLUGINS"):
        bk.refresh()


MODULE_CLAIM = """
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="{name}", modules=("fakea",), load="fakea_backend:FakeBackend", priority=50)]
"""


@pytest.mark.parametrize("claimant", ["aaa-claims-fakea", "zzz-claims-fakea"])
def test_the_types_of_a_module_have_one_owner_whatever_the_names(site, claimant):
    site.fake_framework("fakea")
    site.module("claim_plugin", MODULE_CLAIM.format(name="claimer"))
    site.distribution(claimant, {"claimer": "claim_plugin"})
    with pytest.warns(bk.PluginWarning, match=rf"'{claimant}'.*module 'fakea', which belong to backend 'fakea' of distribution 'bk-fakea'"):
        assert site.activate("fakea", "claimer") == ["claimer", "fakea"]
    import fakea

    assert bk.choose_backend(fakea.Tensor(np.zeros(2))).name == "fakea"


def test_first_claim_in_the_order_of_distribution_names_wins(site):
    site.module("one_plugin", MODULE_CLAIM.format(name="shared"))
    site.module("two_plugin", MODULE_CLAIM.format(name="shared"))
    site.distribution("zz-second", {"two": "two_plugin"}, version="1.0")
    site.distribution("aa-first", {"one": "one_plugin"}, version="1.0")
    with pytest.warns(bk.PluginWarning, match=r"'zz-second'.*already provided by distribution 'aa-first'.*first, in the order of distribution names"):
        site.activate("one", "two")
    assert bk.info()["backends"][0]["distribution"] == "aa-first"


# ---------------------------------------------------------------- messages that say what happened


def test_a_blocked_backend_says_which_variable_blocks_it(site, monkeypatch):
    site.fake_framework("fakea")
    site.fake_framework("fakeb")
    monkeypatch.setenv("BK_BLOCK_PLUGINS", "fakeb")
    site.activate("fakea", "fakeb")
    with pytest.raises(ValueError, match=r"'fakeb' is not available: plugin 'fakeb' of distribution 'bk-fakeb' is blocked by BK_BLOCK_PLUGINS=fakeb"):
        bk.backend("fakeb")


def test_a_backend_not_autoloaded_says_how_to_allow_it(site):
    site.fake_framework("fakea")
    site.fake_framework("fakeb")
    site.activate("fakea")
    with pytest.raises(ValueError, match=r"not loaded: BK_DISABLE_PLUGIN_AUTOLOAD is set.*BK_PLUGINS=fakea,fakeb") as raised:
        bk.backend("fakeb")
    assert "pip install" not in str(raised.value)


def test_a_plugin_that_failed_says_why(site):
    site.module("broken_plugin", BROKEN_IMPORT)
    site.distribution("bk-broken", {"broken": "broken_plugin"})
    with pytest.warns(bk.PluginWarning):
        site.activate("broken")
    with pytest.raises(ValueError, match=r"'broken' is not available: .*bk-broken.*broken on purpose.*pip install --force-reinstall bk-broken"):
        bk.backend("broken")


def test_unknown_first_party_name_suggests_its_distribution():
    from bk._plugins import unknown_backend_message

    assert "To add it: pip install bk-torch" in unknown_backend_message("torch", ["numpy"])


def test_bk_plugins_without_disabling_autoload_warns_at_the_call_site(site, monkeypatch):
    site.fake_framework("fakea")
    monkeypatch.delenv("BK_DISABLE_PLUGIN_AUTOLOAD")
    monkeypatch.setenv("BK_PLUGINS", "fakea")
    monkeypatch.setenv("BK_BLOCK_PLUGINS", "numpy,torch,jax,tf,lazy,dask,arrayapi")  # keep the real plugins out
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        bk.refresh()
    messages = [str(w.message) for w in caught if issubclass(w.category, bk.PluginWarning)]
    assert any("BK_PLUGINS=fakea has no effect" in m and "BK_DISABLE_PLUGIN_AUTOLOAD=1" in m for m in messages), messages
    assert {w.filename for w in caught if issubclass(w.category, bk.PluginWarning)} == {__file__}


# ---------------------------------------------------------------- bk.info() and python -m bk


def test_info_prints_like_python_m_bk_info_and_keeps_the_data(site):
    site.fake_framework("fakea")
    site.activate("fakea")
    report = bk.info()
    assert isinstance(report, bk.Info) and isinstance(report, dict)
    text = str(report)
    assert text.startswith(f"bk-core {bk.__version__} on Python") and "fakea" in text and "bk-fakea 1.0" in text
    assert repr(report) == text
    data = report.to_dict()
    assert type(data) is dict and data["backends"][0]["name"] == "fakea" and data == report
    assert json.loads(report.to_json()) == json.loads(json.dumps(report)) == data


def test_python_m_bk_version():
    result = subprocess.run([sys.executable, "-m", "bk", "--version"], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == f"bk-core {bk.__version__}"


def test_unknown_first_party_name_names_the_checkout_folder(monkeypatch):
    from bk._plugins import unknown_backend_message

    monkeypatch.chdir(Path(bk.__file__).resolve().parents[3])  # the repository root of this checkout
    message = unknown_backend_message("torch", ["numpy"])
    assert "pip install bk-torch (from a package index)" in message
    assert "pip install ./plugins/bk-torch" in message


@pytest.mark.parametrize(("alias", "name"), [("tensorflow", "tf"), ("pytorch", "torch"), ("jax.numpy", "jax"), ("np", "numpy")])
def test_a_frameworks_own_name_names_the_backend_it_means(alias, name):
    from bk._plugins import unknown_backend_message

    message = unknown_backend_message(alias, ["numpy", "tf", "torch", "jax"])
    assert f"bk calls that backend {name!r}: bk.backend({name!r})" in message


def test_an_array_api_library_name_tells_how_to_declare_it():
    from bk._plugins import unknown_backend_message

    message = unknown_backend_message("array_api_strict", ["numpy"])
    assert "BK_ARRAYAPI=strict=array_api_strict" in message
    assert "force-reinstall" not in message
    assert "BK_ARRAYAPI" not in unknown_backend_message("os", ["numpy"])  # the standard library is no array library


def test_info_never_prints_negative_processor_counts():
    from bk._info import format_info

    device = {"type": "CPU", "name": "graph", "memory": -1, "processor_count": -1}
    report = {"core": "0", "python": "3", "platform": "x", "backends": [
        {"name": "lazy", "distribution": "bk-lazy", "version": "1", "framework": "numpy", "framework_version": "2", "loaded": True, "error": None, "devices": [device]}
    ], "problems": []}
    text = format_info(report)
    assert "-1 processors" not in text and "processors n/a" in text

