"""The layout of `bk.Backend`: the class machinery, the catalogue's signatures and the generic
defaults each in their own module, every operation defined once."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import bk
from bk import _backend, _catalogue_core, _defaults, _defaults_algorithms
from bk._features import native_of, uses_of

_BANNER = re.compile(r"^\s*# -{10,}\s*(.+?)\s*$")
CATALOGUE = _catalogue_core.CatalogueMixin
DEFAULTS = (_defaults.GenericDefaultsMixin, _defaults_algorithms.AlgorithmDefaultsMixin)


def _own_operations(cls: type) -> set[str]:
    return {name for name in vars(cls) if name in bk.Backend.features()}


def _banners(module: object) -> list[str]:
    return [m.group(1) for line in Path(inspect.getfile(module)).read_text().splitlines() if (m := _BANNER.match(line))]  # type: ignore[arg-type]


def test_backend_itself_defines_no_operation():
    assert _own_operations(bk.Backend) == set()
    assert issubclass(bk.Backend, CATALOGUE) and all(issubclass(bk.Backend, d) for d in DEFAULTS)


def test_the_catalogue_holds_the_required_set_and_the_optional_operations_only():
    required = set(bk.Backend.__abstractmethods__)
    assert required == {"is_tensor", "as_tensor", "is_available", "numpy", "dtype", "staticshape", "cast"}
    for name in _own_operations(CATALOGUE):
        method = vars(CATALOGUE)[name]
        if name in required:
            assert getattr(method, "__isabstractmethod__", False), name
        else:
            assert uses_of(method) is None and not native_of(method), f"{name} has a generic default: it belongs in _defaults"


def test_the_defaults_modules_hold_generic_defaults_only():
    for cls in DEFAULTS:
        for name in _own_operations(cls):
            assert uses_of(vars(cls)[name]) is not None, f"{cls.__name__}.{name} is not a generic default"


def test_every_operation_is_defined_once():
    owners: dict[str, list[str]] = {}
    for cls in bk.Backend.__mro__:
        for name in _own_operations(cls):
            owners.setdefault(name, []).append(cls.__name__)
    twice = {name: classes for name, classes in owners.items() if len(classes) > 1}
    assert not twice
    assert set(owners) == {f for f in bk.Backend.features() if callable(getattr(bk.Backend, f, None))}


def test_the_catalogue_orders_every_topic_of_the_defaults():
    topics = _banners(_catalogue_core)
    assert len(topics) == len(set(topics))
    for module in (_defaults, _defaults_algorithms):
        own = [t for t in _banners(module) if t != "helpers"]
        assert own and set(own) <= set(topics), module.__name__
        assert own == sorted(own, key=topics.index), f"{module.__name__} lists its topics in another order than the catalogue"


def test_the_machinery_module_keeps_no_catalogue_topic():
    assert not set(_banners(_backend)) & set(_banners(_catalogue_core))


def test_a_stub_is_claimed_only_when_overridden_and_a_default_when_its_uses_are():
    class Minimal(bk.Backend):
        native_types = ()

        def is_tensor(self, x, only_native=False):
            return True

        def as_tensor(self, x, convert_external=True):
            return x

        def is_available(self, tensor):
            return True

        def numpy(self, tensor):
            return tensor

        def dtype(self, array):
            return bk.DType(float, 64)

        def staticshape(self, tensor):
            return ()

        def cast(self, x, dtype):
            return x

    class WithReshape(Minimal):
        def reshape(self, value, shape):
            return value

    minimal, with_reshape = object.__new__(Minimal), object.__new__(WithReshape)
    assert not minimal.supports("reshape") and with_reshape.supports("reshape")
    assert not minimal.supports("flatten") and with_reshape.supports("flatten")  # @generic("reshape")
    assert minimal.supports("ndims") and minimal.supports("auto_cast")  # defaults of the required set
    assert not minimal.supports("add")  # needs the native `__add__`, and `native_types` is empty
