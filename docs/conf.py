"""Sphinx configuration of the semiprivate documentation (built by ``bash scripts/docs.sh``).

* autodoc + napoleon: the API reference, from the docstrings (NumPy style);
* sphinx.ext.doctest: every ``.. doctest::`` example of the pages runs in ``scripts/docs.sh``
  (the docstrings' own examples run in pytest's doctest collection);
* sphinx-gallery: ``examples/gallery/plot_*.py`` are executed at build time, each reproducing one
  result of the papers, with its output and figures on the page;
* ``_ext/semiprivate_docs.py``: the API pages (one per public module, every name of its
  ``__all__``) and the paper pages (from the SPEC index) are generated at each build.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import semiprivate

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
os.environ.setdefault("MPLBACKEND", "Agg")

project = "semiprivate"
author = "The semiprivate developers"
copyright = "2026, The semiprivate developers"
version = release = semiprivate.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx_gallery.gen_gallery",
    "semiprivate_docs",
]

exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "dask.md"]
root_doc = "index"
html_theme = "alabaster"
html_theme_options = {"description": "semi-private learning: bounds, audits, kernels", "fixed_sidebar": True,
                      "page_width": "1320px", "sidebar_width": "300px", "body_max_width": "none"}
html_static_path: list[str] = []
html_show_sourcelink = False

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True  # "Attributes" as fields: dataclass fields are documented once, by autodoc
# "more than one target found" for type fields such as "array of shape (n, p)": Sphinx looks the
# words n and p up as Python objects and finds attributes of several classes with those names.
# Only these ambiguity warnings of the Python domain are silenced; every other warning fails the build.
# A module docstring may define a citation (``.. [JUO20] ...``) that it names in plain text.
suppress_warnings = ["ref.python", "ref.citation"]
# every cross-reference must resolve (a dead :func:`...` fails the -W build).  Type names written in
# docstrings' Parameters sections ("array of shape (n, d)", "float in (0, 1]", numpy.random.Generator)
# are references too: those outside the package are not documented here (no network, no intersphinx)
# and are exempt; a reference to a semiprivate object, or any :func: / :meth: / :mod: / :attr:, must resolve.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:(class|obj|data|exc)", r"(?!semiprivate\.).*"),
    (r"py:(func|meth|mod|attr)", r"(numpy|scipy|sklearn|dask|distributed|dp_accounting|cupy|hypothesis|pytest|"
                                 r"matplotlib|networkx|sympy|z3|mpmath|opendp)(\..*)?"),
]

# only explicit ``.. doctest::`` blocks of the pages run here, each page as written (no global setup:
# a page imports what it uses, so a pasted example runs); docstring examples run under pytest
doctest_test_doctest_blocks = ""

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples" / "gallery"),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "show_memory": False,
    "min_reported_time": 0,
    # the examples run in worker processes, one per core (scripts/docs.sh builds the pages with -j auto too)
    "parallel": True,
    "within_subsection_order": "FileNameSortKey",
}
