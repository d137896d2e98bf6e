"""Specs of products, decompositions, solves, FFT, convolution, grid sampling and sparse tensors."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any, Final

from .._dtype import DType
from .._errors import ArgumentTypeError, ShapeMismatchError
from ._base import (
    INT64,
    ShapeDtype,
    as_shape,
    batch_size,
    broadcast_shapes,
    complex_of,
    default_float,
    float_of,
    promote,
    real_of,
    specifies,
    strong,
)

Tensor = Any
Axes = Any

_PRODUCT: Final = "The dtype is the operands' common type (bk.combine_types: int32 stays int32; floats take the set precision)."


def _common(op: str, *operands: ShapeDtype) -> DType:
    return promote(op, operands)


def _float_common(op: str, *operands: ShapeDtype) -> DType:
    return float_of(promote(op, operands))


def _axes_list(value: Any, ndim: int, op: str, name: str) -> list[int]:
    from .._axes import normalize_axis

    items = [value] if not hasattr(value, "__iter__") else list(value)
    axes = [normalize_axis(a, ndim, op) for a in items]
    if len(set(axes)) != len(axes):
        from .._errors import AxisError

        raise AxisError(f"{op}: {name} {tuple(items)} names the same axis twice")
    return axes


def _same(op: str, what: str, a: int | None, b: int | None) -> None:
    if a is not None and b is not None and a != b:
        raise ShapeMismatchError(f"{op}: {what}: sizes {a} and {b} differ")


# ---------------------------------------------------------------- products


@specifies(
    "tensordot",
    f"Multiplies and sums a_axes of a with b_axes of b (equal counts and sizes, else ShapeMismatchError): shape a's other axes then b's other axes. {_PRODUCT} An axis out of range raises AxisError.",
)
def _tensordot(a: Tensor, a_axes: Axes, b: Tensor, b_axes: Axes) -> ShapeDtype:
    left, right = strong(a, "tensordot", "a"), strong(b, "tensordot", "b")
    axes_a = _axes_list(a_axes, left.ndim, "tensordot", "a_axes")
    axes_b = _axes_list(b_axes, right.ndim, "tensordot", "b_axes")
    if len(axes_a) != len(axes_b):
        raise ShapeMismatchError(f"tensordot: {len(axes_a)} axes of a {tuple(left.shape)} but {len(axes_b)} of b {tuple(right.shape)}")
    for i, j in zip(axes_a, axes_b, strict=True):
        _same("tensordot", f"axis {i} of a {tuple(left.shape)} and axis {j} of b {tuple(right.shape)}", left.shape[i], right.shape[j])
    shape = (*(n for i, n in enumerate(left.shape) if i not in axes_a), *(n for j, n in enumerate(right.shape) if j not in axes_b))
    return ShapeDtype(shape, _common("tensordot", left, right))


def _parse_einsum(equation: str, ranks: list[int]) -> tuple[list[str], str]:
    """The input subscripts and the output subscripts (implicit mode: the letters that appear once, sorted)."""
    if not isinstance(equation, str):
        raise ArgumentTypeError(f"einsum: equation must be a string, got {type(equation).__name__}")
    text = equation.replace(" ", "")
    explicit = "->" in text
    inputs_text, _, output = text.partition("->")
    inputs = inputs_text.split(",")
    if len(inputs) != len(ranks):
        raise ValueError(f"einsum: the equation {equation!r} names {len(inputs)} operands but {len(ranks)} were given")
    for part in [*inputs, output]:
        letters = part.replace("...", "")
        if not all(c.isalpha() for c in letters):
            raise ValueError(f"einsum: invalid subscripts {part!r} in {equation!r}; use letters and '...'")
    if not explicit:
        used = [c for part in inputs for c in part.replace("...", "")]
        once = sorted(c for c in set(used) if used.count(c) == 1)
        output = ("..." if any("..." in p for p in inputs) else "") + "".join(once)
    return inputs, output


_NO_OUTPUT_ELLIPSIS: Final = "einsum: {equation!r} has '...' axes in its inputs but no '...' in its output; write '...' where they go (as numpy.einsum)"


def einsum_subscripts(equation: str, ranks: Sequence[int]) -> tuple[list[str], str]:
    """An einsum equation without `...` and without implicit output, for kernels that take neither.

    The input subscripts and the output subscripts, with every `...` written out as letters the
    equation does not use (right-aligned, so operands with fewer broadcast axes take the last ones)
    and the implicit output (`'ij,jk'`) made explicit as NumPy reads it: the broadcast axes first,
    then the letters that appear once, sorted.

    Args:
        equation: The equation as `einsum` takes it.
        ranks: The rank of each operand.

    Raises:
        ArgumentTypeError, ValueError: as the spec, for a malformed equation.
    """
    inputs, output = _parse_einsum(equation, list(ranks))
    counts = [rank - len(part.replace("...", "")) if "..." in part else 0 for part, rank in zip(inputs, ranks, strict=True)]
    if any(n < 0 for n in counts):
        raise ValueError(f"einsum: subscripts of {equation!r} do not fit operands of ranks {tuple(ranks)}")
    broadcast = max(counts, default=0)
    if broadcast and "..." not in output:
        raise ValueError(_NO_OUTPUT_ELLIPSIS.format(equation=equation))
    free = [c for c in string.ascii_letters if c not in equation][:broadcast]
    if len(free) < broadcast:
        raise ValueError(f"einsum: {equation!r} leaves too few unused letters for its {broadcast} broadcast axes")
    inputs = [part.replace("...", "".join(free[broadcast - n :])) for part, n in zip(inputs, counts, strict=True)]
    return inputs, output.replace("...", "".join(free))


@specifies(
    "einsum",
    f"Einstein summation (numpy.einsum): letters name axes (sizes must agree, ShapeMismatchError otherwise; '...' axes broadcast, and an explicit output must place them); the output has the letters after '->', or those that appear once, sorted. {_PRODUCT} A malformed equation raises ValueError.",
)
def _einsum(equation: str, *tensors: Tensor) -> ShapeDtype:
    operands = [strong(t, "einsum", f"tensors[{i}]") for i, t in enumerate(tensors)]
    inputs, output = _parse_einsum(equation, [o.ndim for o in operands])
    sizes: dict[str, int | None] = {}
    ellipsis_shapes = []
    for part, operand in zip(inputs, operands, strict=True):
        head, dots, tail = part.partition("...")
        named = len(head) + len(tail)
        if (dots and operand.ndim < named) or (not dots and operand.ndim != named):
            raise ValueError(f"einsum: subscripts {part!r} do not fit an operand of rank {operand.ndim}")
        middle = operand.ndim - named
        ellipsis_shapes.append(operand.shape[len(head) : len(head) + middle] if dots else ())
        for letter, size in zip(head + "." * middle + tail, operand.shape, strict=True):
            if letter == ".":
                continue
            known = sizes.get(letter)
            if known is None or known == 1:
                sizes[letter] = size if size is not None else known
            elif size not in (None, 1, known):
                raise ShapeMismatchError(f"einsum: axis {letter!r} has sizes {known} and {size} in {equation!r}")
    dots_shape = broadcast_shapes("einsum", *ellipsis_shapes) if ellipsis_shapes else ()
    head, dots, tail = output.partition("...")
    if dots_shape and not dots:
        raise ValueError(_NO_OUTPUT_ELLIPSIS.format(equation=equation))
    for letter in head + tail:
        if letter not in sizes:
            raise ValueError(f"einsum: output subscript {letter!r} does not appear in the inputs of {equation!r}")
    shape = (*(sizes[c] for c in head), *(dots_shape if dots else ()), *(sizes[c] for c in tail))
    return ShapeDtype(shape, _common("einsum", *operands))


@specifies(
    "mul_matrix_batched_vector",
    f"A (rows, cols) matrix (dense or sparse) times (batch, cols) vectors gives (batch, rows); cols must agree (ShapeMismatchError). {_PRODUCT}",
)
def _mul_matrix_batched_vector(A: Tensor, b: Tensor) -> ShapeDtype:
    matrix, vectors = strong(A, "mul_matrix_batched_vector", "A"), strong(b, "mul_matrix_batched_vector", "b")
    if matrix.ndim != 2 or vectors.ndim != 2:
        raise ShapeMismatchError(f"mul_matrix_batched_vector: expected a (rows, cols) matrix and (batch, cols) vectors, got {matrix.shape} and {vectors.shape}")
    _same("mul_matrix_batched_vector", "cols of A and of b", matrix.shape[1], vectors.shape[1])
    return ShapeDtype((vectors.shape[0], matrix.shape[0]), _common("mul_matrix_batched_vector", matrix, vectors))


@specifies(
    "linear",
    "A linear operator applied to (batch, n) vectors: a (rows, n) matrix gives (batch, rows) as mul_matrix_batched_vector; a list of matrices (one per batch entry) likewise; for a Python function the size and dtype of the result are what the function returns, so the template keeps the vector's dtype with an unknown size.",
)
def _linear(lin: Any, vector: Tensor) -> ShapeDtype:
    vectors = strong(vector, "linear", "vector")
    if callable(lin) and not hasattr(lin, "shape"):
        return ShapeDtype((*vectors.shape[:-1], None), vectors.dtype)
    if isinstance(lin, (list, tuple)):
        matrices = [strong(m, "linear", "lin") for m in lin]
        rows = matrices[0].shape[0] if matrices and matrices[0].ndim == 2 else None
        return ShapeDtype((vectors.shape[0], rows), promote("linear", (*matrices, vectors)))
    matrix = strong(lin, "linear", "lin")
    if matrix.ndim != 2:
        raise ValueError(f"linear: the linear operator must be a matrix but has shape {matrix.shape}")
    return _mul_matrix_batched_vector(lin, vector)  # type: ignore[no-any-return]


# ---------------------------------------------------------------- solves and decompositions


def _square(op: str, matrix: ShapeDtype, name: str = "matrix") -> None:
    if matrix.ndim < 2:
        raise ShapeMismatchError(f"{op}: {name} must have at least 2 axes, got shape {matrix.shape}")
    _same(op, f"{name} must be square", matrix.shape[-2], matrix.shape[-1])


@specifies(
    "matrix_solve_least_squares",
    "Least-squares solutions of (batch, vec, constraints) systems for (batch, vec, k) right sides: a tuple (solution (batch, constraints, k), residuals (batch, k), rank (batch,) int64, singular_values (batch, min(vec, constraints))); floats of the common type (bool and ints give the default float; residuals and singular values are real).",
)
def _lstsq(matrix: Tensor, rhs: Tensor) -> tuple[ShapeDtype, ...]:
    a, b = strong(matrix, "matrix_solve_least_squares", "matrix"), strong(rhs, "matrix_solve_least_squares", "rhs")
    if a.ndim != 3 or b.ndim != 3:
        raise ShapeMismatchError(f"matrix_solve_least_squares: expected (batch, vec, constraints) and (batch, vec, k), got {a.shape} and {b.shape}")
    _same("matrix_solve_least_squares", "vec of matrix and rhs", a.shape[1], b.shape[1])
    dtype = _float_common("matrix_solve_least_squares", a, b)
    batch = broadcast_shapes("matrix_solve_least_squares", a.shape[:1], b.shape[:1])[0]
    vec, constraints, k = a.shape[1], a.shape[2], b.shape[2]
    smallest = None if vec is None or constraints is None else min(vec, constraints)
    return (
        ShapeDtype((batch, constraints, k), dtype),
        ShapeDtype((batch, k), real_of(dtype)),
        ShapeDtype((a.shape[0],), INT64),
        ShapeDtype((a.shape[0], smallest), real_of(dtype)),
    )


_TRIANGULAR: Final = "Solves (batch, n, n) triangular systems (the other triangle ignored; unit_diagonal takes the diagonal as ones) for (batch, n) right-hand sides: shape of rhs, floats of the common type (bool and ints give the default float). A matrix that is not square, or an n that differs, raises ShapeMismatchError."


def _triangular(op: str, matrix: Any, rhs: Any) -> ShapeDtype:
    a, b = strong(matrix, op, "matrix"), strong(rhs, op, "rhs")
    _square(op, a)
    if b.ndim < 1:
        raise ShapeMismatchError(f"{op}: rhs must be (batch, n), got shape {b.shape}")
    _same(op, "n of matrix and rhs", a.shape[-1], b.shape[-1])
    return ShapeDtype(b.shape, _float_common(op, a, b))


@specifies("solve_triangular_dense", _TRIANGULAR)
def _solve_triangular_dense(matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> ShapeDtype:
    return _triangular("solve_triangular_dense", matrix, rhs)


@specifies("solve_triangular", f"solve_triangular_dense or solve_triangular_sparse by the format of matrix. {_TRIANGULAR}")
def _solve_triangular(matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> ShapeDtype:
    return _triangular("solve_triangular", matrix, rhs)


@specifies("solve_triangular_sparse", f"A sparse (n, n) triangular system. {_TRIANGULAR}")
def _solve_triangular_sparse(matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> ShapeDtype:
    return _triangular("solve_triangular_sparse", matrix, rhs)


@specifies("matrix_rank_dense", "int64 ranks of (batch..., rows, cols) matrices: shape matrix.shape[:-2].")
def _matrix_rank_dense(matrix: Tensor, hermitian: bool = False) -> ShapeDtype:
    a = strong(matrix, "matrix_rank_dense", "matrix")
    if a.ndim < 2:
        raise ShapeMismatchError(f"matrix_rank_dense: matrix must have at least 2 axes, got shape {a.shape}")
    return ShapeDtype(a.shape[:-2], INT64)


_EIG: Final = "always complex: the complex type of the input's precision (bool and ints give the default complex). A matrix that is not square raises ShapeMismatchError."


@specifies("eigvals", f"Eigenvalues of (batch..., n, n) matrices: shape (batch..., n), {_EIG}")
def _eigvals(matrix: Tensor) -> ShapeDtype:
    a = strong(matrix, "eigvals", "matrix")
    _square("eigvals", a)
    return ShapeDtype(a.shape[:-1], complex_of(float_of(a.dtype)))


@specifies("eig", f"A tuple (eigenvalues (batch..., n), eigenvectors (batch..., n, n) as columns), {_EIG}")
def _eig(matrix: Tensor) -> tuple[ShapeDtype, ShapeDtype]:
    a = strong(matrix, "eig", "matrix")
    _square("eig", a)
    dtype = complex_of(float_of(a.dtype))
    return ShapeDtype(a.shape[:-1], dtype), ShapeDtype(a.shape, dtype)


@specifies(
    "svd",
    "A tuple (U, S, Vh) of (batch..., m, n) matrices, k = min(m, n): U (batch..., m, m if full_matrices else k), S (batch..., k), Vh (batch..., n if full_matrices else k, n). U and Vh are floats of the input's precision (bool and ints give the default float), S is real.",
)
def _svd(matrix: Tensor, full_matrices: bool = True) -> tuple[ShapeDtype, ShapeDtype, ShapeDtype]:
    a = strong(matrix, "svd", "matrix")
    if a.ndim < 2:
        raise ShapeMismatchError(f"svd: matrix must have at least 2 axes, got shape {a.shape}")
    *batch, m, n = a.shape
    k = None if m is None or n is None else min(m, n)
    dtype = float_of(a.dtype)
    return (
        ShapeDtype((*batch, m, m if full_matrices else k), dtype),
        ShapeDtype((*batch, k), real_of(dtype)),
        ShapeDtype((*batch, n if full_matrices else k, n), dtype),
    )


# ---------------------------------------------------------------- FFT, convolution, sampling

_FFT: Final = "same shape, complex: the complex type of the input's precision (bool, ints and float32 and narrower give complex64, float64 complex128; a set precision applies). An axis out of range or named twice raises AxisError, an axis of size 0 ValueError."


def _fft(op: str, x: Any, axes: Any) -> ShapeDtype:
    from .._axes import normalize_axes

    operand = strong(x, op, "x")
    normalized = normalize_axes(tuple(axes) if hasattr(axes, "__iter__") else axes, operand.ndim, op)
    empty = [a for a in (range(operand.ndim) if normalized is None else normalized) if operand.shape[a] == 0]
    if empty:
        raise ValueError(f"{op}: cannot transform axis {empty[0]} of size 0 (shape {tuple(operand.shape)}); a transform needs 1 point or more, as numpy.fft")
    return ShapeDtype(operand.shape, complex_of(operand.dtype))


@specifies("fft", f"n-dimensional FFT over axes: {_FFT}")
def _fft_spec(x: Tensor, axes: Axes) -> ShapeDtype:
    return _fft("fft", x, axes)


@specifies("ifft", f"n-dimensional inverse FFT over axes: {_FFT}")
def _ifft(k: Tensor, axes: Axes) -> ShapeDtype:
    return _fft("ifft", k, axes)


@specifies(
    "conv",
    "Cross-correlation of (batch, in, spatial...) value with (batch or 1, out, in, kernel...) kernels: (batch, out, spatial...) with zero_padding ('same'), else (batch, out, spatial - kernel + 1...) ('valid'). The dtype is the common type (two bools give int32). Shapes that do not fit raise ShapeMismatchError.",
)
def _conv(value: Tensor, kernel: Tensor, zero_padding: bool = True) -> ShapeDtype:
    x, k = strong(value, "conv", "value"), strong(kernel, "conv", "kernel")
    if x.ndim < 2 or k.ndim != x.ndim + 1:
        raise ShapeMismatchError(f"conv: needs value (batch, in, spatial...) and kernel (batch or 1, out, in, kernel...) but got {x.shape} and {k.shape}")
    _same("conv", "in channels of value and kernel", x.shape[1], k.shape[2])
    if k.shape[0] not in (1, None) and x.shape[0] is not None and k.shape[0] != x.shape[0]:
        raise ShapeMismatchError(f"conv: kernel batch {k.shape[0]} must be 1 or the value's batch {x.shape[0]}")
    spatial = x.shape[2:]
    if not zero_padding:
        sizes = []
        for n, size in zip(spatial, k.shape[3:], strict=True):
            if n is not None and size is not None and size > n:
                raise ShapeMismatchError(f"conv: kernel {k.shape[3:]} is larger than the input {spatial} ('valid' convolution)")
            sizes.append(None if n is None or size is None else n - size + 1)
        spatial = tuple(sizes)
    dtype = promote("conv", (x, k))
    if dtype.kind is bool:
        dtype = DType(int, 32)
    return ShapeDtype((x.shape[0], k.shape[1], *spatial), dtype)


_EXTRAPOLATIONS: Final = ("undefined", "zeros", "boundary", "periodic", "symmetric", "reflect")


@specifies(
    "grid_sample",
    "Linear interpolation of (batch, spatial..., channels) grid at (batch, instance..., ndims) index coordinates: (batch, instance..., channels); batch sizes may be 1. The dtype is the grid's (bool and ints give the default float). ndims must equal the number of spatial axes (ValueError); extrapolation is 'undefined', 'zeros', 'boundary', 'periodic', 'symmetric' or 'reflect' (ValueError otherwise).",
)
def _grid_sample(grid: Tensor, coordinates: Tensor, extrapolation: str) -> ShapeDtype:
    g, c = strong(grid, "grid_sample", "grid"), strong(coordinates, "grid_sample", "coordinates")
    if extrapolation not in _EXTRAPOLATIONS:
        raise ValueError(f"grid_sample: unknown extrapolation {extrapolation!r}; use one of {', '.join(_EXTRAPOLATIONS)}")
    if g.ndim < 2 or c.ndim < 2:
        raise ShapeMismatchError(f"grid_sample: expected (batch, spatial..., channels) and (batch, instance..., ndims), got {g.shape} and {c.shape}")
    if c.shape[-1] is not None and c.shape[-1] != g.ndim - 2:
        raise ValueError(f"grid_sample: coordinates must have {g.ndim - 2} components for a grid of shape {g.shape} but have {c.shape[-1]}")
    batch = broadcast_shapes("grid_sample", g.shape[:1], c.shape[:1])[0]
    dtype = g.dtype if g.dtype.kind in (float, complex) else default_float()
    return ShapeDtype((batch, *c.shape[1:-1], g.shape[-1]), dtype)


# ---------------------------------------------------------------- sparse tensors

_SPARSE: Final = "The template describes the dense equivalent: shape and the values' dtype."


@specifies("sparse_coo_tensor", f"A sparse COO tensor of shape from (nnz, ndims) indices and (nnz,) values. {_SPARSE}")
def _sparse_coo_tensor(indices: Tensor, values: Tensor, shape: Any) -> ShapeDtype:
    strong(indices, "sparse_coo_tensor", "indices")
    return ShapeDtype(as_shape(shape, "sparse_coo_tensor"), strong(values, "sparse_coo_tensor", "values").dtype)


@specifies("sparse_coo_tensor_batched", f"Batched COO tensors from (batch, nnz, ndims) indices and (batch, nnz) values: (batch,) + shape. {_SPARSE}")
def _sparse_coo_tensor_batched(indices: Tensor, values: Tensor, shape: Any) -> ShapeDtype:
    index = strong(indices, "sparse_coo_tensor_batched", "indices")
    return ShapeDtype((index.shape[0] if index.ndim else None, *as_shape(shape, "sparse_coo_tensor_batched")), strong(values, "sparse_coo_tensor_batched", "values").dtype)


def _compressed(op: str, values: Any, shape: Any) -> ShapeDtype:
    return ShapeDtype(as_shape(shape, op), strong(values, op, "values").dtype)


@specifies("csr_matrix", f"A sparse CSR matrix of shape (rows, cols). {_SPARSE}")
def _csr_matrix(column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: Any) -> ShapeDtype:
    return _compressed("csr_matrix", values, shape)


@specifies("csc_matrix", f"A sparse CSC matrix of shape (rows, cols). {_SPARSE}")
def _csc_matrix(column_pointers: Tensor, row_indices: Tensor, values: Tensor, shape: Any) -> ShapeDtype:
    return _compressed("csc_matrix", values, shape)


def _batched_compressed(op: str, values: Any, shape: Any) -> ShapeDtype:
    v = strong(values, op, "values")
    return ShapeDtype((v.shape[0] if v.ndim else None, *as_shape(shape, op), *v.shape[2:]), v.dtype)


@specifies("csr_matrix_batched", f"Batched CSR matrices from (batch, nnz) column indices, (batch, rows + 1) row pointers and (batch, nnz, channels...) values: (batch, rows, cols, channels...). {_SPARSE}")
def _csr_matrix_batched(column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: Any) -> ShapeDtype:
    return _batched_compressed("csr_matrix_batched", values, shape)


@specifies("csc_matrix_batched", f"Batched CSC matrices: (batch, rows, cols, channels...). {_SPARSE}")
def _csc_matrix_batched(column_pointers: Tensor, row_indices: Tensor, values: Tensor, shape: Any) -> ShapeDtype:
    return _batched_compressed("csc_matrix_batched", values, shape)


@specifies(
    "mul_coo_dense",
    f"Batched sparse COO (rows, cols) matrices with (batch, nnz, 2) indices and (batch, nnz, channels) values times (batch, cols, channels, dense_cols) dense matrices: (batch, rows, channels, dense_cols). The batch sizes of indices, values and dense are equal or 1 (broadcast); others raise ShapeMismatchError. {_PRODUCT}",
)
def _mul_coo_dense(indices: Tensor, values: Tensor, shape: Any, dense: Tensor) -> ShapeDtype:
    v, d = strong(values, "mul_coo_dense", "values"), strong(dense, "mul_coo_dense", "dense")
    rows, cols = as_shape(shape, "mul_coo_dense")
    if d.ndim != 4:
        raise ShapeMismatchError(f"mul_coo_dense: dense must be (batch, cols, channels, dense_cols), got shape {d.shape}")
    _same("mul_coo_dense", "cols of the sparse and the dense matrices", cols, d.shape[1])
    batches = [d.shape[0], *v.shape[:1], *getattr(indices, "shape", ())[:1]]  # mul_csr_dense passes no indices
    batch = batch_size("mul_coo_dense", *batches)
    return ShapeDtype((batch, rows, d.shape[2], d.shape[3]), promote("mul_coo_dense", (v, d)))


@specifies("mul_csr_dense", f"Batched CSR matrices times dense matrices, as mul_coo_dense. {_PRODUCT}")
def _mul_csr_dense(column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: Any, dense: Tensor) -> ShapeDtype:
    return _mul_coo_dense(None, values, shape, dense)  # type: ignore[no-any-return]


@specifies("coo_to_dense", "Dense (batch,) + shape + (channels,) of (batch, nnz, ndims) indices and (batch, nnz, channels) values, in the values' dtype.")
def _coo_to_dense(indices: Tensor, values: Tensor, shape: Any, contains_duplicates: bool) -> ShapeDtype:
    v = strong(values, "coo_to_dense", "values")
    if v.ndim != 3:
        raise ShapeMismatchError(f"coo_to_dense: values must be (batch, nnz, channels), got shape {v.shape}")
    return ShapeDtype((v.shape[0], *as_shape(shape, "coo_to_dense"), v.shape[2]), v.dtype)


@specifies("csr_to_coo", "(batch, nnz, 2) COO indices of (batch, nnz) column indices and (batch, rows + 1) row pointers, in the column indices' dtype.")
def _csr_to_coo(column_indices: Tensor, row_pointers: Tensor) -> ShapeDtype:
    c = strong(column_indices, "csr_to_coo", "column_indices", frozenset({int}))
    if c.ndim != 2:
        raise ShapeMismatchError(f"csr_to_coo: column_indices must be (batch, nnz), got shape {c.shape}")
    return ShapeDtype((*c.shape, 2), c.dtype)


@specifies("csr_to_dense", "Dense (batch, rows, cols, channels) of batched CSR matrices with (batch, nnz, channels) values, in the values' dtype.")
def _csr_to_dense(column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: Any, contains_duplicates: bool = False) -> ShapeDtype:
    return _coo_to_dense(None, values, shape, contains_duplicates)  # type: ignore[no-any-return]

