"""Sphinx configuration of the bk documentation (`make docs`)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "_ext"))

import bk  # noqa: E402

project = "bk"
author = "the bk developers"
copyright = "2026, the bk developers"
release = version = bk.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "feature_matrix",
    "scaffold_summary",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "README.md"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

html_theme = "furo"
html_static_path = ["_static"]
html_css_files = ["bk.css"]
html_title = f"bk {release}"

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True  # Attributes: as fields, not entries that collide with __slots__ members

# Cross-references inside the project must resolve (nitpicky). The build machines have no internet,
# so no intersphinx inventories are fetched: references to Python, NumPy and the frameworks are
# plain text.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(?!bk\b|bk\.|bk_testkit\b|bk_testkit\.).*"),
    (r"py:.*", r"bk\._.*"),
    (r"py:.*", r"bk_testkit\._.*"),
    (r"py:.*", r"(Tensor|TensorType|F)"),
]
