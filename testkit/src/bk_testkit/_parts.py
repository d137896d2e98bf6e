"""Comparisons of results with several parts or no single right value, for the generated layer: singular values
and vectors up to sign, eigenvalues up to order, random numbers by their distribution."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._case import short
from ._generated import Arr, Call, Outcome, compare_arrays, compare_values

# ---------------------------------------------------------------- comparisons of several-part results


def _distinct(values: np.ndarray, zero_too: bool = False) -> bool:
    """Whether the values along the last axis are apart (and, for `zero_too`, none about 0): their vectors are
    then unique up to the phase that bk's convention fixes (`bk._rules.conventions`)."""
    v = np.asarray(values).astype(np.complex128)
    if v.size == 0:
        return True
    largest = float(np.max(np.abs(v))) or 1.0
    gaps = np.abs(v[..., :, None] - v[..., None, :]) + np.eye(v.shape[-1]) * largest
    apart = bool(np.all(gaps > 1e-2 * largest))
    return apart and (not zero_too or bool(np.all(np.abs(v) > 1e-2 * largest)))


def compare_svd(actual: Outcome, reference: Outcome, scale: float, call: Call | None = None) -> str | None:
    """Singular values; U and Vh too (in bk's convention of phases) where the singular values are apart and
    not about 0 (else U and Vh are unique only up to rotations; shapes are checked)."""
    square = call is not None and isinstance(call.args[0], Arr) and call.args[0].array.shape[-1] == call.args[0].array.shape[-2]
    whole = square or not (call is not None and call.kwargs.get("full_matrices", True))
    parts = (0, 1, 2) if whole and _distinct(reference.values[1], zero_too=True) else (1,)
    return compare_values(actual, reference, scale * 10, parts=parts)


def _sorted_eigenvalues(values: np.ndarray) -> np.ndarray:
    v = np.round(values.astype(np.complex128), 4)
    if v.size == 0:
        return v
    return np.sort_complex(v.reshape(-1, v.shape[-1])).reshape(v.shape)


def compare_eigenvalues(index: int | None) -> Callable[..., str | None]:
    def compare(actual: Outcome, reference: Outcome, scale: float, call: Call | None = None) -> str | None:
        i = 0 if index is None else index
        if _distinct(reference.values[i]):  # bk's convention: ascending by real part, then imaginary; phases fixed
            return compare_values(actual, reference, scale * 100)
        return compare_arrays(
            _sorted_eigenvalues(actual.values[i]), _sorted_eigenvalues(reference.values[i]), actual.dtypes[i], scale * 100
        )

    return compare


def compare_random(actual: Outcome, reference: Outcome, scale: float, call: Call | None = None) -> str | None:
    """Random values are not compared; they must be finite."""
    values = actual.values[0]
    if values.size and not bool(np.all(np.isfinite(values.astype(np.float64)))):
        return f"random values must be finite: {values}"
    return None


def compare_uniform(actual: Outcome, reference: Outcome, scale: float, call: Call | None = None) -> str | None:
    """Values in `[low, high)`; all equal to `low` when `low == high`."""
    values = actual.values[0].astype(np.float64)
    if not values.size or call is None:
        return None
    low, high = float(call.args[1]), float(call.args[2])
    if low == high:
        ok = bool(np.all(values == low))
    else:
        ok = bool(np.all((values >= low) & (values <= high)))
    return None if ok else f"values outside [{low}, {high}): {short(values)}"
