"""`choose_backend`, the default backend, and `convert` between fake frameworks."""

from __future__ import annotations

import inspect
import subprocess
import sys

import numpy as np
import pytest

import bk


@pytest.fixture
def frameworks(site):
    """Two fake frameworks (priority 10) and a fake NumPy owner (priority 0) named 'numpy'."""
    site.fake_framework("fakea")
    site.fake_framework("fakeb")
    site.module("fakenp_plugin", FAKE_NUMPY_PLUGIN)
    site.distribution("bk-fakenp", {"fakenp": "fakenp_plugin"})
    site.activate("fakea", "fakeb", "fakenp")
    import fakea
    import fakeb

    return fakea, fakeb


FAKE_NUMPY_PLUGIN = """
import bk

@bk.hookimpl
def bk_backends():
    return [bk.BackendSpec(name="numpy", modules=("numpy",), load="fakenp_backend:NumpyOwner", priority=0)]
"""

FAKE_NUMPY_BACKEND = """
import numpy as np
import bk

class NumpyOwner(bk.Backend):
    def __init__(self):
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, 1, "fake numpy", "cpu")
        super().__init__("numpy", [cpu], cpu)

    def is_tensor(self, x, only_native=False):
        if isinstance(x, (np.ndarray, np.generic)):
            return True
        return not only_native and isinstance(x, (int, float, bool, complex, list, tuple))

    def as_tensor(self, x, convert_external=True):
        return np.asarray(x)

    def is_available(self, tensor):
        return True

    def numpy(self, tensor):
        return np.asarray(tensor)

    def dtype(self, array):
        return bk.from_numpy_dtype(np.asarray(array).dtype)

    def staticshape(self, tensor):
        return np.shape(tensor)

    def cast(self, x, dtype):
        return np.asarray(x).astype(bk.to_numpy_dtype(dtype))

    def to_dlpack(self, tensor):
        return tensor

    def from_dlpack(self, capsule):
        return np.from_dlpack(capsule)
"""


@pytest.fixture(autouse=True)
def _fake_numpy_backend(site):
    site.module("fakenp_backend", FAKE_NUMPY_BACKEND)


def test_framework_tensor_wins_over_numpy_and_numbers(frameworks):
    fakea, _ = frameworks
    t = fakea.Tensor([1.0])
    assert bk.choose_backend(t).name == "fakea"
    assert bk.choose_backend(t, np.zeros(2), 3.0).name == "fakea"
    assert bk.choose_backend(np.zeros(2), t).name == "fakea"
    assert bk.choose_backend([t, 1.0]).name == "fakea"


def test_numpy_values_alone_go_to_the_numpy_backend(frameworks):
    assert bk.choose_backend(np.zeros(3)).name == "numpy"
    assert bk.choose_backend(np.float32(1), 2).name == "numpy"
    with bk.backend("fakea"):
        assert bk.choose_backend(np.zeros(3)).name == "numpy"
        assert bk.choose_backend(np.zeros(3), prefer_default=True).name == "fakea"


def test_neutral_values_go_to_the_default_backend(frameworks):
    assert bk.choose_backend(1.0).name == "numpy"
    assert bk.choose_backend(1, [2.0, 3]).name == "numpy"
    with bk.backend("fakeb"):
        assert bk.choose_backend(1.0, 2).name == "fakeb"
        assert bk.default_backend().name == "fakeb"
        assert bk.context_backend().name == "fakeb"
    assert bk.context_backend() is None


def test_any_number_of_values_and_the_documented_signature(frameworks):
    """The fast path takes the first two values apart; every count still sees every value."""
    fakea, fakeb = frameworks
    t, n = fakea.Tensor([1.0]), np.zeros(2)
    assert str(inspect.signature(bk.choose_backend)) == "(*values, prefer_default=False)"
    assert bk.choose_backend().name == "numpy"  # no values: the default backend
    for values in ((n, n), (n, n, n), (n, n, t), (n, t, n), (t, n, n, n, 1.0), (1.0, 2.0, t)):
        expected = "fakea" if any(v is t for v in values) else "numpy"
        assert bk.choose_backend(*values).name == expected
    with bk.backend("fakea"):
        assert bk.choose_backend(n, n, prefer_default=True).name == "fakea"
        assert bk.choose_backend(n, n, n, prefer_default=True).name == "fakea"
        assert bk.choose_backend(prefer_default=True).name == "fakea"
    with pytest.raises(bk.NoBackendFound, match="cannot mix"):
        bk.choose_backend(n, n, t, fakeb.Tensor([1]))
    with pytest.raises(TypeError):
        bk.choose_backend(n, prefer=True)  # an unknown keyword is refused as before


def test_mixing_two_frameworks_is_an_error_naming_convert(frameworks):
    fakea, fakeb = frameworks
    with pytest.raises(bk.NoBackendFound, match=r"cannot mix values of fakea and fakeb.*bk\.convert"):
        bk.choose_backend(fakea.Tensor([1]), fakeb.Tensor([1]))


def test_prefer_default_never_hides_a_framework_tensor(frameworks):
    fakea, _ = frameworks
    assert bk.choose_backend(fakea.Tensor([1]), prefer_default=True).name == "fakea"


def test_a_value_no_backend_owns_is_a_clear_error(frameworks):
    class Opaque:
        pass

    with pytest.raises(bk.NoBackendFound, match=r"no installed backend handles values of type .*Opaque.*declares the module 'core' in its BackendSpec.modules"):
        bk.choose_backend(Opaque())


def test_strings_go_to_the_object_backend(frameworks):
    assert bk.choose_backend("text") is bk.OBJECTS


def test_set_global_default_backend(frameworks):
    assert bk.set_global_default_backend("fakeb").name == "fakeb"
    assert bk.default_backend().name == "fakeb"
    with pytest.raises(ValueError, match="Did you mean 'fakeb'"):
        bk.set_global_default_backend("fakbe")
    with pytest.raises(TypeError, match="backend name or a bk.Backend"):
        bk.set_global_default_backend(3)  # type: ignore[arg-type]


def test_ownership_is_cached_per_type(frameworks):
    fakea, _ = frameworks
    from bk._choose import _OWNERS

    bk.choose_backend(fakea.Tensor([1]))
    assert _OWNERS[fakea.Tensor].name == "fakea"


def test_convert_through_dlpack_shares_memory(frameworks):
    fakea, fakeb = frameworks
    a = fakea.Tensor(np.arange(6.0))
    b = bk.convert(a, bk.backend("fakeb"))
    assert isinstance(b, fakeb.Tensor)
    assert np.shares_memory(a.array, b.array)
    assert bk.convert(b, "fakeb") is b


def test_convert_without_dlpack_keeps_dtype_and_shape(frameworks):
    fakea, fakeb = frameworks
    a = fakea.Tensor(np.arange(6, dtype=np.int16).reshape(2, 3))
    b = bk.convert(a, bk.backend("fakeb"), use_dlpack=False)
    assert isinstance(b, fakeb.Tensor) and b.array.dtype == np.int16 and b.array.shape == (2, 3)
    np.testing.assert_array_equal(b.array, a.array)


def test_convert_numpy_to_default(frameworks):
    with bk.backend("fakea"):
        result = bk.convert(np.ones(3))
    assert type(result).__module__ == "fakea"


def test_dispatch_and_listing_import_no_framework():
    """`import bk`, listing backends, and dispatching NumPy values import no torch, jax or tensorflow."""
    code = (
        "import sys, numpy, bk\n"
        "bk.backends()\n"
        "for values in ([1.0, [2, 3]], [numpy.zeros(2)], [numpy.zeros(2), 1]):\n"
        "    try:\n        bk.choose_backend(*values)\n    except bk.NoBackendFound:\n        pass  # no bk-numpy installed\n"
        "bad = [m for m in ('torch', 'jax', 'jaxlib', 'tensorflow') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
