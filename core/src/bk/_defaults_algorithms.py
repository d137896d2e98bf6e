"""The generic defaults of the reference catalogue's algorithms: linear operators, iterative solves
and minimisation, sparse tensors, autodiff and control flow.

Every public function is an operation of the catalogue, a method of `Backend` (`bk._operations`), as in `_defaults.py` (whose defaults these use): a feature marked
`@generic(*uses, native=...)` (see `_features.py`), supported when what it lists is. The solvers
themselves are in `_linalg.py` and `_minimize.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from ._defaults import _map_tree
from ._features import generic
from ._solve import Preconditioner, SolveResult

if TYPE_CHECKING:
    from ._backend import Backend

__all__: list[str] = []  # the operations are collected by the registry (bk._operations)

Tensor = Any

_INDEXING: Final = ("__getitem__",)
_SOLVER_OPS: Final = (
    "linear",
    "while_loop",
    "stack_leaves",
    "sum",
    "where",
    "divide_no_nan",
    "isfinite",
    "maximum",
    "zeros",
    "ones",
)
# the native operators the iterative solvers of `_linalg.py` apply to tensors
_SOLVER_NATIVE: Final = (
    "__add__",
    "__sub__",
    "__mul__",
    "__rmul__",
    "__matmul__",
    "__getitem__",
    "__invert__",
    "__and__",
    "__lt__",
    "__le__",
)


# ------------------------------------------------------------ linear algebra


@generic("is_sparse", "solve_triangular_dense")
def solve_triangular(self: Backend, matrix: Tensor, rhs: Tensor, lower: bool, unit_diagonal: bool) -> Tensor:
    """Triangular solve, sparse or dense by the format of `matrix`."""
    if self.is_sparse(matrix):
        return self.solve_triangular_sparse(matrix, rhs, lower, unit_diagonal)
    return self.solve_triangular_dense(matrix, rhs, lower, unit_diagonal)


@generic("mul_matrix_batched_vector", "stack", "unstack", native=_INDEXING)
def linear(self: Backend, lin: Any, vector: Tensor) -> Tensor:
    """Applies a linear operator to `(batch, n)` vectors.

    Args:
        lin: A dense or sparse matrix, a list of matrices (one per batch entry), or a function.
        vector: `(batch, n)` tensor.
    """
    if callable(lin):
        return lin(vector)
    if isinstance(lin, (tuple, list)):
        return self.stack([self.mul_matrix_batched_vector(m, v[None])[0] for m, v in zip(lin, self.unstack(vector), strict=True)])
    if len(self.staticshape(lin)) != 2:
        raise ValueError(f"the linear operator must be a matrix but has shape {self.staticshape(lin)}")
    return self.mul_matrix_batched_vector(lin, vector)


# ------------------------------------------------------------ generic algorithms: solves and minimisation


@generic(*_SOLVER_OPS, native=_SOLVER_NATIVE)
def linear_solve(
    self: Backend,
    method: str,
    lin: Any,
    y: Tensor,
    x0: Tensor | None = None,
    rtol: Any = 1e-5,
    atol: Any = 0.0,
    max_iter: Any = None,
    pre: Preconditioner | None = None,
    matrix_offset: Any = None,
) -> SolveResult:
    """Solves the batched linear systems `A x = y`.

    The arguments keep the reference's order and names; all after `y` have defaults and may be
    given by keyword: `b.linear_solve("CG", A, y, rtol=1e-8)`.

    Args:
        method: 'auto' (adaptive CG), 'CG', 'CG-adaptive', 'biCG-stab' (= 'biCG-stab(1)'),
            'biCG-stab(n)', 'scipy-direct', 'scipy-CG', 'scipy-GMres', 'scipy-biCG',
            'scipy-biCG-stab', 'scipy-CGS', 'scipy-QMR' or 'scipy-GCrotMK'.
        lin: A dense or sparse `(n, n)` matrix, a list of matrices (one per batch entry), or a
            linear function of `(batch, n)` tensors.
        y: Right-hand sides, `(batch, n)`.
        x0: Initial guesses, `(batch, n)`; `None` (the default) starts from zeros.
        rtol: Relative tolerance on the residual norm, scalar or `(batch,)`; default 1e-5.
        atol: Absolute tolerance on the residual norm, scalar or `(batch,)`; default 0.
        max_iter: Iteration limit: an int, `(batch,)`, or `(checkpoints, batch)` to record the
            state at each checkpoint (a trajectory: every result gets an outer checkpoint axis).
            `None` (the default) allows `10 * n` iterations, as SciPy does.
        pre: Preconditioner or `None` (the default).
        matrix_offset: A constant added to every matrix entry, or `None` (the default).

    Raises:
        ValueError: for an unknown method or badly shaped arguments.
    """
    if x0 is None:
        x0 = self.zeros(tuple(int(s or 0) for s in self.staticshape(y)), self.dtype(y))
    if max_iter is None:
        max_iter = 10 * int(self.staticshape(y)[-1] or 1)
    if method in ("auto", "CG-adaptive"):
        return self.conjugate_gradient_adaptive(lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)
    if method == "CG":
        return self.conjugate_gradient(lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)
    if method == "biCG-stab":
        return self.bi_conjugate_gradient(lin, y, x0, rtol, atol, max_iter, pre, matrix_offset, poly_order=1)
    if method.startswith("biCG-stab(") and method.endswith(")") and method[10:-1].isdigit():
        return self.bi_conjugate_gradient(lin, y, x0, rtol, atol, max_iter, pre, matrix_offset, poly_order=int(method[10:-1]))
    if method.startswith("scipy-"):
        from ._linalg import scipy_solve

        return scipy_solve(self, method[6:], lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)
    raise ValueError(
        f"unknown linear solve method {method!r}; use 'auto', 'CG', 'CG-adaptive', 'biCG-stab', 'biCG-stab(n)', "
        "or one of 'scipy-direct', 'scipy-CG', 'scipy-GMres', 'scipy-biCG', 'scipy-biCG-stab', 'scipy-CGS', 'scipy-QMR', 'scipy-GCrotMK'"
    )


@generic(*_SOLVER_OPS, native=_SOLVER_NATIVE)
def conjugate_gradient(
    self: Backend,
    lin: Any,
    y: Tensor,
    x0: Tensor,
    rtol: Any,
    atol: Any,
    max_iter: Any,
    pre: Preconditioner | None,
    matrix_offset: Any,
) -> SolveResult:
    """Preconditioned conjugate gradient; arguments as `linear_solve`."""
    from ._linalg import cg

    return cg(self, lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)


@generic(*_SOLVER_OPS, native=_SOLVER_NATIVE)
def conjugate_gradient_adaptive(
    self: Backend,
    lin: Any,
    y: Tensor,
    x0: Tensor,
    rtol: Any,
    atol: Any,
    max_iter: Any,
    pre: Preconditioner | None,
    matrix_offset: Any,
) -> SolveResult:
    """Conjugate gradient with directions recomputed from the residual; arguments as `linear_solve`."""
    from ._linalg import cg_adaptive

    return cg_adaptive(self, lin, y, x0, rtol, atol, max_iter, pre, matrix_offset)


@generic(*_SOLVER_OPS, native=_SOLVER_NATIVE)
def bi_conjugate_gradient(
    self: Backend,
    lin: Any,
    y: Tensor,
    x0: Tensor,
    rtol: Any,
    atol: Any,
    max_iter: Any,
    pre: Preconditioner | None,
    matrix_offset: Any,
    poly_order: int = 2,
) -> SolveResult:
    """BiCGstab(`poly_order`) for general square systems; arguments as `linear_solve`."""
    from ._linalg import bicg

    return bicg(self, lin, y, x0, rtol, atol, max_iter, pre, poly_order, matrix_offset)


@generic("numpy", "as_tensor", "cast")  # the SciPy methods; 'GD' also needs `gradients`, `sum` and `where`
def minimize(
    self: Backend, method: str, f: Callable[[Tensor], Tensor], x0: Tensor, atol: Any, max_iter: Any, trj: bool
) -> SolveResult | list[SolveResult]:
    """Minimises `f(x) -> loss` for `(batch, n)` parameters, each batch entry independently.

    Args:
        method: 'GD' (gradient descent, needs `gradients`), 'auto' (= 'L-BFGS-B'), or any
            method of `scipy.optimize.minimize` such as 'L-BFGS-B', 'BFGS', 'CG'. SciPy methods get
            gradients from this backend's autodiff, or estimate them by finite differences if it has none.
        f: Loss function returning `(batch,)` values.
        x0: Initial parameters, `(batch, n)`.
        atol: Tolerance (of the largest gradient component for 'GD', SciPy's `tol` otherwise).
        max_iter: Iteration limit.
        trj: Return the list of states after every iteration instead of the final one.
    """
    if method == "GD":
        from ._minimize import gradient_descent

        return gradient_descent(self, f, x0, atol, max_iter, trj)
    from ._minimize import scipy_minimize

    return scipy_minimize(self, "L-BFGS-B" if method == "auto" else method, f, x0, atol, max_iter, trj)


# ------------------------------------------------------------ sparse


@generic(
    "auto_cast",
    "staticshape",
    "reshape",
    "tile",
    "batched_gather_nd",
    "zeros",
    "scatter",
    "dtype",
    native=("__getitem__", "__mul__"),
)
def mul_coo_dense(self: Backend, indices: Tensor, values: Tensor, shape: tuple[int, int], dense: Tensor) -> Tensor:
    """Batched sparse COO matrices times dense matrices.

    Args:
        indices: `(batch, nnz, 2)` row and column indices.
        values: `(batch, nnz, channels)`.
        shape: `(rows, cols)` of the sparse matrices.
        dense: `(batch, cols, channels, dense_cols)`.

    Returns:
        `(batch, rows, channels, dense_cols)`.
    """
    values, dense = self.auto_cast(values, dense)
    batch = max(_known(self.staticshape(t), "batch")[0] for t in (indices, values, dense))  # the spec checked: equal or 1
    indices, values, dense = (
        self.tile(t, (batch, *(1,) * (len(self.staticshape(t)) - 1))) if self.staticshape(t)[0] != batch else t
        for t in (indices, values, dense)
    )
    _, _nnz, channels = _known(self.staticshape(values), "values")
    _, rows, _, cols = _known(self.staticshape(dense), "dense")
    flat = self.reshape(dense, (batch, rows, channels * cols))
    gathered = self.batched_gather_nd(flat, indices[:, :, 1:2])
    gathered = self.reshape(gathered, (batch, -1, channels, cols))
    products = self.reshape(values[:, :, :, None] * gathered, (batch, -1, channels * cols))
    base = self.zeros((batch, shape[0], channels * cols), self.dtype(dense))
    result = self.scatter(base, indices[:, :, 0:1], products, mode="add")
    return self.reshape(result, (batch, shape[0], channels, cols))


@generic("staticshape", "zeros", "scatter", "dtype")
def coo_to_dense(self: Backend, indices: Tensor, values: Tensor, shape: tuple[int, ...], contains_duplicates: bool) -> Tensor:
    """Dense `(batch, *shape, channels)` from `(batch, nnz, ndims)` indices and `(batch, nnz, channels)` values."""
    batch, _nnz, channels = _known(self.staticshape(values), "values")
    base = self.zeros((batch, *shape, channels), self.dtype(values))
    return self.scatter(base, indices, values, mode="add" if contains_duplicates else "update")


@generic("staticshape", "repeat", "range", "stack", "dtype", native=("__getitem__", "__sub__"))
def csr_to_coo(self: Backend, column_indices: Tensor, row_pointers: Tensor) -> Tensor:
    """`(batch, nnz, 2)` COO indices of `(batch, nnz)` column indices and `(batch, rows + 1)` row pointers."""
    batch, nnz = _known(self.staticshape(column_indices), "column_indices")
    repeats = row_pointers[:, 1:] - row_pointers[:, :-1]
    rows = self.staticshape(repeats)[-1]
    row_range = self.range(rows, dtype=self.dtype(column_indices))
    row_indices = [self.repeat(row_range, repeats[b], 0, new_length=nnz) for b in range(batch)]
    return self.stack([self.stack(row_indices), column_indices], axis=-1)


@generic("csr_to_coo", "mul_coo_dense")
def mul_csr_dense(
    self: Backend, column_indices: Tensor, row_pointers: Tensor, values: Tensor, shape: tuple[int, int], dense: Tensor
) -> Tensor:
    """Batched CSR matrices times dense matrices; arguments as `csr_to_coo` and `mul_coo_dense`."""
    return self.mul_coo_dense(self.csr_to_coo(column_indices, row_pointers), values, shape, dense)


@generic("csr_to_coo", "coo_to_dense")
def csr_to_dense(
    self: Backend,
    column_indices: Tensor,
    row_pointers: Tensor,
    values: Tensor,
    shape: tuple[int, int],
    contains_duplicates: bool = False,
) -> Tensor:
    """Dense `(batch, rows, cols, channels)` of batched CSR matrices."""
    indices = self.csr_to_coo(column_indices, row_pointers)
    return self.coo_to_dense(indices, values, shape, contains_duplicates=contains_duplicates)


# ------------------------------------------------------------ autodiff, compilation, control flow


@generic("stop_gradient")
def stop_gradient_tree(self: Backend, tree: Any) -> Any:
    """`stop_gradient` applied to every tensor of a tree of tuples, lists and dicts; Python numbers
    (which carry no gradient) stay as they are, in their full precision."""
    return _map_tree(lambda leaf: leaf if type(leaf) in (bool, int, float, complex) else self.stop_gradient(leaf), tree)


@generic("jit_compile", "jacobian")
def jit_compile_grad(
    self: Backend, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, is_f_scalar: bool
) -> Callable[..., Any]:
    """`jit_compile(jacobian(...))`."""
    return self.jit_compile(self.jacobian(f, wrt, get_output, is_f_scalar))


@generic("jit_compile", "hessian")
def jit_compile_hessian(
    self: Backend, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, get_gradient: bool
) -> Callable[..., Any]:
    """`jit_compile(hessian(...))`."""
    compiled: Callable[..., Any] = self.jit_compile(self.hessian(f, wrt, get_output, get_gradient))
    return compiled


@generic("stop_gradient", "copy", "stack", "any")
def while_loop(self: Backend, loop: Callable[..., Any], values: tuple[Any, ...], max_iter: int | Sequence[int] | None) -> Any:
    """Runs `values = loop(*values)` while any element of `values[0]` is true.

    Args:
        loop: Returns new values of the same shapes and dtypes.
        values: Initial loop values; the first is the condition.
        max_iter: Iteration limit (`None` for none), or a sequence of checkpoints, in which
            case the values at each checkpoint are stacked along a new first axis; checkpoints after
            the loop ended repeat the last recorded checkpoint, as in `phiml.backend` (not the final
            values: a loop whose body keeps changing values after its condition turned false at
            iteration 3 gives `max_iter=(1, 5)` twice the values of iteration 1).
    """
    values = self.stop_gradient_tree(values)
    if isinstance(max_iter, (tuple, list)):
        checkpoints = list(max_iter)
        trajectory = [self.copy_leaves(values, only_mutable=True)] if 0 in checkpoints else []
        for i in range(1, max(checkpoints) + 1):
            if not self.any(values[0]):
                break
            values = loop(*values)
            if i in checkpoints:
                trajectory.append(self.copy_leaves(values, only_mutable=True))
        if not trajectory:  # no checkpoint reached (the condition was false from the start)
            trajectory.append(self.copy_leaves(values, only_mutable=True))
        trajectory.extend([trajectory[-1]] * (len(checkpoints) - len(trajectory)))
        return self.stop_gradient_tree(self.stack_leaves(trajectory))
    i, limit = 0, max_iter
    while (limit is None or i < limit) and self.any(values[0]):  # type: ignore[operator]
        values = loop(*values)
        i += 1
    return self.stop_gradient_tree(values)


@generic("determine_size", "staticshape", "stack", native=_INDEXING)
def vectorized_call(self: Backend, f: Callable[..., Any], *args: Tensor, output_dtypes: Any = None, **aux_args: Any) -> Any:
    """Calls `f` on every entry of the first dimension of `args` (size 1 broadcasts) and stacks the results."""
    batch = self.determine_size(args, 0)
    results = [f(*[t[min(b, self.staticshape(t)[0] - 1)] for t in args], **aux_args) for b in range(batch)]  # type: ignore[operator]
    return self.stack_leaves(results)


# ---------------------------------------------------------------- helpers


def _known(shape: tuple[int | None, ...], what: str) -> tuple[int, ...]:
    if any(s is None for s in shape):
        raise ValueError(f"the shape of {what} must be known, but is {shape}")
    return shape  # type: ignore[return-value]
