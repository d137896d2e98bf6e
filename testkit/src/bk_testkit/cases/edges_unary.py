"""Edge cases of elementwise functions: every dtype, 0-d and empty shapes, layouts, NaN and infinities.

docs/semantics.md: functions whose result is a float on integer inputs return the default float;
floats (float16 and bfloat16 included) keep their dtype; complex inputs keep theirs (`abs` and
`real`/`imag` give the real type of the same precision); predicates return bool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import numpy as np
from hypothesis import strategies as st

import bk
from bk import DType

from .._case import Trial, add_case
from ._edges import (
    BOOL,
    COMPLEX,
    FLOATS,
    LAYOUTS,
    SIGNED,
    UNSIGNED,
    available,
    check_raises,
    check_result,
    default_float,
    describe,
    dtypes,
    explore,
    layout,
    make_values,
    reference_float,
    shapes,
    tensor,
)

_INTS: Final = (*SIGNED, *UNSIGNED)
_ALL: Final = (BOOL, *_INTS, *FLOATS, *COMPLEX)


def _to_float(dtype: DType) -> DType:
    return default_float() if dtype.kind in (bool, int) else dtype


def _keep(dtype: DType) -> DType:
    return dtype


def _real_part(dtype: DType) -> DType:
    return DType(float, dtype.bits // 2) if dtype.kind is complex else dtype  # type: ignore[operator]


def _boolean(dtype: DType) -> DType:
    return BOOL


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0, x)


# name: (float64 reference, result dtype, input dtypes, scale of the tolerance)
_FUNCTIONS: Final[dict[str, tuple[Callable[[np.ndarray], np.ndarray], Callable[[DType], DType], tuple[DType, ...], float]]] = {
    "sqrt": (np.sqrt, _to_float, _ALL, 1),
    "exp": (np.exp, _to_float, _ALL, 1),
    "log": (np.log, _to_float, (*_INTS, *FLOATS), 1),
    "log2": (np.log2, _to_float, (*_INTS, *FLOATS), 1),
    "log10": (np.log10, _to_float, (*_INTS, *FLOATS), 1),
    "sin": (np.sin, _to_float, _ALL, 1),
    "cos": (np.cos, _to_float, _ALL, 1),
    "tan": (np.tan, _to_float, (*_INTS, *FLOATS), 4),
    "tanh": (np.tanh, _to_float, _ALL, 1),
    "arctan": (np.arctan, _to_float, (*_INTS, *FLOATS), 1),
    "sinh": (np.sinh, _to_float, (*_INTS, *FLOATS), 1),
    "cosh": (np.cosh, _to_float, (*_INTS, *FLOATS), 1),
    "sigmoid": (_sigmoid, _to_float, (*_INTS, *FLOATS), 1),
    "softplus": (_softplus, _to_float, (*_INTS, *FLOATS), 1),
    "abs": (np.abs, _real_part, (*SIGNED, *UNSIGNED, *FLOATS, *COMPLEX), 1),
    "sign": (np.sign, _keep, (*SIGNED, *FLOATS), 1),
    "floor": (np.floor, _keep, (*_INTS, *FLOATS), 1),
    "ceil": (np.ceil, _keep, (*_INTS, *FLOATS), 1),
    "round": (np.round, _keep, (*_INTS, *FLOATS), 1),
    "isnan": (np.isnan, _boolean, _ALL, 1),
    "isinf": (np.isinf, _boolean, _ALL, 1),
    "isfinite": (np.isfinite, _boolean, _ALL, 1),
    "real": (np.real, _real_part, (*_INTS, *FLOATS, *COMPLEX), 1),
    "imag": (np.imag, _real_part, (*FLOATS, *COMPLEX), 1),
    "conj": (np.conj, _keep, (*_INTS, *FLOATS, *COMPLEX), 1),
}


def _reference(name: str, x: np.ndarray, want: DType) -> np.ndarray:
    function = _FUNCTIONS[name][0]
    with np.errstate(all="ignore"):
        if want.kind is int:
            return np.asarray(function(x))
        return np.asarray(function(reference_float(x)))


def _unary_case(name: str) -> Callable[[Trial], None]:
    _, result_dtype, inputs, scale = _FUNCTIONS[name]

    def run(t: Trial) -> None:
        @explore(dtypes(t, inputs), shapes(max_rank=5), st.sampled_from(LAYOUTS), examples=20)
        def example(dtype: DType, shape: tuple[int, ...], kind: str) -> None:
            check(dtype, shape, kind)

        def check(dtype: DType, shape: tuple[int, ...], kind: str) -> None:
            # complex functions at infinities differ between C libraries: finite complex values only
            x = layout(make_values(dtype, shape, seed=len(shape) * 11 + sum(shape), special=dtype.kind is not complex), kind)
            want = result_dtype(dtype)
            got = getattr(t.b, name)(tensor(t, x))
            check_result(t, got, _reference(name, x, want), describe(name, x) + f" [{kind}]", want, {"x": x}, scale=scale)

        example()
        for dtype in available(t, inputs):  # every dtype once
            check(dtype, (2, 3), "contiguous")

    return run


for _name in _FUNCTIONS:
    add_case(_name, "edge-dtypes-shapes", _unary_case(_name), "every dtype, rank 0-5, empty, layouts, NaN/inf; ints give the default float")


def _python_scalar_input(t: Trial) -> None:
    """Python numbers as input follow as_tensor: an int gives the default float, a float the default float."""
    for value in (2, 2.0, True):
        check_result(t, t.b.sqrt(value), np.sqrt(float(value)), f"sqrt({value!r})", default_float())


add_case("sqrt", "edge-python-scalar", _python_scalar_input, "sqrt of a Python int, float or bool is the default float")


def _not_a_tensor_case(name: str) -> Callable[[Trial], None]:
    def run(t: Trial) -> None:
        for bad in (None, "abc"):
            check_raises(t, bk.ArgumentTypeError, lambda bad=bad: getattr(t.b, name)(bad), f"{name}({bad!r})", name)

    return run


for _name in ("sqrt", "exp", "sin", "abs", "floor", "isnan"):
    add_case(_name, "edge-not-a-tensor", _not_a_tensor_case(_name), "None or a string as the tensor raises ArgumentTypeError")
