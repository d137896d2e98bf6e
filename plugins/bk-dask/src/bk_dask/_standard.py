"""Kernels of the Array API standard's elementwise operations (a mixin of `DaskBackend`).

As the other elementwise operations of bk-dask, they run bk-numpy's kernel on every block (one
task per chunk, chunks kept), so they follow bk's rules exactly and are as accurate as NumPy
(`log1p`, `expm1`, `hypot`). `signbit` and `nextafter` need the bits of the floats, which no
catalogue operation exposes, so they exist on Dask only through these kernels. Each is declared
trusted (`_elementwise(..., trusted=True)`: bk-numpy applies the rules on every block). The shape and
data operations of the standard use the core's generic defaults (built from bk-dask's operations).
"""

from __future__ import annotations

from ._math import _elementwise

__all__ = ["StandardMixin"]


class StandardMixin:
    """bk-numpy's kernels of the standard's elementwise operations, on every block."""

    log1p = _elementwise("log1p", "`log(1 + x)`, accurate near 0; bools and ints give the default float.", trusted=True)
    expm1 = _elementwise("expm1", "`exp(x) - 1`, accurate near 0; bools and ints give the default float.", trusted=True)
    reciprocal = _elementwise("reciprocal", "`1 / x`; bools and ints give the default float.", trusted=True)
    hypot = _elementwise("hypot", "`sqrt(x1**2 + x2**2)` without overflow, in the common float type.", trusted=True)
    logaddexp = _elementwise("logaddexp", "`log(exp(x1) + exp(x2))` without overflow, in the common float type.", trusted=True)
    copysign = _elementwise(
        "copysign", "The magnitude of `x1` with the sign bit of `x2`, in the common float type.", trusted=True
    )
    nextafter = _elementwise("nextafter", "The next float after `x1` toward `x2`, in the common float type.", trusted=True)
    signbit = _elementwise("signbit", "Whether the sign bit of `x` is set; `x < 0` for ints, false for bools.", trusted=True)
    trunc = _elementwise("trunc", "Rounds toward zero; bools and ints stay as they are.", trusted=True)
    square = _elementwise("square", "`x * x` in the type of `x`; bools give int8.", trusted=True)
    negative = _elementwise("negative", "`-x` in the type of `x`; bools raise ArgumentTypeError.", trusted=True)
