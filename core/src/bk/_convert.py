"""`convert`: moving tensors between backends."""

from __future__ import annotations

from typing import Any

from ._backend import Backend
from ._choose import backend as backend_by_name
from ._choose import choose_backend, default_backend
from ._plugins import REGISTRY

__all__ = ["convert"]



def convert(tensor: Any, backend: Backend | str | None = None, use_dlpack: bool = True) -> Any:
    """`tensor` as a native tensor of `backend`, keeping its dtype and shape.

    Plugins' `bk_convert` hooks are asked first; then DLPack shares memory without a copy where
    both backends support it; otherwise the values are copied through NumPy. Sparse tensors are
    converted constituent by constituent. Converting breaks automatic differentiation.

    Args:
        tensor: A tensor of any installed backend, a NumPy array or a Python number.
        backend: Target backend or its name; the default backend if `None`.
        use_dlpack: Whether to try DLPack.

    Raises:
        NoBackendFound: if no installed backend owns `tensor`.
    """
    target = default_backend() if backend is None else backend_by_name(backend) if isinstance(backend, str) else backend
    if target.is_tensor(tensor, only_native=True):
        return tensor
    source = choose_backend(tensor)
    if source is target:
        return target.as_tensor(tensor)
    result = REGISTRY.convert_hook(tensor, source, target)
    if result is not None:
        return result
    if source.is_sparse(tensor):
        assemble, parts = source.disassemble(tensor)
        return assemble(target, *[convert(p, target, use_dlpack) for p in parts])
    if use_dlpack and source.supports("dlpack") and target.supports("dlpack") and source.is_available(tensor):
        # Frameworks refuse some tensors (bool, strided, other devices) with their own error types;
        # copying through NumPy below is always correct.
        try:
            return target.from_dlpack(source.to_dlpack(tensor))
        except Exception:
            pass
    dtype = source.dtype(tensor)
    result = target.as_tensor(source.numpy(tensor))
    return result if target.dtype(result) == dtype else target.cast(result, dtype)
