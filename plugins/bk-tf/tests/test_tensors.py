"""Ownership, conversion, precision, devices, sparse tensors and DLPack."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import bk
from bk import DType


def test_native_types_are_owned(b: Any, tf: Any) -> None:
    natives = [tf.constant([1.0]), tf.Variable([1.0]), tf.sparse.from_dense([[0.0, 1.0]]), tf.ragged.constant([[1], [2, 3]])]
    for x in natives:
        assert b.is_tensor(x, only_native=True)
        assert bk.choose_backend(x) is b
    for x in (np.ones(2), 1.5, [1, 2]):
        assert not b.is_tensor(x, only_native=True)
        assert b.is_tensor(x)
    assert not b.is_tensor("text")


def test_ragged_tensors_give_clear_errors(b: Any, tf: Any) -> None:
    ragged = tf.ragged.constant([[1.0], [2.0, 3.0]])
    assert b.staticshape(ragged) == (2, None)
    with pytest.raises(TypeError, match="to_tensor"):
        b.numpy(ragged)
    with pytest.raises(TypeError, match="to_tensor"):
        b.exp(ragged)


def test_python_values_convert_like_numpy_and_torch(b: Any) -> None:
    assert b.dtype(b.as_tensor(1.5)) == DType(float, 32)
    assert b.dtype(b.as_tensor(2)) == DType(int, 64)
    assert b.dtype(b.as_tensor(np.ones(2, np.float64))) == DType(float, 64)
    assert b.as_tensor(3, convert_external=False) == 3


@pytest.mark.parametrize("precision", [16, 32, 64])
def test_precision_converts_floats(b: Any, precision: int) -> None:
    with bk.precision(precision):
        x = b.as_tensor(np.ones(3, np.float32))
        assert b.dtype(x) == DType(float, precision)
        assert b.dtype(b.zeros((2,))) == DType(float, precision)
        assert b.dtype(b.add(x, 1)) == DType(float, precision)


def test_no_precision_keeps_input_precision(b: Any) -> None:
    x = b.as_tensor(np.ones(3, np.float64))
    assert b.dtype(b.sin(x)) == DType(float, 64)
    assert b.dtype(b.add(x, 1.5)) == DType(float, 64)
    assert b.dtype(b.add(b.as_tensor(np.ones(3, np.float32)), x)) == DType(float, 64)
    assert b.dtype(b.zeros((2,))) == DType(float, 32)
    assert b.dtype(b.to_complex(x)) == DType(complex, 128)


def test_devices_round_trip(b: Any, tf: Any) -> None:
    cpu = b.list_devices("CPU")[0]
    x = b.allocate_on_device(b.as_tensor([1.0, 2.0]), cpu)
    assert b.get_device(x) == cpu
    assert b.set_default_device(cpu)
    assert b.get_device(b.ones((2,))) == cpu
    np.testing.assert_array_equal(b.numpy(x), [1.0, 2.0])
    if b.list_devices("GPU"):
        gpu = b.list_devices("GPU")[0]
        moved = b.allocate_on_device(x, gpu)
        assert b.get_device(moved) == gpu
        np.testing.assert_array_equal(b.numpy(moved), [1.0, 2.0])


def test_sparse_coo_round_trip_sums_duplicates(b: Any, tf: Any) -> None:
    indices = np.array([[0, 1], [2, 0], [0, 1]])
    values = np.array([1.0, 2.0, 3.0], np.float32)
    sparse = b.sparse_coo_tensor(indices, values, (3, 2))
    assert b.is_sparse(sparse) and b.get_sparse_format(sparse) == "coo"
    dense = np.zeros((3, 2), np.float32)
    np.add.at(dense, tuple(indices.T), values)
    np.testing.assert_array_equal(tf.sparse.to_dense(sparse).numpy(), dense)
    assemble, parts = b.disassemble(sparse)
    np.testing.assert_array_equal(b.numpy(assemble(b, *parts)).toarray(), dense)
    on_numpy = assemble(bk.backend("numpy"), *[b.numpy(p) for p in parts])
    np.testing.assert_array_equal(on_numpy.toarray(), dense)
    product = b.mul_matrix_batched_vector(sparse, b.as_tensor(np.ones((1, 2), np.float32)))
    np.testing.assert_array_equal(b.numpy(product), (dense @ np.ones(2))[None])


def test_csr_is_not_claimed(b: Any) -> None:
    assert not b.supports("csr_matrix")
    with pytest.raises(NotImplementedError):
        b.csr_matrix([0], [0, 1], [1.0], (1, 1))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("update", [9.0, 5.0, 0.0]), ("add", [10.0, 5.0, 0.0]), ("max", [9.0, 5.0, 0.0]), ("min", [1.0, 0.0, 0.0])],
)
def test_scatter_modes_broadcast_batch_one(b: Any, mode: str, expected: list[float]) -> None:
    base = np.zeros((2, 3, 1), np.float32)
    base[:, 0] = 1.0
    indices = np.array([[[0], [1]]])  # batch 1 broadcasts over the base's batch of 2
    values = np.array([[[9.0], [5.0]]], np.float32)
    result = b.numpy(b.scatter(b.as_tensor(base), b.as_tensor(indices), b.as_tensor(values), mode))
    assert result.shape == (2, 3, 1)
    np.testing.assert_array_equal(result[1, :, 0], expected)
    np.testing.assert_array_equal(result[0], result[1])


def test_dlpack_shares_memory_with_numpy(b: Any) -> None:
    x = b.as_tensor(np.arange(4, dtype=np.float32))
    exported = b.to_dlpack(x)
    assert hasattr(exported, "__dlpack__") and exported.__dlpack_device__() == (1, 0)
    array = np.from_dlpack(exported)
    np.testing.assert_array_equal(array, [0, 1, 2, 3])
    back = b.from_dlpack(np.arange(3, dtype=np.float64))
    assert b.dtype(back) == DType(float, 64)
    capsule = b.from_dlpack(np.arange(2.0).__dlpack__())
    np.testing.assert_array_equal(b.numpy(capsule), [0.0, 1.0])
