"""Sparse matrices through `jax.experimental.sparse`: COO as `BCOO`, CSR as `BCSR`, CSC as `CSC`.

Sparse-dense products do not use JAX's generic sparse `dot_general`, which scatters on the CPU:

- When the index arrays are concrete (built eagerly, or constants of a jitted function), a matrix
  gets a padded row layout (ELLPACK: `k` entries per row) computed once with NumPy and cached
  per index array; a product is then `k` gathers and multiply-adds, with no scatter.
- Sparse arguments of `jit_compile`d functions get their layout computed before the call and
  passed into the trace next to them, so that their products need no scatter either.
- Otherwise (index arrays that are tracers) a product gathers and sums rows with `segment_sum`.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Final, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import sparse as jsparse
from jax.experimental.sparse import JAXSparse

from bk.rules import check_indices, compute_dtype

Tensor = Any

_FORMATS: Final = {jsparse.BCOO: "coo", jsparse.COO: "coo", jsparse.BCSR: "csr", jsparse.CSR: "csr", jsparse.CSC: "csc"}
_MAX_ROW_ENTRIES: Final = 64  # the padded layout unrolls one gather per entry of the fullest row
_MAX_PADDING: Final = 2.0  # ... and is used only while it stores at most this many slots per entry


# ---------------------------------------------------------------- matrix parts


class _Coo(NamedTuple):
    """A 2-D sparse matrix as COO parts: `rows`, `cols` and `values` of length nnz."""

    rows: Tensor
    cols: Tensor
    values: Tensor
    shape: tuple[int, int]
    rows_sorted: bool


def _plain(matrix: JAXSparse) -> bool:
    """Whether `matrix` is a single 2-D matrix without batch or dense dimensions."""
    return len(matrix.shape) == 2 and getattr(matrix, "n_batch", 0) == 0 and getattr(matrix, "n_dense", 0) == 0


def _expand_pointers(pointers: Tensor, nnz: int) -> Tensor:
    """The row (or column) of each of `nnz` entries of compressed `pointers`."""
    return (jnp.searchsorted(pointers[1:], jnp.arange(nnz, dtype=pointers.dtype), side="right")).astype(pointers.dtype)


def _coo_able(matrix: Any) -> bool:
    """Whether `matrix` is a plain 2-D BCOO, BCSR or CSC matrix, which `coo_parts` takes apart."""
    return isinstance(matrix, (jsparse.BCOO, jsparse.BCSR, jsparse.CSC)) and _plain(matrix)


def coo_parts(matrix: JAXSparse) -> _Coo:
    """COO parts of a matrix for which `_coo_able` holds."""
    shape = (int(matrix.shape[0]), int(matrix.shape[1]))
    if isinstance(matrix, jsparse.BCOO):
        return _Coo(matrix.indices[:, 0], matrix.indices[:, 1], matrix.data, shape, False)
    if isinstance(matrix, jsparse.BCSR):
        rows = _expand_pointers(matrix.indptr, matrix.indices.shape[0])
        return _Coo(rows, matrix.indices, matrix.data, shape, True)
    cols = _expand_pointers(matrix.indptr, matrix.indices.shape[0])
    return _Coo(matrix.indices, cols, matrix.data, shape, False)


def _numpy_pattern(matrix: JAXSparse) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the entries of a plain BCOO, BCSR or CSC matrix with concrete indices, in NumPy."""
    indices = np.asarray(matrix.indices)
    if isinstance(matrix, jsparse.BCOO):
        return indices[:, 0], indices[:, 1]
    expanded = np.repeat(np.arange(len(matrix.indptr) - 1), np.diff(np.asarray(matrix.indptr)))
    return (expanded, indices) if isinstance(matrix, jsparse.BCSR) else (indices, expanded)


# ---------------------------------------------------------------- padded row layout


class _Layout(NamedTuple):
    """Entry `source[j, r]` (nnz for padding) of row `r` sits in slot `j`; `columns[j, r]` is its column."""

    source: Tensor
    columns: Tensor


class _LayoutCache:
    """Padded row layouts keyed by the identity of a concrete index array (held weakly: a layout goes
    when its index array goes), and the layouts bound to traced index arrays while `jit_compile`
    traces (see `bound_layouts`)."""

    def __init__(self, size: int = 64) -> None:
        self._entries: dict[int, tuple[weakref.ref[Any], _Layout | None]] = {}
        self._bound: dict[int, tuple[Any, _Layout]] = {}
        self._size = size

    def get(self, matrix: JAXSparse) -> _Layout | None:
        """The layout of a plain matrix whose index arrays are concrete (or bound), else `None`."""
        pattern = matrix.indices
        bound = self._bound.get(id(pattern))
        if bound is not None and bound[0] is pattern:
            return bound[1]
        if isinstance(pattern, jax.core.Tracer) or isinstance(getattr(matrix, "indptr", None), jax.core.Tracer):
            return None
        entry = self._entries.get(id(pattern))
        if entry is not None and entry[0]() is pattern:
            return entry[1]
        layout = _padded_layout(*_numpy_pattern(matrix), int(matrix.shape[0]))
        if len(self._entries) >= self._size:
            self._entries.pop(next(iter(self._entries)))
        key = id(pattern)
        self._entries[key] = (weakref.ref(pattern, lambda ref: self._forget(key, ref)), layout)
        return layout

    def _forget(self, key: int, ref: weakref.ref[Any]) -> None:
        """Drops the layout of an index array that no longer exists (its memory goes with it)."""
        entry = self._entries.get(key)
        if entry is not None and entry[0] is ref:
            del self._entries[key]

    @contextmanager
    def bind(self, patterns: Sequence[Any], layouts: Sequence[_Layout]) -> Iterator[None]:
        """Makes `layouts` the layouts of the (traced) index arrays `patterns` within the block."""
        keys = [id(p) for p in patterns]
        self._bound.update({key: (p, layout) for key, p, layout in zip(keys, patterns, layouts, strict=True)})
        try:
            yield
        finally:
            for key in keys:
                self._bound.pop(key, None)


_LAYOUTS: Final = _LayoutCache()


def _sparse_leaves(tree: Any) -> list[JAXSparse]:
    leaves = jax.tree_util.tree_leaves(tree, is_leaf=lambda x: isinstance(x, JAXSparse))
    return [leaf for leaf in leaves if isinstance(leaf, JAXSparse)]


def layouts_of(tree: Any) -> tuple[tuple[int, ...], list[Tensor]]:
    """For the sparse matrices in `tree` (the arguments of a jitted call): the positions of those
    with a padded layout, and the layouts' arrays, to be passed into the trace with the arguments."""
    positions, arrays = [], []
    for k, matrix in enumerate(_sparse_leaves(tree)):
        layout = _LAYOUTS.get(matrix) if _coo_able(matrix) else None
        if layout is not None:
            positions.append(k)
            arrays.extend(layout)
    return tuple(positions), arrays


def bound_layouts(tree: Any, positions: Sequence[int], arrays: Sequence[Tensor]) -> AbstractContextManager[None]:
    """Within the block, the matrices at `positions` of `tree` (traced arguments) use the layouts
    `arrays` (traced too), so that their products need no scatter."""
    matrices = _sparse_leaves(tree)
    layouts = [_Layout(arrays[2 * n], arrays[2 * n + 1]) for n in range(len(positions))]
    return _LAYOUTS.bind([matrices[k].indices for k in positions], layouts)


def _padded_layout(rows: np.ndarray, cols: np.ndarray, n_rows: int) -> _Layout | None:
    """The ELLPACK layout of a pattern, or `None` when the fullest row would pad it too much."""
    nnz = rows.shape[0]
    if nnz == 0 or n_rows == 0:
        return None
    counts = np.bincount(rows, minlength=n_rows)
    k = int(counts.max())
    if k > _MAX_ROW_ENTRIES or n_rows * k > _MAX_PADDING * nnz + n_rows:
        return None
    order = np.argsort(rows, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    sorted_rows = rows[order]
    slot = np.arange(nnz) - starts[sorted_rows]
    source = np.full((k, n_rows), nnz, np.int32)
    source[slot, sorted_rows] = order
    columns = np.zeros((k, n_rows), np.int32)
    columns[slot, sorted_rows] = cols[order]
    with jax.ensure_compile_time_eval():  # concrete device arrays even while tracing: the cache outlives traces
        return _Layout(jnp.asarray(source), jnp.asarray(columns))


@jax.jit
def _padded_matvec(values: Tensor, source: Tensor, columns: Tensor, vectors: Tensor) -> Tensor:
    """`(batch, rows)` products of a padded layout with `(batch, cols)` vectors: one gather per slot."""
    padded = jnp.concatenate([values, jnp.zeros((1,), values.dtype)])
    result = jnp.zeros((vectors.shape[0], source.shape[1]), jnp.result_type(values, vectors))
    for j in range(source.shape[0]):
        result = result + padded[source[j]] * vectors[:, columns[j]]
    return result


@functools.partial(jax.jit, static_argnames=("n_rows", "rows_sorted"))
def _segment_matvec(rows: Tensor, cols: Tensor, values: Tensor, vectors: Tensor, n_rows: int, rows_sorted: bool) -> Tensor:
    """`(batch, rows)` products of COO parts with `(batch, cols)` vectors by `segment_sum` over rows."""
    products = values[:, None] * vectors[:, cols].T
    return jax.ops.segment_sum(products, rows, num_segments=n_rows, indices_are_sorted=rows_sorted).T


# ---------------------------------------------------------------- the mixin


class SparseMixin:
    """Sparse matrices (COO, CSR, CSC, batched COO and CSR), conversions and sparse-dense products of `JaxBackend`."""

    _t: Callable[[Any], Any]

    def is_sparse(self, x: Tensor) -> bool:
        """Whether `x` is a `jax.experimental.sparse` matrix (BCOO, BCSR, CSC, COO, CSR)."""
        return isinstance(x, JAXSparse)

    def get_sparse_format(self, x: Tensor) -> str:
        return _FORMATS.get(type(x), "coo" if isinstance(x, JAXSparse) else "dense")

    def disassemble(self, x: Tensor) -> tuple[Callable[..., Tensor], Sequence[Tensor]]:
        """`(assemble, parts)`: COO gives `(indices (nnz, ndims), values)`, CSR `(column_indices, row_pointers,
        values)`, CSC `(column_pointers, row_indices, values)` (batched variants with a batch axis first);
        `assemble(backend, *parts)` rebuilds the matrix on any backend that supports the format.

        Raises:
            NotImplementedError: for sparse layouts bk has no constructor for (dense dimensions in COO,
                more than one batch dimension, the legacy `COO`/`CSR` classes).
        """
        if not isinstance(x, JAXSparse):
            return _assemble_dense, (x,)
        batches, dense = getattr(x, "n_batch", 0), getattr(x, "n_dense", 0)
        if isinstance(x, jsparse.BCOO) and dense == 0 and batches in (0, 1):
            assemble = _assemble_coo_batched if batches else _assemble_coo
            return functools.partial(assemble, tuple(x.shape[batches:])), (x.indices, x.data)
        if isinstance(x, jsparse.BCSR) and batches in (0, 1) and dense <= batches:
            assemble = _assemble_csr_batched if batches else _assemble_csr
            return functools.partial(assemble, tuple(x.shape[batches : batches + 2])), (x.indices, x.indptr, x.data)
        if isinstance(x, jsparse.CSC):
            return functools.partial(_assemble_csc, tuple(x.shape)), (x.indptr, x.indices, x.data)
        raise NotImplementedError(
            f"cannot disassemble a {type(x).__name__} of shape {x.shape} with {batches} batch and {dense} dense dimensions; "
            "bk builds COO with one batch dimension at most, and CSR with channels only when batched"
        )

    # ------------------------------------------------------------ constructors

    def _indices(self, indices: Tensor, limits: int | Sequence[int], op: str, what: str = "index") -> Tensor:
        """`indices` as int32, checked where concrete (`bk.rules.check_indices`): each must lie in
        `[0, limits)` (component `i` of the last axis in `[0, limits[i])` for a sequence); pointers pass
        `nnz + 1` (they lie in `[0, nnz]`).

        Raises:
            bk.IndexOutOfRangeError: for an index outside (SciPy would read or write out of bounds).
        """
        indices = self._t(indices)
        check_indices(self, indices, limits, op, what, negative=False)  # type: ignore[arg-type]
        return indices if indices.dtype == np.int32 else indices.astype(np.int32)

    def sparse_coo_tensor(self, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
        """A `BCOO` from `(nnz, ndims)` indices; duplicates are kept and add up, as in JAX."""
        shape = tuple(int(s) for s in shape)
        return jsparse.BCOO((self._t(values), self._indices(indices, shape, "sparse_coo_tensor")), shape=shape)

    def sparse_coo_tensor_batched(self, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
        """A `BCOO` of shape `(batch, *shape)` with one batch dimension, from `(batch, nnz, ndims)` indices and `(batch, nnz)` values."""
        shape = tuple(int(s) for s in shape)
        indices, values = self._indices(indices, shape, "sparse_coo_tensor_batched"), self._t(values)
        return jsparse.BCOO((values, indices), shape=(int(indices.shape[0]), *shape))

    def csr_matrix(self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """A `BCSR` matrix."""
        values = self._t(values)
        columns = self._indices(column_indices, int(shape[1]), "csr_matrix")
        pointers = self._indices(row_pointers, int(values.shape[0]) + 1, "csr_matrix", "pointer")
        return jsparse.BCSR((values, columns, pointers), shape=tuple(int(s) for s in shape))

    def csr_matrix_batched(self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """A `BCSR` of shape `(batch, rows, cols, channels)` from `(batch, nnz, channels)` values (one batch, one dense dimension)."""
        values = self._t(values)
        columns = self._indices(column_indices, int(shape[1]), "csr_matrix_batched")
        parts = (values, columns, self._indices(row_pointers, int(values.shape[1]) + 1, "csr_matrix_batched", "pointer"))
        full = (int(values.shape[0]), *(int(s) for s in shape), *(int(s) for s in values.shape[2:]))
        return jsparse.BCSR(parts, shape=full)

    def csc_matrix(self, column_pointers: Tensor, row_indices: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
        """A `jax.experimental.sparse.CSC` matrix (2-D; JAX has no batched CSC)."""
        values = self._t(values)
        rows = self._indices(row_indices, int(shape[0]), "csc_matrix")
        pointers = self._indices(column_pointers, int(values.shape[0]) + 1, "csc_matrix", "pointer")
        return jsparse.CSC((values, rows, pointers), shape=tuple(int(s) for s in shape))

    # ------------------------------------------------------------ conversion

    def _sparse_to_scipy(self, matrix: JAXSparse) -> Any:
        """A SciPy sparse matrix of a plain 2-D matrix (a dense NumPy array for other layouts)."""
        import scipy.sparse

        if not _plain(matrix) or not isinstance(matrix, (jsparse.BCOO, jsparse.BCSR, jsparse.CSC)):
            return np.asarray(matrix.todense())
        data = np.asarray(matrix.data)
        if isinstance(matrix, jsparse.BCOO):
            indices = np.asarray(matrix.indices)
            return scipy.sparse.coo_matrix((data, (indices[:, 0], indices[:, 1])), shape=matrix.shape)
        kind = scipy.sparse.csr_matrix if isinstance(matrix, jsparse.BCSR) else scipy.sparse.csc_matrix
        return kind((data, np.asarray(matrix.indices), np.asarray(matrix.indptr)), shape=matrix.shape)

    def _sparse_cast(self, matrix: JAXSparse, dtype: Any) -> JAXSparse:
        """`matrix` with its values cast to the bk `dtype`."""
        leaves, structure = jax.tree_util.tree_flatten(matrix)
        if leaves[0] is not matrix.data:  # every jax.experimental.sparse class flattens its values first
            raise TypeError(f"cannot cast a {type(matrix).__name__}; cast its values and rebuild it")
        leaves[0] = self.cast(leaves[0], dtype)  # type: ignore[attr-defined]
        return jax.tree_util.tree_unflatten(structure, leaves)  # type: ignore[no-any-return]

    def _sparse_to_precision(self, matrix: JAXSparse) -> JAXSparse:
        values = self.as_tensor(matrix.data)  # type: ignore[attr-defined]
        return matrix if values is matrix.data else self._sparse_cast(matrix, self.dtype(values))  # type: ignore[attr-defined]

    def csr_to_coo(self, column_indices: Tensor, row_pointers: Tensor) -> Tensor:
        """`(batch, nnz, 2)` COO indices, the row of each entry found by a batched `searchsorted`."""
        column_indices, row_pointers = self._t(column_indices), self._t(row_pointers)
        rows = jax.vmap(lambda p: _expand_pointers(p, column_indices.shape[-1]))(row_pointers)
        return jnp.stack([rows.astype(column_indices.dtype), column_indices], axis=-1)

    # ------------------------------------------------------------ products and solves

    def _sparse_matvec(self, matrix: JAXSparse, vectors: Tensor) -> Tensor:
        """`(batch, rows)` products of a sparse `(rows, cols)` matrix with `(batch, cols)` vectors."""
        values, vectors = self.auto_cast(matrix.data, vectors)  # type: ignore[attr-defined]
        if not _coo_able(matrix):  # batched or legacy classes: JAX's own sparse product
            return (self._sparse_cast(matrix, self.dtype(values)) @ vectors.T).T  # type: ignore[attr-defined]
        layout = _LAYOUTS.get(matrix)
        if layout is not None:
            return _padded_matvec(values, layout.source, layout.columns, vectors)
        parts = coo_parts(matrix)
        return _segment_matvec(parts.rows, parts.cols, values, vectors, parts.shape[0], parts.rows_sorted)

    def mul_coo_dense(self, indices: Tensor, values: Tensor, shape: tuple[int, int], dense: Tensor) -> Tensor:
        """Batched COO `(batch, nnz, 2)`, `(batch, nnz, channels)` times `(batch, cols, channels, dense_cols)`, by `segment_sum`."""
        return self._mul_coo_dense(indices, values, shape, dense, rows_sorted=False)

    def mul_csr_dense(
        self, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int], dense: Tensor
    ) -> Tensor:
        """Batched CSR times dense: the rows of the entries come from `searchsorted` and are sorted for `segment_sum`."""
        return self._mul_coo_dense(self.csr_to_coo(column_indices, row_pointers), values, shape, dense, rows_sorted=True)

    def _mul_coo_dense(self, indices: Tensor, values: Tensor, shape: tuple[int, int], dense: Tensor, rows_sorted: bool) -> Tensor:
        indices = self._t(indices)
        values, dense = self.auto_cast(self._t(values), self._t(dense))  # type: ignore[attr-defined]
        batch = max(indices.shape[0], values.shape[0], dense.shape[0])
        indices = jnp.broadcast_to(indices, (batch, *indices.shape[1:]))
        values = jnp.broadcast_to(values, (batch, *values.shape[1:]))
        dense = jnp.broadcast_to(dense, (batch, *dense.shape[1:]))
        batch_index = jnp.arange(batch)[:, None]
        products = values[..., None] * dense[batch_index, indices[..., 1]]  # (batch, nnz, channels, dense_cols)
        rows = (batch_index * shape[0] + indices[..., 0]).reshape(-1)
        flat = products.reshape(-1, *products.shape[2:])
        result = jax.ops.segment_sum(flat, rows, num_segments=batch * shape[0], indices_are_sorted=rows_sorted)
        return result.reshape(batch, shape[0], *products.shape[2:])

    def solve_triangular_sparse(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves a sparse triangular `(n, n)` system for `(batch, n)` right-hand sides with SciPy's
        `spsolve_triangular`, called through `jax.pure_callback` (so also under jit, on the host).

        Only the `lower` (or upper) triangle of `matrix` is used, duplicate entries add up, and with
        `unit_diagonal` the diagonal is taken as ones. Not differentiable.

        Raises:
            ValueError: for a matrix that is not a square, plain 2-D BCOO, BCSR or CSC matrix.
        """
        if not _coo_able(matrix) or matrix.shape[0] != matrix.shape[1]:
            raise ValueError(
                f"solve_triangular_sparse needs a square 2-D sparse matrix (BCOO, BCSR or CSC) but got {type(matrix).__name__} {getattr(matrix, 'shape', '')}"
            )
        parts = coo_parts(matrix)
        # no plan casts sparse operands: both in their common type, ints and bools as the float type (`bk.rules.compute_dtype`)
        dtype = compute_dtype(self, self.combine_types(self.dtype(parts.values), self.dtype(rhs)))[1]  # type: ignore[attr-defined, arg-type]
        values, rhs = self.cast(parts.values, dtype), self.cast(self._t(rhs), dtype)  # type: ignore[attr-defined]
        solve = functools.partial(_scipy_triangular_solve, n=parts.shape[0], lower=lower, unit_diagonal=unit_diagonal)
        spec = jax.ShapeDtypeStruct(rhs.shape, rhs.dtype)
        return jax.pure_callback(solve, spec, parts.rows, parts.cols, values, rhs, vmap_method="sequential")


def _scipy_triangular_solve(rows: Any, cols: Any, values: Any, rhs: Any, n: int, lower: bool, unit_diagonal: bool) -> np.ndarray:
    """`scipy.sparse.linalg.spsolve_triangular` of the lower or upper triangle for `(batch, n)` or `(n,)` right-hand sides."""
    import scipy.sparse
    from scipy.sparse.linalg import spsolve_triangular

    rows, cols, values = np.asarray(rows), np.asarray(cols), np.array(values)
    keep = (cols <= rows) if lower else (cols >= rows)
    matrix = scipy.sparse.csr_matrix((values[keep], (rows[keep], cols[keep])), shape=(n, n))
    rhs = np.asarray(rhs)
    solution = spsolve_triangular(matrix, np.array(rhs.T), lower=lower, unit_diagonal=unit_diagonal)
    return np.asarray(solution.T, dtype=rhs.dtype)


# ---------------------------------------------------------------- assembling parts on any backend


def _assemble_dense(backend: Any, tensor: Tensor) -> Tensor:
    return backend.as_tensor(tensor)


def _assemble_coo(shape: tuple[int, ...], backend: Any, indices: Tensor, values: Tensor) -> Tensor:
    return backend.sparse_coo_tensor(indices, values, shape)


def _assemble_coo_batched(shape: tuple[int, ...], backend: Any, indices: Tensor, values: Tensor) -> Tensor:
    return backend.sparse_coo_tensor_batched(indices, values, shape)


def _assemble_csr(shape: tuple[int, int], backend: Any, column_indices: Tensor, row_pointers: Tensor, values: Tensor) -> Tensor:
    return backend.csr_matrix(column_indices, row_pointers, values, shape)


def _assemble_csr_batched(
    shape: tuple[int, int], backend: Any, column_indices: Tensor, row_pointers: Tensor, values: Tensor
) -> Tensor:
    return backend.csr_matrix_batched(column_indices, row_pointers, values, shape)


def _assemble_csc(shape: tuple[int, int], backend: Any, column_pointers: Tensor, row_indices: Tensor, values: Tensor) -> Tensor:
    return backend.csc_matrix(column_pointers, row_indices, values, shape)
