"""Mapping between `bk.DType` and JAX dtypes, and the x64 rule; imported only with the backend.

JAX computes in 64 bits only while its process-wide flag `jax_enable_x64` is on; it is off by
default, and then 64-bit values silently become 32-bit ones. bk's contract needs 64-bit types
(`bk.precision(64)`, float64 and int64 NumPy data that `as_tensor` must keep), so:

- bk-jax switches x64 on, with `jax.config.update("jax_enable_x64", True)`, the first time a
  64-bit type is needed: under precision 64, for a 64-bit dtype given to a creation function or
  `cast`, or for 64-bit NumPy data given to `as_tensor`. It never switches x64 off.
- Unless x64 is the user's explicit choice: the environment variable `JAX_ENABLE_X64` is set (to
  any value), or x64 is overridden in the current thread (`with jax.enable_x64(False):`). Then
  bk-jax leaves the setting alone: with x64 off, asking for a 64-bit dtype raises a `TypeError`
  that says how to enable x64, and 64-bit NumPy data converts to 32 bits, as in JAX.
"""

from __future__ import annotations

import os
from typing import Final

import jax
import jax.numpy as jnp
import numpy as np

from bk import DType

__all__ = [
    "X64_VARIABLE",
    "from_jax_dtype",
    "is_wide",
    "require_x64",
    "to_jax_dtype",
    "x64_enabled",
    "x64_locked_off",
]

X64_VARIABLE: Final = "JAX_ENABLE_X64"

_TO_JAX: Final[dict[DType, np.dtype]] = {
    DType(bool): np.dtype(np.bool_),
    DType(int, 8): np.dtype(np.int8),
    DType(int, 16): np.dtype(np.int16),
    DType(int, 32): np.dtype(np.int32),
    DType(int, 64): np.dtype(np.int64),
    DType(int, 8, signed=False): np.dtype(np.uint8),
    DType(int, 16, signed=False): np.dtype(np.uint16),
    DType(int, 32, signed=False): np.dtype(np.uint32),
    DType(int, 64, signed=False): np.dtype(np.uint64),
    DType(float, 16): np.dtype(np.float16),
    DType(float, 16, brain=True): np.dtype(jnp.bfloat16),
    DType(float, 32): np.dtype(np.float32),
    DType(float, 64): np.dtype(np.float64),
    DType(complex, 64): np.dtype(np.complex64),
    DType(complex, 128): np.dtype(np.complex128),
}
_FROM_JAX: Final[dict[np.dtype, DType]] = {v: k for k, v in _TO_JAX.items()}
_WIDE: Final = frozenset(np.dtype(t) for t in (np.int64, np.uint64, np.float64, np.complex128))


def to_jax_dtype(dtype: DType) -> np.dtype:
    """The NumPy dtype JAX uses for `dtype` (JAX arrays carry NumPy dtypes; bfloat16 from `ml_dtypes`).

    Raises:
        TypeError: for types JAX has no arrays of (object, str).
    """
    result = _TO_JAX.get(dtype)
    if result is None:
        if not isinstance(dtype, DType):
            raise TypeError(
                f"expected a bk.DType but got {type(dtype).__name__} {dtype!r}; use bk.DType.parse('float32') for names"
            )
        raise TypeError(f"JAX has no arrays of dtype {dtype}; supported: {', '.join(d.name for d in _TO_JAX)}")
    return result


def from_jax_dtype(dtype: np.dtype) -> DType:
    """The `bk.DType` of a JAX array's dtype.

    Raises:
        TypeError: for JAX types bk cannot describe, such as float8, int4 or PRNG key types.
    """
    result = _FROM_JAX.get(dtype)
    if result is None:
        raise TypeError(f"JAX dtype {dtype} has no bk.DType equivalent; cast the array to a standard type first")
    return result


def is_wide(dtype: np.dtype) -> bool:
    """Whether `dtype` exists in JAX only with x64 on (int64, uint64, float64, complex128)."""
    return dtype in _WIDE


def x64_enabled() -> bool:
    """Whether JAX currently computes in 64 bits (in this thread)."""
    return bool(jax.config.jax_enable_x64)


def x64_locked_off() -> bool:
    """Whether the user chose to keep x64 off with `JAX_ENABLE_X64`, so that bk-jax must not enable it."""
    return X64_VARIABLE in os.environ and not x64_enabled()


def _thread_choice() -> bool | None:
    """The value of a `with jax.enable_x64(...)` block around the current thread, `None` outside one."""
    get_local = getattr(getattr(jax, "enable_x64", None), "get_local", None)
    local = get_local() if get_local is not None else None
    return local if isinstance(local, bool) else None


def require_x64(what: str) -> None:
    """Switches x64 on for `what` (a 64-bit request), following the rule of this module.

    Raises:
        TypeError: if x64 is off by the user's explicit choice.
    """
    if x64_enabled():
        return
    if X64_VARIABLE in os.environ:
        reason = f"the environment variable {X64_VARIABLE}={os.environ[X64_VARIABLE]!r} keeps it off"
    elif _thread_choice() is not None:
        reason = "it is switched off for this thread (with jax.enable_x64(False))"
    else:
        jax.config.update("jax_enable_x64", True)
        return
    raise TypeError(
        f"{what} needs JAX's 64-bit mode, but {reason}, and bk-jax does not override your choice. "
        f"Enable it with {X64_VARIABLE}=1 or jax.config.update('jax_enable_x64', True), or use 32-bit types."
    )
