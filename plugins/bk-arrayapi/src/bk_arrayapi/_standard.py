"""Kernels of the Array API standard's elementwise operations (a mixin of `ArrayAPIBackend`): the
namespace's own functions of the same name, on operands that the core's helpers
(`bk._catalogue_standard`) have brought to bk's rules (dtypes, weak Python numbers, precision,
errors). Each declares the namespace function it calls (`needs`), so a namespace without it keeps
the generic default, or (`signbit`, `nextafter`) does not claim the operation. The shape and
data operations use the core's generic defaults, built from this backend's operations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bk.rules import check_dtypes

from ._needs import needs

__all__ = ["StandardMixin"]

Tensor = Any


def _unary(name: str, doc: str) -> Callable[..., Any]:
    def operation(self: Any, x: Tensor) -> Tensor:
        return getattr(self.xp, name)(self._inexact_operand(x, name))

    operation.__name__ = operation.__qualname__ = name
    operation.__doc__ = doc
    return needs(name)(operation)


def _binary(name: str, doc: str) -> Callable[..., Any]:
    def operation(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
        a, b = self._inexact_pair(x1, x2, name)
        try:
            return getattr(self.xp, name)(a, b)
        except ValueError as error:  # shapes that do not broadcast
            self._operator_failed(name, error, a, b)
            raise

    operation.__name__ = operation.__qualname__ = name
    operation.__doc__ = doc
    return needs(name)(operation)


class StandardMixin:
    """The namespace's functions for the standard's elementwise operations."""

    log1p = _unary("log1p", "`log(1 + x)`, accurate near 0; bools and ints give the default float.")
    expm1 = _unary("expm1", "`exp(x) - 1`, accurate near 0; bools and ints give the default float.")
    hypot = _binary("hypot", "`sqrt(x1**2 + x2**2)` without overflow, in the common float type; complex values raise ArgumentTypeError.")
    logaddexp = _binary("logaddexp", "`log(exp(x1) + exp(x2))` without overflow, in the common float type; complex values raise ArgumentTypeError.")
    copysign = _binary("copysign", "The magnitude of `x1` with the sign bit of `x2`, in the common float type; complex values raise ArgumentTypeError.")

    @needs("nextafter", "where", "equal")
    def nextafter(self: Any, x1: Tensor, x2: Tensor) -> Tensor:
        """The next float after `x1` toward `x2` (`x2` where they are equal, as the standard says; NumPy's
        float16 loop gives `x1`, so `(0.0, -0.0)` gave 0.0), in the common float type.

        Raises:
            ArgumentTypeError: for complex values.
            ShapeMismatchError: for shapes that do not broadcast.
        """
        a, b = self._inexact_pair(x1, x2, "nextafter")
        xp = self.xp
        try:
            return xp.where(xp.equal(a, b), b, xp.nextafter(a, b))
        except ValueError as error:  # shapes that do not broadcast
            self._operator_failed("nextafter", error, a, b)
            raise

    @needs("signbit", "zeros_like")
    def signbit(self: Any, x: Tensor) -> Tensor:
        """The namespace's `signbit` of floats (also -0.0 and NaN), `x < 0` for ints, false for bools.

        Raises:
            ArgumentTypeError: for complex values.
        """
        x = self._native(x, "signbit")
        check_dtypes(self, "signbit", x)
        kind = self._dt(x).kind
        if kind is bool:
            return self.xp.zeros_like(x)
        return self.xp.signbit(x) if kind is float else x < 0
