"""The operation catalogue of `Backend`, continued: the signatures of the algorithms' operations (linear
algebra, solves and minimisation, FFT, convolution and sampling, sparse tensors, autodiff, compilation and
control flow), each with its docstring, under the catalogue's topic banners.

As `_catalogue_core.py` (the required set and the operations on data), whose topics these continue: each
public function is an `@optional` operation, collected by the registry (`bk._operations`) and a method of
`Backend`. Their generic defaults are in `_defaults_algorithms.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ._features import optional

if TYPE_CHECKING:
    from ._backend import Backend

__all__: list[str] = []  # the operations are collected by the registry (bk._operations)

Tensor = Any


# ------------------------------------------------------------ linear algebra


@optional
def tensordot(self: Backend, a: Tensor, a_axes: Sequence[int], b: Tensor, b_axes: Sequence[int]) -> Tensor:
    """Multiplies and sums `a_axes` of `a` with `b_axes` of `b`."""
    raise NotImplementedError(f"{self.name} does not implement tensordot")


@optional
def einsum(self: Backend, equation: str, *tensors: Tensor) -> Tensor:
    """Einstein summation."""
    raise NotImplementedError(f"{self.name} does not implement einsum")


@optional
def mul_matrix_batched_vector(self: Backend, A: Tensor, b: Tensor) -> Tensor:
    """`(rows, cols)` matrix (dense or sparse) times `(batch, cols)` vectors gives `(batch, rows)`."""
    raise NotImplementedError(f"{self.name} does not implement mul_matrix_batched_vector")


@optional
def matrix_solve_least_squares(self: Backend, matrix: Tensor, rhs: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Least-squares solutions of `(batch, vec, constraints)` systems with `(batch, vec, k)` right sides.

    Returns:
        `(solution, residuals, rank, singular_values)`; the last three may be `None`.
    """
    raise NotImplementedError(f"{self.name} does not implement matrix_solve_least_squares")


@optional
def solve_triangular_dense(self: Backend, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
    """Solves `(batch, n, n)` triangular systems for `(batch, n)` right-hand sides."""
    raise NotImplementedError(f"{self.name} does not implement solve_triangular_dense")


@optional
def solve_triangular_sparse(self: Backend, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
    """Solves a sparse triangular `(n, n)` system for `(batch, n)` right-hand sides."""
    raise NotImplementedError(f"sparse triangular solves are not supported by {self.name}; use a SciPy solver such as 'scipy-CG'")


@optional
def matrix_rank_dense(self: Backend, matrix: Tensor, hermitian: bool = False) -> Tensor:
    """Ranks of `(batch, rows, cols)` matrices."""
    raise NotImplementedError(f"{self.name} does not implement matrix_rank_dense")


@optional
def eigvals(self: Backend, matrix: Tensor) -> Tensor:
    """Eigenvalues of `(batch..., n, n)` matrices."""
    raise NotImplementedError(f"{self.name} does not implement eigvals")


@optional
def eig(self: Backend, matrix: Tensor) -> tuple[Tensor, Tensor]:
    """Eigenvalues `(batch..., n)` and eigenvectors `(batch..., n, n)` (columns)."""
    raise NotImplementedError(f"{self.name} does not implement eig")


@optional
def svd(self: Backend, matrix: Tensor, full_matrices: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    """`(U, S, Vh)` of `(batch..., m, n)` matrices."""
    raise NotImplementedError(f"{self.name} does not implement svd")


# ------------------------------------------------------------ generic algorithms: solves and minimisation

# generic defaults only: see `bk._defaults_algorithms`

# ------------------------------------------------------------ FFT, convolution, sampling


@optional
def fft(self: Backend, x: Tensor, axes: Sequence[int]) -> Tensor:
    """n-dimensional FFT over `axes`, as complex values."""
    raise NotImplementedError(f"{self.name} does not implement fft")


@optional
def ifft(self: Backend, k: Tensor, axes: Sequence[int]) -> Tensor:
    """n-dimensional inverse FFT over `axes`."""
    raise NotImplementedError(f"{self.name} does not implement ifft")


@optional
def conv(self: Backend, value: Tensor, kernel: Tensor, zero_padding: bool = True) -> Tensor:
    """Cross-correlation of `(batch, in, spatial...)` with `(batch or 1, out, in, kernel...)` kernels.

    Args:
        zero_padding: If True, pad with zeros so that the output has the spatial shape of `value`
            ('same'); else only full overlaps ('valid').
    """
    raise NotImplementedError(f"{self.name} does not implement conv")


@optional
def grid_sample(self: Backend, grid: Tensor, coordinates: Tensor, extrapolation: str) -> Tensor:
    """Linear interpolation of `(batch, spatial..., channels)` at `(batch, instance..., ndims)` index
    coordinates; `extrapolation` is 'undefined', 'zeros', 'boundary', 'periodic', 'symmetric' or
    'reflect'. Returns `NotImplemented` for an extrapolation this backend does not support."""
    return NotImplemented


# ------------------------------------------------------------ sparse


@optional
def sparse_coo_tensor(self: Backend, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    """A sparse COO tensor from `(nnz, ndims)` indices and `(nnz,)` values."""
    raise NotImplementedError(f"{self.name} does not implement sparse tensors")


@optional
def sparse_coo_tensor_batched(self: Backend, indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Batched COO tensors from `(batch, nnz, ndims)` indices and `(batch, nnz)` values."""
    raise NotImplementedError(f"{self.name} does not implement batched sparse tensors")


@optional
def csr_matrix(self: Backend, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
    """A sparse CSR matrix."""
    raise NotImplementedError(f"{self.name} does not implement CSR matrices")


@optional
def csr_matrix_batched(
    self: Backend, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int]
) -> Tensor:
    """Batched CSR matrices from `(batch, nnz)`, `(batch, rows + 1)` and `(batch, nnz, channels)`."""
    raise NotImplementedError(f"{self.name} does not implement batched CSR matrices")


@optional
def csc_matrix(self: Backend, column_pointers: Tensor, row_indices: Tensor, values: Tensor, shape: tuple[int, int]) -> Tensor:
    """A sparse CSC matrix."""
    raise NotImplementedError(f"{self.name} does not implement CSC matrices")


@optional
def csc_matrix_batched(
    self: Backend, column_pointers: Tensor, row_indices: Tensor, values: Tensor, shape: tuple[int, int]
) -> Tensor:
    """Batched CSC matrices."""
    raise NotImplementedError(f"{self.name} does not implement batched CSC matrices")


# ------------------------------------------------------------ autodiff, compilation, control flow


@optional
def stop_gradient(self: Backend, value: Tensor) -> Tensor:
    """`value`, cut from automatic differentiation."""
    raise NotImplementedError(f"{self.name} does not implement stop_gradient")


@optional
def jit_compile(self: Backend, f: Callable[..., Any]) -> Callable[..., Any]:
    """A compiled version of `f` that gives the same results; traced once per input signature."""
    raise NotImplementedError(f"{self.name} cannot compile functions")


@optional
def jacobian(self: Backend, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, is_f_scalar: bool) -> Callable[..., Any]:
    """The gradient function of `f`, which returns `(loss, *outputs)`.

    Args:
        f: Function whose first output is the loss to differentiate.
        wrt: Indices of the arguments to differentiate by.
        get_output: Whether the result also returns the outputs of `f` (before the gradients).
        is_f_scalar: Whether the loss is a scalar.

    Returns:
        `g(*args)` returning the gradients, or `(*outputs, *gradients)` if `get_output`.
    """
    raise NotImplementedError(f"{self.name} cannot compute gradients")


@optional
def hessian(self: Backend, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, get_gradient: bool) -> Callable[..., Any]:
    """A function returning `(f(x), g(x), H(x))` (or fewer, as asked) for a batched scalar loss.

    The first dimension of inputs and outputs is a batch dimension; Hessians are computed per batch entry.

    Args:
        f: The function; its first output is the loss, of shape `(batch,)`.
        wrt: The positions of the arguments to differentiate by, each of shape `(batch, ...)`.
        get_output: Whether the result starts with the loss.
        get_gradient: Whether the gradients come next.

    Returns:
        A function of `f`'s arguments that returns a tuple: the loss `f(x)` (shape `(batch,)`) if
        `get_output`; then, if `get_gradient`, a tuple `g` with one gradient per `wrt` argument, `g[i]` of
        the shape of argument `wrt[i]`; then always the Hessian `H`, a tuple of tuples of blocks:
        `H[i][j]` holds the second derivatives by arguments `wrt[i]` and `wrt[j]`, of shape
        `(batch, *x_i.shape[1:], *x_j.shape[1:])` (for one `(batch, n)` argument, `H[0][0]` is
        `(batch, n, n)`).
    """
    raise NotImplementedError(f"{self.name} cannot compute Hessians")


@optional
def custom_gradient(
    self: Backend,
    f: Callable[..., Any],
    gradient: Callable[..., Any],
    get_external_cache: Callable[..., Any] | None = None,
    on_call_skipped: Callable[..., Any] | None = None,
) -> Callable[..., Any]:
    """`f` with a custom backward pass `gradient(args, output, d_output) -> d_args`.

    Returns:
        The new function, or `NotImplemented` if this backend cannot define custom gradients.
    """
    return NotImplemented  # type: ignore[no-any-return]
