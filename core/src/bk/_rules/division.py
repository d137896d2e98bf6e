"""Integer division by zero (docs/semantics.md, "Integers"): `floordiv` and `mod` of integers by 0 give 0.

NumPy 2 gives 0 (and warns); PyTorch and TensorFlow's CPU kernels refuse, JAX's floor division and
namespaces of the Array API give what their hardware gives. The rule is one composite of catalogue
operations, `divide_integers`, which every kernel that needs it calls: the core's plans
(the one call path, `bk._dispatcher`) and the plugins' own (bk-torch, bk-jax, bk-tf, bk-arrayapi). A kernel whose
framework already gives 0 (NumPy's ufuncs, and with them bk-dask's and bk-lazy's blocks; JAX's
`remainder`) needs nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from .._dtype import DType

if TYPE_CHECKING:
    from .._backend import Backend

__all__ = ["ZERO_DIVISORS", "divide_integers", "zero_divisor_rule"]

ZERO_DIVISORS: Final = frozenset(("floordiv", "mod"))
"""The operations whose integer zero divisors give 0."""

_INT8: Final = DType(int, 8)


def zero_divisor_rule(op: str, dtype: DType | None) -> bool:
    """Whether `op` on operands of `dtype` follows the rule: `floordiv` or `mod` of integers or bools.

    Args:
        op: The catalogue name of the operation.
        dtype: The dtype the operands are computed in (the spec's `operand_dtype`), or None when
            the spec names none.
    """
    return op in ZERO_DIVISORS and dtype is not None and dtype.kind in (bool, int)


def divide_integers(backend: Backend, divide: Callable[[Any, Any], Any], dividend: Any, divisor: Any) -> Any:
    """`divide(dividend, divisor)` with 0 wherever `divisor` is 0, as NumPy gives.

    The kernel `divide` never sees a zero divisor (zeros are replaced by 1 before the call), so a
    framework that refuses integer division by zero, or gives garbage, is never asked.

    Args:
        backend: The backend whose `equal`, `where` and `cast` compute the composite.
        divide: The kernel: `//` or `%` of two native tensors of one integer dtype.
        dividend: A native tensor of an integer or bool dtype.
        divisor: A native tensor of the dtype of `dividend`.

    Returns:
        `divide`'s result, with 0 where `divisor` is 0; bools compute as int8, as NumPy does.
    """
    if backend.dtype(divisor).kind is bool:
        dividend, divisor = backend.cast(dividend, _INT8), backend.cast(divisor, _INT8)
    zero = backend.equal(divisor, 0)
    return backend.where(zero, 0, divide(dividend, backend.where(zero, 1, divisor)))
