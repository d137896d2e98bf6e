"""Markers that tell `Backend.supports()` what each catalogue method of the base class is.

Every public method of `Backend` is a *feature*. In the base class it is one of:

- `@required`: abstract; every backend implements it.
- `@generic(*uses, native=(...))`: a default built from the listed catalogue operations, and
  from the listed Python operators (dunder methods such as `'__and__'` or `'__getitem__'`) of the
  backend's native tensor type. It is supported when every operation in `uses` is supported and
  every dunder in `native` is defined by the native tensor type(s) (see
  `Backend.native_types`), checked statically on the classes: nothing is called.
- `@optional`: raises `NotImplementedError` (or returns `NotImplemented` where the reference
  says so); supported only when a subclass overrides it.

The rule: a default may use the native tensor's own operators (`+`, `&`, `>`, indexing, ...) only
when it declares them in `native`; everything else it needs must be a catalogue operation named in
`uses`. A backend whose tensor type lacks `&` then never claims `and_`, and no default claims what
the type cannot do.

The native tensor types are `Backend.native_types` when a backend declares them (a dunder counts
when all of them define it); otherwise the public classes with a `shape` attribute defined in the
already imported modules of the backend's `BackendSpec.modules` (a dunder counts when one of them
defines it). A dunder is looked up in the class's MRO as Python looks up operators, so the
metaclass (`type.__or__`) and `object`'s comparison placeholders do not count. Called anyway, such
a default raises `NotImplementedError` (see `Backend._check_native`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

USES_ATTR: Final = "__bk_uses__"
NATIVE_ATTR: Final = "__bk_native__"

# Named capabilities: each is supported when all of its operations are.
CAPABILITIES: Final[dict[str, tuple[str, ...]]] = {
    "gradients": ("jacobian",),
    "jit": ("jit_compile",),
    "dlpack": ("to_dlpack", "from_dlpack"),
    "sparse": ("sparse_coo_tensor", "is_sparse"),
    "float64": (),  # declared by the class attribute `Backend.float64_supported`
    "devices": ("allocate_on_device", "get_device"),
}


def generic(*uses: str, native: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Marks a generic default implementation.

    Args:
        *uses: The catalogue operations the default calls.
        native: The dunder methods of the native tensor type the default relies on, such as
            `("__and__",)` for `a & b` or `("__getitem__",)` for indexing.
    """
    bad = [d for d in native if not (d.startswith("__") and d.endswith("__"))]
    if bad or isinstance(native, str):
        raise ValueError(f"generic(native=...) takes a tuple of dunder names such as ('__and__',), not {native!r}")

    def mark(function: F) -> F:
        setattr(function, USES_ATTR, uses)
        setattr(function, NATIVE_ATTR, tuple(native))
        return function

    return mark


def required(function: F) -> F:
    """Marks an operation of the required set: abstract (`abc.abstractmethod`'s mark), every backend implements it."""
    setattr(function, "__isabstractmethod__", True)  # noqa: B010  (the attribute `abc` reads)
    return function


def optional(function: F) -> F:
    """Marks a base-class method that a backend must override to support the feature."""
    setattr(function, USES_ATTR, None)
    return function


def defines_operation(function: Any) -> bool:
    """Whether `function` is the definition of a catalogue operation: required (abstract), `@optional` or
    `@generic` (the registry, `bk._operations.definitions`, collects these from the catalogue's modules)."""
    return hasattr(function, USES_ATTR) or bool(getattr(function, "__isabstractmethod__", False))


def uses_of(function: Any) -> tuple[str, ...] | None:
    """The operations a base-class default uses, or `None` when it has no default."""
    uses: tuple[str, ...] | None = getattr(function, USES_ATTR, None)
    return uses


def native_of(function: Any) -> tuple[str, ...]:
    """The dunder methods of the native tensor type that a base-class default relies on."""
    native: tuple[str, ...] = getattr(function, NATIVE_ATTR, ())
    return native
