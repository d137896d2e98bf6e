"""What an operation's spec says about a call, and the bk error of a kernel's failure.

`spec_verdict` asks an operation's spec (`bk._specs`) about a call's arguments (their templates: shape
and dtype); `check_dtypes` is its cached kind rule for hot kernels. `explain_failure` maps a kernel's
failure to the bk error of the operation's spec, without reading the framework's message (the steps
are in `bk._dispatcher`'s docstring). `positional` puts the catalogue's keywords in their places.
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, Final, NoReturn

from ._errors import BK_ERRORS, ArgumentTypeError
from ._operations import operation

if TYPE_CHECKING:
    from ._backend import Backend


# What the spec's verdict may be: the classes of docs/semantics.md and the built-in ones they derive from.
VERDICTS: Final = (*BK_ERRORS, ValueError, TypeError, IndexError, OverflowError)


_NAMED: Final = (ValueError, TypeError, IndexError, OverflowError)  # exactly these built-in types get the operation's name


def template(backend: Backend | None, value: Any) -> Any:
    """`value` as the spec sees it: native tensors become `ShapeDtype`s (sequences element by element).

    Without a backend, values go to the spec as they are (NumPy arrays describe themselves).
    """
    from ._specs import ShapeDtype

    if backend is None:
        return value
    if isinstance(value, (list, tuple)) and value and any(backend.is_tensor(v, only_native=True) for v in value):
        return type(value)(template(backend, v) for v in value) if isinstance(value, list) else tuple(template(backend, v) for v in value)
    if type(value).__module__ == "numpy" and not hasattr(value, "__len__"):
        return value  # a NumPy scalar describes itself: a 0-d operand, or an int where the spec wants one (an axis)
    if backend.is_tensor(value, only_native=True):
        if backend.is_sparse(value):
            raise LookupError("sparse")  # the specs describe dense tensors: no verdict
        return ShapeDtype(tuple(backend.staticshape(value)), backend.dtype(value))
    return value


def spec_verdict(backend: Backend | None, op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> BaseException | None:
    """The error `op`'s spec gives for these arguments, or None when it accepts them (or cannot tell)."""
    from ._specs import op_specs

    spec = op_specs().get(op)
    if spec is None:
        return None
    try:
        templates = tuple(template(backend, a) for a in args)
        named = {k: template(backend, v) for k, v in kwargs.items()}
    except Exception:  # a value the backend cannot describe: no verdict
        return None
    try:
        signature_of(spec).bind(*templates, **named)
    except TypeError as error:  # the call does not fit the catalogue's signature (the kernel failed on it): as the spec says
        return ArgumentTypeError(f"{op}: {error}; signature {spec.signature()}")
    try:
        spec.infer(*templates, **named)
    except VERDICTS as verdict:
        return verdict
    except Exception:  # a spec that cannot handle these values decides nothing
        return None
    return None


_DTYPE_VERDICTS: dict[tuple[Any, ...], Any] = {}


def check_dtypes(backend: Backend, op: str, *operands: Any) -> None:
    """Raises the spec's error when the elementwise operation `op` does not take the dtypes of the native
    tensors `operands` (complex values in `floor`, `signbit`, `sigmoid`, `arctan2`, ...): the kind rule of
    the operation's spec, for hot kernels that check before they call their framework. The verdict is
    cached per (operation, tensor types and native dtypes), so a call costs one dict lookup; shapes are
    not looked at."""
    try:
        key: Any = (op, *[(type(o), o.dtype) for o in operands])  # the type first: dtypes of two frameworks never meet in __eq__
        verdict = _DTYPE_VERDICTS.get(key, _UNKNOWN)
    except (AttributeError, TypeError):  # a tensor without a hashable native dtype: asked every time
        key, verdict = None, _UNKNOWN
    if verdict is _UNKNOWN:
        from ._specs import ShapeDtype

        error = spec_verdict(None, op, tuple(ShapeDtype((), backend.dtype(o)) for o in operands), {})
        verdict = None if error is None else (type(error), str(error))
        if key is not None:
            _DTYPE_VERDICTS[key] = verdict
    if verdict is not None:
        raise verdict[0](verdict[1])


_UNKNOWN: Final = object()


@functools.cache
def signature_of(spec: Any) -> inspect.Signature:
    return spec.call_signature  # type: ignore[no-any-return]


def explain_failure(backend: Backend | None, op: str, error: BaseException, args: tuple[Any, ...], kwargs: dict[str, Any]) -> NoReturn:
    """Raises the bk error that `error` (raised by `backend`'s kernel of `op` for these arguments) means.

    For plugin authors who catch inside a trusted kernel (see `Backend.trusted_operations`) or
    inside a helper of their own: call it in the `except` branch. `backend` may be None when the
    arguments are NumPy arrays or other objects with `shape` and a NumPy `dtype`. Never reads the
    framework's message: the spec decides mistakes of shape, axis and kind; the plugin's declared
    `kernel_errors` and `DATA_ERRORS` decide mistakes in the data; anything else is raised unchanged.
    """
    if isinstance(error, BK_ERRORS) and str(error).startswith(f"{op}:"):
        raise error  # the kernel's own verdict, naming the operation
    verdict = spec_verdict(backend, op, args, kwargs)
    if verdict is not None:
        raise verdict from error
    explain_by_class(backend, op, error)


def explain_by_class(backend: Backend | None, op: str, error: BaseException) -> NoReturn:
    """`explain_failure` after the spec accepted the call (or has no arguments to judge: a lazily evaluating
    framework's error raised when a value is read): the error's class decides."""
    text = (str(error).strip().splitlines() or [type(error).__name__])[0]
    for kind, meaning in (type(backend).framework_errors.items() if backend is not None else ()):
        if isinstance(error, kind):
            raise meaning(f"{op}: {text}") from error
    if isinstance(error, BK_ERRORS):  # raised by an operation the kernel called (maximum, as_tensor, ...): its class stands
        raise type(error)(f"{op}: {error}") from error
    if isinstance(error, tuple(type(backend).kernel_errors) if backend is not None else (IndexError,)):
        data = operation(op).data_error
        if data is not None:
            raise data(f"{op}: {text}") from error
    text = str(error).strip()
    if type(error) in _NAMED and text and not text.startswith(f"{op}:"):  # name the operation, as bk's own errors do
        raise type(error)(f"{op}: {text}") from error
    raise error


def positional(spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The call's arguments with those the catalogue's signature takes by position passed by position.

    The common case, keywords that name the parameters right after the positional arguments (`sum(x, axis=0)`),
    is looked up per (spec, count, keywords) and costs a dict lookup; any other call is bound by `inspect`."""
    key = (spec, len(args), tuple(kwargs))
    try:
        following = _FOLLOWING.get(key, _UNKNOWN)
    except TypeError:  # an unhashable spec: bound every time
        following = None
    if following is _UNKNOWN:
        names = [name for name, _ in spec.params]
        following = tuple(names[len(args) : len(args) + len(kwargs)])
        if set(following) != set(kwargs) or len(following) != len(kwargs) or not _positional_names(spec, following):
            following = None
        if len(_FOLLOWING) >= 4096:
            _FOLLOWING.clear()
        _FOLLOWING[key] = following
    if following is not None:
        return (*args, *[kwargs[name] for name in following]), {}
    try:
        bound = signature_of(spec).bind(*args, **kwargs)
    except TypeError:  # not a call of the catalogue's signature: the kernel's Python error tells
        return args, kwargs
    return bound.args, bound.kwargs


_FOLLOWING: dict[Any, Any] = {}


def by_position(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """`(args, kwargs)` of a call of the operation `op` with the arguments its catalogue signature takes by position
    passed by position (`sum(x, axis=0)` is `sum(x, 0)`), for code that writes calls (bk-lazy's compiled
    functions); the call as it is for an operation without a spec or a call that does not fit the signature."""
    from ._specs import op_specs

    spec = op_specs().get(op)
    return (args, kwargs) if spec is None or not kwargs else positional(spec, args, dict(kwargs))


def _positional_names(spec: Any, names: tuple[str, ...]) -> bool:
    """Whether the catalogue's signature takes each of `names` by position (none is keyword-only or variadic)."""
    parameters = signature_of(spec).parameters
    return all(name in parameters and parameters[name].kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.POSITIONAL_ONLY) for name in names)
