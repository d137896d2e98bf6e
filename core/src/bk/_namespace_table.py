"""The one table from the Array API standard's names to bk's catalogue operations.

Each entry maps a standard name to the catalogue operations it needs and, where the signatures
differ, a small adapter: `dtype=`, `keepdims=`, `copy=`, `device=` and axis arguments, argument
order, tuples of results. Adapters compute nothing themselves beyond that: every value comes from
catalogue operations. An entry whose operations the backend does not support is left out of the
namespace (and `hasattr(xp, name)` is False).

Entries: `name: (ops, factory)`. A factory of `None` installs the bound catalogue method `ops[0]`
itself (no overhead at all); otherwise `factory(backend, namespace)` returns the function.
"""

from __future__ import annotations

import types
from typing import Any, Final

from ._namespace_adapters import (
    _accumulate,
    _arg_reduce,
    _argsort,
    _broadcast_arrays,
    _broadcast_to,
    _clip,
    _concat,
    _count_nonzero,
    _cumulative,
    _diff,
    _expand_dims,
    _flip,
    _moveaxis,
    _negative,
    _nonzero,
    _permute_dims,
    _positive,
    _reduce,
    _repeat,
    _reshape,
    _roll,
    _searchsorted,
    _sort,
    _spread,
    _square,
    _squeeze,
    _squeeze_catalogue,
    _stack,
    _swapped,
    _take,
    _take_along_axis,
    _tile,
    _unique,
    _unstack,
    _where,
)
from ._namespace_common import (
    EighResult,
    Factory,
    SlogdetResult,
    bound_method,
)
from ._namespace_creation import (
    _arange,
    _asarray,
    _astype,
    _can_cast,
    _device,
    _empty,
    _empty_like,
    _eye,
    _filled,
    _filled_like,
    _finfo,
    _from_dlpack,
    _full,
    _full_like,
    _iinfo,
    _isdtype,
    _linspace,
    _meshgrid,
    _result_type,
    _to_device,
    _triangle,
)
from ._namespace_linalg import (
    _catalogue_cumulative,
    _cholesky,
    _cross,
    _diagonal,
    _diagonal_catalogue,
    _fft_1d,
    _fft_freq,
    _fft_nd,
    _fft_real,
    _fft_shift,
    _matmul_tensordot,
    _matrix_norm,
    _matrix_power,
    _matrix_rank,
    _named,
    _qr,
    _rtol,
    _svd,
    _trace,
    _var,
    _vecdot,
    _vector_norm,
)

Entry = tuple[tuple[str, ...], Factory | None] | list[tuple[tuple[str, ...], Factory | None]]


def install(target: Any, backend: Any, table: dict[str, Entry], namespace: Any) -> None:
    """Sets every function of `table` whose operations `backend` supports as an attribute of `target`."""
    known = set(type(backend).features())
    for name, entry in table.items():
        missing: list[str] = []
        for ops, factory in entry if isinstance(entry, list) else [entry]:
            missing = [op for op in ops if op not in known or not backend.supports(op)]
            if not missing:
                function = bound_method(backend, ops[0]) if factory is None else factory(backend, namespace)
                if factory is not None:
                    function.__name__ = function.__qualname__ = name
                    adapter = getattr(function, "__wrapped__", None)  # a `Shortcut`'s adapter names itself in its errors
                    if isinstance(adapter, types.FunctionType):
                        adapter.__name__ = adapter.__qualname__ = name
                setattr(target, name, function)
                break
        else:
            target._missing[name] = f"backend {backend.name!r} does not support the catalogue operation(s) {', '.join(missing)}"


# ---------------------------------------------------------------- the table
# name: (ops, factory), or a list of them: the first whose operations the backend supports.

_DIRECT: Final = {
    "abs": "abs", "acos": "arccos", "acosh": "arccosh", "add": "add", "asin": "arcsin", "asinh": "arcsinh",
    "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh", "bitwise_and": "and_", "bitwise_left_shift": "shift_bits_left",
    "bitwise_invert": "invert", "bitwise_or": "or_", "bitwise_right_shift": "shift_bits_right", "bitwise_xor": "xor",
    "ceil": "ceil", "conj": "conj", "copysign": "copysign", "cos": "cos", "cosh": "cosh", "divide": "div", "equal": "equal",
    "exp": "exp", "expm1": "expm1", "floor": "floor", "floor_divide": "floordiv", "greater": "greater_than",
    "greater_equal": "greater_or_equal", "hypot": "hypot", "imag": "imag", "isfinite": "isfinite", "isinf": "isinf",
    "isnan": "isnan", "log": "log", "log1p": "log1p", "log2": "log2", "log10": "log10", "logaddexp": "logaddexp",
    "logical_and": "and_", "logical_not": "invert", "logical_or": "or_", "logical_xor": "xor", "maximum": "maximum",
    "minimum": "minimum", "multiply": "mul", "nextafter": "nextafter", "not_equal": "not_equal", "pow": "pow", "real": "real",
    "reciprocal": "reciprocal", "remainder": "mod", "round": "round", "sign": "sign", "signbit": "signbit", "sin": "sin",
    "sinh": "sinh", "sqrt": "sqrt", "subtract": "sub", "tan": "tan", "tanh": "tanh", "trunc": "trunc",
    "matmul": "matmul", "matrix_transpose": "matrix_transpose", "broadcast_shapes": "broadcast_shapes",
}  # fmt: skip

# unique_*: the catalogue's unique of the numbers, each NaN apart (the catalogue merges NaNs)
_UNIQUE: Final = (
    "unique", "reshape", "argsort", "cumsum", "sub", "gather", "boolean_mask", "concat", "cast", "not_equal",
    "bincount", "greater_than", "range", "full", "tile", "zeros", "real", "imag",
)  # fmt: skip

MAIN: Final[dict[str, Entry]] = {
    **{name: ((op,), None) for name, op in _DIRECT.items()},
    # creation
    "arange": (("range", "cast"), _arange),
    "asarray": (("as_tensor", "cast", "copy"), _asarray),
    "empty": (("empty",), _empty),
    "empty_like": (("empty_like",), _empty_like),
    "eye": (("eye",), _eye),
    "from_dlpack": (("from_dlpack",), _from_dlpack),
    "full": (("full",), _full),
    "full_like": (("full_like",), _full_like),
    "linspace": (("linspace", "linspace_without_last", "cast"), _linspace),
    "meshgrid": (("meshgrid",), _meshgrid),
    "ones": (("ones",), _filled("ones")),
    "ones_like": (("ones", "ones_like"), _filled_like("ones")),
    "tril": (("tril",), _triangle("tril")),
    "triu": (("triu",), _triangle("triu")),
    "zeros": (("zeros",), _filled("zeros")),
    "zeros_like": (("zeros", "zeros_like"), _filled_like("zeros")),
    # devices (array_api_compat's helpers: not every framework's arrays have .device and .to_device)
    "device": ((), _device),
    "to_device": ((), _to_device),
    # data types
    "astype": (("cast", "copy"), _astype),
    "can_cast": (("combine_types",), _can_cast),
    "finfo": ((), _finfo),
    "iinfo": ((), _iinfo),
    "isdtype": ((), _isdtype),
    "result_type": (("combine_types",), _result_type),
    # elementwise adapters
    "clip": (("clip", "maximum", "minimum"), _clip),
    "less": (("greater_than",), _swapped("greater_than")),
    "less_equal": (("greater_or_equal",), _swapped("greater_or_equal")),
    "negative": [(("negative",), None), (("mul", "sub", "dtype"), _negative)],
    "positive": ((), _positive),
    "square": [(("square",), None), (("mul",), _square)],
    # statistics and utilities
    "all": (("all",), _reduce("all")),
    "any": (("any",), _reduce("any")),
    "count_nonzero": (("count_nonzero",), _count_nonzero),
    "cumulative_prod": (("cumulative_prod", "cast"), _catalogue_cumulative("cumulative_prod")),
    "cumulative_sum": [
        (("cumulative_sum", "cast"), _catalogue_cumulative("cumulative_sum")),
        (("cumsum", "concat", "zeros", "cast"), _cumulative("cumsum")),
    ],
    "diff": (("diff",), _diff),
    "max": (("max",), _reduce("max")),
    "mean": (("mean",), _reduce("mean")),
    "min": (("min",), _reduce("min")),
    "prod": (("prod", "cast", "reshape"), _accumulate("prod", keepdims_native=False)),
    "std": (("std", "mul"), _spread(squared=False)),
    "sum": (("sum", "cast"), _accumulate("sum", keepdims_native=True)),
    "var": [(("var", "mul"), _var), (("std", "mul"), _spread(squared=True))],
    # manipulation
    "broadcast_arrays": (("broadcast_arrays",), _broadcast_arrays),
    "broadcast_to": (("broadcast_to",), _broadcast_to),
    "concat": (("concat", "reshape"), _concat),
    "expand_dims": (("expand_dims",), _expand_dims),
    "flip": (("flip",), _flip),
    "moveaxis": (("moveaxis",), _moveaxis),
    "permute_dims": (("transpose",), _permute_dims),
    "repeat": (("repeat", "reshape"), _repeat),
    "reshape": (("reshape", "copy"), _reshape),
    "roll": (("roll",), _roll),
    "squeeze": [(("squeeze",), _squeeze_catalogue), (("reshape",), _squeeze)],
    "stack": (("stack",), _stack),
    "tile": (("tile",), _tile),
    "unstack": (("unstack",), _unstack),
    # searching, sorting, sets, indexing
    "argmax": (("argmax", "reshape"), _arg_reduce("argmax")),
    "argmin": (("argmin", "reshape"), _arg_reduce("argmin")),
    "argsort": (("argsort", "flip", "sub"), _argsort),
    "nonzero": (("nonzero", "unstack"), _nonzero),
    "searchsorted": (("searchsorted", "gather"), _searchsorted),
    "sort": (("sort", "flip"), _sort),
    "take": (("gather",), _take),
    "take_along_axis": (("take_along_axis",), _take_along_axis),
    "unique_all": (_UNIQUE, _unique("all")),
    "unique_counts": (_UNIQUE, _unique("counts")),
    "unique_inverse": (_UNIQUE, _unique("inverse")),
    "unique_values": (_UNIQUE, _unique("values")),
    "where": (("where",), _where),
    # linear algebra in the main namespace
    "tensordot": (("tensordot",), _matmul_tensordot),
    "vecdot": (("vecdot",), _vecdot),
}

LINALG: Final[dict[str, Entry]] = {
    "cholesky": (("cholesky",), _cholesky),
    "cross": (("cross",), _cross),
    "det": (("det",), None),
    "diagonal": [(("diagonal",), _diagonal_catalogue), (("get_diagonal", "reshape"), _diagonal)],
    "eigh": (("eigh",), _named("eigh", EighResult)),
    "eigvalsh": (("eigvalsh",), None),
    "inv": (("inv",), None),
    "matmul": (("matmul",), None),
    "matrix_norm": (("matrix_norm",), _matrix_norm),
    "matrix_power": (("matrix_power",), _matrix_power),
    "matrix_rank": [(("matrix_rank",), _rtol("matrix_rank")), (("matrix_rank_dense",), _matrix_rank)],
    "matrix_transpose": (("matrix_transpose",), None),
    "outer": (("outer",), None),
    "pinv": (("pinv",), _rtol("pinv")),
    "qr": (("qr",), _qr),
    "slogdet": (("slogdet",), _named("slogdet", SlogdetResult)),
    "solve": (("solve",), None),
    "svd": (("svd",), _svd),
    "svdvals": (("svdvals",), None),
    "tensordot": (("tensordot",), _matmul_tensordot),
    "trace": (("trace",), _trace),
    "vecdot": (("vecdot",), _vecdot),
    "vector_norm": (("vector_norm",), _vector_norm),
}

FFT: Final[dict[str, Entry]] = {
    "fft": (("fftn",), _fft_1d("fftn")),
    "ifft": (("ifftn",), _fft_1d("ifftn")),
    "fftn": (("fftn",), _fft_nd("fftn")),
    "ifftn": (("ifftn",), _fft_nd("ifftn")),
    "rfft": (("rfft",), _fft_real("rfft")),
    "irfft": (("irfft",), _fft_real("irfft")),
    "rfftn": (("rfftn",), _fft_nd("rfftn")),
    "irfftn": (("irfftn",), _fft_nd("irfftn")),
    "hfft": (("hfft",), _fft_real("hfft")),
    "ihfft": (("ihfft",), _fft_real("ihfft")),
    "fftfreq": (("fftfreq",), _fft_freq("fftfreq")),
    "rfftfreq": (("rfftfreq",), _fft_freq("rfftfreq")),
    "fftshift": (("fftshift",), _fft_shift("fftshift")),
    "ifftshift": (("ifftshift",), _fft_shift("ifftshift")),
}
