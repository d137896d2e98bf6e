"""The rules of docs/semantics.md as functions, for kernels that apply them themselves.

A plugin whose kernels are bare framework calls needs nothing from here: the core's one call path
applies the operation specs around every kernel (`bk._dispatcher`). A kernel a plugin declares
trusted (`@kernel(trusted=True)`, as the first-party plugins' hot kernels) calls these
functions instead of writing a copy of a rule: each exists once, in the core, and every backend gives the same answer. They take bk
`DType`s, Python values and, for the composites, a `Backend` whose catalogue operations they call;
none imports a framework.

Argument kinds
    `PYTHON_NUMBERS`, `PYTHON_REALS`, `is_python_number`, `is_python_real`, `is_real_scalar`,
    `only_python_numbers`: which values are weak Python numbers (NEP 50); `axes_tuple`: axes given as
    an int or a sequence; `check_convertible`: the refusal of values with no bk dtype (strings,
    objects, datetimes, `float128`, ints beyond int64), which the core runs in front of every `as_tensor` and `cast`
The Array API standard's arguments (as the core's generic defaults take them)
    `tensor_operand` (a tensor argument as a native tensor, named in the error of anything else),
    `dtype_argument` (a `dtype=` as a `DType`), `fill_tensor` (a fill value as a 0-d tensor of a dtype),
    `cumulative_axis` (`axis=None` of a cumulative operation), `inexact_operand` (an operand as floats of the
    current precision): each takes the operation's name, and all but `dtype_argument` the backend first, for
    kernels that take the standard's arguments as the defaults do.
Promotion
    `KINDS`, `weak_result`, `raise_kind`, `scalar_dtype`, `int_range`, `check_python_ints`: the dtype of
    tensors beside Python numbers, and the range check of Python ints.
Comparisons
    `COMPARISONS`, `comparison_constant`, `compare_beyond_range`: an integer tensor against a Python int
    beyond its range compares alike everywhere.
Division and powers
    `ZERO_DIVISORS`, `zero_divisor_rule`, `divide_integers`: integer `floordiv` and `mod` by zero give 0;
    `integer_power_rule`, `check_integer_power`: an integer to a negative integer power raises.
`clip`
    `clip` (the whole rule around a framework's clip kernel) and `limit` (the default kernel).
Reductions
    `accumulation_type`, `numpy_accumulation_type`, `check_nonempty`, `reduce_shape`: sums of bools and
    small ints, and the error of a reduction without identity over no elements.
Indices
    `INDEX_OPERATIONS` (the gathers and scatters whose indices the core checks on the data before the kernel,
    unless a backend lists them in `Backend.checked_indices`), `index_needs_cast`, `check_indices`, `wrap_indices` (indices in range, negative ones from the end),
    `check_nonnegative` (repeats, counts), `extrapolate_index` and `pad_source_indices` (indices beyond
    an axis mapped back by `grid_sample`'s extrapolation and `pad`'s modes), `advanced_index` and `array_key_layout` (NumPy's integer
    and bool array indexing for frameworks without it), `unravel_index`, `quantile`, `check_bincount`,
    `check_counted_values`.
Linear algebra and FFT
    `compute_dtype`, `real_dtype`, `matrix_operand`, `result_of`, `einsum_subscripts` (an einsum
    equation without `...` or implicit output), `check_fft_norm`,
    `check_vector_norm_ord`, `check_empty_matrix_norm`, `reduced_size`, `fft_sizes`.
Ranges and random numbers
    `range_plan` (the length and dtype of `range`), `int_uniform_bounds`.
Declarations
    `kernel` (declares a kernel where it is defined: `@kernel(trusted=True, why=...)` for a kernel called
    without a plan, `@kernel(fast=...)` for a planned kernel's fast call, `explains=True` for a trusted kernel
    that maps its own failures), `KernelDeclaration` (what `Backend.declared_kernels()` lists),
    `framework_call` (a fast call that is one framework call, for the dtypes the core derives from the specs
    and rules on its first call, in C), `listed_call` (the same for dtypes listed by hand; `native_call`, its
    earlier name, is deprecated: "native" names only the framework's own tensor types), `factory_call` (the
    fast call of `zeros`, `ones` or `empty`: one call of the framework's factory for a tuple shape and a `DType`
    it has, in C),
    `ORDERING` (the operations a backend may list in `Backend.complex_unordered`), `COMMON_OPERANDS`
    (the operations whose tensor operands the core casts to their common type), `HOT_OPERATIONS`
    (the elementwise operations, reductions, `where`, `as_tensor` and `cast`: those a plugin may tune and
    declare trusted); deprecated: `explains_failures` and `fast_path` (now `kernel(explains=True)` and
    `kernel(fast=...)`).
Gaps (what a framework lacks: `Backend.unsupported_dtypes`, `lacking_kernels`, `complex_unordered`,
    `nan_unordered`, `precision_deficits`)
    `declared_gaps` (every gap a backend class declares, with how the core fills it), `fill_dtype` (the dtype
    the core computes a lacking kernel's call in), `ordered_extreme` (NumPy's `max`/`min` of complex values
    or of values with NaN, for a trusted reduction kernel, which gets no plan).
Specs and settings
    `spec_verdict` (the error an operation's spec gives for a call, or None), `by_position` (a call's arguments
    passed by position as far as the catalogue's signature takes them, for code that writes calls), `check_device` (a device must
    be one of the backend's own: the plan of `allocate_on_device` checks it), `check_dtypes` (the spec's
    kind rule of an elementwise operation for native tensors, cached per dtype), `SETTINGS` (the context
    settings; `SETTINGS.precision_free` is True while no precision is set, for hot paths that skip
    the precision rule then), `solve_setup` and `solve_result` (the problem and result of the
    generic iterative solvers, for a backend that compiles their loop).
"""

from __future__ import annotations

from typing import Final

from ._catalogue_shapes import _cumulative_axis as cumulative_axis
from ._catalogue_standard import _dtype_param as dtype_argument
from ._catalogue_standard import _fill as fill_tensor
from ._catalogue_standard import _inexact_operand as inexact_operand
from ._catalogue_standard import _std_tensor as tensor_operand
from ._context import GLOBALS
from ._dispatcher import factory_call, listed_call, native_call
from ._explain import by_position, check_dtypes, spec_verdict
from ._kernels import FrameworkCall, KernelDeclaration, explains_failures, fast_path, framework_call, kernel
from ._linalg import finish as solve_result
from ._linalg import setup as solve_setup
from ._operations import COMMON_OPERANDS, ORDERING
from ._plans import check_device
from ._rules.arguments import (
    PYTHON_NUMBERS,
    PYTHON_REALS,
    axes_tuple,
    check_convertible,
    is_python_number,
    is_python_real,
    is_real_scalar,
    only_python_numbers,
)
from ._rules.clip import clip, limit
from ._rules.compare import COMPARISONS, compare_beyond_range, comparison_constant
from ._rules.division import ZERO_DIVISORS, divide_integers, zero_divisor_rule
from ._rules.extrapolation import extrapolate_index, pad_source_indices
from ._rules.gaps import declared_gaps, fill_dtype
from ._rules.indices import (
    INDEX_OPERATIONS,
    advanced_index,
    array_key_layout,
    check_bincount,
    check_counted_values,
    check_indices,
    check_nonnegative,
    index_needs_cast,
    is_array_index,
    quantile,
    unravel_index,
    wrap_indices,
)
from ._rules.linalg import (
    check_empty_matrix_norm,
    check_fft_norm,
    check_vector_norm_ord,
    compute_dtype,
    fft_sizes,
    matrix_operand,
    real_dtype,
    reduced_size,
    result_of,
)
from ._rules.order import extreme as ordered_extreme
from ._rules.powers import check_integer_power, integer_power_rule
from ._rules.ranges import int_uniform_bounds, range_plan
from ._rules.reductions import accumulation_type, check_nonempty, numpy_accumulation_type
from ._rules.weak import KINDS, check_python_ints, holds_number, int_range, raise_kind, scalar_dtype, weak_result
from ._specs import FAMILY as _FAMILY
from ._specs import reduce_shape
from ._specs._linalg import einsum_subscripts

__all__ = [
    "COMMON_OPERANDS",
    "COMPARISONS",
    "HOT_OPERATIONS",
    "INDEX_OPERATIONS",
    "KINDS",
    "ORDERING",
    "PYTHON_NUMBERS",
    "PYTHON_REALS",
    "SETTINGS",
    "ZERO_DIVISORS",
    "FrameworkCall",
    "KernelDeclaration",
    "accumulation_type",
    "advanced_index",
    "array_key_layout",
    "axes_tuple",
    "by_position",
    "check_bincount",
    "check_convertible",
    "check_counted_values",
    "check_device",
    "check_dtypes",
    "check_empty_matrix_norm",
    "check_fft_norm",
    "check_indices",
    "check_integer_power",
    "check_nonempty",
    "check_nonnegative",
    "check_python_ints",
    "check_vector_norm_ord",
    "clip",
    "compare_beyond_range",
    "comparison_constant",
    "compute_dtype",
    "cumulative_axis",
    "declared_gaps",
    "divide_integers",
    "dtype_argument",
    "einsum_subscripts",
    "explains_failures",
    "extrapolate_index",
    "factory_call",
    "fast_path",
    "fft_sizes",
    "fill_dtype",
    "fill_tensor",
    "framework_call",
    "holds_number",
    "index_needs_cast",
    "inexact_operand",
    "int_range",
    "int_uniform_bounds",
    "integer_power_rule",
    "is_array_index",
    "is_python_number",
    "is_python_real",
    "is_real_scalar",
    "kernel",
    "limit",
    "listed_call",
    "matrix_operand",
    "native_call",
    "numpy_accumulation_type",
    "only_python_numbers",
    "ordered_extreme",
    "pad_source_indices",
    "quantile",
    "raise_kind",
    "range_plan",
    "real_dtype",
    "reduce_shape",
    "reduced_size",
    "result_of",
    "scalar_dtype",
    "solve_result",
    "solve_setup",
    "spec_verdict",
    "tensor_operand",
    "unravel_index",
    "weak_result",
    "wrap_indices",
    "zero_divisor_rule",
]

HOT_OPERATIONS: Final = frozenset(_FAMILY) | frozenset(("where", "as_tensor", "cast"))
"""The elementwise operations, the reductions, `where`, and the conversions `as_tensor` and `cast`: the
operations whose kernels a plugin may tune and declare trusted (`@kernel(trusted=True)`) where a plan
(or the core's number rules around `as_tensor`, its checks around `cast`) costs more than the kernel on
small tensors. Such a kernel applies the rules itself, with the functions of this module. The eager
first-party plugins trust only their reductions, the conversions and a few unary functions; their
operators are bare kernels with fast calls (`kernel(fast=framework_call(...))`)."""

SETTINGS: Final = GLOBALS
"""The context settings object; `SETTINGS.precision_free` is True while no precision is set anywhere."""
