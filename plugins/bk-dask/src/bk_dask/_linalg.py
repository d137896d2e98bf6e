"""Linear algebra, FFT, convolution and grid sampling (a mixin of `DaskBackend`).

Products (`tensordot`, `einsum`, matrix times vectors) and FFTs are `dask.array`'s chunked
algorithms; decompositions and inverses of stacks of matrices run bk-numpy on every chunk of the
batch axes (each holding whole matrices); single matrices, solves, convolution and sampling run
bk-numpy as one lazy task over whole arrays.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from functools import partial
from typing import Any

import dask.array as da
import numpy as np
from dask.base import tokenize

from bk import combine_types, from_numpy_dtype, get_precision, normalize_axes, to_numpy_dtype
from bk.rules import axes_tuple

from ._blocks import call_with_extra, kernel, probe, task, zeros_like_input
from ._dtypes import as_dask, complex_dtype

__all__ = ["LinalgMixin"]

Tensor = Any


def _common(*arrays: Any) -> tuple[da.Array, ...]:
    """`arrays` as dask arrays of their common type (`bk.combine_types` under the current precision)."""
    arrays = tuple(as_dask(a) for a in arrays)
    common = combine_types(*[from_numpy_dtype(a.dtype) for a in arrays], fp_precision=get_precision())
    dtype = to_numpy_dtype(common)
    return tuple(a if a.dtype == dtype else a.astype(dtype) for a in arrays)


def _complex_of(x: da.Array) -> np.dtype[Any]:
    """The complex type matching the float precision of `x` (or the current precision)."""
    bits = x.dtype.itemsize * 8 // (2 if x.dtype.kind == "c" else 1) if x.dtype.kind in "fc" else None
    return complex_dtype(get_precision() or bits)


# ---------------------------------------------------------------- the Array API standard's linalg and fft extensions


def _identity_standin(x: Any) -> Any:
    """Identity matrices of `x`'s shape and dtype for probing output shapes (zeros would be singular),
    or `x`'s default stand-in when its matrices are not square (bk-numpy then raises the shape error)."""
    shape = getattr(x, "shape", ())
    if len(shape) >= 2 and shape[-1] == shape[-2] and not any(np.isnan(s) for s in shape):
        return np.broadcast_to(np.eye(int(shape[-1]), dtype=x.dtype), shape)
    return zeros_like_input(x, "linalg")


def _stacked(x: Any) -> bool:
    """Whether `x` is a stack of matrices that `_per_matrix` chunks: a dask array of 3 or more axes
    whose sizes are known and not zero (else the operation is one task over the whole array)."""
    return isinstance(x, da.Array) and x.ndim >= 3 and 0 not in x.shape and not any(np.isnan(s) for s in x.shape)


def _per_matrix(name: str, x: da.Array, kwargs: dict[str, Any] | None = None, extra: tuple[Any, ...] = (), single: bool = True, identity: bool = False) -> Any:
    """bk-numpy's `name` on every chunk of a stack of matrices `(batch..., m, n)`: the matrix axes in
    one chunk, the batch axes keep theirs; one task per chunk (and one per output of a tuple).

    The outputs' trailing shapes are found on a stand-in of one matrix (the identity when `identity`:
    zeros would be singular)."""
    function = partial(kernel, name, get_precision(), tuple(sorted((kwargs or {}).items())))
    call = partial(call_with_extra, function, extra)
    batch = x.ndim - 2
    m, n = x.shape[-2:]
    standin = np.broadcast_to(np.eye(m, n, dtype=x.dtype) if identity else np.zeros((), x.dtype), (1,) * batch + (m, n))
    example = probe(call, standin)
    outputs = [np.asarray(o) for o in ([example] if single else example)]
    x = x.rechunk({batch: -1, batch + 1: -1})
    token = tokenize(name, get_precision(), kwargs, extra, x)

    def chunks_of(out: np.ndarray) -> tuple[tuple[float, ...], ...]:
        return (*x.chunks[:batch], *((s,) for s in out.shape[batch:]))

    if single:
        out = outputs[0]
        drop = tuple(range(out.ndim, x.ndim))  # the 2 matrix axes become out.ndim - batch <= 2 axes
        meta = np.empty((0,) * out.ndim, out.dtype)
        return x.map_blocks(call, chunks=chunks_of(out), drop_axis=drop, dtype=out.dtype, meta=meta, name=f"{name}-{token}")
    # a tuple per chunk of the batch (the matrix axes dropped), then each output taken from it
    parts = x.map_blocks(call, chunks=x.chunks[:batch], drop_axis=(batch, batch + 1), dtype=object, meta=np.empty((0,) * batch, object), name=f"{name}-{token}")
    return tuple(
        parts.map_blocks(
            operator.getitem, i, chunks=chunks_of(out), new_axis=list(range(batch, out.ndim)), dtype=out.dtype,
            meta=np.empty((0,) * out.ndim, out.dtype), name=f"{name}-{i}-{token}",
        )
        for i, out in enumerate(outputs)
    )


class StandardLinalgKernels:
    """The standard's decompositions and solvers as lazy bk-numpy tasks (bases of `LinalgMixin`): one per
    chunk of the batch axes for stacks of matrices, else one over the whole array; a singular or
    indefinite matrix raises `ValueError` when the result is computed. Norms, products
    and FFTs are the core's defaults over dask's chunked operations."""

    def cholesky(self, x: Tensor, upper: bool = False) -> Tensor:
        """Cholesky factors (a task per batch chunk)."""
        x = as_dask(x) if isinstance(x, (da.Array, np.ndarray)) else x
        if _stacked(x):
            return _per_matrix("cholesky", x, {"upper": upper}, identity=True)
        return task("cholesky", [x], {"upper": upper}, standins=[_identity_standin(x)])

    def qr(self, x: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
        """`(Q, R)` (a task per batch chunk)."""
        if _stacked(x):
            return _per_matrix("qr", x, {"mode": mode}, single=False)  # type: ignore[no-any-return]
        return task("qr", [x], {"mode": mode}, single=False)  # type: ignore[no-any-return]

    def eigh(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """`(eigenvalues, eigenvectors)` (a task per batch chunk)."""
        if _stacked(x):
            return _per_matrix("eigh", x, single=False)  # type: ignore[no-any-return]
        return task("eigh", [x], single=False)  # type: ignore[no-any-return]

    def eigvalsh(self, x: Tensor) -> Tensor:
        """Eigenvalues of symmetric (Hermitian) matrices (a task per batch chunk)."""
        return _per_matrix("eigvalsh", x) if _stacked(x) else task("eigvalsh", [x])

    def inv(self, x: Tensor) -> Tensor:
        """Inverses (a task per batch chunk)."""
        x = as_dask(x) if isinstance(x, (da.Array, np.ndarray)) else x
        if _stacked(x):
            return _per_matrix("inv", x, identity=True)
        return task("inv", [x], standins=[_identity_standin(x)])

    def solve(self, x1: Tensor, x2: Tensor) -> Tensor:
        """Solutions of `x1 @ result = x2` (one task; only a 1-D `x2` is a vector)."""
        x1 = as_dask(x1) if isinstance(x1, (da.Array, np.ndarray)) else x1
        return task("solve", [x1, x2], standins=[_identity_standin(x1), zeros_like_input(x2, "solve")])

    def det(self, x: Tensor) -> Tensor:
        """Determinants (a task per batch chunk)."""
        return _per_matrix("det", x) if _stacked(x) else task("det", [x])

    def slogdet(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """`(sign, logabsdet)` (a task per batch chunk)."""
        if _stacked(x):
            return _per_matrix("slogdet", x, single=False)  # type: ignore[no-any-return]
        return task("slogdet", [x], single=False)  # type: ignore[no-any-return]


class LinalgMixin(StandardLinalgKernels):
    """Chunked products and FFTs through `dask.array`; the rest as lazy bk-numpy tasks."""

    # ------------------------------------------------------------ products (chunked)

    def tensordot(self, a: Tensor, a_axes: Sequence[int], b: Tensor, b_axes: Sequence[int]) -> Tensor:
        """Multiplies and sums `a_axes` of `a` with `b_axes` of `b` (`dask.array.tensordot`)."""
        a, b = _common(a, b)
        return _as_numpy_result(da.tensordot(a, b, (axes_tuple(a_axes), axes_tuple(b_axes))), a, b)

    def einsum(self, equation: str, *tensors: Tensor) -> Tensor:
        """Einstein summation (`dask.array.einsum`)."""
        tensors = _common(*tensors)
        return _as_numpy_result(da.einsum(equation, *tensors), *tensors)

    def mul_matrix_batched_vector(self, A: Tensor, b: Tensor) -> Tensor:
        """`(rows, cols)` matrix times `(batch, cols)` vectors gives `(batch, rows)`, chunked over the batch.

        `A` may be a dask or NumPy array, or a SciPy sparse matrix, which every block of `b` is
        multiplied with (on the workers).
        """
        if self.is_sparse(A) or _is_scipy_sparse(A):  # type: ignore[attr-defined]
            b = as_dask(b)
            b = b.rechunk({1: -1})
            dtype = np.result_type(A.dtype, b.dtype)
            return b.map_blocks(_sparse_times_rows, A, dtype=dtype, chunks=(b.chunks[0], (A.shape[0],)))
        A, b = _common(A, b)
        return b @ A.T

    # ------------------------------------------------------------ solving (one task) and decompositions (a task per batch chunk)

    def matrix_solve_least_squares(self, matrix: Tensor, rhs: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Least-squares solutions `(solution, residuals, rank, singular_values)` of batched systems (one task)."""
        return task("matrix_solve_least_squares", [matrix, rhs], single=False)  # type: ignore[no-any-return]

    def solve_triangular_dense(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves `(batch, n, n)` triangular systems for `(batch, n)` right-hand sides (one task)."""
        matrix = as_dask(matrix)
        eye = np.broadcast_to(np.eye(matrix.shape[-1], dtype=matrix.dtype), matrix.shape)  # solvable stand-in
        return task("solve_triangular_dense", [matrix, rhs, lower, unit_diagonal], standins=[eye, zeros_like_input(rhs, "solve_triangular_dense"), lower, unit_diagonal])

    def matrix_rank_dense(self, matrix: Tensor, hermitian: bool = False) -> Tensor:
        """Ranks of `(batch, rows, cols)` matrices (a task per batch chunk)."""
        if _stacked(matrix):
            return _per_matrix("matrix_rank_dense", matrix, extra=(hermitian,))
        return task("matrix_rank_dense", [matrix, hermitian])

    def eigvals(self, matrix: Tensor) -> Tensor:
        """Eigenvalues of `(batch..., n, n)` matrices, always complex (a task per batch chunk)."""
        return _per_matrix("eigvals", matrix) if _stacked(matrix) else task("eigvals", [matrix])

    def eig(self, matrix: Tensor) -> tuple[Tensor, Tensor]:
        """Eigenvalues and eigenvectors (columns) of `(batch..., n, n)` matrices, always complex (a task per batch chunk)."""
        if _stacked(matrix):
            return _per_matrix("eig", matrix, single=False)  # type: ignore[no-any-return]
        return task("eig", [matrix], single=False)  # type: ignore[no-any-return]

    def svd(self, matrix: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
        """`(U, S, Vh)` of `(batch..., m, n)` matrices (a task per batch chunk)."""
        if _stacked(matrix):
            return _per_matrix("svd", matrix, extra=(full_matrices,), single=False)  # type: ignore[no-any-return]
        return task("svd", [matrix, full_matrices], single=False)  # type: ignore[no-any-return]

    def get_diagonal(self, matrices: Tensor, offset: int = 0) -> Tensor:
        """Diagonals of `(batch, rows, cols, channels)` matrices as `(batch, diagonal, channels)` (one task)."""
        return task("get_diagonal", [matrices, offset])

    # ------------------------------------------------------------ FFT (chunked over the other axes)

    def fft(self, x: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional FFT over `axes` (`dask.array.fft`: each transformed axis in one chunk)."""
        return self._fft(da.fft.fftn, x, axes)

    def ifft(self, k: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional inverse FFT over `axes` (`dask.array.fft`: each transformed axis in one chunk)."""
        return self._fft(da.fft.ifftn, k, axes)

    @staticmethod
    def _fft(transform: Any, x: Tensor, axes: Sequence[int]) -> Tensor:
        x = as_dask(x)
        dtype = _complex_of(x)
        x = x.astype(dtype)
        if not axes:
            return x
        if 0 in x.shape:
            return task(transform.__name__.rstrip("n"), [x, tuple(axes)])
        axes = tuple(normalize_axes(tuple(axes), x.ndim, transform.__name__.rstrip("n")) or ())
        x = x.rechunk(dict.fromkeys(axes, -1))
        return transform(x, axes=axes).astype(dtype)

    # ------------------------------------------------------------ convolution and sampling (one task)

    def conv(self, value: Tensor, kernel: Tensor, zero_padding: bool = True) -> Tensor:
        """Cross-correlation of `(batch, in, spatial...)` with `(batch or 1, out, in, kernel...)` kernels (one task)."""
        return task("conv", [value, kernel, zero_padding])

    def grid_sample(self, grid: Tensor, coordinates: Tensor, extrapolation: str) -> Tensor:
        """Linear interpolation of `(batch, spatial..., channels)` at index coordinates (one task)."""
        return task("grid_sample", [grid, coordinates, extrapolation])


def _is_scipy_sparse(x: Any) -> bool:
    import sys

    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and bool(sparse.issparse(x))


def _sparse_times_rows(block: np.ndarray, A: Any) -> np.ndarray:
    return np.asarray(A @ block.T).T


def _as_numpy_result(result: Any, *operands: Any) -> Any:
    """`result` in the dtype NumPy gives the product of `operands` (dask sums int32 blocks as int64)."""
    dtype = np.result_type(*[o.dtype for o in operands])
    return result if result.dtype == dtype else result.astype(dtype)
