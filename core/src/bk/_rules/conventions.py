"""One convention for the results that decompositions leave open: eigenvalue order, eigenvector and singular
vector phases (issue 39, "backends agree").

LAPACK (NumPy, PyTorch, JAX) and Eigen (TensorFlow) return the eigenvalues of a general matrix in their own
order and every eigenvector or singular vector up to a sign (a phase for complex values). bk fixes both after
any backend's kernel, as a composite of catalogue operations, so every backend gives the same results:

- `eig` and `eigvals`: eigenvalues ascending by real part, then by imaginary part (NumPy's order of complex
  values; real parts equal to about 1e-5 of the largest magnitude count as equal, so a conjugate pair keeps
  its order whatever the last bits); `eig`'s eigenvectors follow their eigenvalues.
- Eigenvectors (`eig`, `eigh`) and the singular vectors of `svd` (the columns of U, and with them the rows of
  Vh): the first component whose magnitude is within 1e-3 of the column's largest is real and positive. A row
  of Vh whose singular value is about 0 (1e-5 of the largest) or that has none (`full_matrices`) is put in the
  convention by its own components.

Degenerate eigenvalues and singular values leave a rotation of their vectors open, which no phase fixes:
the testkit compares eigenvalues and singular values, and checks the factors by reconstruction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from .._dtype import DType

if TYPE_CHECKING:
    from .._backend import Backend

__all__ = ["CONVENTIONS", "canonical_result"]

CONVENTIONS: Final = frozenset(("eig", "eigvals", "eigh", "svd"))
"""The operations whose results the core puts in bk's convention after the kernel."""

_NEEDS: Final = (
    "argsort", "take_along_axis", "argmax", "abs", "max", "real", "imag", "where", "div", "mul", "round", "gather", "range",
    "concat", "conj", "matrix_transpose", "broadcast_to", "expand_dims", "greater_than", "greater_or_equal", "ones_like",
)  # fmt: skip
_ORDER_TOLERANCE: Final = 1e-5
_ZERO_SINGULAR: Final = 1e-5
_PIVOT_TOLERANCE: Final = 1e-3


def canonical_result(backend: Backend, op: str, result: Any) -> Any:
    """`result` of `op` (one of `CONVENTIONS`) in bk's convention; as it is on a backend without the
    operations the convention needs, or for empty matrices."""
    if not all(backend.supports(name) for name in _NEEDS):
        return result
    b = backend
    if op == "eigvals":
        if 0 in tuple(b.staticshape(result))[-1:]:
            return result
        return b.take_along_axis(result, _eigen_order(b, result), axis=-1)
    if op == "eig":
        values, vectors = result
        if 0 in tuple(b.staticshape(values))[-1:]:
            return result
        order = _eigen_order(b, values)
        values = b.take_along_axis(values, order, axis=-1)
        shape = tuple(b.staticshape(vectors))
        columns = b.broadcast_to(b.expand_dims(order, axis=-2), shape)  # type: ignore[arg-type]  # a size unknown under tracing (None) is passed on unchecked, as before
        vectors = b.take_along_axis(vectors, columns, axis=-1)
        return values, b.div(vectors, _column_phase(b, vectors))
    if op == "eigh":
        values, vectors = result
        if 0 in tuple(b.staticshape(vectors))[-2:]:
            return result
        return values, b.div(vectors, _column_phase(b, vectors))
    u, s, vh = result
    m, p = tuple(b.staticshape(u))[-2:]
    q, n = tuple(b.staticshape(vh))[-2:]
    if 0 in (m, n) or m is None or n is None or p is None or q is None:
        return result
    k = min(m, n)
    phase_u = _column_phase(b, u)  # (..., 1, p)
    u = b.div(u, phase_u)
    phase_v = _column_phase(b, b.matrix_transpose(vh))  # each row of Vh by its own pivot: (..., 1, q)
    # rows i < k of Vh carry the phase of U's column i (U S Vh unchanged); the rows beyond k their own
    pairs = b.gather(phase_u, b.range(k), axis=-1)
    # a singular value of (about) 0 couples no phases: its row of Vh takes its own pivot's, as the rows beyond k
    own = b.conj(phase_v)
    zero = b.greater_or_equal(b.mul(b.expand_dims(b.max(s, axis=-1, keepdims=True), axis=-2), _ZERO_SINGULAR), b.expand_dims(s, axis=-2))
    pairs = b.where(zero, b.gather(own, b.range(k), axis=-1), pairs)
    if q > k:  # dividing a row by its own unit phase multiplies it by the conjugate
        pairs = b.concat([pairs, b.gather(own, b.range(k, q), axis=-1)], axis=-1)
    vh = b.mul(vh, b.matrix_transpose(pairs))
    return u, s, vh


def _eigen_order(b: Backend, values: Any) -> Any:
    """Indices that sort `values` (..., n) by real part, then imaginary part (two stable sorts)."""
    real, imag = b.real(values), b.imag(values)
    scale = b.max(b.abs(values), axis=-1, keepdims=True)
    tiny = b.where(b.greater_than(scale, 0), scale, b.ones_like(scale))
    key = b.round(b.div(real, b.mul(tiny, _ORDER_TOLERANCE)))  # equal real parts to the tolerance: one key
    by_imag = b.argsort(imag, axis=-1)
    by_real = b.argsort(b.take_along_axis(key, by_imag, axis=-1), axis=-1)
    return b.take_along_axis(by_imag, by_real, axis=-1)


def _column_phase(b: Backend, vectors: Any) -> Any:
    """The phase (sign for real values) of each column's pivot, shape (..., 1, columns): the first component
    whose magnitude is within `_PIVOT_TOLERANCE` of the column's largest; 1 for a zero column."""
    magnitude = b.abs(vectors)
    largest = b.max(magnitude, axis=-2, keepdims=True)
    near = b.greater_or_equal(magnitude, b.mul(largest, 1 - _PIVOT_TOLERANCE))
    first = b.argmax(b.cast(near, DType(int, 8)), axis=-2, keepdims=True)
    pivot = b.take_along_axis(vectors, first, axis=-2)
    size = b.abs(pivot)
    return b.where(b.greater_than(size, 0), b.div(pivot, b.where(b.greater_than(size, 0), size, b.ones_like(size))), b.ones_like(pivot))
