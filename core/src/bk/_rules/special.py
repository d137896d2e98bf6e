"""Special values of complex `expm1` and `log1p`: the cases the Array API standard fixes (2024.12, "Special cases").

Frameworks compute these functions of complex numbers as `exp(z) - 1` and `log(1 + z)` or through
their own kernels, which disagree at infinities, NaN and signed zeros (`expm1(+inf + 0j)` gives
`inf + nanj` in NumPy, `expm1(-inf + infj)` NaN everywhere). The standard fixes each case for the
upper half plane (an imaginary part of +0, positive or +infinity) and the rest by conjugate symmetry,
`f(conj(z)) == conj(f(z))`. `fix_special_values` applies them after any backend's kernel, as a
composite of catalogue operations (`real`, `imag`, `isnan`, `isinf`, `isfinite`, `equal`,
`greater_than`, `signbit`, `and_`, `where`), so every backend gives the standard's values. Real
inputs are left to the kernel: the real special cases are the frameworks' own already.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from .._backend import Backend

__all__ = ["SPECIAL_VALUES", "fix_special_values"]

_INF: Final = math.inf
_NAN: Final = math.nan

SPECIAL_VALUES: Final[dict[str, tuple[tuple[str, str, complex], ...]]] = {
    "expm1": (
        ("zero", "+0", complex(0.0, 0.0)),
        ("+inf", "+0", complex(_INF, 0.0)),
        ("+inf", "+inf", complex(_INF, _NAN)),
        ("+inf", "nan", complex(_INF, _NAN)),
        ("-inf", "+inf", complex(-1.0, 0.0)),
        ("-inf", "nan", complex(-1.0, 0.0)),
        ("nan", "+0", complex(_NAN, 0.0)),
    ),
    "log1p": (
        ("-1", "+0", complex(-_INF, 0.0)),
        ("finite", "+inf", complex(_INF, math.pi / 2)),
        ("-inf", "positive", complex(_INF, math.pi)),
        ("+inf", "positive", complex(_INF, 0.0)),
        ("-inf", "+inf", complex(_INF, 3 * math.pi / 4)),
        ("+inf", "+inf", complex(_INF, math.pi / 4)),
        ("inf", "nan", complex(_INF, _NAN)),
        ("nan", "+inf", complex(_INF, _NAN)),
    ),
}
"""Per operation: (real part, imaginary part in the upper half plane, result). The conjugate inputs
(imaginary part -0, negative or -infinity) give the conjugate results."""

_MIRRORED: Final = {"+0": "-0", "+inf": "-inf", "positive": "negative"}


def fix_special_values(backend: Backend, op: str, x: Any, result: Any) -> Any:
    """`result` of `op` (`expm1` or `log1p`) on the complex tensor `x`, with the standard's value wherever
    `x` is one of its special cases (`SPECIAL_VALUES`); other results and real `x` unchanged.

    Args:
        backend: The backend of `x` and `result`.
        op: `'expm1'` or `'log1p'`.
        x: The operation's (complex) operand.
        result: The kernel's result for `x`.
    """
    parts = {"re": backend.real(x), "im": backend.imag(x)}
    masks: dict[tuple[str, str], Any] = {}

    def passes(which: str, test: str) -> Any:
        if (which, test) not in masks:
            masks[which, test] = _test(backend, parts[which], test)
        return masks[which, test]

    import numpy as np

    from .._dtype import to_numpy_dtype
    from .._kernels import raw_kernel

    dtype = backend.dtype(result)
    for real_test, imag_test, value in SPECIAL_VALUES[op]:
        cases = [(imag_test, value)] if imag_test == "nan" else [(imag_test, value), (_MIRRORED[imag_test], value.conjugate())]
        for imaginary, constant in cases:
            # the constant rounded once, by NumPy, straight to the result's dtype: no complex128 tensor is
            # built (a framework may lack it: `Backend.unsupported_dtypes`)
            special = raw_kernel(backend, "as_tensor")(np.asarray(constant, to_numpy_dtype(dtype)))
            result = backend.where(backend.and_(passes("re", real_test), passes("im", imaginary)), special, result)
    return result


def _test(backend: Backend, value: Any, test: str) -> Any:
    """A bool tensor: where the real tensor `value` passes `test`."""
    if test == "nan":
        return backend.isnan(value)
    if test == "inf":
        return backend.isinf(value)
    if test == "finite":
        return backend.isfinite(value)
    if test in ("+inf", "-inf"):
        return backend.equal(value, _INF if test == "+inf" else -_INF)
    if test == "zero":
        return backend.equal(value, 0.0)
    if test == "-1":
        return backend.equal(value, -1.0)
    if test in ("+0", "-0"):
        negative = backend.signbit(value)
        return backend.and_(backend.equal(value, 0.0), negative if test == "-0" else backend.equal(negative, False))
    if test == "positive":
        return backend.and_(backend.isfinite(value), backend.greater_than(value, 0.0))
    if test == "negative":
        return backend.and_(backend.isfinite(value), backend.greater_than(0.0, value))
    raise ValueError(f"fix_special_values: unknown test {test!r}")
