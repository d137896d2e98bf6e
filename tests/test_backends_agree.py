"""The framework backends agree with bk-numpy on the calls where a differential fuzz found them apart
(issue 39, "backends agree"): the rule of each call is stated here, and every backend is held to it."""

from __future__ import annotations

import numpy as np
import pytest

import bk
from bk_testkit._generated import Arr, Call, diff_outcomes, error_class, execute

BACKENDS = [name for name in ("numpy", "torch", "jax", "tf") if name in bk.backends()]
F16, F32, F64 = bk.DType(float, 16), bk.DType(float, 32), bk.DType(float, 64)
I8, I32, I64 = bk.DType(int, 8), bk.DType(int, 32), bk.DType(int, 64)
U8, U16, U32, U64 = (bk.DType(int, b, signed=False) for b in (8, 16, 32, 64))


def A(values, dtype=None) -> Arr:
    return Arr(np.asarray(values, dtype))


def agree(name: str, call: Call) -> None:
    """`call` gives on backend `name` what it gives on bk-numpy: error class, dtypes, shapes, values."""
    found = diff_outcomes(call, execute(bk.backend("numpy"), call), execute(bk.backend(name), call))
    assert found is None, f"{call!r} [{found.what}]\n  numpy: {found.a}\n  {name}: {found.b}"


def outcome(name: str, call: Call):
    return execute(bk.backend(name), call)


# ---------------------------------------------------------------- creation


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("op", ["ones", "zeros"])
def test_one_int_is_a_shape(name: str, op: str):
    for dtype in (None, bk.DType(bool), U16, F64):
        result = outcome(name, Call(op, (3,), {"dtype": dtype} if dtype else {}))
        assert result.error is None and result.static == [(3,)], result.describe()
    agree(name, Call(op, (np.int64(2),), {"dtype": U8}))


@pytest.mark.parametrize("name", BACKENDS)
def test_range_of_every_int_dtype(name: str):
    for dtype in (I8, bk.DType(int, 16), U8, U16, U32, U64, I32, I64):
        for args in ((5,), (2, 7), (0, 10, 3), (10, 0, -3), (0,)):
            if dtype.signed is False and args == (10, 0, -3):
                continue
            agree(name, Call("range", args, {"dtype": dtype}))


@pytest.mark.parametrize("name", BACKENDS)
def test_range_values_beyond_the_dtype_overflow(name: str):
    for args, dtype in (((2**31 + 5, 2**31 + 8), I32), ((250, 260, 5), I8), ((-1, 3), U8), ((0, 300, 100), I8)):
        result = outcome(name, Call("range", args, {"dtype": dtype}))
        assert isinstance(result.error, OverflowError) and "range" in str(result.error), result.describe()
    agree(name, Call("range", (0, 300, 100), {"dtype": U16}))  # fits: no error


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("op", ["linspace", "linspace_without_last"])
def test_linspace_bounds(name: str, op: str):
    agree(name, Call(op, (0.0, 1e40, 3)))  # beyond float32: inf, as NumPy (not NaN, not an error)
    agree(name, Call(op, (A(np.float32(0)), A(np.float32(1)), 3)))  # 0-d tensors
    agree(name, Call(op, (A(np.int32(0)), 1, 3)))
    for bad, error in (((1j, 2 + 2j, 3), bk.ArgumentTypeError), ((A([0.0, 1.0]), A([1.0, 2.0]), 3), bk.ShapeMismatchError)):
        result = outcome(name, Call(op, bad))
        assert isinstance(result.error, error), result.describe()


@pytest.mark.parametrize("name", BACKENDS)
def test_meshgrid_flattens(name: str):
    agree(name, Call("meshgrid", (A(np.ones((2, 2))), A(np.arange(3)))))
    agree(name, Call("meshgrid", (A(np.float64(1.0)), A(np.arange(3)))))


# ---------------------------------------------------------------- counting


@pytest.mark.parametrize("name", BACKENDS)
def test_bincount_takes_one_axis(name: str):
    for x, weights in ((np.array([[3, 2], [1, 0]]), None), (np.array(3), None), (np.array([0, 1, 2]), np.ones(2, np.float32))):
        result = outcome(name, Call("bincount", (A(x), None if weights is None else A(weights), 5)))
        assert isinstance(result.error, bk.ShapeMismatchError), result.describe()


@pytest.mark.parametrize("name", BACKENDS)
def test_batched_bincount_weights(name: str):
    x = np.array([[0, 1, 1], [3, 3, 0]])
    for weights in (np.ones(3, np.float64), np.ones((1, 3), np.float32), np.ones((2, 3), np.bool_), np.full((2, 3), 1 + 2j, np.complex64)):
        agree(name, Call("batched_bincount", (A(x), A(weights), 5)))
    agree(name, Call("batched_bincount", (A(np.array([[2, 3, 1, 3]])), A(np.ones(4)), 5)))  # one row: shape (1, 5)
    agree(name, Call("batched_bincount", (A(x.astype(np.uint64)), None, 5)))
    result = outcome(name, Call("batched_bincount", (A(x), A(np.ones((2, 2))), 5)))
    assert isinstance(result.error, bk.ShapeMismatchError), result.describe()


@pytest.mark.parametrize("name", BACKENDS)
def test_histogram1d_batches_and_weights(name: str):
    values = np.array([[-3, -1, 0, 1, 2, 3, 4]], np.float32)
    edges = np.array([[-3.0, -1.0, 1.0, 3.0], [0.0, 1.0, 2.0, 3.0]])
    for weights in (np.ones((1, 7), np.float32), np.ones((1, 7), np.bool_), np.ones((1, 7), np.complex64), np.ones((1, 7), np.int32)):
        agree(name, Call("histogram1d", (A(values), A(weights), A(edges))))  # values and weights of batch 1
        agree(name, Call("histogram1d", (A(np.repeat(values, 2, 0)), A(weights), A(edges[:1]))))  # edges of batch 1
    agree(name, Call("histogram1d", (A(np.ones((0, 2))), A(np.ones((0, 2))), A(np.array([[0.0, 1.0, 2.0]])))))
    result = outcome(name, Call("histogram1d", (A(values), A(np.ones((1, 7), np.bool_)), A(edges))))
    assert result.dtypes == [I64] and result.values[0].tolist() == [[1, 2, 3], [1, 1, 2]], result.describe()


# ---------------------------------------------------------------- linear algebra


def _systems(dtype: str, m: int, n: int, k: int, batch: tuple[int, int] = (1, 1)) -> tuple[Arr, Arr]:
    rng = np.random.default_rng(m * 100 + n * 10 + k)
    a, b = rng.standard_normal((batch[0], m, n)), rng.standard_normal((batch[1], m, k))
    if dtype.startswith("complex"):
        a, b = a + 1j * rng.standard_normal(a.shape), b + 1j * rng.standard_normal(b.shape)
    return A(a.astype(dtype)), A(b.astype(dtype))


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "float16"])
def test_least_squares(name: str, dtype: str):
    for m, n, k in ((3, 2, 1), (2, 3, 1), (3, 3, 2), (4, 2, 3), (3, 2, 0), (0, 2, 1)):
        for batch in ((1, 1), (2, 1), (1, 2)):
            agree(name, Call("matrix_solve_least_squares", _systems(dtype, m, n, k, batch)))
    rank_deficient = A(np.array([[[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]], dtype))
    agree(name, Call("matrix_solve_least_squares", (rank_deficient, A(np.ones((1, 3, 1), dtype)))))
    result = outcome(name, Call("matrix_solve_least_squares", _systems(dtype, 2, 3, 2)))
    assert result.static[1] == (1, 2), result.describe()  # residuals of every system, also of a wide matrix


# ---------------------------------------------------------------- casts and special values


@pytest.mark.parametrize("name", BACKENDS)
def test_cast_of_python_numbers(name: str):
    for value in (True, 3, -3, 2.5, 1j, 300, 2 - 1j):
        for dtype in (bk.DType(bool), I8, U8, I64, U64, F16, F32, F64, bk.DType(complex, 64)):
            call = Call("cast", (value, dtype))
            if type(value) is int and dtype.kind is int and not bk.rules.int_range(dtype)[0] <= value <= bk.rules.int_range(dtype)[1]:
                result = outcome(name, call)
                assert error_class(result.error) == "OverflowError", result.describe()  # NumPy 2, NEP 50
            else:
                agree(name, call)


@pytest.mark.parametrize("name", BACKENDS)
def test_abs_of_complex_infinities(name: str):
    for dtype in ("complex64", "complex128"):
        z = np.array([complex(np.inf, np.nan), complex(np.nan, np.inf), complex(-np.inf, np.nan), complex(np.nan, np.nan), complex(0, -np.inf)], dtype)
        result = outcome(name, Call("abs", (A(z),)))
        np.testing.assert_array_equal(result.values[0], [np.inf, np.inf, np.inf, np.nan, np.inf])


# ---------------------------------------------------------------- testkit diff


AGREEING = (
    "matrix_solve_least_squares", "bincount", "batched_bincount", "histogram1d", "meshgrid", "ones", "zeros", "range",
    "linspace", "linspace_without_last", "cast", "abs",
)  # fmt: skip


@pytest.mark.parametrize("name", [n for n in BACKENDS if n != "numpy"])
def test_testkit_diff_draws_these_calls_and_finds_no_undeclared_difference(name: str):
    from bk_testkit._diff import diff_backends

    report = diff_backends(bk.backend("numpy"), bk.backend(name), AGREEING, examples=12)
    assert report.calls > 100
    listing = "\n".join(f"{d.call!r} [{d.what}]\n  numpy: {d.a}\n  {name}: {d.b}" for d in report.disagreements[:10])
    assert not report.disagreements, listing


def test_declared_differences_name_only_what_frameworks_decide():
    from bk_testkit._diff import declared_difference

    def named(call: Call, names=("numpy", "jax")) -> str | None:
        found = declared_difference(call, names)
        return None if found is None else found.name

    assert named(Call("cast", (A([np.nan, 1.5], np.float32), I32))) == "float-to-int-outside"
    assert named(Call("cast", (A([300.0]), I8))) == "float-to-int-outside"
    assert named(Call("to_int32", (A([np.inf]),))) == "float-to-int-outside"
    assert named(Call("cast", (A([1.5, -2.5]), I8))) is None
    assert named(Call("cast", (A([np.nan]), F32))) is None
    assert named(Call("sqrt", (A([complex(np.inf, np.nan)], np.complex64),))) == "complex-infinity"
    assert named(Call("abs", (A([complex(np.inf, np.nan)], np.complex64),))) is None  # bk defines it
    assert named(Call("ceil", (A([1e-45], np.float32),))) == "subnormal-flush"
    assert named(Call("ceil", (A([1e-45], np.float32),)), ("numpy", "torch")) is None
    ones = A(np.ones((1, 2)))
    assert named(Call("histogram1d", (ones, ones, A([[2.0, 1.0, 0.0]])))) == "unsorted-bin-edges"
    assert named(Call("histogram1d", (ones, ones, A([[0.0, 1.0, 1.0]])))) is None


# ---------------------------------------------------------------- decompositions: one convention


def _matrices(square: bool):
    rng = np.random.default_rng(7)
    shapes = [(3, 3), (2, 4, 4), (1, 1)] if square else [(3, 2), (2, 3), (2, 4, 3), (1, 1)]
    for dtype in ("float32", "float64", "complex64", "complex128"):
        for shape in shapes:
            m = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dtype.startswith("complex") else 0)
            yield m.astype(dtype)
    yield np.diag([3.0, 1.0, 2.0])
    yield np.array([[0.0, -1.0], [1.0, 0.0]])  # a conjugate pair


@pytest.mark.parametrize("name", BACKENDS)
def test_eig_and_svd_give_one_result_everywhere(name: str):
    """Eigenvalue order and vector phases are bk's (`bk._rules.conventions`), so the whole results agree."""
    for m in _matrices(square=True):
        agree(name, Call("eigvals", (A(m),)))
        agree(name, Call("eig", (A(m),)))
        hermitian = (m + np.swapaxes(m, -1, -2).conj()) / 2
        agree(name, Call("eigh", (A(hermitian),)))
    for m in _matrices(square=False):
        agree(name, Call("svd", (A(m),), {"full_matrices": False}))
        if m.shape[-1] == m.shape[-2]:
            agree(name, Call("svd", (A(m),)))


def test_the_convention_keeps_the_decompositions():
    b = bk.backend("numpy")
    m = np.random.default_rng(3).standard_normal((2, 4, 4)) + 1j * np.random.default_rng(4).standard_normal((2, 4, 4))
    values, vectors = (np.asarray(v) for v in b.eig(m))
    np.testing.assert_allclose(m @ vectors, vectors * values[..., None, :], atol=1e-10)
    assert np.all(np.diff(values.real, axis=-1) >= 0)  # ascending real parts
    first = np.argmax(np.abs(vectors) >= 0.999 * np.abs(vectors).max(-2, keepdims=True), axis=-2)
    pivots = np.take_along_axis(vectors, first[..., None, :], axis=-2)
    np.testing.assert_allclose(pivots.imag, 0, atol=1e-12)
    np.testing.assert_array_less(0, pivots.real)  # the pivot of every eigenvector is real and positive
    for full in (True, False):
        a = m[..., :3]
        u, s, vh = (np.asarray(v) for v in b.svd(a, full_matrices=full))
        k = s.shape[-1]
        np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, atol=1e-10)
    assert np.asarray(b.eigvals(np.array([[0.0, -1.0], [1.0, 0.0]]))).tolist() == [-1j, 1j]


@pytest.mark.parametrize("name", BACKENDS)
def test_a_python_int_fill_must_fit_the_int_tensor(name: str):
    """As `full((2,), 300, int8)`: OverflowError on every backend (NumPy 2, NEP 50), not 44 or a RuntimeError."""
    for call in (
        Call("pad", (A([[1, 2]], np.int8), ((1, 1), (0, 1))), {"mode": "constant", "constant_values": 300}),
        Call("pad_to", (A([1, 2], np.uint8), 0, 4, -1)),
    ):
        result = outcome(name, call)
        assert error_class(result.error) == "OverflowError", result.describe()
    agree(name, Call("pad", (A([1, 2], np.int8), ((1, 1),)), {"constant_values": -128}))
