"""`Backend.supports()` and the generic default implementations, on NumPy-backed fake backends."""

from __future__ import annotations

import numpy as np
import pytest

import bk
from bk import DType

# ---------------------------------------------------------------- supports()


def test_required_set_is_always_supported(minimal):
    backend = minimal
    for feature in ("is_tensor", "as_tensor", "is_available", "numpy", "dtype", "staticshape", "cast"):
        assert backend.supports(feature)


def test_inherited_not_implemented_is_not_supported(minimal):
    backend = minimal
    for feature in ("sum", "fft", "jacobian", "custom_gradient", "grid_sample", "gradients", "jit", "sparse", "dlpack", "devices"):
        assert not backend.supports(feature), feature
    with pytest.raises(NotImplementedError, match="minimal does not implement sum"):
        backend.sum(np.ones(2))
    assert backend.custom_gradient(lambda x: x, lambda *a: a) is NotImplemented


def test_generic_default_is_supported_only_with_its_operations(minimal, richer):
    assert minimal.supports("add") and minimal.supports("ndims") and minimal.supports("to_float")
    assert not minimal.supports("stack_leaves") and richer.supports("stack_leaves")
    assert not minimal.supports("tile_to") and richer.supports("tile_to")
    assert not minimal.supports("mul_coo_dense") and richer.supports("mul_coo_dense")
    assert richer.supports("mul_csr_dense")  # csr_to_coo + mul_coo_dense, both generic and supported
    assert not richer.supports("batched_bincount")  # needs bincount


def test_supports_accepts_unbound_methods_and_capabilities(richer):
    assert richer.supports(bk.Backend.stack)
    assert not richer.supports(bk.Backend.fft)
    assert richer.supports("float64")


def test_float64_capability_is_declared_by_the_class(minimal):
    class NoDouble(type(minimal)):  # type: ignore[misc]
        float64_supported = False

    assert not NoDouble().supports("float64")


def test_unknown_feature_names_close_matches(minimal):
    with pytest.raises(ValueError, match=r"unknown feature 'stak'\. Did you mean 'stack'"):
        minimal.supports("stak")
    with pytest.raises(ValueError, match="unknown feature"):
        minimal.supports("_name")


def test_features_lists_methods_and_capabilities():
    features = bk.Backend.features()
    assert "stack" in features and "gradients" in features and "supports" not in features
    assert len(set(features)) == len(features)


def test_override_makes_a_feature_supported(minimal):
    class WithFFT(type(minimal)):  # type: ignore[misc]
        def fft(self, x, axes):
            return np.fft.fftn(x, axes=axes)

    assert WithFFT().supports("fft") and not minimal.supports("fft")


# ---------------------------------------------------------------- generic defaults


def test_operators_auto_cast(minimal):
    b = minimal
    result = b.add(np.array([1, 2], np.int8), np.array([0.5, 1], np.float32))
    assert result.dtype == np.float32 and np.allclose(result, [1.5, 3], atol=1e-6)
    assert b.add(np.array([True]), np.array([True])).dtype == np.int32
    with bk.precision(64):
        assert b.mul(np.float32(2), np.float32(3)).dtype == np.float64


def test_flip_unstack_and_shape_helpers(minimal):
    b = minimal
    x = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(b.flip(x, [1]), x[:, ::-1])
    assert [u.tolist() for u in b.unstack(x, axis=1)] == [[0, 3], [1, 4], [2, 5]]
    assert b.unstack(x, axis=-1, keepdims=True)[0].shape == (2, 1)
    with pytest.raises(ValueError, match="out of range"):
        b.unstack(x, axis=2)
    assert b.ndims(x) == 2 and b.size(x) == 6 and b.shape(x) == (2, 3)
    assert b.determine_size([np.ones((1, 2)), np.ones((4, 2))], 0) == 4
    with pytest.raises(ValueError, match="do not match"):
        b.determine_size([np.ones(3), np.ones(4)], 0)


def test_pad_to_and_tile_to(richer):
    b = richer
    np.testing.assert_array_equal(b.pad_to(np.array([1, 2]), 0, 4, 9), [1, 2, 9, 9])
    np.testing.assert_array_equal(b.pad_to(np.array([1, 2, 3]), 0, 2, 9), [1, 2])
    np.testing.assert_array_equal(b.tile_to(np.array([[1, 2]]), 0, 3), [[1, 2]] * 3)
    with pytest.raises(ValueError, match="cannot tile"):
        b.tile_to(np.ones((2, 1)), 0, 3)


def test_stack_leaves_and_vectorized_call(richer):
    b = richer
    trees = [{"a": (np.ones(2) * i, np.zeros(1))} for i in range(3)]
    stacked = b.stack_leaves(trees)
    assert stacked["a"][0].shape == (3, 2) and stacked["a"][1].shape == (3, 1)
    result = b.vectorized_call(lambda x, y: x * y, np.arange(3.0), np.array([2.0]))
    np.testing.assert_array_equal(result, [0, 2, 4])


def test_unravel_and_ravel_multi_index(richer):
    b = richer
    flat = np.array([0, 5, 11])
    multi = b.unravel_index(flat, (3, 4))
    np.testing.assert_array_equal(multi, np.stack(np.unravel_index(flat, (3, 4)), -1))
    np.testing.assert_array_equal(b.ravel_multi_index(multi, (3, 4)), flat)
    outside = np.array([[3, 0], [-1, 2], [1, 1]])
    np.testing.assert_array_equal(b.ravel_multi_index(outside, (3, 4), mode="periodic"), [0, 10, 5])
    np.testing.assert_array_equal(b.ravel_multi_index(outside, (3, 4), mode="clamp"), [8, 2, 5])
    np.testing.assert_array_equal(b.ravel_multi_index(outside, (3, 4), mode=-1), [-1, -1, 5])
    with pytest.raises(ValueError, match="mode must be"):
        b.ravel_multi_index(outside, (3, 4), mode="wrap")


def test_factorial(richer):
    b = richer
    np.testing.assert_array_equal(b.factorial(np.array([0, 5, 12], np.int32)), [1, 120, 479001600])
    assert b.factorial(np.array([20], np.int64))[0] == 2432902008176640000
    np.testing.assert_allclose(b.factorial(np.array([3.0, 4.5])), [6.0, 52.34277778], rtol=1e-6, atol=1e-9)


def test_sparse_generics_against_dense(richer):
    b = richer
    rng = np.random.default_rng(0)
    dense_matrix = np.array([[1.0, 0, 2], [0, 3, 0]])
    rows, cols = np.nonzero(dense_matrix)
    indices = np.stack([rows, cols], -1)[None]  # (1, nnz, 2)
    values = dense_matrix[rows, cols][None, :, None]  # (1, nnz, 1)
    rhs = rng.normal(size=(1, 3, 1, 2))
    expected = np.einsum("ij,bjck->bick", dense_matrix, rhs)
    np.testing.assert_allclose(b.mul_coo_dense(indices, values, (2, 3), rhs), expected, atol=1e-12)
    np.testing.assert_allclose(b.coo_to_dense(indices, values, (2, 3), False)[0, ..., 0], dense_matrix, atol=1e-12)
    column_indices, row_pointers = cols[None], np.array([[0, 2, 3]])
    np.testing.assert_array_equal(b.csr_to_coo(column_indices, row_pointers), indices)
    np.testing.assert_allclose(b.mul_csr_dense(column_indices, row_pointers, values, (2, 3), rhs), expected, atol=1e-12)
    np.testing.assert_allclose(b.csr_to_dense(column_indices, row_pointers, values, (2, 3))[0, ..., 0], dense_matrix, atol=1e-12)


def test_gather_and_scatter_generics(richer):
    b = richer
    values = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(b.gather_1d(np.arange(5), np.array([4, 0])), [4, 0])
    np.testing.assert_array_equal(b.gather_nd(values, np.array([[1], [3]])), values[[1, 3]])
    np.testing.assert_array_equal(b.batched_gather_1d(np.arange(6.0).reshape(2, 3), np.array([[2, 0], [1, 1]])), [[2, 0], [4, 4]])
    result = b.scatter_1d_scalar(np.zeros(4), np.array([1, 1, 3]), np.array([1.0, 2.0, 5.0]), "add")
    np.testing.assert_array_equal(result, [0, 3, 0, 5])
    grid = b.scatter_nd_scalar(np.zeros((2, 2)), np.array([[0, 1]]), np.array([7.0]), "update")
    np.testing.assert_array_equal(grid, [[0, 7], [0, 0]])


def test_while_loop_with_and_without_checkpoints(richer):
    b = richer

    def loop(active, x):
        x = x + 1
        return x < 3, x

    active, x = b.while_loop(loop, (np.array(True), np.array(0)), max_iter=10)
    assert (bool(active), int(x)) == (False, 3)
    assert int(b.while_loop(loop, (np.array(True), np.array(0)), max_iter=2)[1]) == 2
    trajectory = b.while_loop(loop, (np.array(True), np.array(0)), max_iter=[0, 1, 5, 8])
    # the loop ends at iteration 3, between checkpoints: later ones repeat the last recorded one (as phiml.backend)
    np.testing.assert_array_equal(trajectory[1], [0, 1, 1, 1])
    trajectory = b.while_loop(loop, (np.array(True), np.array(0)), max_iter=[0, 1, 3, 8])
    np.testing.assert_array_equal(trajectory[1], [0, 1, 3, 3])


def test_linear_applies_functions_and_matrix_lists(richer):
    class WithMatmul(type(richer)):  # type: ignore[misc]
        def mul_matrix_batched_vector(self, A, b):
            return b @ A.T

    b = WithMatmul()
    vectors = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(b.linear(lambda v: 2 * v, vectors), 2 * vectors)
    np.testing.assert_array_equal(b.linear(np.eye(2) * 3, vectors), 3 * vectors)
    np.testing.assert_array_equal(b.linear([np.eye(2), 2 * np.eye(2)], vectors), [[1, 2], [6, 8]])
    with pytest.raises(ValueError, match="must be a matrix"):
        b.linear(np.ones(3), vectors)


def test_devices(minimal, richer):
    b = minimal
    (cpu,) = b.list_devices()
    assert b.list_devices("GPU") == [] and b.get_device(np.ones(1)) is cpu
    assert b.get_device_by_ref("cpu") is cpu
    with pytest.warns(RuntimeWarning, match="no GPU device"):
        assert b.set_default_device("GPU") is False
    assert b.set_default_device("CPU") is True
    with pytest.raises(ValueError, match="belongs to backend"):
        b.set_default_device(type(richer)().get_default_device())
    with pytest.raises(ValueError, match="device_type must be"):
        b.list_devices("QPU")
    with pytest.raises(ValueError, match="device_type must be one of"):
        bk.ComputeDevice(b, "x", "QPU", -1, -1, "", None)
    assert "minimal device 'CPU' (CPU)" in repr(cpu)


def test_numpy_call_and_dense_disassemble(minimal):
    b = minimal
    result = b.numpy_call(lambda x: x * 2, (2,), DType(float, 64), np.array([1.0, 2.0]))
    np.testing.assert_array_equal(result, [2, 4])
    assemble, parts = b.disassemble(np.ones(2))
    np.testing.assert_array_equal(assemble(b, *parts), np.ones(2))
    assert b.get_sparse_format(np.ones(2)) == "dense"


def test_objects_backend():
    objects = bk.OBJECTS
    assert objects.is_tensor("a") and objects.is_tensor(3) and objects.is_tensor([1, "b"]) and not objects.is_tensor([1], only_native=True)
    assert objects.dtype("a") == DType(str) and objects.dtype(1.5) == DType(float, 64)
    assert objects.staticshape([[1, 2], [3, 4]]) == (2, 2)
    assert objects.cast(1.7, DType(int)) == 1
    assert objects.supports("equal") and not objects.supports("sum")
    with pytest.raises(TypeError, match="Python numbers and strings"):
        objects.as_tensor(object())


@pytest.mark.parametrize(
    ("tensor", "number", "expected"),
    [
        (np.ones(2, np.float32), 1.5, "float32"),
        (np.ones(2, np.float16), 2, "float16"),
        (np.ones(2, np.int32), 1.5, "float32"),
        (np.ones(2, np.int64), 2, "int64"),
        (np.ones(2, np.uint8), 2, "uint8"),
        (np.ones(2, bool), 2, "int64"),  # a Python int is int64 (docs/semantics.md)
        (np.ones(2, bool), True, "bool"),
        (np.ones(2, np.float64), 1j, "complex128"),
        (np.ones(2, np.float32), 1j, "complex64"),
        (np.ones(2, np.int32), 1j, "complex64"),
        (np.ones(2, np.float32), np.float64(1.5), "float64"),  # NumPy scalars are not weak
    ],
)
def test_auto_cast_treats_python_numbers_as_weak(minimal, tensor, number, expected):
    a, b = minimal.auto_cast(tensor, number)
    assert a.dtype == b.dtype == np.dtype(expected)
    assert minimal.add(tensor, number).dtype == np.dtype("int32" if expected == "bool" else expected)  # booleans add as int32
    assert minimal.mul(number, tensor).dtype == np.dtype(expected)


def test_auto_cast_of_python_numbers_alone_uses_default_types(minimal):
    assert minimal.add(1.5, 2).dtype == np.float32
    assert minimal.add(1, 2).dtype == np.int64  # as as_tensor(3) (docs/semantics.md)
    with bk.precision(64):
        assert minimal.add(1.5, 2).dtype == np.float64
        assert minimal.add(np.ones(2, np.int32), 1.5).dtype == np.float64


def test_unknown_operation_names_the_catalogue_alternatives(minimal):
    from bk._names import FOREIGN_NAMES

    b = minimal
    with pytest.raises(AttributeError, match=r"no operation 'dot'; see 'tensordot', 'einsum'.*migration"):
        getattr(b, "dot")  # noqa: B009
    with pytest.raises(AttributeError, match=r"no operation 'concatenat'; see 'concat'"):
        getattr(b, "concatenat")  # noqa: B009  # a misspelt NumPy name
    with pytest.raises(AttributeError, match=r"no operation 'matmull'; see '(matmul|tensordot)'"):
        getattr(b, "matmull")  # noqa: B009
    with pytest.raises(AttributeError, match="'sin'"):
        getattr(b, "sinn")  # noqa: B009
    assert not hasattr(b, "__array__") and not hasattr(b, "_private")
    catalogue = set(bk.Backend.features())
    assert all(set(v) <= catalogue for v in FOREIGN_NAMES.values()), "every suggestion is a catalogue operation"
    assert not catalogue & set(FOREIGN_NAMES), "no foreign name shadows a catalogue operation"


def test_migration_table_lists_every_foreign_name():
    from pathlib import Path

    from bk._names import FOREIGN_NAMES

    page = (Path(__file__).parents[2] / "docs" / "migration.md").read_text()
    for name, ops in FOREIGN_NAMES.items():
        assert f"| `{name}` | {', '.join(f'`{o}`' for o in ops)} |" in page, name


# ---------------------------------------------------------------- lazy backends


def test_eager_backends_count_no_computes_and_declare_none(minimal):
    assert minimal.compute_count() is None
    assert minimal.computing_operations == frozenset()
    assert "compute_count" not in bk.Backend.features() and "computing_operations" not in bk.Backend.features()
    with pytest.raises(ValueError, match="unknown feature"):
        minimal.supports("compute_count")
