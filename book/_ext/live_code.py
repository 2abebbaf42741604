"""Launch buttons for the privpca_edu book: one repository setting, and Live Code from a local copy
of Thebe (loaded by _config.yml, local_extensions).

Three ways a chapter page can be built:

* **static** (the default): ``repository.url`` in _config.yml is empty.  No Binder button, no
  repository button and no Live Code button is rendered, and no page names a repository: a
  launch button that points at a repository that does not exist would only ever 404.
* **with a repository**: ``repository.url`` is set (a public GitHub, GitLab or other git URL).
  The rocket menu gets *Binder* (``launch_buttons.binderhub_url``) and, when
  ``launch_buttons.thebe`` is true, *Live Code*, which starts a Binder kernel for the page; the
  header gets the repository button.  All of them point at that URL.
* **live** (``PRIVPCA_BOOK_LIVE=1`` in the build's environment; ``scripts/live_book.sh`` sets it):
  every notebook page gets *Live Code*, which connects to the Jupyter server that
  ``scripts/live_book.sh`` runs on 127.0.0.1.  The build also executes notebooks in ``cache``
  mode, so rebuilding after a change re-executes only the notebooks that changed.

Live Code never loads anything from another host.  sphinx-thebe (which Jupyter Book 1 always
loads) would fetch Thebe 0.8 from unpkg.com and give Thebe 0.9 options it does not read
(``kernelOptions.name``, a Binder repository as page configuration, ``useBinder`` that
``bootstrap()`` overrides).  Its two listeners are therefore disconnected, and each page with
Live Code gets instead

* ``window.privpcaThebeConfig``: mode (``local`` or ``binder``), kernel name, the notebook's path
  in the repository (the kernel starts in its folder) and, for Binder, the repository;
* ``_static/privpca-thebe.js`` and ``privpca-thebe.css`` (book/_ext/static).  On the first
  click the script loads Thebe from ``_static/thebe/`` (npm's ``thebe`` package, fetched and
  patched by scripts/fetch_vendor.sh so that it loads require.js from ``_static/requirejs/`` and
  no widget code from a CDN), turns the page's code cells into Thebe cells, connects, and runs
  the chapter's cells.

In local mode the page reads the Jupyter server's address from ``_static/privpca-live/kernel.json``
(written by scripts/live_book.sh when it starts, so a build can be reused with another port) and
its access token from localStorage.  The token arrives in the address the script prints
(``#privpca-live-token=...``, a URL fragment: never sent to any server): *every* page of a live
build, chapter or not, loads ``_static/privpca-live-token.js``, which stores it for this site and
removes it from the address bar, so the printed address may open any page.

**Only what the dashboards need runs.**  Each code cell of a notebook page is marked at build time
(``doctree-resolved``): ``privpca-live-dashboard`` if its saved output holds a widget (a dashboard
or an answer check), ``privpca-live-run`` if a dashboard needs it, i.e. it defines a name that a
dashboard cell, or a cell it needs, reads (:func:`plan_cells`: names read and bound per
statement, from Python's ``ast``; the latest earlier cell binding a name is the one needed).  Of
a cell needed only for some names (a setup cell that also prints a table), only the statements
binding them run (:func:`reduced_source`; ``parts`` in the page configuration).  Live Code runs
only that, in page order; every other cell keeps the output the build computed and can be run
with its own "run" button (or all of them with "Run every cell"), whole.
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

from docutils import nodes

from sphinx.util import logging

LOGGER = logging.getLogger(__name__)

LIVE_ENV = "PRIVPCA_BOOK_LIVE"
SCRIPT = "privpca-thebe.js"
TOKEN_SCRIPT = "privpca-live-token.js"
STYLESHEET = "privpca-thebe.css"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
RUN_CLASS = "privpca-live-run"
DASHBOARD_CLASS = "privpca-live-dashboard"


def _statement_names(statement, base_of) -> tuple[set[str], set[str]]:
    loaded, stored = set(), set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
            name = base_of(node)
            if name:
                loaded.add(name)
                stored.add(name)
        elif isinstance(node, ast.AugAssign):
            name = base_of(node.target)
            if name:
                loaded.add(name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    stored.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored.add(node.name)
    return loaded, stored


def _base(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _parse(source: str):
    """(magic lines, module) of a cell; module None if the rest is not plain Python."""
    magics = [line for line in source.splitlines() if line.lstrip().startswith(("%", "!"))]
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        return magics, ast.parse("\n".join(lines))
    except SyntaxError:
        return magics, None


def reduced_source(source: str, wanted: set[str]) -> str | None:
    """The part of a cell that binds the names ``wanted`` (for a cell run only because later
    cells need names from it): its magic lines, its imports and definitions (cheap, and what a
    reader's next cell most likely needs), and the top-level statements that bind a wanted name
    or a name a kept statement reads, in order.  Statements that bind nothing wanted (a loop
    printing a table, a call printing something) are left out.  None: run the whole cell (not
    plain Python, or nothing would be left out)."""
    magics, tree = _parse(source)
    if tree is None:
        return None
    keep, need = [], set(wanted)
    for statement in reversed(tree.body):
        loaded, stored = _statement_names(statement, _base)
        cheap = isinstance(statement, (ast.Import, ast.ImportFrom, ast.FunctionDef,
                                       ast.AsyncFunctionDef, ast.ClassDef))
        if cheap or stored & need:
            keep.append(statement)
            need |= loaded
    if len(keep) == len(tree.body):
        return None
    # the statements' own text (comments between them are dropped)
    body_lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    parts = ["\n".join(body_lines[s.lineno - 1:s.end_lineno]) for s in reversed(keep)]
    return "\n".join(magics + parts) + "\n"


def _names(source: str) -> tuple[set[str], set[str]] | None:
    """(names the cell reads before binding them, names it binds) at the top level of a cell;
    None if the cell is not plain Python (then it is treated as reading and binding anything).

    Deliberately generous: names read inside functions and comprehensions count as read, and a
    subscript, attribute or augmented assignment (``X[0] = 1``, ``est.x = 1``, ``X /= 2``) both
    reads and binds its base name, so that the cell that last changed an object is run too."""
    tree = _parse(source)[1]
    if tree is None:
        return None
    reads: set[str] = set()
    binds: set[str] = set()
    for statement in tree.body:
        loaded, stored = _statement_names(statement, _base)
        reads |= loaded - binds
        binds |= stored
    return reads, binds


def plan_cells(sources: list[str], targets: set[int]) -> dict[int, str | None]:
    """What Live Code runs so that the cells ``targets`` run as in the full notebook: for each
    cell to run, None (the whole cell) or the part of it that binds the names later cells need
    (:func:`reduced_source`).  A target runs whole; for every name a cell to run reads, the
    latest earlier cell binding it runs too."""
    analysed = [_names(source) for source in sources]
    whole: set[int] = set()
    wanted: dict[int, set[str]] = {}
    todo = [(index, None) for index in sorted(targets)]
    while todo:
        index, names = todo.pop()
        if names is None:
            if index in whole:
                continue
            whole.add(index)
            reads = None if analysed[index] is None else analysed[index][0]
        else:
            if index in whole or names <= wanted.get(index, set()):
                continue
            wanted.setdefault(index, set()).update(names)
            if analysed[index] is None:
                whole.add(index)
                reads = None
            else:
                part = reduced_source(sources[index], wanted[index])
                reads = analysed[index][0] if part is None else _names(part)[0]
        if reads is None:                  # not plain Python: run everything before it
            todo.extend((earlier, None) for earlier in range(index))
            continue
        for name in reads:
            for earlier in range(index - 1, -1, -1):
                info = analysed[earlier]
                if info is None:
                    todo.append((earlier, None))
                    break
                if name in info[1]:
                    todo.append((earlier, {name}))
                    break
    plan: dict[int, str | None] = {index: None for index in whole}
    for index, names in wanted.items():
        if index not in whole:
            plan[index] = reduced_source(sources[index], names)
    return plan


def needed_cells(sources: list[str], targets: set[int]) -> set[int]:
    """Indices of the cells Live Code runs (see :func:`plan_cells`)."""
    return set(plan_cells(sources, targets))


def mark_cells(app, doctree, docname):
    """Live builds: mark the code cells Live Code runs (see the module docstring)."""
    if getattr(app, "privpca_live_code", {}).get("mode") is None:
        return
    cells = [node for node in doctree.findall(nodes.container)
             if node.get("nb_element") == "cell_code"]
    sources, targets = [], set()
    for index, cell in enumerate(cells):
        source = _cell_source(cell)
        sources.append(source or "")
        if any(WIDGET_VIEW in raw.astext() for raw in cell.findall(nodes.raw)):
            targets.add(index)
            cell["classes"].append(DASHBOARD_CLASS)
    parts = {}
    for index, part in plan_cells(sources, targets).items():
        cells[index]["classes"].append(RUN_CLASS)
        if part is not None:
            # keyed by the cell's place among the cells whose code is on the page (privpca-thebe.js)
            parts[sum(1 for cell in cells[:index] if _has_source(cell))] = part
    app.privpca_live_parts = getattr(app, "privpca_live_parts", {})
    app.privpca_live_parts[docname] = parts


def _cell_source(cell) -> str | None:
    """The code of a cell as the page shows it (None: the input is not on the page)."""
    for part in cell.findall(nodes.container):
        if part.get("nb_element") == "cell_code_source":
            for block in part.findall(nodes.literal_block):
                return block.astext()
    return None


def _has_source(cell) -> bool:
    return _cell_source(cell) is not None


def _repository_parts(url: str) -> dict:
    """Thebe's binderOptions for a repository URL (GitHub, GitLab, or any git URL)."""
    stripped = url.strip().rstrip("/")
    if stripped.endswith(".git"):
        stripped = stripped[: -len(".git")]
    for host, provider in (("github.com/", "github"), ("gitlab.com/", "gitlab")):
        if host in stripped:
            path = stripped.split(host, 1)[1]
            if path.count("/") >= 1:
                return {"repo": path, "repoProvider": provider}
    return {"repo": url.strip(), "repoProvider": "git"}


def configure(app, config):
    """Decide the mode from ``repository.url`` and the environment; adjust the theme options."""
    options = config.html_theme_options
    repository = (options.get("repository_url") or "").strip()
    launch = dict(options.get("launch_buttons") or {})
    # Live Code is ours (see the module docstring): sphinx-book-theme must not add its own.
    want_thebe = bool(launch.pop("thebe", False))
    live = os.environ.get(LIVE_ENV, "") == "1"

    if repository:
        options["repository_url"] = repository
        options["launch_buttons"] = launch
        # (Jupyter Book's defaults always say False here; _config.yml leaves it to this switch)
        options["use_repository_button"] = True
    else:
        # Nothing may point at a repository: no launch menu (sphinx-book-theme would fail on
        # it anyway), no source-repository, issues or edit buttons.
        options.pop("repository_url", None)
        options.pop("launch_buttons", None)
        for key in ("use_repository_button", "use_issues_button", "use_edit_page_button"):
            options[key] = False

    binderhub = (launch.get("binderhub_url") or "").strip().rstrip("/")
    if live:
        mode = "local"
    elif repository and want_thebe and binderhub:
        mode = "binder"
    else:
        mode = None
    app.privpca_live_code = {
        "mode": mode,
        "repository": repository,
        "branch": (options.get("repository_branch") or "main").strip(),
        "binderhub_url": binderhub,
        "path_to_docs": (options.get("path_to_docs") or "").strip("/"),
    }
    if live:
        # Rebuilds for scripts/live_book.sh re-execute only notebooks whose code changed.
        config.nb_execution_mode = "cache"


def disconnect_sphinx_thebe(app):
    """Remove sphinx-thebe's page script (Thebe 0.8 from unpkg.com) and page configuration."""
    import sphinx_thebe

    ours = {sphinx_thebe.init_thebe_core, sphinx_thebe.update_thebe_context}
    for event in ("env-before-read-docs", "doctree-resolved"):
        for listener in list(app.events.listeners.get(event, [])):
            if listener.handler in ours:
                app.disconnect(listener.id)


def _is_notebook(app, pagename: str) -> bool:
    return "kernelspec" in app.env.metadata.get(pagename, {})


def _kernel_name(app, pagename: str) -> str:
    spec = app.env.metadata.get(pagename, {}).get("kernelspec")
    if isinstance(spec, str):
        try:
            spec = json.loads(spec)
        except ValueError:
            spec = {}
    return (spec or {}).get("name") or "python3"


def add_live_code(app, pagename, templatename, context, doctree):
    """Put the Live Code button and its configuration on notebook pages (after the theme's 501)."""
    # sphinx-thebe adds its stylesheet to every page; ours (privpca-thebe.css) replaces it.
    css = context.get("css_files")
    if css is not None:
        css[:] = [c for c in css if not str(getattr(c, "filename", c) or "").endswith("sphinx-thebe.css")]
    settings = getattr(app, "privpca_live_code", {})
    mode = settings.get("mode")
    if mode == "local":
        # every page, chapter or not, takes the token from the address scripts/live_book.sh printed
        app.add_js_file(TOKEN_SCRIPT, priority=470)
    if not mode or doctree is None or not _is_notebook(app, pagename):
        return

    source = Path(app.env.doc2path(pagename))
    prefix = settings["path_to_docs"] + "/" if settings["path_to_docs"] else ""
    page_config = {
        "mode": mode,
        "kernelName": _kernel_name(app, pagename),
        # the notebook's path from the repository root (= the Jupyter server's root): the
        # kernel starts in the notebook's folder, as in JupyterLab
        "path": f"{prefix}{pagename}{source.suffix}",
    }
    parts = getattr(app, "privpca_live_parts", {}).get(pagename)
    if parts:
        page_config["parts"] = {str(k): v for k, v in sorted(parts.items())}
    if mode == "binder":
        page_config["binder"] = {
            **_repository_parts(settings["repository"]),
            "ref": settings["branch"],
            "binderUrl": settings["binderhub_url"],
        }
    app.add_js_file(None, body="window.privpcaThebeConfig = " + json.dumps(page_config) + ";", priority=480)
    app.add_js_file(SCRIPT, priority=481, defer="defer")
    app.add_css_file(STYLESHEET)
    context["privpca_live_code"] = mode

    tooltip = ("Run this page's code on the Jupyter kernel of scripts/live_book.sh"
               if mode == "local" else "Run this page's code on a Binder kernel, in the page")
    button = {
        "type": "javascript",
        "text": "Live Code",
        "tooltip": tooltip,
        "javascript": "initThebeSBT()",
        "icon": "fas fa-play",
        "label": "launch-thebe",
    }
    buttons = context.setdefault("header_buttons", [])
    for group in buttons:
        if group.get("label") == "launch-buttons":
            group["buttons"].append(button)
            break
    else:
        buttons.append({
            "type": "group",
            "tooltip": "Launch interactive content",
            "icon": "fas fa-rocket",
            "buttons": [button],
            "label": "launch-buttons",
        })


def mark_live_build(app, exception):
    """A live build says so in _static/privpca-live/build.json (scripts/live_book.sh checks it
    before reusing a build, and writes kernel.json next to it)."""
    if exception is not None or app.builder.format != "html":
        return
    folder = Path(app.outdir) / "_static" / "privpca-live"
    marker = folder / "build.json"
    if getattr(app, "privpca_live_code", {}).get("mode") == "local":
        folder.mkdir(parents=True, exist_ok=True)
        marker.write_text(json.dumps({"mode": "local"}) + "\n")
    elif marker.exists():
        marker.unlink()


def setup(app):
    app.connect("config-inited", configure)
    app.connect("builder-inited", disconnect_sphinx_thebe)
    app.connect("doctree-resolved", mark_cells)
    app.connect("html-page-context", add_live_code, priority=502)
    app.connect("build-finished", mark_live_build)
    # env_version: bump it whenever what this module writes into pages changes (the cell marks),
    # so that an earlier build's pages are rewritten (notebook runs are reused from the cache)
    return {"version": "1.1", "env_version": 3, "parallel_read_safe": True, "parallel_write_safe": True}
