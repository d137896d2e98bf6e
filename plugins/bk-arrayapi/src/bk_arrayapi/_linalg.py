"""Linear algebra and FFT (a mixin of `ArrayAPIBackend`).

Operations of the `linalg` and `fft` extensions declare the extension functions they call, so a
namespace without the extension (or without `linalg.eig`, new in the 2025.12 revision) does not
claim them. `einsum` is built from `permute_dims`, broadcasting multiplication and `sum`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from bk import DType, combine_types, get_precision, normalize_axis, reraise_as
from bk.rules import axes_tuple, compute_dtype, einsum_subscripts, matrix_operand, real_dtype, result_of

from ._needs import needs

__all__ = ["LinalgMixin"]

Tensor = Any


# ---------------------------------------------------------------- the Array API standard's linalg and fft extensions


def _linalg_call(op: str, problem: str, function: Any, *args: Any, **kwargs: Any) -> Any:
    """`function(*args, **kwargs)`, with a library's refusal of a singular or indefinite matrix
    (NumPy's and array-api-strict's `LinAlgError`, torch's `_LinAlgError`) as `ValueError` naming `op`."""
    try:
        return function(*args, **kwargs)
    except Exception as error:
        if "LinAlgError" in type(error).__name__:
            reraise_as(ValueError, op, error, f"{problem} ({str(error).strip()[:120]})")
        raise


class StandardLinalgKernels:
    """The namespace's own `linalg` functions for the standard's decompositions and solvers (bases of
    `LinalgMixin`); each declares what it needs, so a namespace without the extension keeps the
    core's defaults, or does not claim the operation."""

    xp: Any

    def _matrix(self, x: Tensor, op: str, square: bool = False, name: str = "x") -> tuple[Tensor, DType]:
        return matrix_operand(self, x, op, square, name)  # type: ignore[arg-type]

    @needs("linalg.cholesky")
    def cholesky(self, x: Tensor, upper: bool = False) -> Tensor:
        x, dtype = self._matrix(x, "cholesky", square=True)
        return result_of(self, _linalg_call("cholesky", "the matrix is not positive definite", self.xp.linalg.cholesky, x, upper=upper), dtype)  # type: ignore[arg-type]

    @needs("linalg.qr")
    def qr(self, x: Tensor, mode: str = "reduced") -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "qr")
        q, r = self.xp.linalg.qr(x, mode=mode)
        return result_of(self, q, dtype), result_of(self, r, dtype)  # type: ignore[arg-type]

    @needs("linalg.eigh")
    def eigh(self, x: Tensor) -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "eigh", square=True)
        values, vectors = self.xp.linalg.eigh(x)
        return result_of(self, values, real_dtype(dtype)), result_of(self, vectors, dtype)  # type: ignore[arg-type]

    @needs("linalg.eigvalsh")
    def eigvalsh(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "eigvalsh", square=True)
        return result_of(self, self.xp.linalg.eigvalsh(x), real_dtype(dtype))  # type: ignore[arg-type]

    @needs("linalg.svdvals")
    def svdvals(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "svdvals")
        return result_of(self, self.xp.linalg.svdvals(x), real_dtype(dtype))  # type: ignore[arg-type]

    @needs("linalg.inv")
    def inv(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "inv", square=True)
        return result_of(self, _linalg_call("inv", "the matrix is singular", self.xp.linalg.inv, x), dtype)  # type: ignore[arg-type]

    @needs("linalg.solve", "broadcast_to")
    def solve(self, x1: Tensor, x2: Tensor) -> Tensor:
        """`linalg.solve` with the standard's rule (only a 1-D `x2` is a vector) and batches broadcast explicitly."""
        x1, dtype1 = self._matrix(x1, "solve", square=True, name="x1")
        x2 = self._native(x2, "solve")  # type: ignore[attr-defined]
        compute2, result2 = compute_dtype(self, self._dt(x2))  # type: ignore[arg-type, attr-defined]
        result_type = combine_types(dtype1, result2, fp_precision=get_precision())
        work = combine_types(self._dt(x1), compute2)  # type: ignore[attr-defined]
        n = x1.shape[-1]
        a, b = self._astype(x1, work), self._astype(x2, work)  # type: ignore[attr-defined]
        vector = len(x2.shape) == 1
        if vector:
            b = b[:, None]
        batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        xp = self.xp
        result = _linalg_call("solve", "the matrix is singular", xp.linalg.solve, xp.broadcast_to(a, (*batch, n, n)), xp.broadcast_to(b, (*batch, *b.shape[-2:])))
        return result_of(self, result[..., 0] if vector else result, result_type)  # type: ignore[arg-type]

    @needs("linalg.det")
    def det(self, x: Tensor) -> Tensor:
        x, dtype = self._matrix(x, "det", square=True)
        return result_of(self, self.xp.linalg.det(x), dtype)  # type: ignore[arg-type]

    @needs("linalg.slogdet")
    def slogdet(self, x: Tensor) -> tuple[Tensor, Tensor]:
        x, dtype = self._matrix(x, "slogdet", square=True)
        sign, logabsdet = self.xp.linalg.slogdet(x)
        return result_of(self, sign, dtype), result_of(self, logabsdet, real_dtype(dtype))  # type: ignore[arg-type]


class LinalgMixin(StandardLinalgKernels):
    """Matrix products, solves, decompositions and FFTs through the standard's functions."""

    xp: Any

    # ------------------------------------------------------------ products

    @needs("tensordot")
    def tensordot(self, a: Tensor, a_axes: Sequence[int], b: Tensor, b_axes: Sequence[int]) -> Tensor:
        """Multiplies and sums `a_axes` of `a` with `b_axes` of `b`, in the common dtype."""
        a_axes = [normalize_axis(i, len(a.shape), "tensordot") for i in axes_tuple(a_axes)]
        b_axes = [normalize_axis(i, len(b.shape), "tensordot") for i in axes_tuple(b_axes)]
        return self.xp.tensordot(a, b, axes=(a_axes, b_axes))

    @needs("permute_dims", "sum", "eye", "any")
    def einsum(self, equation: str, *tensors: Tensor) -> Tensor:
        """Einstein summation (`...` and NumPy's implicit output too, written out by
        `bk.rules.einsum_subscripts`), by broadcasting products."""
        xp = self.xp
        # their common dtype (the core's plan casts no operands of einsum: not one of bk.rules.COMMON_OPERANDS)
        operands = self.auto_cast(*(self._native(t, "einsum") for t in tensors))  # type: ignore[attr-defined]
        terms, output = einsum_subscripts(equation, [len(x.shape) for x in operands])
        named: dict[str, None] = {}  # the labels in order of appearance (the spec checked their sizes)
        for i, (term, x) in enumerate(zip(terms, operands, strict=True)):
            term, x = self._diagonals(term, x)
            terms[i], operands[i] = term, x
            named.update(dict.fromkeys(term))
        labels = list(output) + [c for c in named if c not in output]
        product = None
        for term, x in zip(terms, operands, strict=True):
            order = [term.index(c) for c in labels if c in term]
            x = xp.permute_dims(x, tuple(order)) if order != list(range(len(order))) else x
            x = xp.reshape(x, tuple(x.shape[order.index(term.index(c))] if c in term else 1 for c in labels))
            product = x if product is None else (product & x if self._dt(x).kind is bool else product * x)  # type: ignore[attr-defined]
        summed = tuple(range(len(output), len(labels)))
        if not summed:
            return product
        dtype = self._dt(product)  # type: ignore[attr-defined]
        if dtype.kind is bool:  # NumPy: a logical or of the products
            return xp.any(product, axis=summed)
        return xp.sum(product, axis=summed, dtype=product.dtype)  # integers keep their dtype, as NumPy's einsum

    def _diagonals(self, term: str, x: Tensor) -> tuple[str, Tensor]:
        """A term without repeated labels: `ii` becomes the diagonal (masked by `eye`, summed)."""
        xp = self.xp
        while len(set(term)) < len(term):
            label = next(c for c in term if term.count(c) > 1)
            i = term.index(label)
            j = term.index(label, i + 1)
            n = x.shape[i]
            eye = xp.eye(n, dtype=x.dtype, device=self._ref(x))  # type: ignore[attr-defined]
            shape = [1] * len(x.shape)
            shape[i] = shape[j] = n
            if self._dt(x).kind is bool:  # type: ignore[attr-defined]
                x = xp.any(x & xp.reshape(eye, tuple(shape)), axis=j)
            else:
                x = xp.sum(x * xp.reshape(eye, tuple(shape)), axis=j, dtype=x.dtype)
            term = term[:j] + term[j + 1 :]
        return term, x

    @needs("matmul", "matrix_transpose")
    def mul_matrix_batched_vector(self, A: Tensor, b: Tensor) -> Tensor:
        """`(rows, cols)` matrix times `(batch, cols)` vectors gives `(batch, rows)`."""
        return self.xp.matmul(b, self.xp.matrix_transpose(A))

    # ------------------------------------------------------------ solves and decompositions

    @needs("linalg.pinv", "linalg.svdvals", "linalg.matrix_rank", "matmul")
    def matrix_solve_least_squares(self, matrix: Tensor, rhs: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """Least-squares solutions through the pseudo-inverse, with the residuals `|rhs - A x|^2` of every system,
        the ranks and the singular values."""
        # the standard's pinv takes floats: the plan casts mixed operands, but leaves two of one integer dtype (its
        # cast to a float result reads one result, and this one is a tuple)
        matrix = self._floats(matrix, "matrix_solve_least_squares")  # type: ignore[attr-defined]
        rhs = self._floats(rhs, "matrix_solve_least_squares")  # type: ignore[attr-defined]
        xp = self.xp
        if 0 in tuple(matrix.shape[-2:]):  # the minimum-norm solution of an empty system is 0
            batch = max(matrix.shape[0], rhs.shape[0]) if 0 not in (matrix.shape[0], rhs.shape[0]) else 0
            solution = xp.zeros((batch, matrix.shape[-1], rhs.shape[-1]), dtype=matrix.dtype, device=self._ref(matrix))  # type: ignore[attr-defined]
            singular = xp.zeros((matrix.shape[0], 0), dtype=xp.real(matrix[..., :0, :0]).dtype, device=self._ref(matrix))  # type: ignore[attr-defined]
        else:
            solution = xp.matmul(xp.linalg.pinv(matrix), rhs)
            singular = xp.linalg.svdvals(matrix)
        residuals = xp.sum(xp.abs(rhs - xp.matmul(matrix, solution)) ** 2, axis=-2)
        return solution, residuals, self.matrix_rank_dense(matrix), singular

    @needs("linalg.solve", "tril", "triu", "eye", "where")
    def solve_triangular_dense(self, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
        """Solves `(batch, n, n)` triangular systems for `(batch, n)` right-hand sides (the other triangle is ignored)."""
        xp = self.xp
        matrix = xp.tril(matrix) if lower else xp.triu(matrix)
        if unit_diagonal:
            eye = xp.eye(matrix.shape[-1], dtype=xp.bool, device=self._ref(matrix))  # type: ignore[attr-defined]
            matrix = xp.where(eye, xp.ones_like(matrix), matrix)
        return xp.linalg.solve(matrix, rhs[..., None])[..., 0]

    @needs("linalg.matrix_rank")
    def matrix_rank_dense(self, matrix: Tensor, hermitian: bool = False) -> Tensor:
        """Ranks (int64) of `(batch, rows, cols)` matrices (0 for empty ones)."""
        floats = self._floats(matrix, "matrix_rank_dense")  # type: ignore[attr-defined]
        if 0 in tuple(floats.shape[-2:]):  # no singular values: rank 0 (the namespace's max of none raises)
            return self.xp.zeros(tuple(floats.shape[:-2]), dtype=self._native_dtype(DType(int, 64)), device=self._ref(floats))  # type: ignore[attr-defined]
        return self._astype(self.xp.linalg.matrix_rank(self._floats(matrix, "matrix_rank_dense")), DType(int, 64))  # type: ignore[attr-defined]

    @needs("linalg.eigvals")
    def eigvals(self, matrix: Tensor) -> Tensor:
        """Eigenvalues (complex) of `(batch..., n, n)` matrices."""
        floats, _ = self._single_at_least(self._floats(matrix, "eigvals"))
        return self.xp.linalg.eigvals(floats)  # type: ignore[attr-defined]

    @needs("linalg.eig")
    def eig(self, matrix: Tensor) -> tuple[Tensor, Tensor]:
        """Eigenvalues `(batch..., n)` and eigenvectors `(batch..., n, n)` (columns), complex."""
        floats, _ = self._single_at_least(self._floats(matrix, "eig"))
        values, vectors = self.xp.linalg.eig(floats)  # type: ignore[attr-defined]
        return values, vectors

    @needs("linalg.svd")
    def svd(self, matrix: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
        """`(U, S, Vh)` of `(batch..., m, n)` matrices."""
        floats, half = self._single_at_least(self._floats(matrix, "svd"))
        u, s, vh = self.xp.linalg.svd(floats, full_matrices=full_matrices)  # type: ignore[attr-defined]
        if half is not None:  # computed in float32, returned in the input's half precision (the spec's dtype)
            return self._astype(u, half), self._astype(s, half), self._astype(vh, half)  # type: ignore[attr-defined]
        return u, s, vh

    def _single_at_least(self, x: Tensor) -> tuple[Tensor, DType | None]:
        """`x` in float32 when it is float16 or bfloat16 (namespaces have no half-precision linalg, as
        NumPy), with the half dtype to return results in; other dtypes unchanged, with None."""
        dtype = self.dtype(x)  # type: ignore[attr-defined]
        if dtype.kind is float and dtype.bits == 16:
            return self._astype(x, DType(float, 32)), dtype  # type: ignore[attr-defined]
        return x, None

    # ------------------------------------------------------------ convolution

    @needs("matmul", "full", "concat", "take")
    def conv(self, value: Tensor, kernel: Tensor, zero_padding: bool = True) -> Tensor:
        """Cross-correlation of `(batch, in, spatial...)` with `(batch or 1, out, in, kernel...)` kernels,
        'same' with zero padding (centred as `scipy.signal.correlate`) or 'valid', as a sum of one
        matrix product per kernel offset."""
        xp = self.xp
        sizes = tuple(kernel.shape[3:])
        if zero_padding:
            widths = [(0, 0), (0, 0), *((k // 2, (k - 1) // 2) for k in sizes)]
            value = self.pad(value, widths, "constant", 0)  # type: ignore[attr-defined]
        out = tuple(n - k + 1 for n, k in zip(value.shape[2:], sizes, strict=True))
        batch, channels = value.shape[0], value.shape[1]
        result = None
        for offset in itertools.product(*(range(k) for k in sizes)):
            window = value[(slice(None), slice(None), *(slice(o, o + n) for o, n in zip(offset, out, strict=True)))]
            weights = kernel[(slice(None), slice(None), slice(None), *offset)]  # (batch or 1, out, in)
            term = xp.matmul(weights, xp.reshape(window, (batch, channels, math.prod(out))))
            result = term if result is None else result + term
        return xp.reshape(result, (result.shape[0], kernel.shape[1], *out))

    # ------------------------------------------------------------ FFT

    def _complex(self, x: Tensor, op: str) -> Tensor:
        x = self._native(x, op)  # type: ignore[attr-defined]
        dtype = self._dt(x)  # type: ignore[attr-defined]
        if dtype.kind is complex:
            return x
        target = self.complex_type if dtype.kind is not float else DType(complex, 2 * max(dtype.bits or 32, 32))  # type: ignore[attr-defined]
        return self._astype(x, target)  # type: ignore[attr-defined]

    @needs("fft.fftn")
    def fft(self, x: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional FFT over `axes`, as complex values (floats become the complex type of their precision)."""
        x = self._complex(x, "fft")
        axes = tuple(normalize_axis(a, len(x.shape), "fft") for a in axes)
        return self.xp.fft.fftn(x, axes=axes) if axes else x

    @needs("fft.ifftn")
    def ifft(self, k: Tensor, axes: Sequence[int]) -> Tensor:
        """n-dimensional inverse FFT over `axes`."""
        k = self._complex(k, "ifft")
        axes = tuple(normalize_axis(a, len(k.shape), "ifft") for a in axes)
        return self.xp.fft.ifftn(k, axes=axes) if axes else k
