"""`bk.array_namespace`: a backend as an Array API namespace, on a fake framework with its own dtypes."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import bk
from bk import DType


class FakeDType:
    """A framework's own dtype object: not a NumPy dtype, not a bk.DType."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FakeDType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("fake", self.name))

    def __repr__(self) -> str:
        return f"fake.{self.name}"


class FakeTensor:
    """A framework tensor wrapping a NumPy array, whose `.dtype` is a `FakeDType`."""

    def __init__(self, array: object) -> None:
        self.array = np.asarray(array)

    @property
    def dtype(self) -> FakeDType:
        return FakeDType(self.array.dtype.name)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape


def _np(x: object) -> np.ndarray:
    return x.array if isinstance(x, FakeTensor) else np.asarray(x)


class FakeBackend(bk.Backend):
    """The required set and a handful of operations: enough for part of the standard."""

    native_types = (FakeTensor,)

    def __init__(self) -> None:
        cpu = bk.ComputeDevice(self, "CPU", "CPU", -1, -1, "", "fake-cpu")
        super().__init__("fakens", [cpu], cpu)

    def is_tensor(self, x, only_native=False):
        return isinstance(x, FakeTensor) or (
            not only_native and isinstance(x, (bool, int, float, complex, list, tuple, np.ndarray))
        )

    def as_tensor(self, x, convert_external=True):
        if isinstance(x, FakeTensor):
            return x
        array = np.asarray(x)
        return FakeTensor(array.astype(np.float32) if array.dtype == np.float64 and not isinstance(x, np.ndarray) else array)

    def is_available(self, tensor):
        return True

    def numpy(self, tensor):
        return _np(tensor)

    def dtype(self, array):
        if isinstance(array, (bool, int, float, complex)):
            return {bool: DType(bool), int: DType(int, 32), float: DType(float, 64), complex: DType(complex, 128)}[type(array)]
        return bk.from_numpy_dtype(_np(array).dtype)

    def staticshape(self, tensor):
        return _np(tensor).shape

    def cast(self, x, dtype):
        return FakeTensor(_np(x).astype(bk.to_numpy_dtype(dtype)))

    def zeros(self, shape, dtype=None):
        if dtype is not None and dtype.kind is complex and dtype.bits == 128:
            raise TypeError("this fake framework has no complex128")
        return FakeTensor(np.zeros(shape, bk.to_numpy_dtype(dtype or self.float_type)))

    def ones(self, shape, dtype=None):
        return FakeTensor(np.ones(shape, bk.to_numpy_dtype(dtype or self.float_type)))

    def copy(self, tensor, only_mutable=False):
        return FakeTensor(_np(tensor).copy())

    def reshape(self, value, shape):
        return FakeTensor(_np(value).reshape(shape))

    def sin(self, x):
        return FakeTensor(np.sin(_np(x)))

    def prod(self, value, axis=None):
        return FakeTensor(np.prod(_np(value), axis=axis))

    def sum(self, value, axis=None, keepdims=False):
        return FakeTensor(np.sum(_np(value), axis=axis, keepdims=keepdims))


@pytest.fixture
def fake() -> FakeBackend:
    return FakeBackend()


@pytest.fixture
def xp(fake: FakeBackend):
    return bk.array_namespace(fake)


def test_namespace_is_cached_per_backend(fake: FakeBackend) -> None:
    first = bk.array_namespace(fake)
    assert bk.array_namespace(fake) is first
    assert bk.array_namespace(FakeBackend()) is not first  # another backend object, another namespace
    assert first.backend is fake
    assert first.__array_api_version__ == "2024.12"


def test_dtypes_are_the_frameworks_own(xp) -> None:
    assert xp.float32 == FakeDType("float32")
    assert xp.int64 == FakeDType("int64")
    assert xp.bool == FakeDType("bool")
    assert not hasattr(xp, "complex128")  # the framework cannot create it, so the namespace does not offer it
    assert xp.__array_namespace_info__().dtypes(kind="real floating") == {
        "float32": FakeDType("float32"),
        "float64": FakeDType("float64"),
    }


def test_functions_return_native_tensors_with_native_dtypes(xp) -> None:
    x = xp.asarray([1.0, 2.0, 3.0])
    assert isinstance(x, FakeTensor) and x.dtype == xp.float32  # the default float
    assert xp.asarray([1, 2]).dtype == xp.int64
    y = xp.sum(xp.reshape(xp.asarray([[1, 2], [3, 4]], dtype=xp.int16), (2, 2)), axis=0, keepdims=True)
    assert isinstance(y, FakeTensor) and y.dtype == xp.int64 and y.shape == (1, 2)  # integer sums widen to int64
    np.testing.assert_array_equal(y.array, [[4, 6]])
    assert xp.sum(x, dtype=xp.float64).dtype == xp.float64
    z = xp.prod(xp.asarray([[1.0, 2.0], [3.0, 4.0]]), axis=1, keepdims=True)  # keepdims adapted: the catalogue's prod has none
    assert z.shape == (2, 1)
    np.testing.assert_allclose(z.array, [[2.0], [12.0]])
    assert xp.zeros((2, 3), dtype=xp.int8).dtype == xp.int8
    assert xp.ones(3).dtype == xp.float32


def test_catalogue_operations_are_installed_without_a_wrapper(xp, fake: FakeBackend) -> None:
    assert xp.sin.__self__ is fake and xp.sin.__name__ == "sin"  # the catalogue method, bound: no adapter
    method = type(fake).sin
    if hasattr(method, "bind"):  # the dispatcher's C front: its bound copy, called without a method object
        assert xp.sin.__wrapped__ is method.__wrapped__
    else:
        assert xp.sin == fake.sin


def test_unsupported_functions_are_absent_and_say_why(xp) -> None:
    assert not hasattr(xp, "cos")
    with pytest.raises(AttributeError, match="does not support the catalogue operation.*cos"):
        xp.cos  # noqa: B018
    assert not hasattr(xp.linalg, "cholesky")
    with pytest.raises(AttributeError, match="no attribute 'no_such_function'"):
        xp.no_such_function  # noqa: B018


def test_signatures_follow_the_standard(xp) -> None:
    parameters = inspect.signature(xp.sum).parameters
    kinds = [inspect.Parameter.POSITIONAL_ONLY] + [inspect.Parameter.KEYWORD_ONLY] * 3 + [inspect.Parameter.VAR_KEYWORD]
    assert [p.kind for p in parameters.values()] == kinds
    assert list(parameters) == ["x", "axis", "dtype", "keepdims", "keywords"]  # others: a bk error, not Python's
    assert xp.sum.__name__ == "sum"
    with pytest.raises(bk.ArgumentTypeError, match=r"^sum: keyword 'out' is not an argument of the Array API standard's sum"):
        xp.sum(FakeTensor([1.0]), out=None)


def test_constants_and_info(xp) -> None:
    assert (xp.e, xp.pi, xp.newaxis) == (math.e, math.pi, None)
    assert math.isinf(xp.inf) and math.isnan(xp.nan)
    info = xp.__array_namespace_info__()
    assert info.default_device() == "fake-cpu" and info.devices() == ["fake-cpu"]
    assert info.default_dtypes() == {
        "real floating": xp.float32,
        "complex floating": xp.complex64,
        "integral": xp.int64,
        "indexing": xp.int64,
    }
    assert info.capabilities()["data-dependent shapes"] is False  # no nonzero / unique / boolean_mask


def test_dtype_functions(xp) -> None:
    assert xp.isdtype(xp.int8, "signed integer") and not xp.isdtype(xp.uint8, "signed integer")
    assert xp.isdtype(xp.float32, ("integral", "real floating")) and xp.isdtype(xp.float32, xp.float32)
    with pytest.raises(ValueError, match="unknown kind"):
        xp.isdtype(xp.float32, "floating")
    assert xp.result_type(xp.int8, xp.uint8) == xp.int16
    assert xp.result_type(xp.asarray([1.0]), xp.float64) == xp.float64
    assert xp.result_type(xp.float32, 1.0) == xp.float32  # Python scalars are weak
    assert xp.can_cast(xp.int8, xp.int16) and not xp.can_cast(xp.int16, xp.int8) and not xp.can_cast(xp.int64, xp.float64)
    finfo = xp.finfo(xp.float32)
    assert (finfo.bits, finfo.dtype, finfo.eps) == (32, xp.float32, float(np.finfo(np.float32).eps))
    assert xp.finfo(xp.complex64).dtype == xp.float32
    iinfo = xp.iinfo(xp.asarray([1], dtype=xp.uint8))
    assert (iinfo.bits, iinfo.min, iinfo.max, iinfo.dtype) == (8, 0, 255, xp.uint8)
    with pytest.raises(bk.ArgumentTypeError, match="finfo"):
        xp.finfo(xp.int32)
    with pytest.raises(bk.ArgumentTypeError, match="astype: 'float33' is not a dtype"):
        xp.astype(xp.asarray([1.0]), "float33")


def test_astype_copies_unless_told_not_to(xp) -> None:
    x = xp.asarray([1.0, 2.0])
    assert xp.astype(x, xp.float32) is not x
    assert xp.astype(x, xp.float32, copy=False) is x
    assert xp.astype(x, xp.int32).dtype == xp.int32


def test_a_function_written_against_the_standard_runs(fake: FakeBackend) -> None:
    def normalized_sine_energy(x):
        xp = x.__array_namespace__() if hasattr(x, "__array_namespace__") else bk.array_namespace(fake)
        s = xp.sin(x)
        return xp.sum(s, axis=-1, keepdims=True, dtype=xp.float64)

    result = normalized_sine_energy(FakeTensor(np.zeros((2, 3), np.float32)))
    assert isinstance(result, FakeTensor) and result.dtype == FakeDType("float64") and result.shape == (2, 1)


def test_arguments_are_checked() -> None:
    with pytest.raises(TypeError, match="needs arrays, a bk.Backend or a backend name"):
        bk.array_namespace()
    with pytest.raises(ValueError, match="api_version '2020.01'"):
        bk.array_namespace("numpy", api_version="2020.01")


def test_arrays_choose_the_backend(site) -> None:
    site.fake_framework("fakearr")
    site.activate("fakearr")
    import fakearr

    xp = bk.array_namespace(fakearr.Tensor(np.ones(2)), fakearr.Tensor(np.zeros(2)))
    assert xp.backend is bk.backend("fakearr")
    assert bk.array_namespace("fakearr") is xp
    assert hasattr(xp, "sum") and not hasattr(xp, "sin")
