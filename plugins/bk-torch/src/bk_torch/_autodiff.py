"""Automatic differentiation, compilation and vectorization on PyTorch (autograd, `torch.jit.trace`, `torch.vmap`)."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from bk import Backend

Tensor = Any


class AutodiffMixin:
    """Gradients, Hessians, custom gradients, jit compilation and vectorized calls of `TorchBackend`."""

    # ------------------------------------------------------------ autodiff

    def stop_gradient(self, value: Tensor) -> Tensor:
        return value.detach() if isinstance(value, torch.Tensor) else value

    def _prepare_wrt(self, args: Sequence[Any], wrt: Sequence[int]) -> list[Any]:
        """Copies of `args` in which the arguments `wrt` are float leaves that require gradients."""
        args = list(args)
        for i in wrt:
            arg = self._t(args[i])
            if not (arg.is_floating_point() or arg.is_complex()):
                arg = self.to_float(arg)
            args[i] = arg.detach().requires_grad_(True)
        return args

    def jacobian(self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, is_f_scalar: bool) -> Callable[..., Any]:
        """Gradients of the first output of `f` with `torch.autograd.grad`.

        A non-scalar loss is summed when `is_f_scalar` (a batch of independent scalars); otherwise the
        full Jacobian is returned with the loss dimensions first. Arguments the loss does not depend on
        get zero gradients. Outputs are returned detached.
        """
        wrt = _as_indices(wrt)

        @functools.wraps(f)
        def gradient(*args: Any) -> tuple[Any, ...]:
            args = self._prepare_wrt(args, wrt)
            with torch.enable_grad():
                output = f(*args)
            loss = output[0] if isinstance(output, (tuple, list)) else output
            grads = _gradients(self._t(loss), [args[i] for i in wrt], sum_loss=is_f_scalar)
            if get_output:
                outputs = tuple(output) if isinstance(output, (tuple, list)) else (output,)
                return (*_detach_tree(outputs), *grads)
            return tuple(grads)

        return gradient

    def hessian(self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, get_gradient: bool) -> Callable[..., Any]:
        """`(f(x), g(x), H(x))` (as asked) for a loss with a batch dimension first.

        `f(x)` is the loss, the first output of `f` (further outputs are not returned);
        `g` holds one gradient per `wrt` argument and `H[i][j]` the Hessian blocks of shape
        `(batch, *x_i.shape[1:], *x_j.shape[1:])`, computed per batch entry by double backward.
        """
        wrt = _as_indices(wrt)

        @functools.wraps(f)
        def evaluate(*args: Any) -> tuple[Any, ...]:
            args = self._prepare_wrt(args, wrt)
            xs = [args[i] for i in wrt]
            with torch.enable_grad():
                output = f(*args)
                loss = self._t(output[0] if isinstance(output, (tuple, list)) else output)
                grads = _gradients(loss, xs, sum_loss=True, create_graph=True)
                blocks = [_hessian_row(g, xs) for g in grads]
            result: list[Any] = [loss.detach()] if get_output else []
            if get_gradient:
                result.append(tuple(g.detach() for g in grads))
            result.append(tuple(tuple(h.detach() for h in row) for row in blocks))
            return tuple(result)

        return evaluate

    def custom_gradient(
        self,
        f: Callable[..., Any],
        gradient: Callable[..., Any],
        get_external_cache: Callable[..., Any] | None = None,
        on_call_skipped: Callable[..., Any] | None = None,
    ) -> Callable[..., Any]:
        """`f` with the backward pass `gradient(args, output, d_output) -> d_args`, as a `torch.autograd.Function`.

        `f` must return a tensor or a tuple of tensors; `d_output` has the same structure. Entries of
        `d_args` may be `None`. `get_external_cache` and `on_call_skipped` are not used: PyTorch runs
        the forward pass eagerly every time. Not usable inside `torch.vmap` / `torch.func` transforms.
        """

        class CustomGradient(torch.autograd.Function):
            @staticmethod
            def forward(ctx: Any, *args: Any) -> Any:
                output = f(*args)
                ctx.bk_args, ctx.bk_output = args, output
                return output

            @staticmethod
            def backward(ctx: Any, *d_output: Any) -> Any:
                d_out = d_output if isinstance(ctx.bk_output, (tuple, list)) else d_output[0]
                d_args = tuple(gradient(ctx.bk_args, ctx.bk_output, d_out))
                if len(d_args) != len(ctx.bk_args):
                    raise ValueError(
                        f"the custom gradient returned {len(d_args)} values for {len(ctx.bk_args)} arguments; return one per argument (None for none)"
                    )
                return tuple(d if isinstance(a, torch.Tensor) else None for a, d in zip(ctx.bk_args, d_args, strict=True))

        @functools.wraps(f)
        def call(*args: Any) -> Any:
            return CustomGradient.apply(*args)

        return call

    # ------------------------------------------------------------ compilation

    def jit_compile(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """`f` traced with `torch.jit.trace` once per input signature (tree structure, shapes, dtypes,
        devices, `requires_grad`, values of non-tensor arguments); later calls run the traced graph.

        `f` runs once per signature, while it is traced. Where a trace would be wrong (Python control
        flow on tensor values, `numpy_call`, non-tensor outputs that depend on inputs), PyTorch's
        tracer says so and that signature runs `f` eagerly instead, so results always equal eager
        ones. The returned function has `traces` (signatures traced) for inspection.
        """
        return _TraceCache(f)

    def jit_compile_grad(
        self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, is_f_scalar: bool
    ) -> Callable[..., Any]:
        """Gradients through the traced graph of `f` (the forward pass is compiled; autograd runs its backward)."""
        return self.jacobian(self.jit_compile(f), wrt, get_output, is_f_scalar)

    def jit_compile_hessian(
        self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, get_gradient: bool
    ) -> Callable[..., Any]:
        """Hessians by double backward through the traced graph of `f`."""
        return self.hessian(self.jit_compile(f), wrt, get_output, get_gradient)

    # ------------------------------------------------------------ vectorization

    def vectorized_call(self, f: Callable[..., Any], *args: Tensor, output_dtypes: Any = None, **aux_args: Any) -> Any:
        """`f` over the first dimension of `args` with `torch.vmap` (size 1 broadcasts).

        Where vmap cannot batch `f` (data-dependent shapes, `.item()`, custom autograd functions),
        `f` is called once per entry and the results are stacked; `f` may then have run partly twice.
        """
        tensors = [self._t(a) for a in args]
        batch = self.determine_size(tensors, 0)
        in_dims = tuple(None if t.shape[0] == 1 and batch != 1 else 0 for t in tensors)
        inputs = [t[0] if d is None else t for t, d in zip(tensors, in_dims, strict=True)]
        if all(d is None for d in in_dims):
            return Backend.vectorized_call(self, f, *tensors, output_dtypes=output_dtypes, **aux_args)
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="There is a performance drop", category=UserWarning)
                return torch.vmap(functools.partial(f, **aux_args), in_dims=in_dims)(*inputs)
        except (RuntimeError, ValueError, NotImplementedError):  # vmap cannot batch f: call it per entry
            return Backend.vectorized_call(self, f, *tensors, output_dtypes=output_dtypes, **aux_args)


# ---------------------------------------------------------------- gradient helpers


def _as_indices(wrt: Any) -> tuple[int, ...]:
    return (wrt,) if isinstance(wrt, int) else tuple(wrt)


def _detach_tree(tree: Any) -> Any:
    if isinstance(tree, (tuple, list)):
        return type(tree)(_detach_tree(t) for t in tree)
    if isinstance(tree, dict):
        return {k: _detach_tree(v) for k, v in tree.items()}
    return tree.detach() if isinstance(tree, torch.Tensor) else tree


def _grad(output: torch.Tensor, xs: Sequence[torch.Tensor], create_graph: bool = False) -> list[torch.Tensor]:
    """d output / d xs, zeros where the output does not depend on an input."""
    if not output.requires_grad:
        return [torch.zeros_like(x) for x in xs]
    grads = torch.autograd.grad(output, xs, retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [torch.zeros_like(x) if g is None else g for x, g in zip(xs, grads, strict=True)]


def _gradients(loss: torch.Tensor, xs: Sequence[torch.Tensor], sum_loss: bool, create_graph: bool = False) -> list[torch.Tensor]:
    if loss.ndim == 0 or sum_loss:
        return _grad(loss.sum(), xs, create_graph)
    rows = [_grad(element, xs, create_graph) for element in loss.reshape(-1)]
    return [torch.stack([r[i] for r in rows]).reshape(*loss.shape, *x.shape) for i, x in enumerate(xs)]


def _hessian_row(gradient: torch.Tensor, xs: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """The Hessian blocks d gradient / d x_j, per batch entry (entries are independent)."""
    batch = gradient.shape[0]
    flat = gradient.reshape(batch, -1)
    columns = [_grad(flat[:, k].sum(), xs) for k in range(flat.shape[1])]
    return [torch.stack([c[j] for c in columns], dim=1).reshape(*gradient.shape, *x.shape[1:]) for j, x in enumerate(xs)]


# ---------------------------------------------------------------- tracing cache


def _flatten(tree: Any, leaves: list[Any]) -> Any:
    """The structure of `tree` (tuples, lists, dicts) with leaves replaced by their positions in `leaves`."""
    if isinstance(tree, (tuple, list)):
        return (type(tree), tuple(_flatten(t, leaves) for t in tree))
    if isinstance(tree, dict):
        return (dict, tuple((k, _flatten(v, leaves)) for k, v in tree.items()))
    leaves.append(tree)
    return len(leaves) - 1


def _unflatten(structure: Any, leaves: Sequence[Any]) -> Any:
    if isinstance(structure, int):
        return leaves[structure]
    kind, children = structure
    if kind is dict:
        return {k: _unflatten(v, leaves) for k, v in children}
    return kind(_unflatten(c, leaves) for c in children)


def _leaf_key(leaf: Any) -> Any:
    if isinstance(leaf, torch.Tensor):
        return ("tensor", tuple(leaf.shape), leaf.dtype, leaf.device, leaf.requires_grad, leaf.layout)
    if isinstance(leaf, np.ndarray):  # NumPy values are constants under jit, as in the other backends
        return ("ndarray", leaf.shape, leaf.dtype.str, leaf.tobytes())
    try:
        hash(leaf)
    except TypeError:
        return ("object", id(leaf))
    return (type(leaf), leaf)


class _Eager:
    """Marks a signature that cannot be traced faithfully; it runs `f` eagerly."""


_EAGER = _Eager()


class _TraceCache:
    """A function traced once per input signature (see `TorchBackend.jit_compile`)."""

    def __init__(self, f: Callable[..., Any]) -> None:
        functools.update_wrapper(self, f, updated=())  # name and docstring only: f's __dict__ stays f's
        self.f = f
        self.traces = 0
        self._cache: dict[Any, Any] = {}

    def __call__(self, *args: Any) -> Any:
        leaves: list[Any] = []
        structure = _flatten(args, leaves)
        key = (structure, tuple(_leaf_key(leaf) for leaf in leaves))
        entry = self._cache.get(key)
        if entry is None:
            entry = self._cache[key] = self._trace(structure, leaves)
        if entry is _EAGER:
            return self.f(*args)
        traced, output = entry
        tensors = [leaf for leaf in leaves if isinstance(leaf, torch.Tensor)]
        try:
            results = traced(*tensors)
        except RuntimeError:
            # The graph refused its inputs (an index out of range): running `f` eagerly raises the
            # error the operation itself raises (`bk.IndexOutOfRangeError`, ...), naming it.
            return self.f(*args)
        results = (results,) if isinstance(results, torch.Tensor) else results
        out_leaves = list(output["constants"])
        for position, value in zip(output["tensor_positions"], results, strict=True):
            out_leaves[position] = value
        return _unflatten(output["structure"], out_leaves)

    def _trace(self, structure: Any, leaves: list[Any]) -> Any:
        positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor)]
        if not positions or any(leaves[i].layout != torch.strided for i in positions):
            return _EAGER  # nothing to trace, or sparse inputs, which the tracer does not take
        output: dict[str, Any] = {}

        def flat_f(*tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:
            values = list(leaves)
            for i, t in zip(positions, tensors, strict=True):
                values[i] = t
            out_leaves: list[Any] = []
            output["structure"] = _flatten(self.f(*_unflatten(structure, values)), out_leaves)
            output["tensor_positions"] = [i for i, leaf in enumerate(out_leaves) if isinstance(leaf, torch.Tensor)]
            output["constants"] = [None if isinstance(leaf, torch.Tensor) else leaf for leaf in out_leaves]
            return tuple(leaf for leaf in out_leaves if isinstance(leaf, torch.Tensor))

        self.traces += 1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                traced = torch.jit.trace(flat_f, tuple(leaves[i] for i in positions), check_trace=False, strict=False)
            except Exception:
                traced = None
        unfaithful = False
        for warning in caught:
            if issubclass(warning.category, torch.jit.TracerWarning):
                unfaithful = True
            elif not (issubclass(warning.category, DeprecationWarning) and "torch.jit.trace" in str(warning.message)):
                warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        if traced is None or unfaithful or not output.get("tensor_positions"):
            return _EAGER
        return traced, output
