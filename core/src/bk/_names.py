"""What bk calls the operations that NumPy and PyTorch users know by other names.

Used only on error paths (`Backend.__getattr__` for an unknown attribute), and by the migration
table in `docs/migration.md`, which a test keeps in step with this table.
"""

from __future__ import annotations

from typing import Final

__all__ = ["FOREIGN_NAMES", "suggest"]

FOREIGN_NAMES: Final[dict[str, tuple[str, ...]]] = {
    "dot": ("tensordot", "einsum"),
    "mm": ("tensordot", "einsum"),
    "bmm": ("einsum", "mul_matrix_batched_vector"),
    "inner": ("tensordot", "einsum"),
    "arange": ("range",),
    "array": ("as_tensor",),
    "asarray": ("as_tensor",),
    "tensor": ("as_tensor",),
    "from_numpy": ("as_tensor",),
    "astype": ("cast",),
    "to": ("cast", "allocate_on_device"),
    "concatenate": ("concat",),
    "cat": ("concat",),
    "hstack": ("concat",),
    "vstack": ("concat", "stack"),
    "swapaxes": ("transpose",),
    "permute": ("transpose",),
    "unsqueeze": ("expand_dims",),
    "view": ("reshape",),
    "expand": ("tile_to", "tile"),
    "take": ("gather", "gather_1d"),
    "index_select": ("gather",),
    "scatter_add": ("scatter",),
    "argwhere": ("nonzero",),
    "amax": ("max",),
    "amin": ("min",),
    "absolute": ("abs",),
    "neg": ("sub", "mul"),
    "power": ("pow",),
    "multiply": ("mul",),
    "subtract": ("sub",),
    "divide": ("div", "divide_no_nan"),
    "true_divide": ("div",),
    "floor_divide": ("floordiv",),
    "remainder": ("mod",),
    "fmod": ("mod",),
    "logical_and": ("and_",),
    "logical_or": ("or_",),
    "logical_xor": ("xor",),
    "logical_not": ("invert",),
    "bitwise_and": ("and_",),
    "bitwise_or": ("or_",),
    "bitwise_xor": ("xor",),
    "bitwise_not": ("invert",),
    "left_shift": ("shift_bits_left",),
    "right_shift": ("shift_bits_right",),
    "greater": ("greater_than",),
    "greater_equal": ("greater_or_equal",),
    "less": ("greater_than",),
    "less_equal": ("greater_or_equal",),
    "gt": ("greater_than",),
    "ge": ("greater_or_equal",),
    "eq": ("equal",),
    "ne": ("not_equal",),
    "exp2": ("pow", "exp"),
    "relu": ("maximum",),
    "clamp": ("clip",),
    "norm": ("vector_norm", "matrix_norm"),
    "median": ("quantile",),
    "percentile": ("quantile",),
    "cumprod": ("cumsum", "log", "exp"),
    "lstsq": ("matrix_solve_least_squares",),
    "histogram": ("histogram1d",),
    "rand": ("random_uniform",),
    "randn": ("random_normal",),
    "normal": ("random_normal",),
    "uniform": ("random_uniform",),
    "manual_seed": ("seed",),
    "grad": ("jacobian", "gradients"),
    "detach": ("stop_gradient",),
    "to_numpy": ("numpy",),
    "item": ("numpy",),
    "tolist": ("numpy",),
    "device": ("get_device",),
    "cpu": ("allocate_on_device", "get_device"),
    "split": ("unstack", "multi_slice"),
    "chunk": ("unstack", "multi_slice"),
    "unique_consecutive": ("unique",),
    "cond": ("where",),
    "fori_loop": ("while_loop",),
    "vmap": ("vectorized_call",),
}
"""NumPy / PyTorch / JAX name -> the bk operations that do the job (in order of closeness)."""


def suggest(name: str, catalogue: list[str]) -> list[str]:
    """Catalogue names for an unknown attribute `name`: the table's entries, then close spellings.

    A misspelt NumPy/PyTorch name counts too: `matmull` finds what the table lists for `matmul`.
    """
    import difflib  # error path only

    found = [n for n in FOREIGN_NAMES.get(name, ()) if n in catalogue]
    for close in difflib.get_close_matches(name, catalogue, n=3, cutoff=0.7):
        if close not in found:
            found.append(close)
    if not found:
        for foreign in difflib.get_close_matches(name, list(FOREIGN_NAMES), n=2, cutoff=0.8):
            found.extend(n for n in FOREIGN_NAMES[foreign] if n in catalogue and n not in found)
    return found
