"""The graphs bk-dask builds stay small: every operation on chunked inputs adds a bounded number of
tasks per output chunk, the same for an input 4x as large, and keeps its inputs' graphs as they are
(no `dask.delayed` on a dask array, which would optimise, cull and copy the whole upstream graph on
every call and made loops of gathers grow faster than linearly)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest

import bk

ROWS = 8  # rows per chunk of the inputs; an input of size k has k chunks along its first axis
SMALL, LARGE = 2, 8

# Operations that build no graph from a chunked input: queries, creation, computing by design.
NOT_GRAPHS = {
    "allocate_on_device", "array_api_device", "as_tensor", "compute_count", "dtype", "get_device_by_ref", "is_available", "is_module",
    "is_tensor", "list_devices", "numpy", "staticshape", "stop_gradient", "seed", "while_loop", "linear_solve", "minimize",
    "zeros", "ones", "range", "linspace", "linspace_without_last", "random_uniform", "random_normal",
}  # fmt: skip

UNARY = [
    "abs", "sign", "round", "ceil", "floor", "sqrt", "exp", "sin", "arcsin", "cos", "arccos", "tan", "arctan", "sinh", "arcsinh", "cosh",
    "tanh", "arctanh", "log", "log2", "log10", "sigmoid", "softplus", "erf", "log_gamma", "isfinite", "isnan", "isinf", "real", "imag",
    "conj", "to_float", "to_complex", "to_int32", "to_int64", "log1p", "expm1", "reciprocal", "signbit", "trunc", "square", "negative",
]  # fmt: skip
BINARY = [
    "add", "sub", "mul", "div", "pow", "mod", "floordiv", "maximum", "minimum", "arctan2", "divide_no_nan", "hypot", "logaddexp",
    "copysign", "nextafter", "equal", "not_equal", "greater_than", "greater_or_equal", "gamma_inc_l", "gamma_inc_u",
]  # fmt: skip
INTEGER = ["and_", "or_", "xor", "shift_bits_left", "shift_bits_right"]

BOUND = 6  # tasks per chunk that an operation may add
# The core puts the results of decompositions in one convention (eigenvalue order, vector phases: a few
# elementwise steps, a reduction and a gather on every chunk, bk._rules.conventions), bounded too.
BOUNDS = {"eig": 32, "eigh": 32, "eigvals": 32, "svd": 32}


class Inputs:
    """Chunked inputs with `k` chunks along their first axis (`ROWS` rows each)."""

    def __init__(self, k: int) -> None:
        rng = np.random.default_rng(k)
        n = k * ROWS
        self.n = n
        self.x = da.from_array(rng.uniform(0.1, 0.9, (n, 6)), chunks=(ROWS, 6))
        self.y = da.from_array(rng.uniform(0.1, 0.9, (n, 6)), chunks=(ROWS, 6))
        self.sorted = da.from_array(np.sort(rng.uniform(0, 1, (n, 6)), axis=-1), chunks=(ROWS, 6))
        self.ints = da.from_array(rng.integers(0, 6, (n, 6)), chunks=(ROWS, 6))
        self.mask = self.x > 0.5
        self.v = da.from_array(rng.uniform(0.1, 0.9, n), chunks=ROWS)
        self.rows = da.from_array(rng.integers(0, n, n), chunks=ROWS)
        self.small = da.from_array(rng.integers(0, 6, n), chunks=ROWS)
        self.x3 = da.from_array(rng.uniform(0.1, 0.9, (n, 6, 2)), chunks=(ROWS, 6, 2))
        self.points = da.from_array(rng.integers(0, 6, (n, 3, 1)), chunks=(ROWS, 3, 1))
        self.updates = da.from_array(rng.uniform(0, 1, (n, 3, 2)), chunks=(ROWS, 3, 2))
        spd = rng.uniform(0, 1, (k, 4, 4))
        self.spd = da.from_array(spd @ spd.transpose(0, 2, 1) + 4 * np.eye(4), chunks=(1, 4, 4))
        self.rhs = da.from_array(rng.uniform(0, 1, (k, 4)), chunks=(1, 4))
        self.grid = da.from_array(rng.uniform(0, 1, (n, 6, 1)), chunks=(ROWS, 6, 1))
        self.coordinates = da.from_array(rng.uniform(0, 5, (n, 3, 1)), chunks=(ROWS, 3, 1))
        self.signal = da.from_array(rng.uniform(0, 1, (1, 1, n)), chunks=(1, 1, ROWS))


def _cases() -> dict[str, Callable[[Any, Inputs], Any]]:
    cases: dict[str, Callable[[Any, Inputs], Any]] = {}
    for name in UNARY:
        cases[name] = lambda b, i, name=name: getattr(b, name)(i.x)
    for name in BINARY:
        cases[name] = lambda b, i, name=name: getattr(b, name)(i.x, i.y)
    for name in INTEGER:
        cases[name] = lambda b, i, name=name: getattr(b, name)(i.ints, i.ints)
    cases.update(
        arccosh=lambda b, i: b.arccosh(i.x + 1),
        invert=lambda b, i: b.invert(i.ints),
        clip=lambda b, i: b.clip(i.x, 0.2, 0.8),
        where=lambda b, i: b.where(i.mask, i.x, i.y),
        sum=lambda b, i: b.sum(i.x, axis=0),
        prod=lambda b, i: b.prod(i.x, axis=0),
        mean=lambda b, i: b.mean(i.x, axis=0),
        std=lambda b, i: b.std(i.x, axis=0),
        max=lambda b, i: b.max(i.x, axis=0),
        min=lambda b, i: b.min(i.x),
        any=lambda b, i: b.any(i.mask),
        all=lambda b, i: b.all(i.mask, axis=1),
        argmax=lambda b, i: b.argmax(i.x, axis=0),
        argmin=lambda b, i: b.argmin(i.x, axis=1),
        cumsum=lambda b, i: b.cumsum(i.x, axis=0),
        quantile=lambda b, i: b.quantile(i.x, [0.25, 0.5]),
        cast=lambda b, i: b.cast(i.x, bk.DType(float, 32)),
        copy=lambda b, i: b.copy(i.x),
        zeros_like=lambda b, i: b.zeros_like(i.x),
        ones_like=lambda b, i: b.ones_like(i.x),
        reshape=lambda b, i: b.reshape(i.x, (i.n, 3, 2)),
        flatten=lambda b, i: b.flatten(i.x),
        transpose=lambda b, i: b.transpose(i.x, (1, 0)),
        expand_dims=lambda b, i: b.expand_dims(i.x, 1),
        stack=lambda b, i: b.stack([i.x, i.y]),
        concat=lambda b, i: b.concat([i.x, i.y], 1),
        tile=lambda b, i: b.tile(i.x[:, :1], (1, 5)),
        flip=lambda b, i: b.flip(i.x, (0,)),
        meshgrid=lambda b, i: b.meshgrid(i.v, i.v[:4])[0],
        multi_slice=lambda b, i: b.multi_slice(i.x, (slice(1, None), 2)),
        gather=lambda b, i: b.gather(i.x, i.rows, 0),
        batched_gather_1d=lambda b, i: b.batched_gather_1d(i.x, i.ints),
        batched_gather_nd=lambda b, i: b.batched_gather_nd(i.x3, i.points),
        scatter=lambda b, i: b.scatter(i.x3, i.points, i.updates, "add"),
        indexed_segment_sum=lambda b, i: b.indexed_segment_sum(i.x, i.ints[:, :2] // 3, 1),
        boolean_mask=lambda b, i: b.boolean_mask(i.x, i.v > 0.5, 0),
        nonzero=lambda b, i: b.nonzero(i.mask),
        repeat=lambda b, i: b.repeat(i.x, 2, 0),
        pad=lambda b, i: b.pad(i.x, ((1, 1), (0, 0))),
        sort=lambda b, i: b.sort(i.x),
        argsort=lambda b, i: b.argsort(i.x),
        searchsorted=lambda b, i: b.searchsorted(i.sorted, i.y, "left"),
        unique=lambda b, i: b.unique(i.small, False, True, None)[0],
        unravel_index=lambda b, i: b.unravel_index(i.rows, (i.n // 2, 2)),
        ravel_multi_index=lambda b, i: b.ravel_multi_index(i.ints[:, :2], (6, 6)),
        bincount=lambda b, i: b.bincount(i.small, None, 6),
        batched_bincount=lambda b, i: b.batched_bincount(i.ints, None, 6),
        histogram1d=lambda b, i: b.histogram1d(i.x, b.ones_like(i.x), da.from_array(np.linspace(0, 1, 5)[None].repeat(i.n, 0), chunks=(ROWS, 5))),
        tensordot=lambda b, i: b.tensordot(i.x, [1], i.y[:6].T, [0]),
        einsum=lambda b, i: b.einsum("ij,ij->i", i.x, i.y),
        mul_matrix_batched_vector=lambda b, i: b.mul_matrix_batched_vector(np.eye(6), i.x),
        fft=lambda b, i: b.fft(i.x, [1]),
        ifft=lambda b, i: b.ifft(i.x, [1]),
        cholesky=lambda b, i: b.cholesky(i.spd),
        qr=lambda b, i: b.qr(i.spd)[0],
        eigh=lambda b, i: b.eigh(i.spd)[1],
        eigvalsh=lambda b, i: b.eigvalsh(i.spd),
        inv=lambda b, i: b.inv(i.spd),
        solve=lambda b, i: b.solve(i.spd, i.rhs[..., None]),
        det=lambda b, i: b.det(i.spd),
        slogdet=lambda b, i: b.slogdet(i.spd)[1],
        matrix_solve_least_squares=lambda b, i: b.matrix_solve_least_squares(i.spd, i.rhs[..., None])[0],
        solve_triangular_dense=lambda b, i: b.solve_triangular_dense(i.spd, i.rhs, True, False),
        matrix_rank_dense=lambda b, i: b.matrix_rank_dense(i.spd),
        eigvals=lambda b, i: b.eigvals(i.spd),
        eig=lambda b, i: b.eig(i.spd)[0],
        svd=lambda b, i: b.svd(i.spd)[1],
        get_diagonal=lambda b, i: b.get_diagonal(i.spd[..., None]),
        conv=lambda b, i: b.conv(i.signal, da.ones((1, 1, 1, 3)), True),
        grid_sample=lambda b, i: b.grid_sample(i.grid, i.coordinates, "zeros"),
        numpy_call=lambda b, i: b.numpy_call(lambda a: a * 2, (i.n, 6), bk.DType(float, 64), i.x),
    )
    return cases


CASES = _cases()


def _added_tasks(result: Any, inputs: Inputs) -> int:
    """Tasks in the graph of `result` that are not in the graphs of the inputs."""
    before: set[Any] = set()
    for value in vars(inputs).values():
        if isinstance(value, da.Array):
            before |= set(value.__dask_graph__().keys())
    return len(set(result.__dask_graph__().keys()) - before)


def test_every_operation_has_a_case(b: Any) -> None:
    defined = {
        name
        for cls in type(b).__mro__
        if cls.__module__.startswith("bk_dask")
        for name, value in vars(cls).items()
        if callable(value) and not name.startswith("_")
    }
    assert defined - NOT_GRAPHS - set(CASES) == set(), "operations of bk-dask without a graph-size case"


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("dask.delayed / from_delayed on the call path")


@pytest.mark.parametrize("name", sorted(CASES))
def test_tasks_per_chunk_do_not_grow(b: Any, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tasks added per chunk (of the output, or of the input for reductions and one-task operations)
    stay under a constant, and do not grow from an input of 2 chunks to one of 8."""
    monkeypatch.setattr(dask, "delayed", _refuse)
    monkeypatch.setattr(da, "from_delayed", _refuse)
    per_chunk = {}
    with bk.precision(64):
        for k in (SMALL, LARGE):
            inputs = Inputs(k)
            result = CASES[name](b, inputs)
            assert isinstance(result, da.Array), name
            per_chunk[k] = _added_tasks(result, inputs) / max(result.npartitions, k)
    assert per_chunk[LARGE] <= per_chunk[SMALL] + 0.5, f"{name}: {per_chunk[SMALL]:.1f} tasks per chunk at {SMALL} input chunks, {per_chunk[LARGE]:.1f} at {LARGE}"
    assert per_chunk[LARGE] <= BOUNDS.get(name, BOUND), f"{name}: {per_chunk[LARGE]:.1f} tasks per chunk"


def test_a_loop_of_gathers_and_where_grows_linearly(b: Any) -> None:
    """The issue's case: each step of a loop of `take_along_axis` and `where` adds the same tasks."""
    xp = bk.array_namespace("dask")
    x = da.from_array(np.sort(np.random.default_rng(0).uniform(0, 1, (32, 50)), axis=-1), chunks=(8, 50))
    picks = da.from_array(np.zeros((32, 5), np.int64), chunks=(8, 5))
    sizes = []
    for _ in range(12):
        values = xp.take_along_axis(x, picks, axis=-1)
        picks = xp.where(values < 0.5, (picks + 1) % 50, picks)
        sizes.append(len(picks.__dask_graph__()))
    steps = np.diff(sizes)
    assert steps.max() == steps.min(), f"tasks added per step: {steps.tolist()}"
    assert steps[0] <= 8 * picks.npartitions
    expected = np.zeros((32, 5), np.int64)
    xs = x.compute()
    for _ in range(12):
        expected = np.where(np.take_along_axis(xs, expected, axis=-1) < 0.5, (expected + 1) % 50, expected)
    np.testing.assert_array_equal(picks.compute(), expected)
