"""Precomputed explorables on the static pages (loaded by _config.yml, local_extensions).

Every dashboard of the book moves on its static page: while the notebooks execute, each
``widgets.show(dashboard)`` renders the dashboard's figure over a grid of control values
(privpca_edu/widgets/explorable.py, through the dashboard's own twin and figure) and displays
HTML controls bound to those frames; every other figure gets a phone layout beside it.  This
extension

* tells the notebooks' kernels where the frame cache is (``PRIVPCA_EXPLORABLES``, inherited by
  every kernel the build starts): ``$PRIVPCA_EXPLORABLES_CACHE``, by default
  ``_build/explorables-cache`` next to _config.yml.  A chapter whose package code, dashboard and
  grid are unchanged reuses its frames (scripts/build_book.sh keeps that folder between builds).
  Not in a live build (``PRIVPCA_BOOK_LIVE=1``): Live Code pages keep the widgets as they are;
* replaces the placeholder ``@@PRIVPCA_STATIC@@`` in the pages by their path to ``_static/``, and
  adds ``_static/privpca-explorable.js`` to the pages that have an explorable;
* copies the frames the pages use from the cache to ``_static/privpca-explorables/``.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

ENV_VAR = "PRIVPCA_EXPLORABLES"
CACHE_ENV = "PRIVPCA_EXPLORABLES_CACHE"
TOKEN = "@@PRIVPCA_STATIC@@"
FOLDER = "privpca-explorables"
SCRIPT = "privpca-explorable.js"
_USED = re.compile(r"_static/" + FOLDER + r"/([A-Za-z0-9_-]+)/([0-9a-f]+\.png)?")


def configure(app, config):
    if os.environ.get("PRIVPCA_BOOK_LIVE", "") == "1":
        os.environ.pop(ENV_VAR, None)
        app.privpca_explorables = None
        return
    cache = Path(os.environ.get(CACHE_ENV) or Path(app.confdir) / "_build" / "explorables-cache").resolve()
    cache.mkdir(parents=True, exist_ok=True)
    os.environ[ENV_VAR] = str(cache)
    app.privpca_explorables = cache


def fill_paths(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if not body or TOKEN not in body:
        return
    static = context["pathto"]("_static/", 1)
    context["body"] = body.replace(TOKEN, static)
    if "privpca-explorable" in body:
        app.add_js_file(SCRIPT, priority=520, defer="defer")


def copy_frames(app, exception):
    cache = getattr(app, "privpca_explorables", None)
    if exception is not None or cache is None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    used = {}
    for page in out.rglob("*.html"):
        if "_static" in page.relative_to(out).parts:
            continue
        for key, name in _USED.findall(page.read_text(encoding="utf-8", errors="replace")):
            used.setdefault(key, set())
            if name:
                used[key].add(name)
    target_root = out / "_static" / FOLDER
    for key, names in used.items():
        source = cache / key
        if not source.is_dir():
            continue
        target = target_root / key
        target.mkdir(parents=True, exist_ok=True)
        if key == "figures":  # shared by every static figure: only those the pages show
            files = [source / n for n in names]
        else:  # a dashboard's frames, named in its page's inline index
            files = [p for p in source.iterdir() if p.suffix == ".png"]
        for path in files:
            if path.exists():
                shutil.copy2(path, target / path.name)


def setup(app):
    app.connect("config-inited", configure)
    app.connect("html-page-context", fill_paths, priority=600)
    app.connect("build-finished", copy_frames)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
