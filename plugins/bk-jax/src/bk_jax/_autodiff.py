"""Automatic differentiation, compilation, control flow, vectorization and callbacks on JAX.

Gradients come from `jax.value_and_grad` / `jax.jacrev`, custom gradients from `jax.custom_vjp`,
compilation from `jax.jit`, loops under tracing from `lax.while_loop`, vectorization from
`jax.vmap` and NumPy callbacks under tracing from `jax.pure_callback`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.sparse import JAXSparse

from ._math import is_inexact
from ._sparse import bound_layouts, layouts_of

Tensor = Any


def _as_indices(wrt: Any) -> tuple[int, ...]:
    return (wrt,) if isinstance(wrt, int) else tuple(int(i) for i in wrt)


def _outputs(output: Any) -> tuple[Any, ...]:
    return tuple(output) if isinstance(output, (tuple, list)) else (output,)


def _substitute(args: Sequence[Any], wrt: Sequence[int], xs: Sequence[Any]) -> list[Any]:
    result = list(args)
    for i, x in zip(wrt, xs, strict=True):
        result[i] = x
    return result


def _concrete(tree: Any) -> bool:
    """Whether no leaf of `tree` is a tracer."""
    return not any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree_util.tree_leaves(tree))


class AutodiffMixin:
    """Gradients, Hessians, custom gradients, `jax.jit`, loops, `vmap` and NumPy callbacks of `JaxBackend`."""

    _t: Callable[[Any], Any]

    # ------------------------------------------------------------ autodiff

    def stop_gradient(self, value: Tensor) -> Tensor:
        """`value` cut from differentiation (`lax.stop_gradient`); non-array values are returned as they are."""
        if isinstance(value, (jax.Array, JAXSparse)):
            return jax.tree_util.tree_map(jax.lax.stop_gradient, value)
        return value

    def _prepare_wrt(self, args: Sequence[Any], wrt: Sequence[int]) -> list[Any]:
        """`args` with the arguments `wrt` as float arrays (ints and bools become the float type)."""
        args = list(args)
        for i in wrt:
            arg = self._t(args[i])
            args[i] = arg if is_inexact(arg) else self.to_float(arg)  # type: ignore[attr-defined]
        return args

    def jacobian(self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, is_f_scalar: bool) -> Callable[..., Any]:
        """Gradients of the first output of `f` with `jax.value_and_grad` (or `jax.jacrev`).

        A non-scalar loss is summed when `is_f_scalar` (a batch of independent scalars); otherwise the
        full Jacobian is returned with the loss dimensions first. Arguments the loss does not depend on
        get zero gradients. Gradients of complex arguments are conjugated, so that they point uphill
        as in PyTorch and TensorFlow.
        """
        wrt = _as_indices(wrt)

        @functools.wraps(f)
        def gradient(*args: Any) -> tuple[Any, ...]:
            args = self._prepare_wrt(args, wrt)

            def loss_and_outputs(*xs: Any) -> tuple[Any, tuple[Any, ...]]:
                outputs = _outputs(f(*_substitute(args, wrt, xs)))
                loss = self._t(outputs[0])
                return (jnp.sum(loss) if is_f_scalar else loss), outputs

            xs = [args[i] for i in wrt]
            argnums = tuple(range(len(wrt)))
            if is_f_scalar:
                (_, outputs), grads = jax.value_and_grad(loss_and_outputs, argnums, has_aux=True)(*xs)
            else:
                grads, outputs = jax.jacrev(loss_and_outputs, argnums, has_aux=True)(*xs)
            grads = tuple(jnp.conjugate(g) if jnp.iscomplexobj(g) else g for g in grads)
            return (*outputs, *grads) if get_output else grads

        return gradient

    def hessian(self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, get_gradient: bool) -> Callable[..., Any]:
        """`(f(x), g(x), H(x))` (as asked) for a loss with a batch dimension first.

        `f(x)` is the loss, the first output of `f`; `g` holds one gradient per `wrt` argument and
        `H[i][j]` the Hessian blocks of shape `(batch, *x_i.shape[1:], *x_j.shape[1:])`. As batch
        entries are independent, the blocks are the reverse-mode Jacobians of the batch-summed
        gradients, which costs one backward pass per element of a batch entry, not of the batch.
        """
        wrt = _as_indices(wrt)

        @functools.wraps(f)
        def evaluate(*args: Any) -> tuple[Any, ...]:
            args = self._prepare_wrt(args, wrt)
            xs = [args[i] for i in wrt]
            argnums = tuple(range(len(wrt)))

            def total(*values: Any) -> tuple[Any, Any]:
                loss = self._t(_outputs(f(*_substitute(args, wrt, values)))[0])
                return jnp.sum(loss), loss

            gradients = jax.grad(total, argnums, has_aux=True)

            def summed_gradients(*values: Any) -> tuple[tuple[Any, ...], Any]:
                grads, loss = gradients(*values)
                return tuple(jnp.sum(g, axis=0) for g in grads), (grads, loss)

            blocks, (grads, loss) = jax.jacrev(summed_gradients, argnums, has_aux=True)(*xs)
            hessian = tuple(tuple(jnp.moveaxis(blocks[i][j], xs[i].ndim - 1, 0) for j in argnums) for i in argnums)
            result: list[Any] = [loss] if get_output else []
            if get_gradient:
                result.append(tuple(grads))
            result.append(hessian)
            return tuple(result)

        return evaluate

    def custom_gradient(
        self,
        f: Callable[..., Any],
        gradient: Callable[..., Any],
        get_external_cache: Callable[..., Any] | None = None,
        on_call_skipped: Callable[..., Any] | None = None,
    ) -> Callable[..., Any]:
        """`f` with the backward pass `gradient(args, output, d_output) -> d_args`, as a `jax.custom_vjp`.

        `f` takes arrays and returns an array or a tuple of arrays; `d_output` has the same structure.
        Entries of `d_args` may be `None` (no gradient); integer arguments never get one. JAX runs
        the forward pass every time, so `get_external_cache` and `on_call_skipped` are not used.
        """
        wrapped = jax.custom_vjp(f)

        def forward(*args: Any) -> tuple[Any, Any]:
            output = f(*args)
            return output, (args, output)

        def backward(residuals: Any, d_output: Any) -> tuple[Any, ...]:
            args, output = residuals
            d_args = tuple(gradient(args, output, d_output))
            if len(d_args) != len(args):
                raise ValueError(
                    f"the custom gradient returned {len(d_args)} values for {len(args)} arguments; return one per argument (None for none)"
                )
            return tuple(_cotangent(a, d) for a, d in zip(args, d_args, strict=True))

        wrapped.defvjp(forward, backward)

        @functools.wraps(f)
        def call(*args: Any) -> Any:
            return wrapped(*[self._t(a) for a in args])

        return call

    # ------------------------------------------------------------ compilation

    def jit_compile(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """`f` compiled with `jax.jit`, traced once per input signature.

        JAX arrays (also inside tuples, lists, dicts and sparse matrices) are traced; every other
        argument (NumPy arrays, numbers, strings, objects) is a constant of the trace, compared by
        value, so that a new value traces again (NumPy values are constants under jit, as on every bk
        backend). Outputs may mix arrays with other values, such as messages; those are the values
        of the trace. Python side effects of `f` happen only while it is traced. The returned
        function counts its traces in `traces`.
        """
        return _JitFunction(f)

    # ------------------------------------------------------------ control flow

    def while_loop(self, loop: Callable[..., Any], values: tuple[Any, ...], max_iter: int | Sequence[int] | None) -> Any:
        """Runs `values = loop(*values)` while any element of `values[0]` is true (checked before each iteration).

        With concrete values this is a Python loop; once values are tracers (inside `jit_compile`) it
        continues as a `lax.while_loop`, whose `loop` must keep shapes and dtypes. With checkpoints
        (`max_iter` a sequence), the loop runs segment by segment up to each checkpoint and the
        values there are stacked along a new first axis, one entry per checkpoint. Checkpoints the
        loop did not reach, because its condition turned false earlier, repeat the last recorded
        entry, as the reference implementation does (the final values if none was recorded yet).
        """
        values = self.stop_gradient_tree(tuple(values))  # type: ignore[attr-defined]
        if isinstance(max_iter, (tuple, list)):
            return self.stop_gradient_tree(self.stack_leaves(self._trajectory(loop, values, max_iter)))  # type: ignore[attr-defined]
        values, _ = self._loop_until(loop, values, 0, max_iter)
        return self.stop_gradient_tree(values)  # type: ignore[attr-defined]

    def _trajectory(self, loop: Callable[..., Any], values: tuple[Any, ...], max_iter: Sequence[int]) -> list[tuple[Any, ...]]:
        """The entries of `while_loop` with checkpoints: `values` at every checkpoint reached, in
        increasing order, then the last of them repeated up to one entry per checkpoint."""
        checkpoints = sorted({int(c) for c in max_iter})
        trajectory: list[tuple[Any, ...]] = [values] if 0 in checkpoints else []
        i: Any = 0
        for checkpoint in (c for c in checkpoints if c > 0):
            values, i = self._loop_until(loop, values, i, checkpoint)
            if isinstance(i, int):
                if i < checkpoint:  # stopped early: nothing more is recorded
                    break
                trajectory.append(values)
            else:  # traced: whether the checkpoint was reached is known only when the loop runs
                last = trajectory[-1] if trajectory else values
                reached = i >= checkpoint
                trajectory.append(tuple(jax.tree_util.tree_map(lambda new, old, r=reached: jnp.where(r, new, old), values, last)))
        fill = trajectory[-1] if trajectory else values
        return trajectory + [fill] * (len(max_iter) - len(trajectory))

    def _loop_until(
        self, loop: Callable[..., Any], values: tuple[Any, ...], i: Any, limit: int | None
    ) -> tuple[tuple[Any, ...], Any]:
        """Iterates from iteration `i` until the condition is false or `i` reaches `limit`; returns the values and `i`."""
        while isinstance(i, int) and _concrete(values):
            if (limit is not None and i >= limit) or not np.any(np.asarray(values[0])):  # NumPy: never staged
                return values, i
            values = tuple(loop(*values))
            i += 1
        return _lax_loop(loop, values, i, limit)

    # ------------------------------------------------------------ vectorization and callbacks

    def vectorized_call(self, f: Callable[..., Any], *args: Tensor, output_dtypes: Any = None, **aux_args: Any) -> Any:
        """`f` over the first dimension of `args` with `jax.vmap`; arguments of size 1 broadcast."""
        tensors = [self._t(a) for a in args]
        batch = self.determine_size(tensors, 0)  # type: ignore[attr-defined]
        in_axes = [None if t.shape[0] == 1 and batch != 1 else 0 for t in tensors]
        inputs = [t[0] if axis is None else t for t, axis in zip(tensors, in_axes, strict=True)]
        return jax.vmap(functools.partial(f, **aux_args), in_axes=in_axes)(*inputs)

    def numpy_call(self, f: Callable[..., Any], output_shapes: Any, output_dtypes: Any, *args: Tensor, **aux_args: Any) -> Any:
        """Calls `f` on NumPy values: directly for concrete arrays, through `jax.pure_callback` on tracers.

        Outputs get `output_dtypes` and, under tracing, must have `output_shapes`. Not differentiable;
        inside `vectorized_call` the callback runs once per batch entry.
        """
        multiple = isinstance(output_dtypes, (tuple, list))
        dtypes = list(output_dtypes) if multiple else [output_dtypes]
        tensors = [self._t(a) for a in args]
        if _concrete(tensors):
            output = f(*[np.asarray(t) for t in tensors], **aux_args)
            outputs = list(output) if multiple else [output]
            results = [self.cast(self.as_tensor(o), d) for o, d in zip(outputs, dtypes, strict=True)]  # type: ignore[attr-defined]
            return tuple(results) if multiple else results[0]
        shapes = list(output_shapes) if multiple else [output_shapes]
        specs = [jax.ShapeDtypeStruct(tuple(s), self._jax_dtype(d)) for s, d in zip(shapes, dtypes, strict=True)]  # type: ignore[attr-defined]

        def callback(*arrays: Any) -> list[np.ndarray]:
            output = f(*[np.asarray(a) for a in arrays], **aux_args)  # JAX hands over its own CPU arrays
            outputs = list(output) if multiple else [output]
            return [np.asarray(o).astype(s.dtype).reshape(s.shape) for o, s in zip(outputs, specs, strict=True)]

        results = jax.pure_callback(callback, specs, *tensors, vmap_method="sequential")
        return tuple(results) if multiple else results[0]


def _cotangent(arg: Any, d_arg: Any) -> Any:
    """A custom gradient's value for `arg` as `jax.custom_vjp` needs it: its dtype, or None for none."""
    if d_arg is None or not isinstance(arg, jax.Array) or not is_inexact(arg):
        return None
    d_arg = jnp.asarray(d_arg)
    return d_arg if d_arg.dtype == arg.dtype else d_arg.astype(arg.dtype)


def _lax_loop(loop: Callable[..., Any], values: tuple[Any, ...], i: Any, limit: int | None) -> tuple[tuple[Any, ...], Any]:
    """`lax.while_loop` from iteration `i` while any of `values[0]` is true and `i < limit`."""
    values = tuple(jax.tree_util.tree_map(jnp.asarray, values))

    def condition(state: tuple[Any, tuple[Any, ...]]) -> Any:
        count, current = state
        running = jnp.any(current[0])
        return running if limit is None else running & (count < limit)

    def body(state: tuple[Any, tuple[Any, ...]]) -> tuple[Any, tuple[Any, ...]]:
        count, current = state
        new = tuple(loop(*current))
        return count + 1, jax.tree_util.tree_map(lambda n, o: jnp.asarray(n).astype(o.dtype), new, current)

    count, values = jax.lax.while_loop(condition, body, (jnp.asarray(i, np.int32), values))
    return values, count


# ---------------------------------------------------------------- jit


def _static_key(leaf: Any) -> Any:
    """A hashable stand-in for a non-array leaf, equal for equal values (NaN included)."""
    if isinstance(leaf, (np.ndarray, np.generic)):
        array = np.asarray(leaf)
        return ("ndarray", array.shape, array.dtype.str, array.tobytes())
    if isinstance(leaf, float):
        return (float, leaf.hex())
    if isinstance(leaf, complex):
        return (complex, leaf.real.hex(), leaf.imag.hex())
    try:
        hash(leaf)
    except TypeError:
        return ("object", id(leaf))
    return (type(leaf), leaf)


class _Signature:
    """The static part of one call (a `jax.jit` static argument): the argument structure, the
    non-array leaves, and which sparse arguments come with a padded layout."""

    __slots__ = ("_key", "layouts", "leaves", "positions", "structure")

    def __init__(self, structure: Any, leaves: list[Any], positions: tuple[int, ...], layouts: tuple[int, ...]) -> None:
        self.structure = structure
        self.leaves = leaves
        self.positions = positions
        self.layouts = layouts
        self._key = (
            structure,
            positions,
            layouts,
            tuple(_static_key(leaf) for i, leaf in enumerate(leaves) if i not in positions),
        )

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Signature) and self._key == other._key


class _JitFunction:
    """A function compiled with `jax.jit` once per input signature (see `JaxBackend.jit_compile`)."""

    def __init__(self, f: Callable[..., Any]) -> None:
        functools.update_wrapper(self, f, updated=())  # name and docstring only: f's __dict__ stays f's
        self.f = f
        self.traces = 0
        self._outputs: dict[_Signature, tuple[Any, list[Any], list[int]]] = {}
        self._jitted = jax.jit(self._flat, static_argnums=0)

    def __call__(self, *args: Any) -> Any:
        leaves, structure = jax.tree_util.tree_flatten(args)
        positions = tuple(i for i, leaf in enumerate(leaves) if isinstance(leaf, jax.Array))
        layouts, layout_arrays = layouts_of(args)
        signature = _Signature(structure, [None if i in positions else leaf for i, leaf in enumerate(leaves)], positions, layouts)
        arrays = self._jitted(signature, *[leaves[i] for i in positions], *layout_arrays)
        out_structure, out_leaves, out_positions = self._outputs[signature]
        out_leaves = list(out_leaves)
        for position, array in zip(out_positions, arrays, strict=True):
            out_leaves[position] = array
        return jax.tree_util.tree_unflatten(out_structure, out_leaves)

    def _flat(self, signature: _Signature, *arrays: Any) -> tuple[Any, ...]:
        self.traces += 1
        leaves = list(signature.leaves)
        count = len(signature.positions)
        for position, array in zip(signature.positions, arrays[:count], strict=True):
            leaves[position] = array
        args = jax.tree_util.tree_unflatten(signature.structure, leaves)
        with bound_layouts(args, signature.layouts, arrays[count:]):
            output = self.f(*args)
        out_leaves, out_structure = jax.tree_util.tree_flatten(output)
        out_positions = [i for i, leaf in enumerate(out_leaves) if isinstance(leaf, jax.Array)]
        constants = [None if i in out_positions else leaf for i, leaf in enumerate(out_leaves)]
        self._outputs[signature] = (out_structure, constants, out_positions)
        return tuple(out_leaves[i] for i in out_positions)
