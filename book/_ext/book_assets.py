"""Sphinx fix-ups for the privpca_edu book's static pages (loaded by _config.yml, local_extensions).

1. Duplicate inline scripts.  Sphinx 7.4 (the series Jupyter Book 1 requires) writes an inline
   <script> twice when an extension registers it after the builder started: the builder keeps
   it with filename ``None`` and, at write time, adds it again with filename ``''``, so the two
   copies do not compare equal (sphinx-thebe's configuration was registered that way, and its
   second copy threw "Identifier 'THEBE_JS_URL' has already been declared" on every page).
   Each page's script list is de-duplicated just before the page is written.

2. Offline widgets.  On pages that load the Jupyter widgets HTML manager (served from
   _static/html-manager/, see scripts/fetch_vendor.sh) or that have Live Code (live_code.py),

   * (HTML manager only) its icon fonts are looked up next to the require.js URI of its own
     module; without help the browser asks for
     ``<page folder>/@jupyter-widgets/html-manager/dist/*.woff2`` (404).  We map that module
     name to the local copy (computed from the page's ``data-content_root``).
   * ipywidgets typesets widget labels with MathJax 2's ``MathJax.Hub.Queue`` whenever
     ``window.MathJax`` exists, but the book loads MathJax 3, which has no ``Hub``: every
     labelled widget threw "Cannot read properties of undefined (reading 'Queue')".  On pages
     with both maths and widgets we add a small ``MathJax.Hub.Queue`` that hands the label to
     MathJax 3's ``typesetPromise``.
"""

from __future__ import annotations

from pathlib import Path

WIDGET_MANAGER = "html-manager/dist/embed-amd.js"
MATHJAX = "mathjax/es5/"

ASSETS_PATH_JS = """\
(function () {
  /* Where the local copy of the widget manager lives (its fonts sit next to it).  The bundle
     derives its asset URL from the require.js module URI of "@jupyter-widgets/html-manager/...",
     so map that name to the local folder before require.js loads (a global `require` object is
     its configuration), and set the bundle's explicit override too. */
  var root = new URL(document.documentElement.dataset.content_root || "./", document.baseURI);
  var manager = new URL("_static/html-manager", root).href;
  /* Every module of the bundle (named defines: nothing is ever loaded from these paths) takes
     the folder of its own URI as its asset folder, so each must map into dist/: the top module
     too, or its copy of the Font Awesome styles points at _static/ (404 once a page shows an
     icon, as Live Code's widgets do). */
  window.require = {paths: {
    "@jupyter-widgets/html-manager": manager + "/dist/index",
    "@jupyter-widgets/html-manager/dist/libembed-amd": manager + "/dist/libembed-amd",
    "@jupyter-widgets/base": manager + "/dist/base",
    "@jupyter-widgets/controls": manager + "/dist/controls"}};
  window.__jupyter_widgets_assets_path__ = manager + "/dist/";
})();"""

MATHJAX2_SHIM_JS = """\
(function () {
  /* ipywidgets calls MathJax.Hub.Queue(["Typeset", MathJax.Hub, node]) (MathJax 2);
     route it to MathJax 3 once MathJax 3 has started. */
  var pending = [];
  function typeset(nodes) {
    MathJax.typesetPromise(nodes).catch(function (err) { console.warn("MathJax:", err); });
  }
  function queue(command) {
    var node = Array.isArray(command) ? command[2] : null;
    if (!node) { return; }
    if (window.MathJax && window.MathJax.typesetPromise) { typeset([node]); }
    else { pending.push(node); }
  }
  window.MathJax = window.MathJax || {};
  if (!window.MathJax.version) {          /* still the configuration object */
    var startup = window.MathJax.startup || {};
    var ready = startup.ready;
    startup.ready = function () {
      if (ready) { ready(); } else { MathJax.startup.defaultReady(); }
      MathJax.Hub = {Queue: queue};
      MathJax.startup.promise.then(function () {
        if (pending.length) { typeset(pending.splice(0)); }
      });
    };
    window.MathJax.startup = startup;
  }
  window.MathJax.Hub = {Queue: queue};
})();"""


def _filename(asset) -> str:
    return str(getattr(asset, "filename", asset) or "")


def _key(asset):
    attributes = getattr(asset, "attributes", {}) or {}
    priority = getattr(asset, "priority", 500)
    return (_filename(asset), priority, tuple(sorted((k, str(v)) for k, v in attributes.items())))


def fix_page_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    # 1. drop duplicates (the list is the builder's own, restored after each page: edit in place)
    seen = set()
    unique = []
    for asset in scripts:
        key = _key(asset)
        if key not in seen:
            seen.add(key)
            unique.append(asset)
    scripts[:] = unique

    # 2. widget pages: saved widget state, or Live Code (live_code.py), whose widgets also typeset
    names = [_filename(asset) for asset in scripts]
    saved_widgets = any(name.endswith(WIDGET_MANAGER) for name in names)
    if not (saved_widgets or context.get("privpca_live_code")):
        return
    builder = app.builder
    if saved_widgets:
        # Sphinx sorts the page's scripts by priority after this event; the manager has 500.
        builder.add_js_file(None, body=ASSETS_PATH_JS, priority=490)
    if any(MATHJAX in name for name in names):
        # after Sphinx's "window.MathJax = {config}" (500), before MathJax itself runs (deferred)
        builder.add_js_file(None, body=MATHJAX2_SHIM_JS, priority=510)


def _add_book_css(app):
    # Our stylesheet.  book/_ext/static also holds the favicon and privpca-thebe.js, which
    # live_code.py adds only to pages with Live Code (nothing adds every file as a script).
    app.config.html_static_path.append(str(Path(__file__).parent / "static"))
    app.add_css_file("privpca_book.css")


def setup(app):
    app.connect("html-page-context", fix_page_scripts, priority=900)
    app.connect("builder-inited", _add_book_css)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
