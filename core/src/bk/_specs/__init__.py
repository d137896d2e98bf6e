"""Operation specs: one declarative rule per catalogue operation (shapes, dtypes, errors).

Each catalogue operation of `bk.Backend` that computes an array has an `OpSpec`: the argument kinds
it accepts, its result-dtype rule (NumPy 2 promotion, Python numbers weak as in NEP 50, the
precision setting, per-operation exceptions), its shape rule (data-dependent sizes are `None`) and
the bk error class of each mistake. The specs work on templates only and never allocate data
proportional to the shapes. See `docs/semantics.md` (checked against these specs by the core's tests).

Public API (re-exported by `bk`)
--------------------------------
- `ShapeDtype(shape, dtype)`: frozen, hashable template of a tensor (`None` sizes are unknown).
- `OpSpec`: `.name`, `.rule` (one paragraph of text), `.params` (argument names and kinds),
  `.call_signature` (an `inspect.Signature`), `.infer(*args, **kwargs)` -> `ShapeDtype` or a tuple
  of them, and `.operand_dtype(*args, **kwargs)` -> the `DType` the tensor operands are cast to
  before the kernel (elementwise operations, reductions, `where`, `clip`), or `None`.
- `op_spec(name)`, `op_specs()` (read-only mapping), `eval_shape(op_name, *args, **kwargs)`.

Registering the spec of a new operation (for core modules that add operations)
-----------------------------------------------------------------------------
Import from `bk._specs` and register at import time of your module; `bk._specs` loads the
modules listed in `SPEC_MODULES` (add yours there, so the spec exists before anyone asks)::

    from bk._specs import BOOL_RESULT, FLOAT_RESULT, SAME, binary, reduction, register, specifies, unary

    unary("expm1", FLOAT_RESULT, "exp(x) - 1, elementwise ...")          # one line per operation
    binary("hypot", "sqrt(a**2 + b**2) ...", int_to_float=True, kinds=frozenset({float}))
    binary("less", "x < y ...", result=BOOL_RESULT, check_overflow=False, names=("x", "y"))
    reduction("var", FLOAT_RESULT, "Variance over axis ...", argument="x")

    @specifies("trace", rule="Sum of the diagonal ...")
    def _trace(x: Tensor, offset: int = 0) -> ShapeDtype:      # the catalogue's arguments
        t = strong(x, "trace")                                  # ArgumentTypeError for non-tensors
        ...
        return ShapeDtype(shape, WIDEN(t.dtype))

- `register(spec, *, replace=False)`: adds an `OpSpec(name, rule, infer, params=None,
  operands=None)`; a second spec of the same name is a `ValueError` unless `replace=True`.
- `specifies(name, rule, *, operands=None, replace=False)`: decorator form of `register`; the
  infer function's parameter annotations (strings such as `"Tensor"`, `"Axis"`, `"Axes"`,
  `"Shape"`, `"DTypeLike"`, `"int"`) become `OpSpec.params`; `operands` (same arguments, returns
  a `DType` or `None`) becomes `OpSpec.operand_dtype`.
- Building blocks (each registers and returns the `OpSpec`, with its `operand_dtype`):
  `unary(name, result, rule, *, kinds=NUMERIC, argument="x", compute=None)`,
  `binary(name, rule, *, result=None, kinds=NUMERIC, bool_as=None, int_to_float=False,
  check_overflow=True, names=("a", "b"))`,
  `reduction(name, result, rule, *, kinds=NUMERIC, keepdims=True, empty_error=False,
  argument="value", compute=None)`. `compute` maps the input's dtype to the dtype it is cast to
  before the kernel when that is not the result's (`abs`: `SAME`, the result being real; `mean`:
  `FLOAT_RESULT`).
  Dtype rules (`DType -> DType`): `SAME` (floats take the set precision), `FLOAT_RESULT`
  (bool/int give the default float), `REAL_RESULT` (complex gives its float), `BOOL_RESULT`,
  `WIDEN` (sum's rule). Kind sets: `NUMERIC`, `INTEGER_KINDS` (bool, int), `FLOAT_KINDS`.
- Helpers for hand-written rules: `as_operand` (a tensor or a `Weak` Python number), `strong`
  (a tensor; a lone Python number takes `as_tensor`'s dtype), `promote` (NEP 50 + precision,
  `OverflowError` for Python ints that do not fit), `broadcast_shapes`, `reduce_shape`,
  `single_axis`, `as_shape`, `as_dtype_arg`, `check_kinds`, `default_float`, `default_complex`,
  `float_of`, `complex_of`, `real_of`, `at_precision`, `shape_of`, `with_signature`.

Operations that are not array operations (devices, compilation, autodiff, tree utilities, ...)
are listed with the reason in `NO_SPEC`; a test checks that every `Backend` feature is in one of
the two tables.
"""

from __future__ import annotations

import inspect
import re
from importlib import import_module
from typing import Any, Final

from ._base import (
    BOOL,
    FLOAT_KINDS,
    INT64,
    INTEGER_KINDS,
    NUMERIC,
    OpSpec,
    ShapeDtype,
    Weak,
    as_dtype_arg,
    as_operand,
    as_shape,
    as_tensor_dtype,
    at_precision,
    broadcast_shapes,
    check_int_range,
    check_kinds,
    complex_of,
    default_complex,
    default_float,
    eval_shape,
    float_of,
    is_python_number,
    op_spec,
    op_specs,
    promote,
    real_of,
    reduce_shape,
    register,
    shape_of,
    single_axis,
    specifies,
    strong,
)
from ._blocks import BOOL_RESULT, FAMILY, FLOAT_RESULT, REAL_RESULT, SAME, WIDEN, binary, reduction, unary, with_signature

__all__ = [
    "BOOL",
    "BOOL_RESULT",
    "FAMILY",
    "FLOAT_KINDS",
    "FLOAT_RESULT",
    "INT64",
    "INTEGER_KINDS",
    "NO_SPEC",
    "NUMERIC",
    "REAL_RESULT",
    "SAME",
    "SPEC_MODULES",
    "WIDEN",
    "OpSpec",
    "ShapeDtype",
    "Weak",
    "annotate_docstrings",
    "as_dtype_arg",
    "as_operand",
    "as_shape",
    "as_tensor_dtype",
    "at_precision",
    "binary",
    "broadcast_shapes",
    "check_int_range",
    "check_kinds",
    "complex_of",
    "default_complex",
    "default_float",
    "eval_shape",
    "float_of",
    "is_python_number",
    "op_spec",
    "op_specs",
    "promote",
    "real_of",
    "reduce_shape",
    "reduction",
    "register",
    "shape_of",
    "single_axis",
    "specifies",
    "strong",
    "unary",
    "with_signature",
]

SPEC_MODULES: Final = [
    "bk._specs._elementwise",
    "bk._specs._reductions",
    "bk._specs._shapes",
    "bk._specs._indexing",
    "bk._specs._creation",
    "bk._specs._linalg",
    "bk._specs._standard",
    "bk._specs._standard_linalg",
]
"""The modules that register specs, imported when `bk._specs` loads (append yours)."""

_QUERY: Final = "a query about a value, answered with a Python value (or a NumPy array), not a tensor operation"
_DEVICES: Final = "device management: no tensor result"
_FUNCTION: Final = "transforms or calls a Python function: the result is whatever the function returns"
_TREE: Final = "applies to every leaf of a tree of tuples, lists and dicts; each leaf follows the spec of {}"
_SOLVER: Final = "a generic algorithm returning a SolveResult (its x has the template of the right-hand side y / x0)"
_FACT: Final = "a fact about the backend, no tensor result"

NO_SPEC: Final[dict[str, str]] = {
    "is_tensor": _QUERY,
    "is_available": _QUERY,
    "is_sparse": _QUERY,
    "is_module": _QUERY,
    "numpy": "converts to NumPy: a NumPy array of the tensor's shape and dtype (bfloat16 through ml_dtypes), not a backend tensor",
    "dtype": _QUERY,
    "staticshape": _QUERY,
    "shape": _QUERY,
    "ndims": _QUERY,
    "size": _QUERY,
    "sizeof": _QUERY,
    "determine_size": _QUERY,
    "get_sparse_format": _QUERY,
    "disassemble": "splits a (sparse) tensor into the constituents its format defines",
    "combine_types": "works on DTypes, not tensors; the promotion every spec applies (see bk.combine_types)",
    "list_devices": _DEVICES,
    "get_default_device": _DEVICES,
    "set_default_device": _DEVICES,
    "get_device": _DEVICES,
    "get_device_by_ref": _DEVICES,
    "deallocate": "frees memory; no result",
    "block_until_ready": "waits for asynchronous work; no result",
    "to_dlpack": "memory sharing: a DLPack object of the tensor, no new tensor",
    "from_dlpack": "memory sharing: the template is the exporter's tensor's, known only to the exporter",
    "seed": "seeds the random generator; no result",
    "nn_library": _FACT,
    "prefers_channels_last": _FACT,
    "requires_fixed_shapes_when_tracing": _FACT,
    "copy_leaves": _TREE.format("copy"),
    "stop_gradient_tree": _TREE.format("stop_gradient"),
    "stack_leaves": _TREE.format("stack"),
    "call": _FUNCTION,
    "vectorized_call": _FUNCTION,
    "while_loop": _FUNCTION,
    "custom_gradient": _FUNCTION,
    "jit_compile": _FUNCTION,
    "jit_compile_grad": _FUNCTION,
    "jit_compile_hessian": _FUNCTION,
    "jacobian": _FUNCTION,
    "hessian": _FUNCTION,
    "minimize": _FUNCTION,
    "linear_solve": _SOLVER,
    "conjugate_gradient": _SOLVER,
    "conjugate_gradient_adaptive": _SOLVER,
    "bi_conjugate_gradient": _SOLVER,
    "broadcast_shapes": "a pure shape function: a tuple of ints from tuples of ints, no tensor",
    "result_type": "works on DTypes (of tensors, DTypes and Python numbers), not tensors: the DType the binary operations give",
    "can_cast": "works on DTypes: a Python bool",
    "finfo": "works on DTypes: the limits of a float type (a FloatInfo)",
    "iinfo": "works on DTypes: the limits of an integer type (an IntInfo)",
    "isdtype": "works on DTypes: a Python bool",
}
"""Backend features that are no array operation, each with the reason it has no spec."""

for _module in SPEC_MODULES:
    import_module(_module)
del _module


def annotate_docstrings(cls: Any) -> None:
    """Appends `Rule: <spec.rule>` to the docstring of each method of `cls` that has a spec (once)."""
    for name, spec in op_specs().items():
        function = getattr(cls, name, None)
        if not inspect.isfunction(function):
            continue
        doc = getattr(function, "__doc__", None)
        if function is None or doc is None or "\nRule: " in doc or "\n        Rule: " in doc:
            continue
        lines = doc.expandtabs().splitlines()
        indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
        indent = " " * (min(indents) if indents else 8)
        function.__doc__ = f"{doc.rstrip()}\n\n{indent}Rule: {_rst_text(spec.rule)}\n"


def _rst_text(text: str) -> str:
    """`text` safe in a reStructuredText docstring: `*`, `|` and a word's trailing `_` read as themselves."""
    return re.sub(r"(\w)_\b", r"\1\\_", text.replace("*", "\\*").replace("|", "\\|"))
