"""What bk-arrayapi does with a namespace: dispatch, DLPack, dtypes, devices, weak scalars, and
honest `NotImplementedError` for what a namespace lacks. Conformance is the testkit's job."""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import array_api_strict as xp
import numpy as np
import pytest

import bk
import bk_arrayapi
from bk import DType
from bk.rules import FrameworkCall
from bk_arrayapi._backend import ArrayAPIBackend, backend_class, create_backend

ARRAY = type(xp.asarray(0))
STANDARD_DTYPES = (
    DType(bool),
    *(DType(int, b) for b in (8, 16, 32, 64)),
    *(DType(int, b, signed=False) for b in (8, 16, 32, 64)),
    DType(float, 32),
    DType(float, 64),
    DType(complex, 64),
    DType(complex, 128),
)


@pytest.fixture(scope="module")
def b() -> Iterator[ArrayAPIBackend]:
    bk_arrayapi.register("strict_b", "array_api_strict")
    try:
        yield bk.backend("strict_b")  # type: ignore[misc]
    finally:
        bk_arrayapi.unregister("strict_b")


# ---------------------------------------------------------------- dispatch


def test_dispatch_owns_the_namespace_array_type(b: ArrayAPIBackend) -> None:
    x = xp.asarray([1.0, 2.0])
    assert bk.choose_backend(x) is b
    assert bk.choose_backend(x, x) is b
    assert bk.choose_backend(np.ones(2), x, 1.5) is b  # NumPy values and numbers are constants next to it
    assert b.is_tensor(x, only_native=True) and not b.is_tensor(np.ones(2), only_native=True)


def test_mixing_with_another_framework_is_an_error(b: ArrayAPIBackend) -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(bk.NoBackendFound, match="convert"):
        bk.choose_backend(xp.asarray([1.0]), torch.ones(1))


def test_operations_return_namespace_arrays(b: ArrayAPIBackend) -> None:
    x = b.as_tensor([1.0, 4.0])
    result = b.sqrt(b.add(x, x))
    assert isinstance(result, ARRAY)
    np.testing.assert_allclose(b.numpy(result), np.sqrt([2.0, 8.0]), rtol=1e-6, atol=1e-6)


def test_kernels_declare_themselves_with_a_reason(b: ArrayAPIBackend) -> None:
    """Trust is declared on each kernel (`bk.rules.kernel`), with why; the namespace's bare elementwise
    kernels are planned, behind the fast calls `namespace_kernels` declares."""
    cls = type(b)
    declared = cls.declared_kernels()
    trusted = {op for op, declaration in declared.items() if declaration.trusted}
    assert trusted == cls.trusted_operations == {"as_tensor", "cast", "real", "imag", "any", "all"}
    assert all(declared[op].why for op in trusted)
    assert declared["add"].fast is not None and declared["sqrt"].fast is not None
    assert not any(declaration.fast for declaration in ArrayAPIBackend.declared_kernels().values())  # the base class: bare calls


def test_fast_calls_are_derived_by_the_core(b: ArrayAPIBackend) -> None:
    """The elementwise fast calls are `bk.rules.framework_call`s of the namespace's own functions (the core
    derives their dtypes: complex log1p takes the plan, which gives the special complex values); Python numbers
    take them only from a namespace of the 2024.12 standard on, whose functions take scalars."""
    declared = type(b).declared_kernels()
    add = declared["add"].fast
    assert isinstance(add, FrameworkCall) and add.function is xp.add and add.tensor_type is ARRAY and add.weak_numbers
    assert all(isinstance(declared[op].fast, FrameworkCall) for op in ("sqrt", "log1p", "mul", "equal"))
    fast = type(b).add.__bk_fast_call__
    x, i8 = xp.asarray([1.0, 2.0], dtype=xp.float32), xp.asarray([1, 2], dtype=xp.int8)
    assert fast(b, x, 0.5).dtype == xp.float32 and fast(b, i8, 3).dtype == xp.int8
    assert fast(b, x, 2**30) is NotImplemented and fast(b, i8, 200) is NotImplemented  # not exact: the plan
    assert type(b).mul.__bk_fast_call__(b, xp.asarray([True]), xp.asarray([True])) is NotImplemented  # bools: int8
    assert type(b).log1p.__bk_fast_call__(b, xp.asarray([1j], dtype=xp.complex64)) is NotImplemented
    older = types.SimpleNamespace(**{**vars(xp), "__array_api_version__": "2023.12"})
    assert not backend_class(older, "strict_2023").declared_kernels()["add"].fast.weak_numbers


def test_an_array_of_a_dtype_the_namespace_does_not_declare_is_refused() -> None:
    """array_api_compat.numpy's arrays are NumPy's, which hold bfloat16 too (ml_dtypes): `as_tensor` refuses
    such an array, as `dtype` does, instead of returning an array bk cannot describe."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    pytest.importorskip("array_api_compat")
    compat = create_backend("compat_numpy_b", "array_api_compat.numpy")
    with pytest.raises(TypeError, match="bfloat16"):
        compat.as_tensor(np.ones(2, ml_dtypes.bfloat16))
    assert compat.dtype(compat.as_tensor(np.ones(2, np.float32))) == DType(float, 32)


# ---------------------------------------------------------------- DLPack and conversion


def test_numpy_round_trip_through_dlpack_shares_memory(b: ArrayAPIBackend) -> None:
    array = np.arange(6, dtype=np.float32)
    native = b.from_dlpack(array)
    assert isinstance(native, ARRAY)
    back = np.from_dlpack(b.to_dlpack(native))
    assert np.shares_memory(back, array)
    converted = bk.convert(native, bk.backend("numpy"))
    assert isinstance(converted, np.ndarray) and converted.dtype == np.float32
    np.testing.assert_array_equal(converted, array)


def test_convert_to_and_from_torch(b: ArrayAPIBackend) -> None:
    torch = pytest.importorskip("torch")
    tensor = torch.arange(5, dtype=torch.float64)
    native = bk.convert(tensor, b)
    assert isinstance(native, ARRAY) and b.dtype(native) == DType(float, 64)
    np.testing.assert_array_equal(b.numpy(native), np.arange(5.0))
    again = bk.convert(b.mul(native, 2), bk.backend("torch"))
    assert isinstance(again, torch.Tensor) and again.dtype == torch.float64
    assert again.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]


def test_as_tensor_of_other_libraries_and_numpy_layouts(b: ArrayAPIBackend) -> None:
    big_endian = np.arange(4, dtype=">i4")[::-1]
    native = b.as_tensor(big_endian)
    assert b.dtype(native) == DType(int, 32)
    np.testing.assert_array_equal(b.numpy(native), [3, 2, 1, 0])
    with pytest.raises(bk.ArgumentTypeError, match="as_tensor"):
        b.as_tensor("text")
    with pytest.raises(bk.ArgumentTypeError, match="sum"):
        b.sum(None)


# ---------------------------------------------------------------- dtypes


@pytest.mark.parametrize("dtype", STANDARD_DTYPES, ids=str)
def test_every_standard_dtype_maps_both_ways(b: ArrayAPIBackend, dtype: DType) -> None:
    native = b.cast(b.as_tensor([1, 0, 1]), dtype)
    assert b.dtype(native) == dtype
    assert native.dtype == getattr(xp, dtype.name)
    assert b.numpy(native).dtype == bk.to_numpy_dtype(dtype)


def test_dtypes_the_namespace_lacks_are_not_claimed(b: ArrayAPIBackend) -> None:
    assert type(b).float64_supported is True and b.supports("float64")
    assert type(b).float16_supported is False  # array-api-strict has no float16
    with pytest.raises(NotImplementedError, match="float16"):
        b.cast(b.as_tensor([1.0]), DType(float, 16))
    compat = create_backend("compat_numpy", "array_api_compat.numpy")
    assert type(compat).float16_supported is True
    assert compat.dtype(compat.cast(compat.as_tensor([1.0]), DType(float, 16))) == DType(float, 16)


def test_python_scalars_are_weak(b: ArrayAPIBackend) -> None:
    int8 = b.cast(b.as_tensor([1, -2]), DType(int, 8))
    assert b.dtype(b.maximum(int8, 2)) == DType(int, 8)
    assert b.dtype(b.add(int8, 1.5)) == DType(float, 32)
    float32 = b.as_tensor([1.0])
    assert b.dtype(b.mul(float32, 1.5)) == DType(float, 32)
    assert b.dtype(b.add(float32, 1j)) == DType(complex, 64)
    assert b.dtype(b.add(b.cast(float32, DType(float, 64)), 1j)) == DType(complex, 128)
    with pytest.raises(OverflowError, match="add"):
        b.add(b.cast(b.as_tensor([100]), DType(int, 8)), 300)


def test_python_values_and_precision(b: ArrayAPIBackend) -> None:
    assert b.dtype(b.as_tensor(1.5)) == DType(float, 32)
    assert b.dtype(b.as_tensor(2)) == DType(int, 64)
    assert b.dtype(b.as_tensor(True)) == DType(bool)
    assert b.dtype(1) == DType(int, 32)  # the reference's dtype of a Python int
    with bk.precision(64):
        assert b.dtype(b.as_tensor(1.5)) == DType(float, 64)
        x = b.as_tensor(np.array([1.0], np.float32))
        assert b.dtype(x) == DType(float, 64)
        assert b.dtype(b.div(b.as_tensor([1]), b.as_tensor([2]))) == DType(float, 64)


def test_mixed_kinds_promote_as_numpy(b: ArrayAPIBackend) -> None:
    ints = b.cast(b.as_tensor([1, 2]), DType(int, 32))
    floats = b.as_tensor(np.array([0.5, 0.25], np.float32))
    result = b.add(ints, floats)  # array-api-strict itself refuses int + float
    assert b.dtype(result) == DType(float, 32)
    np.testing.assert_allclose(b.numpy(result), [1.5, 2.25], atol=1e-6)
    unsigned = b.cast(b.as_tensor([1]), DType(int, 8, signed=False))
    signed = b.cast(b.as_tensor([-1]), DType(int, 8))
    assert b.dtype(b.add(unsigned, signed)) == DType(int, 16)


def test_shape_errors_are_bk_classes(b: ArrayAPIBackend) -> None:
    with pytest.raises(bk.ShapeMismatchError, match="add"):
        b.add(b.as_tensor(np.ones((2, 3))), b.as_tensor(np.ones(4)))
    with pytest.raises(bk.AxisError, match="sum"):
        b.sum(b.as_tensor([1.0]), axis=3)
    with pytest.raises(bk.IndexOutOfRangeError, match="gather"):
        b.gather(b.as_tensor([1.0, 2.0]), b.as_tensor([2]), 0)
    complex_values = b.as_tensor(np.array([1 + 1j, 2j, 1 + 2j]))
    assert int(b.numpy(b.argmax(complex_values, 0))) == 2  # the standard orders no complex values: the core does, as NumPy
    np.testing.assert_array_equal(b.numpy(b.unique(complex_values, False, False, None)[0]), [2j, 1 + 1j, 1 + 2j])


def test_complex_values_compare_in_numpys_order(b: bk.Backend) -> None:
    """The standard leaves complex comparisons undefined; bk-arrayapi orders them as NumPy (real parts first, a
    NaN-holding value compares false and propagates), with the standard's real, imag, isnan and where."""
    nan = float("nan")
    x = np.array([1 + 2j, 1 + 2j, complex(nan, 0), 1 + 0j, complex(0, nan), 2 + 0j, complex(2, nan)], np.complex128)
    y = np.array([1 + 3j, 0 + 5j, 1 + 0j, complex(nan, 0), 1 + 0j, 2 + 0j, 1 + 0j], np.complex128)
    with np.errstate(invalid="ignore"):
        for op, reference in (
            ("greater_than", np.greater),
            ("greater_or_equal", np.greater_equal),
            ("maximum", np.maximum),
            ("minimum", np.minimum),
        ):
            result = b.numpy(getattr(b, op)(b.as_tensor(x), b.as_tensor(y)))
            np.testing.assert_array_equal(result, reference(x, y), err_msg=op)
    z = np.array([1 + 1j, 1j])
    np.testing.assert_array_equal(b.numpy(b.clip(b.as_tensor(z), 0, 1)), np.clip(z, 0, 1))


# ---------------------------------------------------------------- devices


def test_devices_come_from_the_namespace_info(b: ArrayAPIBackend) -> None:
    refs = list(xp.__array_namespace_info__().devices())
    assert [d.ref for d in b.list_devices()] == refs
    assert b.get_default_device().ref == xp.__array_namespace_info__().default_device()
    assert all(d.device_type == "CPU" for d in b.list_devices())  # DLPack device type kDLCPU


def test_allocate_on_device_and_default_device(b: ArrayAPIBackend) -> None:
    other = next(d for d in b.list_devices() if d != b.get_default_device())
    moved = b.allocate_on_device(b.as_tensor([1.0, 2.0]), other)
    assert moved.device == other.ref and b.get_device(moved) == other
    for result in (
        b.add(moved, 2.0),
        b.gather(moved, b.allocate_on_device(b.as_tensor([1]), other), 0),
        b.pad(moved, [(1, 0)], "periodic"),
    ):
        assert result.device == other.ref  # Python numbers and helper indices follow the tensor's device
    original = b.get_default_device()
    try:
        assert b.set_default_device(other)
        assert b.zeros((2,)).device == other.ref
        assert b.as_tensor([1.0]).device == other.ref
    finally:
        b.set_default_device(original)
    assert b.zeros((2,)).device == original.ref


# ---------------------------------------------------------------- honest support per namespace


class _LimitedInfo:
    """The info of array-api-strict, but without data-dependent shapes."""

    def __getattr__(self, name: str) -> Any:
        return getattr(xp.__array_namespace_info__(), name)

    def capabilities(self) -> dict[str, Any]:
        return {**xp.__array_namespace_info__().capabilities(), "data-dependent shapes": False}


def _limited_namespace() -> types.ModuleType:
    """array-api-strict without the linalg and fft extensions, cumulative_sum and data-dependent shapes."""
    module = types.ModuleType("limited_namespace")
    for name in dir(xp):
        if name not in ("linalg", "fft", "cumulative_sum", "__getattr__", "__array_namespace_info__"):
            setattr(module, name, getattr(xp, name))
    module.__array_namespace_info__ = _LimitedInfo  # type: ignore[attr-defined]
    return module


def test_what_a_namespace_lacks_is_not_claimed_and_raises() -> None:
    limited = _limited_namespace()
    backend = backend_class(limited, "limited_namespace")("limited", limited, "limited_namespace")
    for feature in ("svd", "eig", "matrix_rank_dense", "fft", "ifft", "cumsum", "nonzero", "unique", "boolean_mask", "repeat"):
        assert not backend.supports(feature), feature
        assert feature in type(backend).unsupported, feature
    for feature in ("sum", "add", "sort", "searchsorted", "tensordot", "scatter", "dlpack", "devices"):
        assert backend.supports(feature), feature
    x = backend.as_tensor(np.eye(2))
    with pytest.raises(NotImplementedError):
        backend.svd(x)
    with pytest.raises(NotImplementedError):
        backend.fft(x, [0])
    with pytest.raises(NotImplementedError):
        backend.nonzero(x)
    np.testing.assert_array_equal(backend.numpy(backend.sum(x, 0)), [1.0, 1.0])


def test_support_is_decided_per_namespace_class(b: ArrayAPIBackend) -> None:
    limited = _limited_namespace()
    backend = backend_class(limited, "limited_namespace")("limited", limited, "limited_namespace")
    assert type(backend) is not type(b)
    assert not backend.supports("svd") and b.supports("svd")
    assert b.supports("fft") and b.supports("nonzero") and b.supports("eig")


def test_what_the_standard_cannot_express_is_unsupported(b: ArrayAPIBackend) -> None:
    for feature in (
        "jacobian",
        "jit_compile",
        "sparse_coo_tensor",
        "erf",
        "log_gamma",
        "grid_sample",
        "nn_library",
        "gradients",
        "jit",
        "sparse",
    ):
        assert not b.supports(feature), feature
    with pytest.raises(NotImplementedError):
        b.erf(b.as_tensor([0.5]))
    with pytest.raises(NotImplementedError):
        b.jit_compile(lambda x: x)


def test_a_shape_error_names_both_shapes(b: ArrayAPIBackend) -> None:
    with pytest.raises(bk.ShapeMismatchError, match=r"^tensordot: .*\(3, 4\).*\(5, 6\)"):
        b.tensordot(b.ones((3, 4)), (1,), b.ones((5, 6)), (0,))
