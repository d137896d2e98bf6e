"""Markers that tell `Backend.supports()` what each catalogue method of the base class is.

Every public method of `Backend` is a *feature*. In the base class it is one of:

- required: abstract; every backend implements it.
- `@generic(*uses)`: a default built only from the listed catalogue operations; supported when
  all of them are supported.
- `@optional`: raises `NotImplementedError` (or returns `NotImplemented` where the reference
  says so); supported only when a subclass overrides it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

USES_ATTR: Final = "__bk_uses__"

# Named capabilities: each is supported when all of its operations are.
CAPABILITIES: Final[dict[str, tuple[str, ...]]] = {
    "gradients": ("jacobian",),
    "jit": ("jit_compile",),
    "dlpack": ("to_dlpack", "from_dlpack"),
    "sparse": ("sparse_coo_tensor", "is_sparse"),
    "float64": (),  # declared by the class attribute `Backend.float64_supported`
    "devices": ("allocate_on_device", "get_device"),
}


def generic(*uses: str) -> Callable[[F], F]:
    """Marks a generic default implementation that needs only the operations in `uses`."""

    def mark(function: F) -> F:
        setattr(function, USES_ATTR, uses)
        return function

    return mark


def optional(function: F) -> F:
    """Marks a base-class method that a backend must override to support the feature."""
    setattr(function, USES_ATTR, None)
    return function


def uses_of(function: Any) -> tuple[str, ...] | None:
    """The operations a base-class default uses, or `None` when it has no default."""
    uses: tuple[str, ...] | None = getattr(function, USES_ATTR, None)
    return uses
