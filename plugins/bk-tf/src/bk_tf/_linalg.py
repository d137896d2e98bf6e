"""Linear algebra, FFT, convolution and grid sampling (a mixin of `TFBackend`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from bk import combine_types, get_precision, normalize_axis, reraise_as
from bk.rules import axes_tuple, compute_dtype, einsum_subscripts, extrapolate_index, matrix_operand

from ._dtypes import float_tf, from_tf_dtype, to_tf_dtype
from ._framework import tf

__all__ = ["LinalgMixin"]

Tensor = Any


def _move_last(x: Any, axis: int) -> tuple[Any, list[int]]:
    """`x` with `axis` moved to the end, and the permutation that undoes it."""
    rank = x.shape.rank
    order = [i for i in range(rank) if i != axis] + [axis]
    inverse = [order.index(i) for i in range(rank)]
    return tf.transpose(x, order), inverse


def _any_dtype_product(product: Callable[..., Any], *tensors: Any) -> Any:
    """`product(*tensors)`; where TensorFlow has no kernel (bool, int8/16, unsigned ints), computed in int64 and cast back.

    Integer products wrap as NumPy's do (modular arithmetic gives the same bits); booleans give
    whether any product term is true, as NumPy's bool matmul.
    """
    try:
        return product(*tensors)
    except tf.errors.OpError:
        dtype = tensors[0].dtype
        if not (dtype.is_integer or dtype == tf.bool):
            raise
    result = product(*[tf.cast(t, tf.int64) for t in tensors])
    return result > 0 if dtype == tf.bool else tf.cast(result, dtype)


def _decomposable(matrix: Any) -> Any:
    """`matrix` in a type TensorFlow's decompositions accept: float16 and bfloat16 as float32."""
    return tf.cast(matrix, tf.float32) if matrix.dtype in (tf.float16, tf.bfloat16) else matrix


def _pinv(matrix: Any) -> Any:
    """The pseudo-inverse, of complex matrices too (`tf.linalg.pinv` takes real ones only), with its cutoff
    `10 * max(m, n) * eps * max(s)`."""
    if not matrix.dtype.is_complex:
        return tf.linalg.pinv(matrix)
    singular, u, v = tf.linalg.svd(matrix, full_matrices=False)
    eps = float(np.finfo(singular.dtype.as_numpy_dtype).eps)
    size = max(matrix.shape[-1], matrix.shape[-2], 1)
    largest = tf.reduce_max(tf.concat([singular, tf.zeros_like(singular[..., :1])], axis=-1), axis=-1, keepdims=True)
    keep = singular > 10 * size * eps * largest
    inverse = tf.where(keep, 1 / tf.where(keep, singular, tf.ones_like(singular)), tf.zeros_like(singular))
    return tf.matmul(v * tf.cast(inverse, matrix.dtype)[..., None, :], u, adjoint_b=True)


def _rank(matrix: Any) -> Any:
    """Ranks (int64) from the singular values with NumPy's tolerance `max(s) * max(m, n) * eps`; complex matrices too."""
    singular = tf.linalg.svd(matrix, compute_uv=False)
    real = singular.dtype
    eps = float(np.finfo(real.as_numpy_dtype).eps)
    size = (
        max(matrix.shape[-1], matrix.shape[-2])
        if None not in matrix.shape[-2:]
        else tf.cast(tf.reduce_max(tf.shape(matrix)[-2:]), real)
    )
    tolerance = tf.reduce_max(singular, axis=-1, keepdims=True) * tf.cast(size, real) * eps
    return tf.reduce_sum(tf.cast(singular > tolerance, tf.int64), axis=-1)


# ---------------------------------------------------------------- the Array API standard's linalg and fft extensions


def _tf_linalg(op: str, problem: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`function(*args, **kwargs)` with TensorFlow's refusal of a singular or indefinite matrix
    (`InvalidArgumentError`) as a `ValueError` naming the bk operation, as NumPy's `LinAlgError`."""
    try:
        return function(*args, **kwargs)
    except tf.errors.InvalidArgumentError as error:
        reraise_as(ValueError, op, error, f"{problem} ({str(error).strip().splitlines()[0][:120]})")


def _finite(op: str, problem: str, result: Any, x: Any) -> Any:
    """`result`, or `ValueError(problem)` when it holds non-finite values that finite `x` does not
    explain (TensorFlow's CPU Cholesky returns NaN for an indefinite matrix); eagerly only, as a
    graph cannot raise on data."""
    if tf.executing_eagerly() and not _all_finite(result) and _all_finite(x):
        raise ValueError(f"{op}: {problem}")
    return result


def _all_finite(x: Any) -> bool:
    parts = (tf.math.real(x), tf.math.imag(x)) if x.dtype.is_complex else (x,)
    return all(bool(tf.reduce_all(tf.math.is_finite(p))) for p in parts)


def _real_tf(dtype: Any) -> Any:
    return dtype.real_dtype if dtype.is_complex else dtype


class StandardLinalgKernels:
    """`tf.linalg` kernels of `bk._catalogue_linalg` (bases of `LinalgMixin`); the FFTs of the
    standard are the core's defaults over `fft`/`ifft` (`tf.signal` transforms only innermost axes)."""

    def _matrix(self, x: Tensor, op: str, square: bool = False, name: str = "x") -> tuple[Any, Any]:
        x, dtype = matrix_operand(self, x, op, square, name)  # type: ignore[arg-type]
        return x, to_tf_dtype(dtype)

    def cholesky(self, x: Tensor, upper: bool = False) -> Tensor:
        """`tf.linalg.cholesky` of the lower triangle (the upper factor is its adjoint)."""
        x, dtype = self._matrix(x, "cholesky", square=True)
        if upper:  # the upper factor of x is the adjoint of the lower one of x's adjoint, reading x's upper triangle
            factor = tf.linalg.adjoint(
                _tf_linalg("cholesky", "the matrix is not positive definite", tf.linalg.cholesky, tf.linalg.adjoint(x))
            )
        else:
            factor = _tf_linalg("cholesky", "the matrix is not positive definite", tf.linalg.cholesky, x)
        return tf.cast(_finite("cholesky", "the matrix is not positive definite", factor, x), dtype)

    def qr(self, x: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "qr")
        q, r = tf.linalg.qr(x, full_matrices=mode == "complete")
        return tf.cast(q, dtype), tf.cast(r, dtype)

    def eigh(self, x: Tensor) -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "eigh", square=True)
        values, vectors = tf.linalg.eigh(x)
        return tf.cast(values, _real_tf(dtype)), tf.cast(vectors, dtype)

    def eigvalsh(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "eigvalsh", square=True)
        return tf.cast(tf.linalg.eigvalsh(x), _real_tf(dtype))

    def svdvals(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "svdvals")
        return tf.cast(tf.linalg.svd(x, compute_uv=False), _real_tf(dtype))

    def inv(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "inv", square=True)
        return tf.cast(_tf_linalg("inv", "the matrix is singular", tf.linalg.inv, x), dtype)

    def solve(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`tf.linalg.solve` with the standard's broadcasting (TensorFlow needs equal batches) and rule
        that only a 1-D `x2` is a vector."""
        x1, dtype1 = self._matrix(x1, "solve", square=True, name="x1")
        x2 = self._t(x2)  # type: ignore[attr-defined]
        result_type = combine_types(
            from_tf_dtype(dtype1), compute_dtype(self, from_tf_dtype(x2.dtype))[1], fp_precision=get_precision()
        )  # type: ignore[arg-type]
        n = x1.shape[-1]
        work = to_tf_dtype(combine_types(from_tf_dtype(x1.dtype), compute_dtype(self, from_tf_dtype(x2.dtype))[0]))  # type: ignore[arg-type]
        a, b = tf.cast(x1, work), tf.cast(x2, work)
        vector = x2.shape.rank == 1
        if vector:
            b = b[:, None]
        batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))  # the spec checks that they broadcast
        a = tf.broadcast_to(a, (*batch, n, n))
        b = tf.broadcast_to(b, (*batch, *b.shape[-2:]))
        result = _tf_linalg("solve", "the matrix is singular", tf.linalg.solve, a, b)
        return tf.cast(result[..., 0] if vector else result, to_tf_dtype(result_type))

    def det(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "det", square=True)
        return tf.cast(tf.linalg.det(x), dtype)

    def slogdet(self, x: Tensor) -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "slogdet", square=True)
        sign, logabsdet = tf.linalg.slogdet(x)
        return tf.cast(sign, dtype), tf.cast(logabsdet, _real_tf(dtype))


class LinalgMixin(StandardLinalgKernels):
    """Dense and sparse linear algebra through `tf.linalg` and `tf.sparse`; FFT, conv, grid_sample."""

    _t: Callable[[Any], Any]
    _floats: Callable[[Any], Any]

    # ------------------------------------------------------------ products

    def tensordot(self, a: Tensor, a_axes: Sequence[int], b: Tensor, b_axes: Sequence[int]) -> Tensor:
        """Multiplies and sums `a_axes` of `a` with `b_axes` of `b` (of one dtype: the plan's common type)."""
        return _any_dtype_product(lambda u, v: tf.tensordot(u, v, (list(axes_tuple(a_axes)), list(axes_tuple(b_axes)))), a, b)

    def einsum(self, equation: str, *tensors: Tensor) -> Tensor:
        """Einstein summation in the common type of `tensors`. TensorFlow takes no implicit output with `...`
        axes: it is written out as NumPy reads it (`bk.rules.einsum_subscripts`), the `...` axes first."""
        tensors = tuple(self.auto_cast(*tensors))  # the plan casts no einsum operands (not in bk.rules.COMMON_OPERANDS)
        if "..." in equation and "->" not in equation:
            output = einsum_subscripts(equation, [t.shape.rank for t in tensors])[1]
            equation += "->..." + "".join(c for c in output if c in equation)
        return _any_dtype_product(lambda *ts: tf.einsum(equation, *ts), *tensors)

    def mul_matrix_batched_vector(self, A: Tensor, b: Tensor) -> Tensor:
        """`(rows, cols)` dense matrix or `tf.SparseTensor` times `(batch, cols)` vectors gives `(batch, rows)`."""
        if isinstance(A, tf.SparseTensor):
            b = self._t(b)
            if b.dtype != A.dtype:
                A = tf.SparseTensor(A.indices, tf.cast(A.values, b.dtype), A.dense_shape)
            return tf.transpose(tf.sparse.sparse_dense_matmul(A, tf.transpose(b)))
        return _any_dtype_product(lambda m, v: tf.matmul(v, m, transpose_b=True), A, b)

    # ------------------------------------------------------------ solving and decompositions

    def matrix_solve_least_squares(self, matrix: Tensor, rhs: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Least-squares solutions of `(batch, vec, constraints)` systems for `(batch, vec, k)` right sides.

        Returns:
            `(solution (batch, constraints, k), residuals (batch, k), rank (batch,), singular_values (batch, min))`,
            computed through the pseudo-inverse, so rank-deficient systems get the minimum-norm solution.
        """
        solution = tf.matmul(_pinv(matrix), rhs)
        difference = rhs - tf.matmul(matrix, solution)
        residuals = tf.reduce_sum(tf.abs(difference) ** 2, axis=-2)
        rank = _rank(_decomposable(matrix))
        singular_values = tf.linalg.svd(matrix, compute_uv=False)
        return solution, residuals, rank, singular_values

    def solve_triangular_dense(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves `(batch, n, n)` triangular systems for `(batch, n)` right-hand sides; the other triangle is ignored
        (no half-precision kernel: `TFBackend.lacking_kernels`)."""
        triangle = tf.linalg.band_part(matrix, -1, 0) if lower else tf.linalg.band_part(matrix, 0, -1)
        if unit_diagonal:
            triangle = tf.linalg.set_diag(triangle, tf.ones(tf.shape(triangle)[:-1], triangle.dtype))
        return tf.linalg.triangular_solve(triangle, rhs[..., None], lower=lower)[..., 0]

    def matrix_rank_dense(self, matrix: Tensor, hermitian: bool = False) -> Tensor:
        """Ranks (int64) of `(batch, rows, cols)` matrices (complex too), with NumPy's default tolerance."""
        return _rank(_decomposable(self._floats(matrix)))

    def eigvals(self, matrix: Tensor) -> Tensor:
        """Eigenvalues of `(batch..., n, n)` matrices, always complex (half precision computed in float32)."""
        return tf.linalg.eigvals(_decomposable(self._floats(matrix)))

    def eig(self, matrix: Tensor) -> tuple[Tensor, Tensor]:
        """Eigenvalues `(batch..., n)` and eigenvectors `(batch..., n, n)` (columns), always complex."""
        values, vectors = tf.linalg.eig(_decomposable(self._floats(matrix)))
        return values, vectors

    def svd(self, matrix: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
        """`(U, S, Vh)` of `(batch..., m, n)` matrices (half precision computed in float32 and cast back)."""
        matrix = self._floats(matrix)
        s, u, v = tf.linalg.svd(_decomposable(matrix), full_matrices=full_matrices)
        u, s, vh = u, s, tf.linalg.adjoint(v)
        if matrix.dtype in (tf.float16, tf.bfloat16):
            return tf.cast(u, matrix.dtype), tf.cast(s, matrix.dtype), tf.cast(vh, matrix.dtype)
        return u, s, vh

    def get_diagonal(self, matrices: Tensor, offset: int = 0) -> Tensor:
        """Diagonals of `(batch, rows, cols, channels)` matrices as `(batch, diagonal, channels)`."""
        matrices = self._t(matrices)
        rows, cols = matrices.shape[1], matrices.shape[2]
        if rows is not None and cols is not None and not -rows < offset < cols:  # no such diagonal: empty, as NumPy
            return tf.zeros([tf.shape(matrices)[0], 0, tf.shape(matrices)[3]], matrices.dtype)
        moved = tf.transpose(matrices, [0, 3, 1, 2])
        return tf.transpose(tf.linalg.diag_part(moved, k=offset), [0, 2, 1])

    # ------------------------------------------------------------ FFT

    def _complex_input(self, x: Any) -> Any:
        x = self._t(x)
        precision = get_precision()
        if x.dtype.is_complex and precision is None:
            return x
        if precision is None:
            precision = 64 if x.dtype == tf.float64 else 32
        return tf.cast(x, tf.complex128 if precision == 64 else tf.complex64)

    def _fft_axes(self, x: Any, axes: Sequence[int], transform: Callable[[Any], Any], op: str) -> Any:
        rank = x.shape.rank
        for axis in [normalize_axis(a, rank, op) for a in axes]:
            moved, inverse = _move_last(x, axis)
            x = tf.transpose(transform(moved), inverse)
        return x

    def fft(self, x: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional FFT over `axes`, as complex values of the input's precision."""
        return self._fft_axes(self._complex_input(x), axes, tf.signal.fft, "fft")

    def ifft(self, k: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional inverse FFT over `axes`, as complex values of the input's precision."""
        return self._fft_axes(self._complex_input(k), axes, tf.signal.ifft, "ifft")

    # ------------------------------------------------------------ convolution and sampling

    def conv(self, value: Tensor, kernel: Tensor, zero_padding: bool = True) -> Tensor:
        """Cross-correlation of `(batch, in, spatial...)` with `(batch or 1, out, in, kernel...)` kernels (1 to 3 spatial dims).

        Computed with `tf.nn.convolution` in channels-last layout; 'same' output is aligned as
        `scipy.signal.correlate(mode='same')`. Integers (and bools) are computed in float64 and cast back;
        complex values as four real convolutions. A batch of kernels convolves entry by entry.
        The spec checks that the shapes fit together.

        Raises:
            ValueError: for other than 1 to 3 spatial dimensions (TensorFlow's convolutions).
        """
        spatial = value.shape.rank - 2
        if not 1 <= spatial <= 3:
            raise ValueError(f"TensorFlow convolves 1 to 3 spatial dimensions, not {spatial}")
        sizes, kernel_sizes = list(value.shape[2:]), list(kernel.shape[3:])
        if value.shape[0] == 0 or value.shape[1] == 0:  # TensorFlow's convolution gets the shape of an empty batch wrong
            out = sizes if zero_padding else [n - k + 1 for n, k in zip(sizes, kernel_sizes, strict=True)]
            return tf.zeros([value.shape[0], kernel.shape[1], *out], value.dtype)
        if zero_padding:
            sizes = kernel.shape[3:]
            value = tf.pad(value, [[0, 0], [0, 0], *[[k // 2, (k - 1) // 2] for k in sizes]])
        if value.dtype.is_complex:
            vr, vi, kr, ki = tf.math.real(value), tf.math.imag(value), tf.math.real(kernel), tf.math.imag(kernel)
            real = _conv_real(vr, kr) - _conv_real(vi, ki)
            imag = _conv_real(vr, ki) + _conv_real(vi, kr)
            return tf.complex(real, imag)
        if not value.dtype.is_floating:  # integers and bools, in float64 (bools: the plan casts the counts to the spec's int)
            result = tf.round(_conv_real(tf.cast(value, tf.float64), tf.cast(kernel, tf.float64)))
            return result if value.dtype == tf.bool else tf.cast(result, value.dtype)
        return _conv_real(value, kernel)

    def grid_sample(self, grid: Tensor, coordinates: Tensor, extrapolation: str) -> Tensor:
        """Linear interpolation of `(batch, spatial..., channels)` at `(batch, instance..., ndims)` index coordinates.

        Outside the grid, 'zeros' gives zeros, 'boundary' (and 'undefined') the edge values, and
        'periodic', 'symmetric' and 'reflect' the values of the grid padded in that mode (the spec refuses
        another extrapolation).
        """
        grid, coordinates = self._t(grid), self._t(coordinates)
        if not (grid.dtype.is_floating or grid.dtype.is_complex):
            grid = tf.cast(grid, float_tf(get_precision()))
        spatial = grid.shape[1:-1]
        real = grid.dtype.real_dtype if grid.dtype.is_complex else grid.dtype
        coordinates = tf.cast(coordinates, real)
        batch = max(grid.shape[0], coordinates.shape[0])
        coordinates = tf.broadcast_to(coordinates, tf.concat([[batch], tf.shape(coordinates)[1:]], 0))
        lower = tf.floor(coordinates)
        fraction = coordinates - lower
        lower = tf.cast(lower, tf.int32)
        result = 0
        for corner in itertools.product((0, 1), repeat=len(spatial)):
            weight = 1
            indices = []
            for d, (offset, size) in enumerate(zip(corner, spatial, strict=True)):
                index, inside = extrapolate_index(self, lower[..., d] + offset, size, extrapolation)
                weight = weight * (fraction[..., d] if offset else 1 - fraction[..., d])
                if extrapolation == "zeros":
                    weight = weight * tf.cast(inside, real)
                indices.append(index)
            stacked = tf.stack(indices, axis=-1)
            values = tf.gather_nd(grid[0], stacked) if grid.shape[0] == 1 else tf.gather_nd(grid, stacked, batch_dims=1)
            result = result + tf.cast(weight, grid.dtype)[..., None] * values
        return result


def _conv_real(value: Any, kernel: Any) -> Any:
    """'valid' cross-correlation of real `(batch, in, spatial...)` with `(batch or 1, out, in, kernel...)`."""
    spatial = value.shape.rank - 2
    to_last = [0, *range(2, 2 + spatial), 1]
    from_last = [0, spatial + 1, *range(1, spatial + 1)]
    kernel_layout = [*range(3, 3 + spatial), 2, 1]  # (kernel..., in, out)
    if kernel.shape[0] == 1:
        output = tf.nn.convolution(
            tf.transpose(value, to_last), tf.transpose(kernel[0], [k - 1 for k in kernel_layout]), padding="VALID"
        )
        return tf.transpose(output, from_last)
    results = []
    for b in range(value.shape[0]):
        output = tf.nn.convolution(
            tf.transpose(value[b : b + 1], to_last), tf.transpose(kernel[b], [k - 1 for k in kernel_layout]), padding="VALID"
        )
        results.append(tf.transpose(output, from_last)[0])
    return tf.stack(results)
