"""The Array API standard's semantics where its own suite is thin, on every installed backend's
`bk.array_namespace` (issue 32): distinct NaNs in `unique_*`, writeable 0-d results of `asarray`
that honour `copy=`, and framework keywords accepted or refused with a bk error."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import bk

NAN = float("nan")
UNIQUES = ("unique_values", "unique_counts", "unique_inverse", "unique_all")


def _np(xp, x) -> np.ndarray:
    """The values of a result: bk-lazy graphs and Dask arrays are computed by their backend."""
    return np.asarray(xp.backend.numpy(x))


@pytest.mark.parametrize(
    "data",
    [[3.0, NAN, 1.0, NAN, 3.0, -0.0, 0.0], [NAN, NAN], [2.0, 1.0], [], [[NAN, 1.0], [1.0, NAN]], [5.0]],
    ids=["mixed", "only-nan", "no-nan", "empty", "2-d", "one"],
)
def test_each_nan_is_a_distinct_value(xp, data: list) -> None:
    x = xp.asarray(data, dtype=xp.float32)
    reference = np.asarray(data, dtype=np.float32)
    expected = np.unique_all(reference)  # NumPy 2: equal_nan=False, as the standard
    values = _np(xp, xp.unique_values(x))
    np.testing.assert_array_equal(values, expected.values)
    counts = xp.unique_counts(x)
    np.testing.assert_array_equal(_np(xp, counts.values), expected.values)
    np.testing.assert_array_equal(_np(xp, counts.counts), expected.counts)
    inverse = xp.unique_inverse(x)
    np.testing.assert_array_equal(_np(xp, inverse.inverse_indices), expected.inverse_indices)
    result = xp.unique_all(x)
    np.testing.assert_array_equal(_np(xp, result.indices), expected.indices)
    np.testing.assert_array_equal(_np(xp, result.inverse_indices), expected.inverse_indices)
    np.testing.assert_array_equal(_np(xp, result.counts), expected.counts)
    # the values at the inverse indices rebuild the input, NaNs included
    rebuilt = _np(xp, result.values)[_np(xp, result.inverse_indices)] if reference.size else reference
    np.testing.assert_array_equal(rebuilt, reference)


def test_unique_of_integers_and_complex(xp) -> None:
    ints = xp.asarray([3, 1, 3, 2], dtype=xp.int32)
    np.testing.assert_array_equal(_np(xp, xp.unique_counts(ints).counts), [1, 1, 2])
    if not hasattr(xp, "complex64"):
        return
    z = xp.asarray(np.array([complex(NAN, 0.0), 1j, complex(0.0, NAN), 1j], dtype=np.complex64))
    values = _np(xp, xp.unique_values(z))
    assert values.shape == (3,) and np.isnan(values).sum() == 2  # 1j once, each complex NaN apart


def test_asarray_of_numpy_scalars_and_0d_inputs_is_a_writeable_0d_array(xp) -> None:
    for source in (np.float32(1.5), np.int64(3), np.bool_(True), np.asarray(2.0, dtype=np.float32), 1.5, 3):
        for copy in (None, True):
            result = xp.asarray(source, copy=copy)
            assert xp.backend.is_tensor(result, only_native=True) and tuple(xp.backend.staticshape(result)) == ()
            assert _np(xp, result) == np.asarray(source)
            if isinstance(result, np.generic | np.ndarray):  # NumPy: a 0-d array, not a scalar, and writeable
                assert isinstance(result, np.ndarray) and result.flags.writeable
    assert xp.asarray(np.float32(1.5)).dtype == xp.float32 and xp.asarray(np.int16(3)).dtype == xp.int16
    with pytest.raises(ValueError, match=r"^asarray: copy=False"):
        xp.asarray(np.float32(0), copy=False)


def test_asarray_copy_true_never_shares_memory_on_numpy() -> None:
    xp = bk.array_namespace("numpy")
    source = np.asarray(2.0, dtype=np.float32)
    copied = xp.asarray(source, copy=True)
    copied[()] = 5.0
    assert source == 2.0 and xp.asarray(source, copy=False) is source
    scalar = xp.asarray(np.float32(0), copy=True)
    scalar[()] = 1.0  # the example: was a read-only NumPy scalar
    assert scalar == 1.0
    with pytest.raises(ValueError, match=r"^asarray: copy=False"):
        xp.asarray(np.ones(3), dtype=xp.float32, copy=False)  # a cast copies


@pytest.mark.parametrize("name", UNIQUES)
def test_framework_keywords_are_refused_with_a_bk_error_where_not_honoured(xp, name: str) -> None:
    if xp.backend.name == "jax":
        pytest.skip("jax.numpy takes size= and fill_value=: see the next test")
    x = xp.asarray([1.0, 2.0])
    with pytest.raises(bk.ArgumentTypeError, match=rf"^{name}: .*'size'.*\(the 'jax' namespace does\)"):
        getattr(xp, name)(x, size=3)
    with pytest.raises(bk.ArgumentTypeError, match=r"^zeros: .*'order'"):
        xp.zeros(2, order="C")
    with pytest.raises(bk.ArgumentTypeError, match=r"^asarray: .*'like'"):
        xp.asarray([1.0], like=x)


def test_jax_takes_size_and_fill_value_as_jax_numpy_does() -> None:
    if "jax" not in bk.backends():
        pytest.skip("bk-jax is not installed")
    import jax.numpy as jnp

    xp = bk.array_namespace("jax")
    x = jnp.asarray([3.0, 1.0, 3.0, NAN, NAN])
    for size in (2, 6):
        for fill in (None, -1.0):
            ours, theirs = xp.unique_all(x, size=size, fill_value=fill), jnp.unique_all(x, size=size, fill_value=fill)
            for field in ("values", "indices", "inverse_indices", "counts"):
                np.testing.assert_array_equal(np.asarray(getattr(ours, field)), np.asarray(getattr(theirs, field)), err_msg=field)
            np.testing.assert_array_equal(np.asarray(xp.unique_values(x, size=size)), np.asarray(jnp.unique_values(x, size=size)))
    ours = xp.nonzero(jnp.asarray([0, 1, 1]), size=4, fill_value=-1)
    np.testing.assert_array_equal(np.asarray(ours[0]), np.asarray(jnp.nonzero(jnp.asarray([0, 1, 1]), size=4, fill_value=-1)[0]))
    with pytest.raises(bk.ArgumentTypeError, match=r"^unique_values: .*'stable'"):
        xp.unique_values(x, stable=True)


def test_signatures_stay_the_standards(xp) -> None:
    parameters = inspect.signature(xp.unique_values).parameters
    assert next(iter(parameters)) == "x" and parameters["x"].kind is inspect.Parameter.POSITIONAL_ONLY
    assert list(inspect.signature(xp.zeros).parameters)[:3] == ["shape", "dtype", "device"]


@pytest.mark.parametrize("precision", [None, 64])
def test_creation_defaults_to_float32_whatever_precision_bk_is_set_to(xp, precision) -> None:
    """The namespace's default float is float32 (`__array_namespace_info__().default_dtypes()`), also where
    a call goes straight to the catalogue operation, whose result would follow `bk.precision`."""
    import contextlib

    with bk.precision(precision) if precision else contextlib.nullcontext():
        for made in (xp.linspace(0.0, 1.0, 5), xp.linspace(0, 1, 5), xp.zeros(3), xp.full(3, 2.0), xp.eye(2)):
            assert made.dtype == xp.float32, made
        np.testing.assert_allclose(_np(xp, xp.linspace(0.0, 1.0, 5)), np.linspace(0.0, 1.0, 5), atol=1e-7)
        assert xp.linspace(0.0, 1.0, 5, dtype=xp.float64).dtype == xp.float64
        assert xp.linspace(0.0, 1.0, 4, endpoint=False).shape == (4,)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda xp: xp.zeros(2.5), "zeros"),
        (lambda xp: xp.ones(None), "ones"),
        (lambda xp: xp.empty(2.5, dtype=xp.float32), "empty"),
        (lambda xp: xp.full(2.5, 1.0), "full"),
        (lambda xp: xp.reshape(xp.zeros(4), 4.0), "reshape"),
        (lambda xp: xp.broadcast_to(xp.zeros(1), 2.5), "broadcast_to"),
        (lambda xp: xp.permute_dims(xp.zeros((2, 3)), 1.5), "permute_dims"),
        (lambda xp: xp.tile(xp.zeros(2), 2.5), "tile"),
        (lambda xp: xp.tensordot(xp.zeros((2, 2)), xp.zeros((2, 2)), axes=1.5), "tensordot"),
        (lambda xp: xp.repeat(xp.zeros(2), 1.5), "repeat"),
        (lambda xp: xp.std(xp.zeros(2), correction="a"), "std"),
        (lambda xp: xp.var(xp.zeros(2), correction=None), "var"),
    ],
    ids=["zeros", "ones", "empty", "full", "reshape", "broadcast_to", "permute_dims", "tile", "tensordot", "repeat", "std", "var"],
)
def test_a_shape_or_axes_of_the_wrong_kind_get_the_operations_bk_error(xp, call, name: str) -> None:
    """Not Python's "'float' object is not iterable": the namespace hands the value to the operation's spec, which
    names the operation and what is wrong, with the same class on every backend."""
    with pytest.raises(bk.ArgumentTypeError, match=rf"^{name}: (shape|axes|repetitions|repeats|correction) must"):
        call(xp)


def test_a_numpy_scalar_correction_is_a_real_number(xp) -> None:
    x = xp.asarray([1.0, 2.0, 3.0, 4.0])
    expected = np.var([1.0, 2.0, 3.0, 4.0], ddof=1)
    assert abs(float(_np(xp, xp.var(x, correction=np.float64(1.0)))) - expected) < 1e-5
    assert abs(float(_np(xp, xp.std(x, correction=np.int64(1)))) - np.sqrt(expected)) < 1e-5
