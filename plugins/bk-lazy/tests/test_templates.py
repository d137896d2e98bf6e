"""Templates of any size: every operation whose result shape does not depend on the data builds on
`Variable`s of 1e10 elements (100,000 x 100,000 float64: 80 GB if they were real) with the exact
shape and dtype, in constant memory; sizes that depend on the data are `None`."""

from __future__ import annotations

import resource
import tracemalloc
from collections.abc import Callable
from typing import Any

import bk_lazy
import pytest
from bk_lazy._backend import BINARY, ELEMENTWISE_UNARY, RECORDED

import bk
from bk import DType

N = 100_000  # N x N = 1e10 elements
M = 50_000
F32, F64, C128 = DType(float, 32), DType(float, 64), DType(complex, 128)
I32, I64, BOOL = DType(int, 32), DType(int, 64), DType(bool)
LIMIT = 400 * 2**20  # bytes: a generous bound on what building a template may take


def V(shape: tuple[int | None, ...], dtype: DType = F64) -> bk_lazy.LazyArray:
    return bk_lazy.Variable(shape, dtype)


def _square() -> bk_lazy.LazyArray:
    return V((N, N))


# ------------------------------------------------------------------ the cases

Case = tuple[Callable[[bk.Backend], Any], Any, Any]
"""(build, expected shape, expected dtype); for several results, tuples of shapes and of dtypes."""

_BOOL_RESULTS = {"isfinite", "isnan", "isinf", "signbit", "equal", "not_equal", "greater_than", "greater_or_equal"}
_INT_INPUTS = {"invert", "and_", "or_", "xor", "shift_bits_left", "shift_bits_right", "factorial"}


def _elementwise(name: str) -> Case:
    kind = I64 if name in _INT_INPUTS else F64
    result = BOOL if name in _BOOL_RESULTS else kind
    if name in ELEMENTWISE_UNARY:
        return (lambda b: getattr(b, name)(V((N, N), kind)), (N, N), result)
    return (lambda b: getattr(b, name)(V((N, N), kind), V((N,), kind)), (N, N), result)


CASES: dict[str, Case] = {
    # reductions
    "sum": (lambda b: b.sum(_square(), axis=0), (N,), F64),
    "prod": (lambda b: b.prod(_square(), axis=1), (N,), F64),
    "mean": (lambda b: b.mean(_square(), axis=(0, 1), keepdims=True), (1, 1), F64),
    "std": (lambda b: b.std(_square(), axis=-1), (N,), F64),
    "var": (lambda b: b.var(_square(), axis=0), (N,), F64),
    "max": (lambda b: b.max(_square()), (), F64),
    "min": (lambda b: b.min(_square(), axis=0, keepdims=True), (1, N), F64),
    "any": (lambda b: b.any(V((N, N), BOOL), axis=0), (N,), BOOL),
    "all": (lambda b: b.all(V((N, N), BOOL)), (), BOOL),
    "argmax": (lambda b: b.argmax(_square(), 0), (N,), I64),
    "argmin": (lambda b: b.argmin(_square(), 1, keepdims=True), (N, 1), I64),
    "count_nonzero": (lambda b: b.count_nonzero(_square(), axis=1), (N,), I64),
    "logsumexp": (lambda b: b.logsumexp(_square(), axis=0), (N,), F64),
    "allclose": (lambda b: b.allclose(_square(), _square()), (), BOOL),
    "isclose": (lambda b: b.isclose(_square(), V((N,))), (N, N), BOOL),
    "quantile": (lambda b: b.quantile(_square(), 0.5), (N,), F64),
    "cumsum": (lambda b: b.cumsum(_square(), 0), (N, N), F64),
    "cumulative_sum": (lambda b: b.cumulative_sum(_square(), axis=1, include_initial=True), (N, N + 1), F64),
    "cumulative_prod": (lambda b: b.cumulative_prod(_square(), axis=0), (N, N), F64),
    "diff": (lambda b: b.diff(_square(), axis=-1, n=2), (N, N - 2), F64),
    # elementwise with other arguments
    "clip": (lambda b: b.clip(_square(), 0.0, 1.0), (N, N), F64),
    "where": (lambda b: b.where(V((N, N), BOOL), _square(), 0.0), (N, N), F64),
    "copy": (lambda b: b.copy(_square()), (N, N), F64),
    # shape
    "reshape": (lambda b: b.reshape(_square(), (N * 10, -1)), (N * 10, N // 10), F64),
    "flatten": (lambda b: b.flatten(_square()), (N * N,), F64),
    "transpose": (lambda b: b.transpose(V((N, 3, N)), (2, 0, 1)), (N, N, 3), F64),
    "matrix_transpose": (lambda b: b.matrix_transpose(V((3, N, M))), (3, M, N), F64),
    "moveaxis": (lambda b: b.moveaxis(V((N, 3, M)), 0, -1), (3, M, N), F64),
    "expand_dims": (lambda b: b.expand_dims(_square(), 1, 2), (N, 1, 1, N), F64),
    "squeeze": (lambda b: b.squeeze(V((N, 1, N)), 1), (N, N), F64),
    "stack": (lambda b: b.stack([_square(), _square()], 1), (N, 2, N), F64),
    "unstack": (lambda b: b.unstack(V((2, N, N)), 0), ((N, N), (N, N)), (F64, F64)),
    "concat": (lambda b: b.concat([_square(), V((M, N))], 0), (N + M, N), F64),
    "tile": (lambda b: b.tile(_square(), (2, 3)), (2 * N, 3 * N), F64),
    "tile_to": (lambda b: b.tile_to(V((N, 1)), 1, N), (N, N), F64),
    "repeat": (lambda b: b.repeat(_square(), 3, 0), (3 * N, N), F64),
    "pad": (lambda b: b.pad(_square(), [[1, 2], [3, 4]]), (N + 3, N + 7), F64),
    "pad_to": (lambda b: b.pad_to(_square(), 0, N + 5, 0.0), (N + 5, N), F64),
    "flip": (lambda b: b.flip(_square(), (0,)), (N, N), F64),
    "roll": (lambda b: b.roll(_square(), 5, axis=0), (N, N), F64),
    "multi_slice": (lambda b: b.multi_slice(_square(), (slice(1, None, 2), 3)), (M,), F64),
    "broadcast_to": (lambda b: b.broadcast_to(V((N,)), (N, N)), (N, N), F64),
    "broadcast_arrays": (lambda b: b.broadcast_arrays(V((N, 1)), V((N,))), ((N, N), (N, N)), (F64, F64)),
    "get_diagonal": (lambda b: b.get_diagonal(V((3, N, N, 2)), 0), (3, N, 2), F64),
    "diag": (lambda b: b.diag(V((N,)), 1), (N + 1, N + 1), F64),
    "tril": (lambda b: b.tril(_square()), (N, N), F64),
    "triu": (lambda b: b.triu(_square(), 1), (N, N), F64),
    "sort": (lambda b: b.sort(_square(), 0), (N, N), F64),
    "argsort": (lambda b: b.argsort(_square()), (N, N), I64),
    # creation
    "zeros": (lambda b: b.zeros((N, N), F32), (N, N), F32),
    "ones": (lambda b: b.ones((N, N), I32), (N, N), I32),
    "empty": (lambda b: b.empty((N, N)), (N, N), F32),  # the default float type
    "full": (lambda b: b.full((N, N), 2.5, F32), (N, N), F32),
    "zeros_like": (lambda b: b.zeros_like(_square()), (N, N), F64),
    "ones_like": (lambda b: b.ones_like(_square()), (N, N), F64),
    "empty_like": (lambda b: b.empty_like(_square(), I32), (N, N), I32),
    "full_like": (lambda b: b.full_like(_square(), 1.0), (N, N), F64),
    "eye": (lambda b: b.eye(N, N + 1), (N, N + 1), F32),
    "range": (lambda b: b.range(0, N * N, 1, I64), (N * N,), I64),
    "linspace": (lambda b: b.linspace(0.0, 1.0, N * N), (N * N,), F32),
    "linspace_without_last": (lambda b: b.linspace_without_last(0.0, 1.0, N * N), (N * N,), F32),
    "meshgrid": (lambda b: b.meshgrid(V((N,)), V((M,))), ((N, M), (N, M)), (F64, F64)),  # ij indexing
    "random_uniform": (lambda b: b.random_uniform((N, N), 0.0, 1.0, F32), (N, N), F32),
    "random_normal": (lambda b: b.random_normal((N, N), F64), (N, N), F64),
    # indexing
    "gather": (lambda b: b.gather(_square(), V((M,), I64), 1), (N, M), F64),
    "gather_1d": (lambda b: b.gather_1d(V((N * N,)), V((M,), I64)), (M,), F64),
    "gather_nd": (lambda b: b.gather_nd(V((N, N, 3)), V((M, 2), I64)), (M, 3), F64),
    "batch_gather": (lambda b: b.batch_gather(V((N, 3)), V((M,), I64)), (M, 3), F64),
    "batched_gather_1d": (lambda b: b.batched_gather_1d(V((3, N)), V((3, M), I64)), (3, M), F64),
    "batched_gather_nd": (lambda b: b.batched_gather_nd(V((3, N, N, 2)), V((3, M, 2), I64)), (3, M, 2), F64),
    "gather_by_component_indices": (
        lambda b: b.gather_by_component_indices(_square(), V((M,), I64), V((M,), I64)),
        (M,),
        F64,
    ),
    "take_along_axis": (lambda b: b.take_along_axis(_square(), V((N, 3), I64), axis=1), (N, 3), F64),
    "scatter": (lambda b: b.scatter(V((3, N, N, 2)), V((3, M, 2), I64), V((3, M, 2)), "add"), (3, N, N, 2), F64),
    "scatter_nd": (lambda b: b.scatter_nd(V((N, N, 2)), V((M, 2), I64), V((M, 2)), "update"), (N, N, 2), F64),
    "scatter_1d_scalar": (lambda b: b.scatter_1d_scalar(V((N * N,)), V((M,), I64), V((1,)), "update"), (N * N,), F64),
    "scatter_nd_scalar": (lambda b: b.scatter_nd_scalar(_square(), V((M, 2), I64), V((1,)), "update"), (N, N), F64),
    "indexed_segment_sum": (lambda b: b.indexed_segment_sum(V((3, N, 2)), V((3, M), I64), 1), (3, M, 2), F64),
    "unravel_index": (lambda b: b.unravel_index(V((M,), I64), (N, N)), (M, 2), I64),
    "ravel_multi_index": (lambda b: b.ravel_multi_index(V((M, 2), I64), (N, N)), (M,), I64),
    "searchsorted": (lambda b: b.searchsorted(V((N * N,)), V((M,)), "left"), (M,), I32),
    "isin": (lambda b: b.isin(_square(), V((M,))), (N, N), BOOL),
    "bincount": (lambda b: b.bincount(V((N * N,), I64), None, 10), (10,), I64),
    "batched_bincount": (lambda b: b.batched_bincount(V((3, N * N), I64), None, 10), (3, 10), I64),
    "histogram1d": (lambda b: b.histogram1d(V((3, N * N)), V((3, N * N)), V((3, 11))), (3, 10), F64),
    # data-dependent sizes are None
    "nonzero": (lambda b: b.nonzero(_square()), (None, 2), I64),
    "boolean_mask": (lambda b: b.boolean_mask(_square(), V((N,), BOOL), 0), (None, N), F64),
    "unique": (lambda b: b.unique(V((N * N,)), False, True, 0), ((None,), (None,)), (F64, I64)),
    # products, linear algebra, fft
    "matmul": (lambda b: b.matmul(V((N, M)), V((M, N))), (N, N), F64),
    "tensordot": (lambda b: b.tensordot(V((N, M)), (1,), V((M, N)), (0,)), (N, N), F64),
    "einsum": (lambda b: b.einsum("ij,jk->ik", V((N, M)), V((M, N))), (N, N), F64),
    "kron": (lambda b: b.kron(V((N, 2)), V((3, N))), (3 * N, 2 * N), F64),
    "mul_matrix_batched_vector": (lambda b: b.mul_matrix_batched_vector(V((N, M)), V((3, M))), (3, N), F64),
    "matrix_solve_least_squares": (
        lambda b: b.matrix_solve_least_squares(V((2, N, M)), V((2, N, 3))),
        ((2, M, 3), (2, 3), (2,), (2, M)),  # solutions, residuals, ranks, singular values
        (F64, F64, I64, F64),
    ),
    "solve_triangular": (lambda b: b.solve_triangular(V((3, N, N)), V((3, N)), True, False), (3, N), F64),
    "solve_triangular_dense": (lambda b: b.solve_triangular_dense(V((3, N, N)), V((3, N)), True, False), (3, N), F64),
    "matrix_rank_dense": (lambda b: b.matrix_rank_dense(V((3, N, N))), (3,), I64),
    "eigvals": (lambda b: b.eigvals(_square()), (N,), C128),
    "eig": (lambda b: b.eig(_square()), ((N,), (N, N)), (C128, C128)),
    "svd": (lambda b: b.svd(V((N, M)), False), ((N, M), (M,), (M, M)), (F64, F64, F64)),
    "fft": (lambda b: b.fft(_square(), (0, 1)), (N, N), C128),
    "ifft": (lambda b: b.ifft(V((N, N), C128), (1,)), (N, N), C128),
    "conv": (lambda b: b.conv(V((2, 3, N)), V((1, 4, 3, 5)), True), (2, 4, N), F64),
    "grid_sample": (lambda b: b.grid_sample(V((2, N, N, 3)), V((2, M, 2)), "boundary"), (2, M, 3), F64),
    "cast": (lambda b: b.cast(_square(), F32), (N, N), F32),
    "numpy_call": (lambda b: b.numpy_call(abs, (N, N), F64, _square()), (N, N), F64),
    "to_float": (lambda b: b.to_float(V((N, N), I64)), (N, N), F32),  # the default float type
    "to_int32": (lambda b: b.to_int32(_square()), (N, N), I32),
    "to_int64": (lambda b: b.to_int64(_square()), (N, N), I64),
    "to_complex": (lambda b: b.to_complex(_square()), (N, N), C128),
    # the Array API's linear algebra and FFT (recorded once the core has their specs)
    "qr": (lambda b: b.qr(V((N, M))), ((N, M), (M, M)), (F64, F64)),
    "cholesky": (lambda b: b.cholesky(_square()), (N, N), F64),
    "eigh": (lambda b: b.eigh(_square()), ((N,), (N, N)), (F64, F64)),
    "eigvalsh": (lambda b: b.eigvalsh(V((3, N, N))), (3, N), F64),
    "inv": (lambda b: b.inv(_square()), (N, N), F64),
    "det": (lambda b: b.det(V((3, N, N))), (3,), F64),
    "slogdet": (lambda b: b.slogdet(_square()), ((), ()), (F64, F64)),
    "solve": (lambda b: b.solve(_square(), V((N, 3))), (N, 3), F64),
    "matrix_power": (lambda b: b.matrix_power(_square(), 3), (N, N), F64),
    "pinv": (lambda b: b.pinv(V((N, M))), (M, N), F64),
    "svdvals": (lambda b: b.svdvals(V((N, M))), (M,), F64),
    "matrix_norm": (lambda b: b.matrix_norm(V((3, N, N))), (3,), F64),
    "vector_norm": (lambda b: b.vector_norm(_square(), axis=1), (N,), F64),
    "vecdot": (lambda b: b.vecdot(_square(), _square()), (N,), F64),
    "outer": (lambda b: b.outer(V((N,)), V((M,))), (N, M), F64),
    "cross": (lambda b: b.cross(V((N, 3)), V((N, 3))), (N, 3), F64),
    "trace": (lambda b: b.trace(V((3, N, N))), (3,), F64),
    "rfft": (lambda b: b.rfft(_square()), (N, N // 2 + 1), C128),
    "irfft": (lambda b: b.irfft(V((N, N), C128)), (N, 2 * (N - 1)), F64),
    "fftshift": (lambda b: b.fftshift(_square()), (N, N), F64),
    "ifftshift": (lambda b: b.ifftshift(_square()), (N, N), F64),
    "diagonal": (lambda b: b.diagonal(V((3, N, M)), offset=1), (3, M - 1), F64),
    "matrix_rank": (lambda b: b.matrix_rank(V((3, N, M))), (3,), I64),
    "fftfreq": (lambda b: b.fftfreq(N * N), (N * N,), F32),  # the default float type
    "rfftfreq": (lambda b: b.rfftfreq(N * N, dtype=F64), (N * N // 2 + 1,), F64),
    "fftn": (lambda b: b.fftn(_square()), (N, N), C128),
    "ifftn": (lambda b: b.ifftn(V((N, N), C128), s=(M, -1)), (M, N), C128),
    "rfftn": (lambda b: b.rfftn(_square()), (N, N // 2 + 1), C128),
    "irfftn": (lambda b: b.irfftn(V((N, N), C128)), (N, 2 * (N - 1)), F64),
    "hfft": (lambda b: b.hfft(V((N, M), C128)), (N, 2 * (M - 1)), F64),
    "ihfft": (lambda b: b.ihfft(_square()), (N, N // 2 + 1), C128),
}


def _case(name: str) -> Case:
    if name in CASES:
        return CASES[name]
    if name in ELEMENTWISE_UNARY or name in BINARY:
        return _elementwise(name)
    raise AssertionError(f"no template case for the lazy operation {name!r}: add one to CASES in {__file__}")


_LAZY = bk.backend("lazy")
_NOT_ARRAY_OPERATIONS = (
    "as_tensor",
    "auto_cast",
    "linear",
    "coo_to_dense",
    "csr_to_coo",
    "csr_to_dense",
    "mul_coo_dense",
    "mul_csr_dense",
)
"""Supported only as the base class's generics: conversions and sparse storage (lazy graphs have no sparse tensors)."""
OPERATIONS = sorted(
    {*RECORDED, "cast", "transpose", "reshape", "matmul"}
    | {name for name in bk.op_specs() if hasattr(bk.Backend, name) and _LAZY.supports(name) and name not in _NOT_ARRAY_OPERATIONS}
)
"""Every operation the lazy backend records, and those it supports through others that have a spec."""


@pytest.mark.parametrize("name", OPERATIONS)
def test_operation_builds_on_huge_templates(name: str) -> None:
    lazy = bk.backend("lazy")
    build, shape, dtype = _case(name)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    tracemalloc.start()
    try:
        node = build(lazy)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    if isinstance(node, (tuple, list)):
        assert tuple(n.shape for n in node) == shape and tuple(n.dtype for n in node) == dtype
    else:
        assert isinstance(node, bk_lazy.LazyArray) and (node.shape, node.dtype) == (shape, dtype)
    assert peak < LIMIT and grown < LIMIT, f"{name}: traced peak {peak} B, process grew {grown} B"


def test_every_case_is_a_catalogue_operation() -> None:
    assert all(hasattr(bk.Backend, name) for name in CASES), sorted(n for n in CASES if not hasattr(bk.Backend, n))


def test_mistakes_raise_the_eager_error_classes_when_building() -> None:
    lazy = bk.backend("lazy")
    with pytest.raises(bk.ShapeMismatchError, match="concat"):
        lazy.concat([_square(), V((N, M, 1))], 0)
    with pytest.raises(bk.AxisError, match="sum"):
        lazy.sum(_square(), axis=2)
    with pytest.raises(bk.ShapeMismatchError, match="reshape"):
        lazy.reshape(_square(), (3, -1))
    with pytest.raises(bk.ArgumentTypeError, match="invert"):
        lazy.invert(_square())
    with pytest.raises(bk.ShapeMismatchError, match="tensordot"):
        lazy.tensordot(V((N, M)), (1,), V((N, M)), (0,))
