"""Conversion, dtypes, precision, devices, random numbers and DLPack."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import bk
from bk import DType
from bk_torch._dtypes import from_torch_dtype, to_torch_dtype

ALL_DTYPES = [
    DType(bool),
    DType(float, 16),
    DType(float, 16, brain=True),
    DType(float, 32),
    DType(float, 64),
    DType(complex, 64),
    DType(complex, 128),
]
ALL_DTYPES += [DType(int, n) for n in (8, 16, 32, 64)] + [DType(int, n, signed=False) for n in (8, 16, 32, 64)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_dtype_round_trip(b: bk.Backend, dtype: DType) -> None:
    assert from_torch_dtype(to_torch_dtype(dtype)) == dtype
    assert b.dtype(b.cast(b.as_tensor([1, 0]), dtype)) == dtype


def test_unsupported_dtype_is_a_clear_error(b: bk.Backend) -> None:
    with pytest.raises(bk.ArgumentTypeError, match="^cast: dtype str is not a numeric dtype"):  # the core's check, before the kernel
        b.cast(b.as_tensor([1]), DType(str))
    with pytest.raises(bk.ArgumentTypeError, match="^as_tensor: x has the NumPy dtype <U1"):
        b.as_tensor(np.array(["a", "b"]))


def test_is_tensor(b: bk.Backend) -> None:
    assert b.is_tensor(torch.zeros(2), only_native=True)
    assert b.is_tensor(torch.zeros(2).to_sparse(), only_native=True)
    assert not b.is_tensor(np.zeros(2), only_native=True) and b.is_tensor(np.zeros(2))
    assert b.is_tensor([1, 2.5]) and b.is_tensor(3) and not b.is_tensor("x") and not b.is_tensor(None)


def test_precision_none_keeps_inputs_and_creates_float32(b: bk.Backend) -> None:
    assert bk.get_precision() is None
    assert b.as_tensor(np.ones(2)).dtype == torch.float64
    assert b.as_tensor(1.5).dtype == torch.float32
    assert b.as_tensor([1, 2]).dtype == torch.int64
    assert b.zeros((2,)).dtype == torch.float32 and b.random_normal((2,), None).dtype == torch.float32
    assert b.sqrt(b.as_tensor(np.ones(2))).dtype == torch.float64


@pytest.mark.parametrize("bits", [16, 32, 64])
def test_precision_is_applied(b: bk.Backend, bits: int) -> None:
    expected = to_torch_dtype(DType(float, bits))
    with bk.precision(bits):
        assert b.as_tensor(np.ones(2)).dtype == expected
        assert b.as_tensor(torch.ones(2, dtype=torch.float64)).dtype == expected
        assert b.ones((1,)).dtype == expected and b.linspace(0, 1, 3).dtype == expected
        assert b.random_uniform((2,), 0, 1, None).dtype == expected
        assert b.as_tensor(np.ones(2, complex)).dtype == to_torch_dtype(DType(complex, 2 * max(bits, 32)))
        assert b.as_tensor(np.arange(2)).dtype == torch.int64  # integers are not floats


def test_random_seed_and_ranges(b: bk.Backend) -> None:
    b.seed(7)
    first = b.random_uniform((50,), -2, 3, None)
    b.seed(7)
    assert torch.equal(first, b.random_uniform((50,), -2, 3, None))
    assert first.min() >= -2 and first.max() < 3
    ints = b.random_uniform((100,), 2, 5, DType(int, 32))
    assert ints.dtype == torch.int32 and set(ints.tolist()) <= {2, 3, 4}
    z = b.random_uniform((10,), 0, 1 + 1j, DType(complex, 64))
    assert z.dtype == torch.complex64 and (z.imag >= 0).all() and (z.imag < 1).all()
    with pytest.raises(ValueError, match="float or complex"):
        b.random_normal((2,), DType(int, 32))


def test_cpu_device(b: bk.Backend) -> None:
    (cpu,) = b.list_devices("CPU")
    assert cpu.device_type == "CPU" and cpu.processor_count >= 1 and cpu.ref == torch.device("cpu")
    assert b.get_default_device() == cpu and b.get_device(b.zeros((1,))) == cpu
    assert b.allocate_on_device(np.ones(2), cpu).device == torch.device("cpu")


def test_every_cuda_device_is_listed(b: bk.Backend) -> None:
    gpus = b.list_devices("GPU")
    assert len([d for d in gpus if d.ref.type == "cuda"]) == (torch.cuda.device_count() if torch.cuda.is_available() else 0)
    for gpu in gpus:
        assert gpu.name and (gpu.memory > 0 or gpu.ref.type == "mps")


def test_set_default_device_gpu(b: bk.Backend) -> None:
    if not b.list_devices("GPU"):
        with pytest.warns(RuntimeWarning, match="no GPU device"):
            assert b.set_default_device("GPU") is False
        return
    cpu = b.get_default_device()
    try:
        assert b.set_default_device("GPU")
        gpu = b.get_default_device()
        assert b.get_device(b.zeros((2,))) == gpu and b.get_device(b.as_tensor(np.ones(2))) == gpu
        assert b.get_device(b.allocate_on_device(torch.ones(2), cpu)) == cpu
    finally:
        b.set_default_device(cpu)


def test_foreign_device_is_rejected(b: bk.Backend) -> None:
    foreign = bk.OBJECTS.get_default_device()
    with pytest.raises(ValueError, match="not a device of the torch backend"):
        b.allocate_on_device(torch.ones(1), foreign)


def test_tensors_on_different_devices_are_a_clear_error(b: bk.Backend) -> None:
    elsewhere = torch.zeros(3, device="meta")  # a second device that exists on every machine
    with pytest.raises(ValueError, match="different devices"):
        b.concat([torch.zeros(3), elsewhere], 0)
    with pytest.raises(ValueError, match="different devices"):
        b.scatter(torch.zeros(1, 3, 1), torch.zeros(1, 1, 1, dtype=torch.int64, device="meta"), torch.ones(1, 1, 1), "add")


def test_dlpack_shares_memory_with_numpy(b: bk.Backend) -> None:
    array = np.arange(4.0)
    tensor = b.from_dlpack(array)
    tensor[0] = 42
    assert array[0] == 42
    back = np.from_dlpack(b.to_dlpack(tensor))
    back[1] = -1
    assert tensor[1] == -1
    assert b.from_dlpack(torch.utils.dlpack.to_dlpack(tensor)).data_ptr() == tensor.data_ptr()  # a capsule


def test_dlpack_of_tensor_requiring_grad(b: bk.Backend) -> None:
    x = torch.ones(2, requires_grad=True)
    assert np.from_dlpack(b.to_dlpack(x)).tolist() == [1.0, 1.0]


def test_numpy_of_read_only_array_does_not_warn(b: bk.Backend) -> None:
    array = np.ones(3)
    array.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert b.as_tensor(array).sum() == 3


def test_numpy_of_bfloat16_and_conjugate_views(b: bk.Backend) -> None:
    z = torch.tensor([1 + 2j]).conj()
    assert b.numpy(z).tolist() == [1 - 2j]
    pytest.importorskip("ml_dtypes")
    assert b.numpy(torch.ones(2, dtype=torch.bfloat16)).astype(np.float32).tolist() == [1.0, 1.0]


def test_as_tensor_of_numpy_views_and_lists_keeps_values_and_dtypes():
    import numpy as np

    import bk

    b = bk.backend("torch")
    for array in (np.arange(4)[::-1], np.ones(1)[::-1], np.ones((2, 3)).T, np.asarray([1.0], np.float32), np.ones(2, ">f4")):
        tensor = b.as_tensor(array)
        assert tensor.tolist() == array.tolist() and b.dtype(tensor) == bk.from_numpy_dtype(array.dtype.newbyteorder("="))
    assert [b.as_tensor(v).dtype for v in ([1.0, 2.0], [1, 2], [True], [], [[1, 2]], [1 + 2j])] == [
        torch.float32, torch.int64, torch.bool, torch.float32, torch.int64, torch.complex64,
    ]  # fmt: skip
    with bk.precision(64):
        assert b.as_tensor([1.0]).dtype == torch.float64
