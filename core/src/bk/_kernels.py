"""How a backend declares its kernels: once, where each kernel is defined.

A kernel is the method of a backend class that computes one operation with its framework (`add`,
`sum`, `solve`). By default it is *planned*: every call reaches it through the operation's plan
(`bk._dispatcher`), which applies the operation's spec and the core's rules around it. A kernel says
anything else about itself with `kernel(...)`, on the method:

    @kernel(trusted=True, why="NumPy's reductions apply the accumulation rule with bk.rules")
    def sum(self, value, axis=None, keepdims=False): ...

    @kernel(fast=listed_call(torch.add, torch.Tensor, 2))
    def add(self, a, b): ...

or, for kernels made after the class exists (generated in a loop, or a lazy framework's recorders),
with `Backend.register_kernel(op, function, trusted=..., fast=..., why=...)`, which takes the same path
as a method defined in the class body. `Backend.declared_kernels()` lists every declaration of a class;
`Backend.trusted_operations` is the set of its trusted kernels, derived from them.

Declarations of the earlier API keep working, each with a `DeprecationWarning`: a `trusted_operations`
set in the class body, `bk.rules.fast_path(fast)` and `bk.rules.explains_failures`.

This module imports no backend class: the registry of declarations is the kernels themselves.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from ._dtype import DType

__all__ = [
    "FrameworkCall", "KernelDeclaration", "check_check", "core_backend", "declaration", "declare", "explains_failures", "fast_path",
    "framework_call", "is_core", "kernel", "raw_kernel", "register_core",
]  # fmt: skip

F = TypeVar("F", bound=Callable[..., Any])

DECLARATION: Final = "__bk_declaration__"
REGISTERED: Final = "__bk_registered__"  # a class's declarations of the kernels `Backend.register_kernel` set on it
LEGACY: Final = "__bk_legacy_trusted__"  # the names of `trusted_operations` sets in class bodies (the earlier API)
WRAPPED: Final = "__bk_kernel__"  # the kernel behind a wrapper the core put in front of it


@dataclass(frozen=True)
class KernelDeclaration:
    """What a kernel declares about itself (`kernel(...)`).

    Attributes:
        trusted: The kernel is called as it is, without the operation's plan: it applies
            docs/semantics.md itself (with `bk.rules`). The testkit checks its values, result dtypes and
            errors against the spec on every generated call, as any kernel's.
        fast: The kernel's fast call (`fast(self, *args)`), tried before the plan for a call without
            keywords while no precision is set; `NotImplemented` hands the call to the plan. Declared with
            `bk.rules.framework_call` (one framework call, for the dtypes the core derives from the specs),
            or `bk.rules.listed_call` (dtypes listed by hand), or written by hand. Only for planned kernels.
        explains: A trusted kernel that maps its own failures to the spec's bk errors inline (with
            `bk.explain_failure`) and applies every rule itself, the special complex values
            (`bk._rules.special`) and the conventions of eigenvalues (`bk._rules.conventions`) included, or
            leaves them to the framework that evaluates what it records: the core puts nothing at all in
            front of it.
        why: Why the kernel is trusted (shown by `testkit certify` and in the certificate).
    """

    trusted: bool = False
    fast: Callable[..., Any] | None = None
    explains: bool = False
    why: str = ""


@dataclass(frozen=True)
class FrameworkCall:
    """A fast call that is one call of a framework's function (`framework_call`): the core binds it to the
    kernel's operation and derives its dtypes from the operation's spec and rules."""

    function: Callable[..., Any]
    tensor_type: type[Any]
    arity: int
    weak_numbers: bool = True
    check: tuple[str, Any] | None = None
    lacking: frozenset[Any] = frozenset()
    caller: Callable[..., Any] | None = None


def check_check(name: str, check: Any) -> None:
    """Raises TypeError unless `check` is None or `(attribute name, value)`."""
    if check is not None and not (isinstance(check, tuple) and len(check) == 2 and isinstance(check[0], str)):
        raise TypeError(f"{name}: check must be None or (attribute name, value), got {check!r}")


def framework_call(
    function: Callable[..., Any],
    tensor_type: type[Any],
    arity: int,
    *,
    weak_numbers: bool = True,
    check: tuple[str, Any] | None = None,
    lacking: Iterable[Any] = (),
    caller: Callable[..., Any] | None = None,
) -> FrameworkCall:
    """A fast call (`kernel(fast=framework_call(...))`) that is one call of the framework's `function`:
    `function(x)` (`arity` 1) or `function(a, b)` (`arity` 2) for tensors of exactly `tensor_type`, wherever the
    operation's plan would do nothing around the kernel. No dtype table is written: the first time a call's
    first tensor has a dtype the fast call has not met, the core derives from the plans it compiles for that
    tensor (the operation's spec and rules and the backend's declarations) whether the plan of one tensor (two of
    one dtype) is the identity, and, with `weak_numbers`, whether a Python float, or a Python int in the dtype's
    exact range, needs nothing but its conversion to the tensor's dtype; no tensor of another dtype is made. `weak_numbers` is the one declaration of what the framework computes beyond the kernel's
    contract: it keeps a tensor's dtype beside a Python number of a kind the dtype holds (NEP 50). A rule
    changed in the core (`bk._rules`, a spec) changes the fast call's dtypes with the plans. With `check` (an
    attribute name and a value), only where the first tensor's attribute is that value. `lacking` lists the dtypes
    (`DType`) and kinds (`bool`, `int`, `float`, `complex`) for which `function` is not your kernel (PyTorch's
    `add` of complex values, which the kernel adds part by part): the plan serves those. The testkit checks that
    each fast call agrees with its plan (the case `OP/declared`).

    `caller` is for a plugin with its own compiled call of `function` (bk-numpy's `_fastops.UfuncCall`, which reads
    an array's dtype from its struct): `caller(function, tensor_type, arity, derive)` returns the fast call, which serves what
    `derive(backend, tensor)` gives for the tensor's dtype, `(tensors, floats, ints)` as above (ints: `(low, high)`
    or None), asked once per dtype; the Python numbers it gives hold on either side of the tensor. Without it the
    core's own call serves (`_fastplan.DirectCall`, or the same in Python), with the number second only.

    `arity` 3 is a choice, `function(condition, x, y)` (`where`): derived for a bool condition and x and y of
    one dtype, or one of them a Python float on either side; the core's call of it runs in Python.

    Raises:
        ValueError: for an arity other than 1, 2 or 3, or a `check` with 3.
        TypeError: for a function that is not callable, a tensor type that is not a class, or a bad flag.
    """
    if arity not in (1, 2, 3):
        raise ValueError(f"framework_call: arity must be 1, 2 or 3, got {arity!r}")
    if arity == 3 and check is not None:
        raise ValueError("framework_call: arity 3 (a condition and two operands, as `where`) takes no check")
    if not callable(function) or not isinstance(tensor_type, type):
        raise TypeError(f"framework_call: a callable and a tensor type, got {function!r} and {tensor_type!r}")
    if not isinstance(weak_numbers, bool):
        raise TypeError(f"framework_call: weak_numbers must be True or False, got {weak_numbers!r}")
    check_check("framework_call", check)
    lacking = frozenset(lacking)
    if any(not (isinstance(d, DType) or d in (bool, int, float, complex)) for d in lacking):
        raise TypeError(f"framework_call: lacking holds bk.DTypes and the kinds bool, int, float, complex, got {sorted(map(repr, lacking))}")
    if caller is not None and (not callable(caller) or check is not None):
        raise TypeError(f"framework_call: caller must be callable, and takes no check, got {caller!r}")
    return FrameworkCall(function, tensor_type, arity, weak_numbers, check, lacking, caller)


PLANNED: Final = KernelDeclaration()
"""The declaration of a kernel that declares nothing: planned, without a fast call."""


def declare(trusted: bool = False, fast: Any = None, explains: bool = False, why: str = "") -> KernelDeclaration:
    """The declaration these properties make (see `KernelDeclaration`): `kernel(...)` and `Backend.register_kernel` state it.

    Raises:
        TypeError: for a declaration that cannot hold: `explains` without `trusted` (a planned kernel's
            failures are always explained by its plan), a `fast` call on a trusted kernel (a trusted
            kernel is its own fast call), a `fast` that is not callable, or flags that are not bools.
    """
    for flag, value in (("trusted", trusted), ("explains", explains)):
        if not isinstance(value, bool):
            raise TypeError(f"bk.rules.kernel: {flag} must be True or False, got {value!r}")
    if explains and not trusted:
        raise TypeError("bk.rules.kernel: explains=True is for a trusted kernel; a planned kernel's failures are explained by its plan")
    if fast is not None and not callable(fast) and not isinstance(fast, FrameworkCall):
        raise TypeError(f"bk.rules.kernel: fast must be a callable fast call (bk.rules.listed_call(...)), got {fast!r}")
    if fast is not None and trusted:
        raise TypeError("bk.rules.kernel: a trusted kernel is called as it is, so it takes no fast call; declare one of the two")
    if not isinstance(why, str):
        raise TypeError(f"bk.rules.kernel: why must be a str, got {why!r}")
    return KernelDeclaration(trusted, fast, explains, why)


def kernel(*, trusted: bool = False, fast: Callable[..., Any] | None = None, explains: bool = False, why: str = "") -> Callable[[F], F]:
    """Declares the decorated method a kernel with these properties (see `KernelDeclaration`; `declare` says
    which declarations raise TypeError)."""
    declared = declare(trusted, fast, explains, why)

    def mark(function: F) -> F:
        setattr(function, DECLARATION, declared)
        return function

    return mark


def declaration_of(method: Any) -> KernelDeclaration:
    """The declaration of a kernel (or of the core's wrapper in front of it); `PLANNED` when it declares nothing.

    The attributes of the earlier API count as declarations: `__bk_fast__` (set by `fast_path`) and
    `__bk_explains__` (set by `explains_failures`)."""
    function = getattr(method, WRAPPED, method)
    declared = getattr(function, DECLARATION, None)
    if declared is not None:
        return declared  # type: ignore[no-any-return]
    fast, explains = getattr(function, "__bk_fast__", None), bool(getattr(function, "__bk_explains__", False))
    if fast is None and not explains:
        return PLANNED
    return KernelDeclaration(trusted=False, fast=fast, explains=explains)


def declaration(cls: type, name: str) -> tuple[type, KernelDeclaration] | None:
    """The class that defines the kernel of `name` for the backend class `cls`, and the kernel's declaration:
    registered with `Backend.register_kernel`, on the kernel itself, or (the earlier API) listed in a
    `trusted_operations` set; None where the core's own class defines it (a generic default, always planned)."""
    owner = next((k for k in cls.__mro__ if name in vars(k)), None)
    if owner is None or is_core(owner):
        return None
    registered = vars(owner).get(REGISTERED)
    found = registered[name] if registered is not None and name in registered else declaration_of(vars(owner)[name])
    if not found.trusted and name in getattr(cls, LEGACY, ()):
        found = KernelDeclaration(trusted=True, explains=found.explains, why=found.why or "listed in trusted_operations")
    return owner, found


def raw_kernel(backend: Any, name: str) -> Callable[..., Any]:
    """The kernel of `name` that `backend`'s class defines, without the dispatcher in front (a bound
    method): what the core calls for its own casts and conversions inside a plan."""
    method = getattr(type(backend), name)
    return getattr(method, WRAPPED, method).__get__(backend)  # type: ignore[no-any-return]


_CORE: list[type] = []  # `bk.Backend` and the classes it derives from (`ABC`), once bk._backend defined it


def register_core(base: type) -> None:
    """Called once by `bk._backend` with `Backend`: the modules below it ask for it here instead of importing it."""
    _CORE[:] = [klass for klass in base.__mro__ if klass is not object]


def core_backend() -> type:
    """The class `bk.Backend` (defined once `bk` is imported)."""
    return _CORE[0]


def is_core(owner: type) -> bool:
    """Whether `owner` is `bk.Backend` (whose operations are the core's definitions) or a class it derives from (`ABC`)."""
    return owner in _CORE


def fast_path(fast: Callable[..., Any]) -> Callable[[F], F]:
    """Deprecated: `@bk.rules.kernel(fast=fast)` declares a kernel's fast call."""
    warnings.warn("bk.rules.fast_path is deprecated: declare @bk.rules.kernel(fast=...) on the kernel", DeprecationWarning, stacklevel=2)

    def declare(function: F) -> F:
        function.__bk_fast__ = fast  # type: ignore[attr-defined]
        return function

    return declare


def explains_failures(function: F) -> F:
    """Deprecated: `@bk.rules.kernel(trusted=True, explains=True)` declares a trusted kernel that maps its own failures."""
    warnings.warn(
        "bk.rules.explains_failures is deprecated: declare @bk.rules.kernel(trusted=True, explains=True) on the kernel", DeprecationWarning, stacklevel=2
    )
    function.__bk_explains__ = True  # type: ignore[attr-defined]
    return function
