"""A plugin that fails to load says why: the original exception first, then advice that fits it (issue 24)."""

from __future__ import annotations

import warnings

import pytest

import bk

PLUGIN = """
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="{name}", modules=("{framework}",), load="{name}_backend:Backend", priority=10)]
"""
BACKEND = """
import {framework}

Backend = None
"""


def install(site, name: str, framework: str, framework_source: str | None) -> None:
    """A plugin `bk-NAME` whose backend module imports `framework` (not installed when its source is None)."""
    site.module(f"{name}_plugin", PLUGIN.format(name=name, framework=framework))
    site.module(f"{name}_backend", BACKEND.format(framework=framework))
    if framework_source is not None:
        site.module(framework, framework_source)
    site.distribution(f"bk-{name}", {name: f"{name}_plugin"})
    assert name in site.activate(name)


def load_error(name: str) -> str:
    with pytest.raises(bk.PluginError) as raised:
        bk.backend(name)
    return str(raised.value)


def test_a_frameworks_import_warning_made_fatal_names_the_warning_and_never_advises_a_reinstall(site):
    install(site, "fakewarn", "fakewarnfw", "import warnings\nwarnings.warn('fakewarnfw.old is deprecated', DeprecationWarning)\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # as pytest's filterwarnings = ["error"] does
        message = load_error("fakewarn")
    assert message.startswith("backend 'fakewarn' of distribution 'bk-fakewarn' failed to load: DeprecationWarning: fakewarnfw.old is deprecated")
    assert "inside 'fakewarnfw'" in message and "ignore::DeprecationWarning:fakewarnfw" in message and "catch_warnings" in message
    assert "force-reinstall" not in message


def test_a_framework_that_fails_to_import_is_named_and_never_advises_a_reinstall(site):
    install(site, "fakeboom", "fakeboomfw", "raise RuntimeError('no device library found')\n")
    message = load_error("fakeboom")
    assert message.startswith("backend 'fakeboom' of distribution 'bk-fakeboom' failed to load: RuntimeError: no device library found")
    assert "raised inside 'fakeboomfw', not by bk-fakeboom" in message and "python -c 'import fakeboomfw'" in message
    assert "force-reinstall" not in message


def test_a_missing_framework_says_to_install_it_through_the_extra_that_declares_it(site):
    install(site, "fakeextra", "fakemissingfw", None)
    metadata = site.path / "bk_fakeextra-1.0.dist-info" / "METADATA"
    metadata.write_text(metadata.read_text() + 'Provides-Extra: cpu\nRequires-Dist: fakemissingfw-cpu>=1; extra == "cpu"\n')
    message = load_error("fakeextra")
    assert message.startswith("backend 'fakeextra' of distribution 'bk-fakeextra' failed to load: ModuleNotFoundError: No module named 'fakemissingfw'")
    assert "'fakemissingfw', which is not installed here" in message and "pip install 'bk-fakeextra[cpu]'" in message
    assert "force-reinstall" not in message


def test_an_error_in_the_plugins_own_code_is_reported_as_its_own(site):
    site.module("fakeown_plugin", PLUGIN.format(name="fakeown", framework="fakeownfw"))
    site.module("fakeown_backend", "class Backend:\n    def __init__(self):\n        raise KeyError('device table')\n")
    site.distribution("bk-fakeown", {"fakeown": "fakeown_plugin"})
    site.activate("fakeown")
    message = load_error("fakeown")
    assert message.startswith("backend 'fakeown' of distribution 'bk-fakeown' failed to load: KeyError: 'device table'")
    assert "bk-fakeown's own code (fakeown_backend)" in message and "force-reinstall" not in message


def test_a_missing_module_of_the_plugin_itself_advises_a_reinstall(site):
    site.module("fakegone_plugin", PLUGIN.format(name="fakegone", framework="fakegonefw"))  # fakegone_backend does not exist
    site.distribution("bk-fakegone", {"fakegone": "fakegone_plugin"})
    site.activate("fakegone")
    message = load_error("fakegone")
    assert "ModuleNotFoundError: No module named 'fakegone_backend'" in message
    assert "pip install --force-reinstall bk-fakegone" in message


def test_an_entry_point_module_that_imports_a_failing_framework_is_skipped_with_advice_not_a_reinstall(site):
    """plugin.py must not import the framework; one that does and fails says so at discovery and when asked for."""
    site.module("fakeeager_plugin", "import fakeeagerfw\n" + PLUGIN.format(name="fakeeager", framework="fakeeagerfw"))
    site.module("fakeeagerfw", "raise RuntimeError('no device library found')\n")
    site.distribution("bk-fakeeager", {"fakeeager": "fakeeager_plugin"})
    with pytest.warns(bk.PluginWarning, match="RuntimeError: no device library found"):
        site.activate("fakeeager")
    with pytest.raises(ValueError) as raised:
        bk.backend("fakeeager")
    message = str(raised.value)
    assert "raised inside 'fakeeagerfw', not by bk-fakeeager" in message and "force-reinstall" not in message
