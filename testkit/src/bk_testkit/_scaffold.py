"""`testkit new`: scaffolds a plugin distribution that installs and certifies as it is.

The generated backend implements the required set of `bk.Backend` on NumPy arrays and nothing else,
so `testkit certify NAME` exits 0 from the start. Its TODO list of optional features is computed
here from `bk.Backend.features()` and the markers of the installed bk-core, so it never goes stale.
The files come from the templates in `bk_testkit/templates/`, with `{{ key }}` placeholders.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.metadata
import importlib.util
import inspect
import json
import keyword
import re
import textwrap
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np

import bk
from bk._features import CAPABILITIES, uses_of
from bk._operations import defined_in

from ._catalogue import describe_feature
from ._version import __version__

__all__ = ["Scaffold", "ScaffoldError", "feature_topics", "fill", "module_owners", "plan", "render", "scaffold", "validate"]

_NAME: Final = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
_PLACEHOLDER: Final = re.compile(r"\{\{ (\w+) \}\}")
_BANNER: Final = re.compile(r"^\s*# -{8,} (.+?)\s*$")
_CAPABILITIES_TOPIC: Final = "capabilities"
_TODO_WIDTH: Final = 118
_README_WIDTH: Final = 100

# Generated path (with {package}) -> template file in bk_testkit/templates/.
_FILES: Final = {
    "pyproject.toml": "pyproject.toml.tmpl",
    "README.md": "README.md.tmpl",
    "CHANGELOG.md": "CHANGELOG.md.tmpl",
    ".gitignore": "gitignore.tmpl",
    "src/{package}/__init__.py": "__init__.py.tmpl",
    "src/{package}/plugin.py": "plugin.py.tmpl",
    "src/{package}/_backend.py": "_backend.py.tmpl",
    "src/{package}/_version.py": "_version.py.tmpl",
    "src/{package}/py.typed": "py.typed.tmpl",
    "tests/test_plugin.py": "test_plugin.py.tmpl",
    "tests/test_conformance.py": "test_conformance.py.tmpl",
    "tests/conftest.py": "conftest.py.tmpl",
    ".github/workflows/certify.yml": "certify.yml.tmpl",
}


class ScaffoldError(Exception):
    """The plugin cannot be generated: a bad name, an existing folder, or a clash with what is installed."""


@dataclass(frozen=True)
class Scaffold:
    """The names of one generated plugin.

    Args:
        name: The backend name and entry-point name, such as `'mylib'`.
        framework: The top-level module of the framework (`--framework`), or `None`.
        framework_distribution: The distribution that provides `framework`, for the dependency.
    """

    name: str
    framework: str | None = None
    framework_distribution: str | None = None
    bk_source: str = ""

    @property
    def package(self) -> str:
        """The import name, `bk_NAME`."""
        return f"bk_{self.name}"

    @property
    def distribution(self) -> str:
        """The distribution name, `bk-NAME` (underscores become hyphens)."""
        return "bk-" + self.name.replace("_", "-")

    @property
    def class_name(self) -> str:
        """The `Backend` subclass, such as `MylibBackend`."""
        return "".join(part.capitalize() for part in self.name.split("_")) + "Backend"


def scaffold(name: str, framework: str | None = None, parent: str | Path = ".", bk_source: str | None = None, framework_dist: str | None = None) -> list[Path]:
    """Writes a new plugin distribution into the folder `parent/bk-NAME` (its distribution name).

    Never into a folder named like the backend: `paddle/` in the working directory would shadow
    `import paddle` for everything run from there.

    Args:
        name: The backend name: lowercase letters, digits and single underscores, starting with a letter.
        framework: The top-level module of the framework the backend is for; its types are the
            ones the backend owns in dispatch (`BackendSpec.modules`).
        parent: The folder in which the new folder is created.
        bk_source: Where the generated CI installs bk from while it is not on a package index: a git
            URL (`git+https://...`) or a path to a checkout. `None`: the git URL this bk-testkit was
            installed from, if any (PEP 610), else nothing (bk comes from the index).
        framework_dist: The distribution that provides `framework` (`--framework-dist`), the dependency
            written into `pyproject.toml`; `None`: found as `framework_distribution` finds it.

    Returns:
        The files written, in the order of writing.

    Raises:
        ScaffoldError: for an invalid name or framework, an existing folder, or a name that an
            installed backend or module already uses.
    """
    spec = validate(name, framework, framework_dist)
    spec = dataclasses.replace(spec, bk_source=_installed_from_git() if bk_source is None else bk_source)
    target = Path(parent) / spec.distribution
    if target.exists():
        raise ScaffoldError(f"{target} already exists; choose another name, or remove or rename that folder first")
    files = render(spec)
    written = []
    for relative, text in files.items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


# ---------------------------------------------------------------- validation


def validate(name: str, framework: str | None = None, framework_dist: str | None = None) -> Scaffold:
    """Checks `name` and `framework` (and its distribution `framework_dist`, if given) against the rules and what is installed.

    Raises:
        ScaffoldError: saying what is wrong and what to do.
    """
    if not _NAME.fullmatch(name) or keyword.iskeyword(name):
        raise ScaffoldError(
            f"invalid backend name {name!r}: use lowercase letters, digits and single underscores, starting with a letter, "
            "and no Python keyword (such as 'mylib' or 'my_lib'); it becomes the backend name, the package bk_NAME "
            "and the distribution bk-NAME"
        )
    installed = bk.backends()
    if name in installed or name == bk.OBJECTS.name:
        raise ScaffoldError(
            f"a backend named {name!r} is already installed (installed: {', '.join([*installed, bk.OBJECTS.name])}); "
            "backend names must be unique, so choose another name"
        )
    spec = Scaffold(name)
    if importlib.util.find_spec(spec.package) is not None:
        raise ScaffoldError(f"a module named {spec.package!r} is already installed; choose another name")
    try:
        importlib.metadata.distribution(spec.distribution)
    except importlib.metadata.PackageNotFoundError:
        pass
    else:
        raise ScaffoldError(f"a distribution named {spec.distribution!r} is already installed; choose another name")
    if framework is None:
        if framework_dist is not None:
            raise ScaffoldError("--framework-dist names the distribution of the --framework module; give --framework MODULE too")
        return spec
    _check_framework(framework)
    if framework_dist is not None and not _DISTRIBUTION.fullmatch(framework_dist):
        raise ScaffoldError(f"--framework-dist takes a distribution name as pip installs it, such as 'paddlepaddle', not {framework_dist!r}")
    return Scaffold(name, framework, framework_dist or framework_distribution(framework))


_DISTRIBUTION: Final = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")  # a project name (PEP 508)

KNOWN_DISTRIBUTIONS: Final = {
    "paddle": "paddlepaddle", "sklearn": "scikit-learn", "skimage": "scikit-image", "PIL": "pillow", "cv2": "opencv-python",
    "yaml": "PyYAML", "jaxlib": "jaxlib", "tensorflow": "tensorflow", "torch": "torch", "mlx": "mlx", "cupy": "cupy",
    "mindspore": "mindspore", "oneflow": "oneflow", "tinygrad": "tinygrad", "mxnet": "mxnet", "dask": "dask",
}  # fmt: skip
"""Top-level modules whose distribution is named otherwise (or is ambiguous: several distributions install `mlx`,
`cupy` comes as `cupy-cuda12x` too), for a framework that is not installed where `testkit new` runs."""


def framework_distribution(framework: str) -> str:
    """The distribution `pyproject.toml` depends on for the top-level module `framework`.

    Where the module is installed, the distribution that provides it (the one named like the module when
    several do, as `mlx` and `mlx-metal`); else the name in `KNOWN_DISTRIBUTIONS` (`paddle` is
    `paddlepaddle`, `sklearn` `scikit-learn`); else the module's own name, which `testkit new` says it
    assumed. `--framework-dist` overrides all of these.
    """
    distributions = importlib.metadata.packages_distributions().get(framework, [])
    if distributions:
        wanted = _normalized(KNOWN_DISTRIBUTIONS.get(framework, framework))
        named = [d for d in distributions if _normalized(d) == wanted]
        return named[0] if named else sorted(distributions)[0]
    return KNOWN_DISTRIBUTIONS.get(framework, framework)


def _normalized(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


def _check_framework(framework: str) -> None:
    if not framework.isidentifier() or keyword.iskeyword(framework):
        raise ScaffoldError(f"--framework takes the top-level module of a framework, such as 'torch', not {framework!r}")
    owner = module_owners().get(framework)
    if owner is not None:
        raise ScaffoldError(
            f"the types of {framework!r} belong to the installed backend {owner!r}; two backends owning one module would "
            "change which backend existing code uses. Leave out --framework (the new backend then owns no types) "
            "or uninstall that backend first"
        )


def module_owners() -> dict[str, str]:
    """Top-level module -> name of the installed backend that owns its types (`BackendSpec.modules`).

    Asks the entry-point modules of the `bk.backends` group, which are light by contract; a plugin
    that fails here is left out (bk reports it in `bk.info()`).
    """
    owners: dict[str, str] = {}
    for entry_point in importlib.metadata.entry_points(group="bk.backends"):
        try:
            specs = entry_point.load().bk_backends()
        except Exception:  # a broken plugin owns nothing; bk reports it
            continue
        for spec in specs if isinstance(specs, (list, tuple)) else [specs]:
            for module in getattr(spec, "modules", ()):
                owners.setdefault(module, spec.name)
    return owners


# ---------------------------------------------------------------- rendering


def render(spec: Scaffold) -> dict[str, str]:
    """The generated files: relative path -> text.

    What the backend claims, and so its TODO list, is computed from the methods that the generated
    `_backend.py` really overrides: the template is filled once without the lists and parsed.
    """
    values = _values(spec)
    draft = fill(_template(_FILES["src/{package}/_backend.py"]), defaultdict(str, values))
    values.update(_plan_values(_overrides(draft, spec.class_name)))
    return {path.format(package=spec.package): fill(_template(name), values) for path, name in _FILES.items()}


def _template(name: str) -> str:
    return resources.files("bk_testkit").joinpath("templates", name).read_text(encoding="utf-8")


def _overrides(source: str, class_name: str) -> set[str]:
    """The feature methods that class `class_name` in `source` defines."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            defined = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            return defined & set(bk.Backend.features())
    raise AssertionError(f"the _backend.py template defines no class {class_name}")


def fill(template: str, values: Mapping[str, str]) -> str:
    """`template` with every `{{ key }}` replaced by `values[key]`.

    Raises:
        KeyError: for a placeholder without a value.
    """
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)


def _values(spec: Scaffold) -> dict[str, str]:
    framework = spec.framework
    return {
        "name": spec.name,
        "package": spec.package,
        "distribution": spec.distribution,
        "class_name": spec.class_name,
        "core_version": bk.__version__,
        "core_range": _minor_range(bk.__version__),
        "testkit_version": __version__,
        "testkit_range": _minor_range(__version__),
        "api": str(bk.API_VERSION),
        "framework_label": framework or "your framework",
        "framework_dependency": f'\n    "{spec.framework_distribution}",' if framework else "",
        "framework_warnings": f'\n    "ignore:::{framework}(\\\\.|$)",' if framework else '\n    # "ignore:::mylib(\\\\.|$)",  # with your framework\'s top-level module, once the backend imports it',
        "modules": f'("{framework}",)' if framework else "()",
        "modules_comment": (
            f"the types of {framework} go to this backend (once is_tensor accepts them)"
            if framework
            else 'owns no types yet: add ("MODULE",) once it computes with your framework'
        ),
        "spec_framework": spec.framework_distribution or "numpy",
        "framework_clause": f" or {framework}" if framework else "",
        "description": f"{framework} backend generated by testkit new" if framework else "generated by testkit new; computes with NumPy",
        "light_modules": repr((f"{spec.package}._backend", *((framework,) if framework else ()))),
        "dispatch": textwrap.fill(_dispatch_text(spec), _README_WIDTH),
        "port_steps": textwrap.fill(_port_text(spec), _README_WIDTH, subsequent_indent="   "),
        "feature_count": str(len(bk.Backend.features())),
        "bk_source": spec.bk_source,
    }


def _installed_from_git() -> str:
    """The git URL (with its revision) that bk-testkit was installed from, or `""` (PEP 610 `direct_url.json`)."""
    try:
        text = importlib.metadata.distribution("bk-testkit").read_text("direct_url.json")
        data = json.loads(text or "{}")
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return ""
    vcs = data.get("vcs_info") or {}
    if vcs.get("vcs") != "git" or not str(data.get("url", "")):
        return ""
    revision = vcs.get("requested_revision") or vcs.get("commit_id")
    return f"git+{data['url']}" + (f"@{revision}" if revision else "")


def _plan_values(overrides: set[str]) -> dict[str, str]:
    claimed, todo = plan(overrides)
    return {
        "claimed": ", ".join(f"`{f}`" for f in claimed),
        "claimed_count": str(len(claimed)),
        "todo_count": str(sum(len(v) for v in todo.values())),
        "todo_comments": _todo_comments(todo),
        "todo_table": _todo_table(todo),
    }


def _minor_range(version: str) -> str:
    """`>=X.Y,<X.(Y+1)`: the minor releases of one API, as first-party plugins pin bk-core."""
    major, minor = (int(part) for part in re.findall(r"\d+", version)[:2])
    return f">={major}.{minor},<{major}.{minor + 1}"


def _dispatch_text(spec: Scaffold) -> str:
    if spec.framework:
        return (
            f"`plugin.py` declares `modules=(\"{spec.framework}\",)`: a value whose type comes from the module "
            f"`{spec.framework}` goes to this backend once `is_tensor(value, only_native=True)` accepts it. Until you "
            f"port the required set, the backend computes with NumPy and accepts no {spec.framework} tensors, so "
            f"dispatch of {spec.framework} values fails with a clear error and nothing else changes. Its priority "
            "is 10, as for every framework: NumPy arrays (priority 0) are constants next to its tensors."
        )
    return (
        "`plugin.py` declares `modules=()`: the backend owns no types. It computes with NumPy arrays, but "
        "those belong to bk-numpy, so installing this plugin never changes which backend existing code uses; "
        f"reach it by name with `bk.backend(\"{spec.name}\")` or `with bk.backend(\"{spec.name}\"):`. When it "
        "computes with your framework, put the framework's top-level module into `modules` (such as "
        "`modules=(\"mylib\",)`) so that its tensors dispatch here. Its priority is 10, as for every framework: "
        "NumPy arrays (priority 0) are constants next to its tensors."
    )


def _port_text(spec: Scaffold) -> str:
    target = spec.framework or "your framework"
    return (
        f"Port the seven required methods in `_backend.py` from NumPy to {target}: `as_tensor` returns "
        f"{target}'s tensors, `is_tensor(x, only_native=True)` accepts exactly them, `numpy` converts back. "
        f"Keep `testkit certify {spec.name}` at exit status 0 after every step."
    )


# ---------------------------------------------------------------- the TODO list


def plan(overrides: set[str]) -> tuple[list[str], dict[str, list[tuple[str, tuple[str, str]]]]]:
    """What a backend that overrides exactly `overrides` claims, and the rest by topic.

    Returns:
        The claimed feature ids, and per topic the unclaimed ones with their description and a hint
        on what else makes them supported (`""` where overriding is the only way).
    """
    stand_in = _stand_in(overrides)
    topics = feature_topics()
    claimed = [f for f in bk.Backend.features() if stand_in.supports(f)]
    todo: dict[str, list[tuple[str, tuple[str, str]]]] = {}
    for topic, features in topics.items():
        missing = [(f, _note(stand_in, f)) for f in features if not stand_in.supports(f)]
        if missing:
            todo[topic] = missing
    return claimed, todo


def _stand_in(overrides: set[str]) -> bk.Backend:
    """A backend class that overrides `overrides` (and the required set); only its `supports()` is called."""

    def stub(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the stand-in backend is never called")

    methods: dict[str, Any] = dict.fromkeys({*bk.Backend.__abstractmethods__, *overrides}, stub)
    methods["native_types"] = (np.ndarray,)  # as the _backend.py template declares
    cls: type[bk.Backend] = type("StandIn", (bk.Backend,), methods)
    return object.__new__(cls)


def _note(stand_in: bk.Backend, feature: str) -> tuple[str, str]:
    """The feature's description, and what else makes it supported where overriding it is not the only way."""
    if feature in CAPABILITIES:
        needs = [op for op in CAPABILITIES[feature] if not stand_in.supports(op)]
        return describe_feature(feature), f" [needs {', '.join(needs)}]" if needs else ""
    uses = uses_of(getattr(bk.Backend, feature))
    missing = [op for op in uses or () if not stand_in.supports(op)]
    return describe_feature(feature), f" [default from {', '.join(missing)}]" if missing else ""


def feature_topics() -> dict[str, list[str]]:
    """Every feature id grouped by the topic banner above it in the source of the core module that
    defines it, capabilities last.

    The reference catalogue's topics come first, in the order of the banners of `bk._catalogue_core`
    and `bk._catalogue_algorithms` (its generic defaults, in `bk._defaults` and
    `bk._defaults_algorithms`, sit under the same banners); then the topics of the Array API
    standard's modules, in the registry's order (`bk._operations.defined_in`). An operation of
    those under a banner of the same name joins that topic (`eye` joins "creation").
    Falls back to one group, "operations", where the source of bk-core cannot be read.
    """
    methods = [f for f in bk.Backend.features() if f not in CAPABILITIES]
    code = {f: inspect.unwrap(getattr(bk.Backend, f)).__code__ for f in methods}
    files: dict[str, list[tuple[int, str]]] = {}

    def banners(filename: str) -> list[tuple[int, str]]:
        if filename not in files:
            try:
                lines = Path(filename).read_text(encoding="utf-8").splitlines()
            except OSError:
                lines = []
            files[filename] = [(number, match.group(1)) for number, line in enumerate(lines, 1) if (match := _BANNER.match(line))]
        return files[filename]

    def topic(feature: str) -> str:
        before = [title for number, title in banners(code[feature].co_filename) if number < code[feature].co_firstlineno]
        return before[-1] if before else "operations"

    modules = [inspect.getfile(module) for module in defined_in()]  # the catalogue's signatures first, then the defaults
    order = {filename: i for i, filename in enumerate(modules)}
    rank = {title: i for i, title in enumerate(dict.fromkeys(title for filename in modules[:2] for _, title in banners(filename)))}

    def position(feature: str) -> tuple[int, int, int, int]:
        module = order.get(code[feature].co_filename, len(order))
        title = topic(feature)
        if title in rank:  # the catalogue's signatures first, then the defaults
            return 0, rank[title], module, code[feature].co_firstlineno
        return 1, module, 0, code[feature].co_firstlineno

    topics: dict[str, list[str]] = {}
    for feature in sorted(methods, key=position):
        topics.setdefault(topic(feature), []).append(feature)
    topics[_CAPABILITIES_TOPIC] = list(CAPABILITIES)
    return topics


def _todo_comments(todo: dict[str, list[tuple[str, tuple[str, str]]]]) -> str:
    lines = []
    for topic, features in todo.items():
        lines.append(f"#\n# {topic}")
        for feature, (description, hint) in features:
            head = f"#   {feature:<30} "
            if len(head) + len(description) > _TODO_WIDTH:
                description = description[: _TODO_WIDTH - len(head) - 3].rstrip() + "..."
            if len(head) + len(description) + len(hint) <= _TODO_WIDTH:
                lines.append(head + description + hint)
            else:  # a long list of operations goes on a line of its own
                lines += [head + description, "#" + " " * (len(head) - 1) + hint.strip()]
    return "\n".join(lines)


def _todo_table(todo: dict[str, list[tuple[str, tuple[str, str]]]]) -> str:
    rows = ["| topic | features to add |", "|---|---|"]
    rows += [f"| {topic} | {', '.join(f'`{f}`' for f, _ in features)} |" for topic, features in todo.items()]
    return "\n".join(rows)
