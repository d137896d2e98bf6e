"""The layout of `bk.Backend`: the class machinery in `_backend.py`, every operation defined once, as a
function, in the registry's modules (the catalogue's signatures, the generic defaults, the Array API
standard's operations), and `Backend` built from the registry, with the generated stub of its signatures
in step."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import bk
from bk import _backend, _catalogue_algorithms, _catalogue_core, _defaults, _defaults_algorithms, _stub
from bk._features import native_of, uses_of
from bk._kernels import WRAPPED
from bk._operations import collect_definitions, defined_in, definitions, operation

_BANNER = re.compile(r"^\s*# -{10,}\s*(.+?)\s*$")
CATALOGUE = (_catalogue_core, _catalogue_algorithms)
DEFAULTS = (_defaults, _defaults_algorithms)


def _defined_in(*modules: object) -> dict[str, object]:
    names = {m.__name__ for m in modules}  # type: ignore[attr-defined]
    return {name: f for name, f in definitions().items() if f.__module__ in names}


def _banners(module: object) -> list[str]:
    return [m.group(1) for line in Path(inspect.getfile(module)).read_text().splitlines() if (m := _BANNER.match(line))]  # type: ignore[arg-type]


def test_backend_is_built_from_the_registry():
    """No mixin: each operation of `Backend` is its definition in the registry (a generic default behind the
    one call path, which keeps the definition), and the record points at the same function."""
    assert bk.Backend.__mro__[1:] == (bk.Backend.__mro__[1], object) and bk.Backend.__mro__[1].__name__ == "ABC"
    operations = {f for f in bk.Backend.features() if callable(getattr(bk.Backend, f, None))}
    assert set(definitions()) == operations
    for name, definition in definitions().items():
        method = vars(bk.Backend)[name]
        assert (getattr(method, WRAPPED, None) or inspect.unwrap(method)) is definition, name
        assert operation(name).definition is definition
        assert operation(name).default is (definition if uses_of(definition) is not None else None)
    assert {f.__module__ for f in definitions().values()} == {m.__name__ for m in defined_in()}
    import pickle

    for name in ("tile_to", "reshape", "linear_solve"):  # a dispatched default, an optional one, a guarded default
        assert pickle.loads(pickle.dumps(getattr(bk.Backend, name))) is getattr(bk.Backend, name), name
    assert defined_in()[:2] == CATALOGUE  # the reading order: the catalogue's topics first


def test_an_operation_defined_twice_is_refused():
    import types

    from bk._features import optional

    first, second = types.ModuleType("first"), types.ModuleType("second")
    for module in (first, second):
        exec("def reshape(self, value, shape): ...\ndef _helper(self): ...", vars(module))
        vars(module)["reshape"] = optional(vars(module)["reshape"])
    assert list(collect_definitions([first])) == ["reshape"]  # a private helper is no operation
    try:
        collect_definitions([first, second])
    except TypeError as error:
        assert "'reshape' is defined twice: in first and in second" in str(error)
    else:
        raise AssertionError("an operation defined in two modules was accepted")


def test_the_stub_of_the_signatures_is_in_step():
    """`_operation_signatures.pyi` (what type checkers and editors read of `Backend`'s operations) is what
    `python -m bk._stub` writes from the definitions now: every operation, with its signature and docstring."""
    assert _stub.STUB.read_text() == _stub.signatures_stub(), "run `make signatures` (python -m bk._stub)"
    text = _stub.STUB.read_text()
    for name, definition in definitions().items():
        parameters = list(inspect.signature(definition).parameters)[1:]
        assert re.search(rf"\n    def {name}\(self(, |\)|,\n)", text), name
        assert all(p in text for p in parameters)
    assert text.count("@abstractmethod") == len(bk.Backend.__abstractmethods__) == 7


def test_the_catalogue_holds_the_required_set_and_the_optional_operations_only():
    required = set(bk.Backend.__abstractmethods__)
    assert required == {"is_tensor", "as_tensor", "is_available", "numpy", "dtype", "staticshape", "cast"}
    assert required <= set(_defined_in(_catalogue_core))
    for name, function in _defined_in(*CATALOGUE).items():
        if name in required:
            assert getattr(function, "__isabstractmethod__", False), name
        else:
            assert uses_of(function) is None and not native_of(function), f"{name} has a generic default: it belongs in _defaults"


def test_the_defaults_modules_hold_generic_defaults_only():
    for name, function in _defined_in(*DEFAULTS).items():
        assert uses_of(function) is not None, f"{function.__module__}.{name} is not a generic default"  # type: ignore[attr-defined]


def test_the_catalogue_orders_every_topic_of_the_defaults():
    topics = [t for module in CATALOGUE for t in _banners(module)]
    assert len(topics) == len(set(topics))
    for module in DEFAULTS:
        own = [t for t in _banners(module) if t != "helpers"]
        assert own and set(own) <= set(topics), module.__name__
        assert own == sorted(own, key=topics.index), f"{module.__name__} lists its topics in another order than the catalogue"


def test_the_machinery_module_keeps_no_catalogue_topic():
    assert not set(_banners(_backend)) & {t for module in CATALOGUE for t in _banners(module)}
    assert not any(name in vars(_backend) for name in definitions())


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
