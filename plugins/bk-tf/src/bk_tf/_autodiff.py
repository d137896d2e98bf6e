"""Automatic differentiation, compilation, control flow and callbacks (a mixin of `TFBackend`).

Gradients come from `tf.GradientTape`, compilation from `tf.function`, loops under tracing from
`tf.while_loop`, vectorization from `tf.vectorized_map`, NumPy callbacks from `tf.numpy_function`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from bk import BK_ERRORS, Backend, DType

from ._dtypes import to_tf_dtype
from ._framework import tf

__all__ = ["AutodiffMixin"]

Tensor = Any


def _as_indices(wrt: Any) -> tuple[int, ...]:
    return (wrt,) if isinstance(wrt, int) else tuple(wrt)


def _map(function: Callable[[Any], Any], tree: Any) -> Any:
    if isinstance(tree, (tuple, list)):
        return type(tree)(_map(function, t) for t in tree)
    if isinstance(tree, dict):
        return {k: _map(function, v) for k, v in tree.items()}
    return function(tree)


def _stop(x: Any) -> Any:
    return tf.stop_gradient(x) if isinstance(x, (tf.Tensor, tf.Variable)) else x


def _running(condition: Any) -> Any:
    """Whether any element of a loop condition is true (non-zero), for conditions of every dtype."""
    if isinstance(condition, (bool, int, float)):
        return tf.constant(bool(condition))
    condition = tf.convert_to_tensor(condition)
    return tf.reduce_any(condition if condition.dtype == tf.bool else tf.not_equal(condition, tf.zeros((), condition.dtype)))


def _select(flag: Any, new: Any, old: Any) -> Any:
    """`new` where the scalar `flag` holds, else `old`, leaf by leaf."""
    return tf.nest.map_structure(lambda n, o: tf.where(flag, n, o), new, old)


def _first(output: Any) -> Any:
    return output[0] if isinstance(output, (tuple, list)) else output


class AutodiffMixin:
    """Gradients, Hessians, custom gradients, `tf.function`, loops, vectorization and NumPy callbacks of `TFBackend`."""

    _t: Callable[[Any], Any]

    # ------------------------------------------------------------ autodiff

    def stop_gradient(self, value: Tensor) -> Tensor:
        """`value` cut from automatic differentiation (`tf.stop_gradient`)."""
        return _stop(value)

    def _watched(self, args: Sequence[Any], wrt: Sequence[int]) -> list[Any]:
        """`args` with the arguments `wrt` as float tensors (ints and bools become floats)."""
        args = list(args)
        for i in wrt:
            arg = args[i] if isinstance(args[i], tf.Variable) else self._t(args[i])
            if not (arg.dtype.is_floating or arg.dtype.is_complex):
                arg = self.to_float(arg)  # type: ignore[attr-defined]
            args[i] = arg
        return args

    def jacobian(self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, is_f_scalar: bool) -> Callable[..., Any]:
        """Gradients of the first output of `f` with `tf.GradientTape`.

        A non-scalar loss is summed when `is_f_scalar` (a batch of independent scalars); otherwise the
        full Jacobian is returned with the loss dimensions first. Arguments the loss does not depend on
        get zero gradients. Outputs are returned with gradients stopped.
        """
        wrt = _as_indices(wrt)

        @functools.wraps(f)
        def gradient(*args: Any) -> tuple[Any, ...]:
            args = self._watched(args, wrt)
            xs = [args[i] for i in wrt]
            with tf.GradientTape(persistent=not is_f_scalar) as tape:
                for x in xs:
                    tape.watch(x)
                output = f(*args)
                loss = self._t(_first(output))
                if is_f_scalar or loss.shape.rank == 0:
                    loss = tf.reduce_sum(loss)
            if loss.shape.rank == 0:
                grads = tape.gradient(loss, xs, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            else:
                grads = [tape.jacobian(loss, x, unconnected_gradients=tf.UnconnectedGradients.ZERO) for x in xs]
            if get_output:
                outputs = tuple(output) if isinstance(output, (tuple, list)) else (output,)
                return (*_map(_stop, outputs), *grads)
            return tuple(grads)

        return gradient

    def hessian(self, f: Callable[..., Any], wrt: Sequence[int], get_output: bool, get_gradient: bool) -> Callable[..., Any]:
        """`(f(x), g(x), H(x))` (as asked) for a loss with a batch dimension first.

        `f(x)` is the loss, the first output of `f`; `g` holds one gradient per `wrt` argument and
        `H[i][j]` the Hessian blocks of shape `(batch, *x_i.shape[1:], *x_j.shape[1:])`, computed per
        batch entry with `GradientTape.batch_jacobian` of the gradients.
        """
        wrt = _as_indices(wrt)

        @functools.wraps(f)
        def evaluate(*args: Any) -> tuple[Any, ...]:
            args = self._watched(args, wrt)
            xs = [args[i] for i in wrt]
            with tf.GradientTape(persistent=True) as outer:
                for x in xs:
                    outer.watch(x)
                with tf.GradientTape() as inner:
                    for x in xs:
                        inner.watch(x)
                    loss = self._t(_first(f(*args)))
                    total = tf.reduce_sum(loss)
                grads = inner.gradient(total, xs, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            blocks = tuple(tuple(_batch_jacobian(outer, g, x) for x in xs) for g in grads)
            del outer
            result: list[Any] = [tf.stop_gradient(loss)] if get_output else []
            if get_gradient:
                result.append(tuple(tf.stop_gradient(g) for g in grads))
            result.append(blocks)
            return tuple(result)

        return evaluate

    def custom_gradient(
        self,
        f: Callable[..., Any],
        gradient: Callable[..., Any],
        get_external_cache: Callable[..., Any] | None = None,
        on_call_skipped: Callable[..., Any] | None = None,
    ) -> Callable[..., Any]:
        """`f` with the backward pass `gradient(args, output, d_output) -> d_args`, through `tf.custom_gradient`.

        `f` takes tensors and returns a tensor or a tuple of tensors; `d_output` has the same
        structure. Entries of `d_args` may be `None` (no gradient). `get_external_cache` and
        `on_call_skipped` are not used: TensorFlow runs the forward pass every time.
        """

        @tf.custom_gradient
        def wrapped(*args: Any) -> Any:
            output = f(*args)

            def backward(*d_output: Any, **kwargs: Any) -> Any:
                d_out = d_output if isinstance(output, (tuple, list)) else d_output[0]
                d_args = tuple(gradient(args, output, d_out))
                if len(d_args) != len(args):
                    raise ValueError(
                        f"the custom gradient returned {len(d_args)} values for {len(args)} arguments; return one per argument (None for none)"
                    )
                return list(d_args) if len(d_args) != 1 else d_args[0]

            return output, backward

        @functools.wraps(f)
        def call(*args: Any) -> Any:
            return wrapped(*[self._t(a) for a in args])

        return call

    # ------------------------------------------------------------ compilation

    def jit_compile(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """`f` as a `tf.function`: traced once per input signature (shapes, dtypes, values of Python arguments).

        Runs as a TensorFlow graph; XLA is left to TensorFlow's default (off on CPU, where its
        compile time rarely pays). Python side effects of `f` happen only while it is traced.
        Mistakes found while the graph runs (an index out of range, checked by TensorFlow's CPU
        kernels) raise the bk classes, named after `f`; GPU kernels do not check indices.
        """
        compiled = tf.function(f, autograph=False)
        name = f"jit_compile({getattr(f, '__name__', 'f')})"

        @functools.wraps(f)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return compiled(*args, **kwargs)
            except tf.errors.OpError as error:
                _explain_by_eager_run(name, f, args, kwargs, error)

        call.tf_function = compiled  # type: ignore[attr-defined]
        return call

    # ------------------------------------------------------------ control flow

    def while_loop(self, loop: Callable[..., Any], values: tuple[Any, ...], max_iter: int | Sequence[int] | None) -> Any:
        """Runs `values = loop(*values)` while any element of `values[0]` is true (non-zero, for every dtype).

        Follows `bk.Backend.while_loop`: the condition is checked before every iteration; with a
        sequence of checkpoints the values after each checkpoint's iteration are stacked along a new
        first axis, and checkpoints the loop did not reach repeat the last recorded values, as in
        `phiml.backend`. Eagerly this is the base class's Python loop; inside `tf.function` it is a
        `tf.while_loop`, or for checkpoints a loop unrolled up to the last one in which iterations
        after the stop change nothing (so jit and eager agree). Not differentiable.
        """
        if all(self.is_available(v) for v in tf.nest.flatten(values)):  # type: ignore[attr-defined]
            return Backend.while_loop(self, loop, values, max_iter)  # type: ignore[arg-type]
        values = _map(_stop, values)
        if isinstance(max_iter, (tuple, list)):
            result = self._unrolled_loop(loop, values, list(max_iter))
        else:
            result = self._graph_loop(loop, values, max_iter)
        return _map(_stop, result)

    def _unrolled_loop(self, loop: Callable[..., Any], values: Any, checkpoints: list[int]) -> Any:
        """The checkpoint loop of `Backend.while_loop` as a graph; `active` tells whether iteration i runs."""
        trajectory = [values] if 0 in checkpoints else []
        active = _running(values[0])
        for i in range(1, max(checkpoints, default=0) + 1):
            values = _select(active, loop(*values), values)
            if i in checkpoints:  # a checkpoint after the stop repeats the last one recorded
                trajectory.append(_select(active, values, trajectory[-1]) if trajectory else values)
            active = tf.logical_and(active, _running(values[0]))
        if not trajectory:
            trajectory.append(values)
        trajectory.extend([trajectory[-1]] * (len(checkpoints) - len(trajectory)))
        return self.stack_leaves(trajectory)  # type: ignore[attr-defined]

    def _graph_loop(self, loop: Callable[..., Any], values: Any, max_iter: int | None) -> Any:
        def condition(i: Any, *state: Any) -> Any:
            running = _running(state[0])
            return running if max_iter is None else tf.logical_and(running, i < max_iter)

        def body(i: Any, *state: Any) -> Any:
            return (i + 1, *loop(*state))

        result = tf.while_loop(condition, body, (tf.constant(0), *values))
        return tuple(result[1:])

    def vectorized_call(self, f: Callable[..., Any], *args: Tensor, output_dtypes: Any = None, **aux_args: Any) -> Any:
        """`f` over the first dimension of `args` with `tf.vectorized_map` (size 1 broadcasts).

        Where TensorFlow cannot vectorize an operation of `f`, `tf.vectorized_map` runs it in a loop.
        """
        tensors = [self._t(a) for a in args]
        batch = self.determine_size(tensors, 0)  # type: ignore[attr-defined]
        tensors = [t if t.shape[0] == batch else tf.repeat(t, batch, axis=0) for t in tensors]

        def single(elements: Any) -> Any:
            return f(*elements, **aux_args)

        return tf.vectorized_map(single, tuple(tensors))

    def numpy_call(self, f: Callable[..., Any], output_shapes: Any, output_dtypes: Any, *args: Tensor, **aux_args: Any) -> Any:
        """Calls `f` on NumPy values: directly when eager, through `tf.numpy_function` inside `tf.function`.

        Outputs are converted to `output_dtypes` and get the static `output_shapes`. Not differentiable.
        """
        multiple = isinstance(output_dtypes, (tuple, list))
        dtypes = list(output_dtypes) if multiple else [output_dtypes]
        shapes = list(output_shapes) if multiple else [output_shapes]
        tensors = [self._t(a) for a in args]
        if all(self.is_available(t) for t in tensors):  # type: ignore[attr-defined]
            output = f(*[t.numpy() for t in tensors], **aux_args)
            outputs = list(output) if multiple else [output]
            results = [
                tf.cast(tf.convert_to_tensor(o), to_tf_dtype(d)) if not _is_str(d) else tf.convert_to_tensor(o)
                for o, d in zip(outputs, dtypes, strict=True)
            ]
        else:
            tout = [to_tf_dtype(d) for d in dtypes]

            def call(*arrays: Any) -> Any:
                output = f(*arrays, **aux_args)
                outputs = list(output) if multiple else [output]
                import numpy as np

                return [np.asarray(o).astype(t.as_numpy_dtype) for o, t in zip(outputs, tout, strict=True)]

            results = tf.numpy_function(call, tensors, tout, stateful=False)
            for result, shape in zip(results, shapes, strict=True):
                result.set_shape(shape)
        return tuple(results) if multiple else results[0]


def _is_str(dtype: DType) -> bool:
    return dtype.kind is str


def _batch_jacobian(tape: Any, gradient: Any, x: Any) -> Any:
    """d gradient / d x per batch entry: `(batch, *gradient.shape[1:], *x.shape[1:])`."""
    return tape.batch_jacobian(gradient, x, unconnected_gradients=tf.UnconnectedGradients.ZERO, experimental_use_pfor=False)


def _explain_by_eager_run(name: str, f: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], error: Exception) -> NoReturn:
    """Raises the bk error of a mistake found while a compiled graph ran (an index out of range).

    The graph does not say which bk operation failed, so `f` runs once more, eagerly, on the same
    arguments: there the failing operation raises the class its spec and data give (the core's
    mapping of kernel errors). Only on this error path; Python side effects of `f` happen again.
    """
    try:
        f(*args, **kwargs)
    except (*BK_ERRORS, ValueError, TypeError, IndexError) as eager:  # the operation's own bk error, chained to the graph's
        raise type(eager)(f"{name}: {eager}") from error
    except Exception:  # anything else: the graph's error is the one to report
        pass
    raise error
