"""The registry of operations: one record (`Operation`) per operation of the catalogue, and `Backend`'s
operations built from it.

Each operation is defined once, as a function of the backend and its arguments, in one of the catalogue's
modules (the signatures of the required set and of the optional operations, the generic defaults, the
Array API standard's operations); `bk._backend` registers them here (`register_definitions`) and gives
`Backend` each as its method; `definitions()` lists them. The type checkers' view of those methods is the generated stub
`_operation_signatures.pyi` (`python -m bk._stub` writes it; a test keeps it in step).

A record holds what the core knows about an operation, whatever backend computes it:

- its name, definition (`definition`: signature, documentation, `doc`, and generic default, `default`, if the
  core has one), its spec
  (`bk._specs`: the accepted arguments, the result's shape and dtype, the error of each mistake, and
  `operand_dtype`, the dtype its operands compute in) or, for the operations that are no array operation,
  the reason it has none (`no_spec`);
- the fast calls it allows (`allows_framework_call`: a derived one for an elementwise operation);
- its family (`"unary"`, `"binary"`, `"reduction"`), which decides the key of a call's plan;
- how the core calls its kernel: `planned` (through the operation's plan), or not at all
  (`infrastructure`: the queries, conversions and function transforms every backend calls on itself),
  or behind `supports()` only (`guarded`: a generic algorithm without a spec);
- its data rules and composites: `data_error` (the bk class of a mistake in the data), `ordering`
  (orders values: NumPy's complex and NaN order apply), `compares`, `common_operands` (tensor operands
  cast to their common type), `operands` (which arguments are tensor operands, where the spec's
  parameters do not say), `wraps_python_ints`, `checks_device`, `zero_divisors`, `checked_indices`,
  `special_values`, `convention`, the answers without a kernel over no axes (`degenerate_needs`,
  `no_axes`, `no_axes_needs`), and `reads_values` (materialises a lazy backend's values).

The dispatcher (`bk._dispatcher`) reads the record of an operation once, when it puts the plan in front
of a kernel, and never a name set of its own. The declarations below are the one place each property
is stated. This module imports no backend class.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any, Final

from ._errors import IndexOutOfRangeError
from ._features import defines_operation, uses_of
from ._rules.compare import COMPARISONS
from ._rules.conventions import CONVENTIONS
from ._rules.division import ZERO_DIVISORS
from ._rules.indices import INDEX_OPERATIONS
from ._rules.special import SPECIAL_VALUES

__all__ = ["COMMON_OPERANDS", "DATA_ERRORS", "ORDERING", "SEQUENCE", "Operation", "collect_definitions", "defined_in", "definitions", "register_definitions", "operation", "operations"]

SEQUENCE: Final = (-1,)
"""`Operation.operands` of an operation whose operands are the tensors of its first argument (a sequence)."""

# ---------------------------------------------------------------- the definitions

_DEFINITIONS: dict[str, Callable[..., Any]] = {}
_DEFINITIONS_VIEW: Final = MappingProxyType(_DEFINITIONS)
_DEFINED_IN: list[ModuleType] = []


def collect_definitions(modules: Sequence[ModuleType]) -> dict[str, Callable[..., Any]]:
    """The operations `modules` define, by name, in the order of `modules` and then of the source: each public
    function of a module marked as an operation (`bk._features.defines_operation`: `@required`, `@optional` or
    `@generic`). An operation defined twice raises `TypeError`."""
    found: dict[str, Callable[..., Any]] = {}
    for module in modules:
        for name, value in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(value) or value.__module__ != module.__name__ or not defines_operation(value):
                continue
            if name in found:
                raise TypeError(f"the operation {name!r} is defined twice: in {found[name].__module__} and in {module.__name__}")
            found[name] = value
    return found


def register_definitions(modules: Sequence[ModuleType]) -> Mapping[str, Callable[..., Any]]:
    """Called once by `bk._backend` with the catalogue's modules, in reading order (the topic banners of
    `_catalogue_core` and `_catalogue_algorithms` first), before it builds `Backend` from what this returns:
    the modules below `Backend` ask for the definitions here instead of importing the modules above them."""
    _DEFINITIONS.update(collect_definitions(modules))
    _DEFINED_IN[:] = modules
    return _DEFINITIONS_VIEW


def definitions() -> Mapping[str, Callable[..., Any]]:
    """Every operation's definition, by name: the function `Backend` gets as its method (once `bk` is imported)."""
    return _DEFINITIONS_VIEW


def defined_in() -> tuple[ModuleType, ...]:
    """The modules that define the operations, in the catalogue's reading order."""
    return tuple(_DEFINED_IN)


# ---------------------------------------------------------------- the declarations

INFRASTRUCTURE: Final = frozenset(
    (
        "is_tensor", "as_tensor", "is_available", "numpy", "dtype", "staticshape", "shape", "ndims", "cast", "combine_types",
        "auto_cast", "jit_compile", "jit_compile_grad", "jit_compile_hessian", "jacobian", "hessian", "custom_gradient",
        "while_loop", "call", "vectorized_call", "numpy_call", "list_devices", "get_default_device", "set_default_device",
        "get_device", "get_device_by_ref", "block_until_ready", "is_module", "is_sparse", "nn_library", "prefers_channels_last",
        "requires_fixed_shapes_when_tracing", "seed", "variable", "compute_count", "supports", "features",
        "linear_solve", "conjugate_gradient", "conjugate_gradient_adaptive", "bi_conjugate_gradient", "minimize", "linear",
    )
)  # fmt: skip
"""The methods every backend calls on itself all the time, and those that transform functions: no plan is put
in front of them (`as_tensor` and `cast` get the core's conversion rules instead)."""

GUARDED: Final = frozenset(
    (
        "vectorized_call",
        "numpy_call",
        "while_loop",
        "linear_solve",
        "conjugate_gradient",
        "conjugate_gradient_adaptive",
        "bi_conjugate_gradient",
        "minimize",
        "linear",
    )
)
"""The generic defaults without a spec (function transforms and algorithms): behind `supports()` only."""

_INDICES: Final = (
    "gather", "gather_1d", "gather_nd", "gather_by_component_indices", "batched_gather_nd", "batched_gather_1d", "batch_gather",
    "scatter", "scatter_nd", "scatter_1d_scalar", "scatter_nd_scalar", "indexed_segment_sum", "take", "take_along_axis", "multi_slice",
)  # fmt: skip
DATA_ERRORS: Final[Mapping[str, type[Exception]]] = MappingProxyType(
    {
        **dict.fromkeys(_INDICES, IndexOutOfRangeError),
        **dict.fromkeys(("bincount", "batched_bincount", "unravel_index", "ravel_multi_index", "repeat", "pow"), ValueError),
        **dict.fromkeys(("solve", "inv", "cholesky", "matrix_power"), ValueError),  # a singular or indefinite matrix
    }
)
"""The bk class of a mistake in the data (not in shapes, dtypes or arguments) for operations that have one."""

ORDERING: Final = frozenset(
    (
        "max", "min", "argmax", "argmin", "maximum", "minimum", "clip", "sort", "argsort", "searchsorted", "unique",
        "greater_than", "greater_or_equal", "quantile",
    )
)  # fmt: skip
"""The operations that order values: a backend lists those it cannot apply to complex values in
`Backend.complex_unordered` (or with NaN where NumPy puts it, `Backend.nan_unordered`), and the core fills
NumPy's order (`bk._rules.order`)."""

COMMON_OPERANDS: Final = frozenset(
    (
        "matmul", "tensordot", "vecdot", "outer", "kron", "cross", "isin", "isclose", "allclose", "searchsorted",
        "solve", "solve_triangular", "solve_triangular_dense", "matrix_solve_least_squares", "mul_matrix_batched_vector", "conv",
    )
)  # fmt: skip
"""The operations whose tensor operands the core casts to their common type before the kernel (NumPy's
promotion, Python numbers weak), or to the result's float type where the result is a float of integer
operands (`solve` of ints): a kernel never sees `matmul(float32, float64)` or `isin(int32, int64)`."""

_OPERANDS: Final[Mapping[str, tuple[int, ...]]] = {"where": (1, 2), "stack": SEQUENCE, "concat": SEQUENCE, "clip": ()}
"""The tensor operands of the operations whose spec's parameters do not say (`clip`'s bounds: the clip rule)."""

_WRAPPING: Final = frozenset(("where",))  # Python ints wrap into the other branch's int dtype (docs/semantics.md)
_DEVICE: Final = frozenset(("allocate_on_device",))  # the device must be one of the backend's own

_DEGENERATE_NEEDS: Final[Mapping[str, tuple[str, ...]]] = {
    "var": ("abs", "sub", "mul"),
    "std": ("abs", "sub"),
    "count_nonzero": ("not_equal",),
}
"""The operations the answer of a reduction over no axes uses, beyond `as_tensor` and `cast` (without them,
the kernel answers)."""

_NO_AXES: Final[Mapping[str, str]] = {
    "logsumexp": "axis", "vector_norm": "axis", "squeeze": "axis", "flip": "axes", "roll": "axis", "moveaxis": "source", "fftshift": "axes",
    "ifftshift": "axes", "fft": "axes", "ifft": "axes", "fftn": "axes", "ifftn": "axes", "rfftn": "axes", "irfftn": "axes",
}  # fmt: skip
"""The operations besides the reductions that take axes, by the argument naming them: over no axes (`axis=()`)
each gives its input, in the spec's result dtype (`vector_norm` its absolute value), without the kernel."""
_NO_AXES_NEEDS: Final[Mapping[str, tuple[str, ...]]] = {"vector_norm": ("abs", "not_equal"), "irfftn": ("real",)}

_READS: Final = frozenset(("numpy", "block_until_ready"))
"""The methods that materialise a lazy backend's values: where its framework raises the errors of the
operations that made them (`Backend.evaluates_lazily`)."""


# ---------------------------------------------------------------- the record


@dataclass(frozen=True)
class Operation:
    """What the core knows about one operation of the catalogue (see the module's docstring)."""

    name: str
    family: str | None = None
    no_spec: str | None = None
    infrastructure: bool = False
    guarded: bool = False
    data_error: type[Exception] | None = None
    ordering: bool = False
    compares: bool = False
    common_operands: bool = False
    operands: tuple[int, ...] | None = None
    wraps_python_ints: bool = False
    checks_device: bool = False
    zero_divisors: bool = False
    checked_indices: bool = False
    special_values: bool = False
    convention: bool = False
    degenerate_needs: tuple[str, ...] = ()
    no_axes: str | None = None
    no_axes_needs: tuple[str, ...] = ()
    reads_values: bool = False

    @property
    def spec(self) -> Any:
        """The operation's `OpSpec` (`bk.op_spec`), or None for an operation that is no array operation."""
        from ._specs import op_specs

        return op_specs().get(self.name)

    @property
    def planned(self) -> bool:
        """Whether the kernels of this operation are called through its plan, unless a backend declares one trusted."""
        return self.spec is not None and not self.infrastructure

    @property
    def rule(self) -> str:
        """The spec's rule in words (or why the operation has no spec)."""
        spec = self.spec
        return spec.rule if spec is not None else (self.no_spec or "")

    @property
    def definition(self) -> Callable[..., Any] | None:
        """The operation's definition (`definitions()`): its signature, documentation and body, the method
        `Backend` gets; None for a name no catalogue module defines (a backend's own extra method)."""
        return _DEFINITIONS.get(self.name)

    @property
    def doc(self) -> str:
        """The catalogue's documentation of the operation (the first paragraph of its definition's docstring)."""
        return (getattr(self.definition, "__doc__", None) or "").strip().split("\n\n")[0]

    @property
    def default(self) -> Any:
        """The core's generic default of the operation (a function of the backend and the arguments, built from
        other operations, see `bk._features.generic`), or None when a backend must bring its own kernel."""
        definition = self.definition
        return definition if uses_of(definition) is not None else None

    @property
    def allows_framework_call(self) -> bool:
        """Whether a kernel of the operation may declare a derived fast call (`bk.rules.framework_call`): an
        operation of one or two tensors and nothing else (`add`, `sin`, `pow`, `less`), or a choice between two
        by a condition (`where`: three tensors, the last two its operands), whose plan per dtype the core can
        derive from."""
        spec = self.spec
        if spec is None or self.convention or not all(kind == "Tensor" for _, kind in spec.params):
            return False  # (a convention: the core puts the result in it after the kernel)
        return 1 <= len(spec.params) <= 2 or (len(spec.params) == 3 and self.operands == (1, 2))

    def operand_dtype(self, *args: Any, **kwargs: Any) -> Any:
        """The dtype the operation's tensor operands compute in for these arguments (`OpSpec.operand_dtype`), or None."""
        spec = self.spec
        return None if spec is None else spec.operand_dtype(*args, **kwargs)

    def signature(self) -> str:
        """The catalogue's signature of the operation, as the spec states it (`"add(a, b)"`); `""` without a spec."""
        spec = self.spec
        return "" if spec is None else str(spec.signature())


@functools.cache
def operations() -> Mapping[str, Operation]:
    """Every operation's record, by name: those with a spec and those the specs list as no array operation."""
    from ._specs import FAMILY, NO_SPEC, op_specs

    names = sorted({*definitions(), *op_specs(), *NO_SPEC, *INFRASTRUCTURE, *GUARDED, *DATA_ERRORS, *ORDERING, *COMMON_OPERANDS})
    return MappingProxyType(
        {
            name: Operation(
                name=name,
                family=FAMILY.get(name),
                no_spec=NO_SPEC.get(name),
                infrastructure=name in INFRASTRUCTURE,
                guarded=name in GUARDED,
                data_error=DATA_ERRORS.get(name),
                ordering=name in ORDERING,
                compares=name in COMPARISONS,
                common_operands=name in COMMON_OPERANDS,
                operands=_OPERANDS.get(name),
                wraps_python_ints=name in _WRAPPING,
                checks_device=name in _DEVICE,
                zero_divisors=name in ZERO_DIVISORS,
                checked_indices=name in INDEX_OPERATIONS,
                special_values=name in SPECIAL_VALUES,
                convention=name in CONVENTIONS,
                degenerate_needs=_DEGENERATE_NEEDS.get(name, ()),
                no_axes=_NO_AXES.get(name),
                no_axes_needs=_NO_AXES_NEEDS.get(name, ()),
                reads_values=name in _READS,
            )
            for name in names
        }
    )


def operation(name: str) -> Operation:
    """The record of the operation `name`; an operation the registry does not know gets a record of defaults
    (a backend's own extra method: no spec, no rules)."""
    found = operations().get(name)
    return found if found is not None else Operation(name)
