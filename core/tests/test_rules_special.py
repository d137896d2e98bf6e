"""bk._rules.special: the Array API standard's special values of complex expm1 and log1p, after any kernel."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bk._rules.special import SPECIAL_VALUES, fix_special_values

from .conftest import Minimal, trust

INF, NAN = math.inf, math.nan
SAMPLES = {"zero": [0.0, -0.0], "-1": [-1.0], "+inf": [INF], "-inf": [-INF], "inf": [INF, -INF], "nan": [NAN], "finite": [0.0, -2.5, 3.0],
           "+0": [0.0], "-0": [-0.0], "positive": [0.5, 7.0], "negative": [-0.5, -7.0]}  # fmt: skip
MIRROR = {"+0": "-0", "+inf": "-inf", "positive": "negative"}


class Kernels(Minimal):
    """Bare NumPy kernels, with the frameworks' disagreements at the special values (NumPy's expm1 and log1p)."""

    def real(self, x):
        return np.real(x)

    def imag(self, x):
        return np.imag(x)

    def isnan(self, x):
        return np.isnan(x)

    def isinf(self, x):
        return np.isinf(x)

    def isfinite(self, x):
        return np.isfinite(x)

    def equal(self, x, y):
        return np.equal(x, y)

    def greater_than(self, x, y):
        return np.greater(x, y)

    def signbit(self, x):
        return np.signbit(x)

    def and_(self, a, b):
        return np.logical_and(a, b)

    def where(self, condition, x, y):
        return np.where(condition, np.asarray(x, np.asarray(y).dtype), y)

    def expm1(self, x):
        with np.errstate(all="ignore"):
            return np.expm1(x)

    def log1p(self, x):
        with np.errstate(all="ignore"):
            return np.log1p(x)


trust(Kernels, ("equal", "where", "floordiv", "mod", "real", "imag", "isnan", "isinf", "isfinite", "signbit", "and_", "expm1", "log1p", "greater_than"))  # called as they are


def _cases(op):
    """Every input the standard fixes (both half planes), with the value it fixes."""
    for real_test, imag_test, value in SPECIAL_VALUES[op]:
        mirrored = [] if imag_test == "nan" else [(MIRROR[imag_test], value.conjugate())]
        for imaginary, expected in [(imag_test, value), *mirrored]:
            for re in SAMPLES[real_test]:
                for im in SAMPLES[imaginary]:
                    yield complex(re, im), expected


def _same(got: complex, want: complex) -> bool:
    def part(a: float, b: float) -> bool:
        return (math.isnan(a) and math.isnan(b)) or (a == b and (a != 0 or math.copysign(1, a) == math.copysign(1, b)))

    return part(got.real, want.real) and (part(got.imag, want.imag) or (math.isnan(want.imag) and math.isnan(got.imag)))


@pytest.mark.parametrize("op", sorted(SPECIAL_VALUES))
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_kernels_give_the_standards_special_values(op, dtype):
    cases = list(_cases(op))
    assert len(cases) > 10
    x = np.array([c for c, _ in cases], dtype)
    got = getattr(Kernels(), op)(x)
    assert got.dtype == dtype
    wrong = [(c, complex(g), w) for (c, w), g in zip(cases, got, strict=True) if not _same(complex(g), complex(dtype(w)))]  # pi/2 in the dtype
    assert not wrong


@pytest.mark.parametrize("op", sorted(SPECIAL_VALUES))
def test_other_values_keep_the_kernels_result(op):
    x = np.array([0.5 + 0.25j, -3 - 2j, 1e-8 + 1e-8j, 2 + 1e30j], np.complex128)
    np.testing.assert_array_equal(getattr(Kernels(), op)(x), getattr(np, op)(x))
    real = np.array([-1.0, INF, NAN, 0.5])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(getattr(Kernels(), op)(real), getattr(np, op)(real))  # real inputs: the kernel's


def test_fix_special_values_is_a_composite_of_catalogue_operations():
    b = Kernels()
    x = np.array([complex(-INF, INF), complex(1.0, 2.0)])
    fixed = fix_special_values(b, "expm1", x, np.array([complex(NAN, NAN), 5 + 5j]))
    assert _same(complex(fixed[0]), complex(-1.0, 0.0)) and fixed[1] == 5 + 5j
