"""The dashboard every chapter reuses: controls → experiment twin → in-place figure → PNG.

A :class:`Dashboard` owns no mathematics.  It reads its controls, calls a pure *twin* function
of :mod:`privpca_edu.experiments` with them, asks a :class:`privpca_edu.plotting.LiveFigure`
to move its artists to the new result, and puts the rendered PNG into an
:class:`ipywidgets.Image`.  Choosing an Image widget (rather than an ``Output`` or ipympl) is
what makes the figure work in both worlds:

* in a live kernel (JupyterLab, Binder), releasing a slider re-runs the update;
* in the static book, the notebook's saved widget state contains the Image's PNG bytes, so
  the figure renders without a kernel.  :func:`show` additionally leaves an ordinary PNG
  output on the page, so the figure is there even where widget JavaScript does not load.

**One noise draw, rescaled.**  The twins draw their noise as σ(ε)·Z with the *same* Z for a
given seed (common random numbers), so a slider moves the figure smoothly instead of
re-rolling it.  That is a simulation device, not how a private system may behave: two real
releases made this way at ε₁ ≠ ε₂ give the exact statistic back,
(σ₂S′₁ − σ₁S′₂)/(σ₂ − σ₁) = S, so real releases must draw fresh noise each time (chapter 2,
Exercise 2.6).  Every dashboard with an ε control says so under its figure
(:data:`NOISE_REUSE_NOTE`).

**Live Code starts from the build's figure.**  The book's live build (``scripts/live_book.sh``)
saves each dashboard's starting figure (in the folder :data:`SAVE_START_ENV` names) under the key
of everything that determines it (:func:`start_frame_path`); a Live Code kernel (:data:`START_ENV`
names that folder) constructing the same dashboard shows that PNG at once and runs its first
update right after the cell, before the kernel handles anything else (a slider moved meanwhile
is answered after it, with a figure computed then).  The page's dashboards show their figures
and controls without waiting for a computation whose figure the page already shows; the work
itself is not less (a slider moved at once waits for it as before).  Anywhere else (JupyterLab,
tests) the first update runs in the constructor, as always.

Failures never kill the widget: ``ValueError``/``TypeError``/``LinAlgError`` (bad or extreme
settings) are written in red over the figure; warnings raised while computing (for example a
``PrivacyWarning``) are caught and printed as a note at the bottom of the figure instead of
on stderr.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from collections import OrderedDict
from pathlib import Path

import ipywidgets as W
import numpy as np
from traitlets import Unicode

__all__ = ["Dashboard", "FigureImage", "show", "noscript_html", "NOISE_REUSE_NOTE", "CUSTOM_PRESET", "preset_values",
           "advisory_box", "same_setting", "START_ENV", "SAVE_START_ENV", "start_frame_path"]

#: The folder of the dashboards' saved starting figures that Live Code's kernels show first
#: (scripts/live_book.sh sets it for its Jupyter server; see the module docstring).
START_ENV = "PRIVPCA_LIVE_START"
#: The folder where :func:`show` saves a dashboard's starting figure (scripts/live_book.sh sets it
#: for its build's notebook runs).
SAVE_START_ENV = "PRIVPCA_LIVE_START_SAVE"

#: Shown under every dashboard with an ε control (see the module docstring).
NOISE_REUSE_NOTE = ("One simulated noise draw, rescaled as ε moves (σ(ε)·Z with the same Z): a smooth picture, "
                    "not a sequence of releases. Real releases draw fresh noise every time; two releases with "
                    "shared Z would give the data back.")

#: The entry of a dashboard's "setting" dropdown when the controls match none of its presets.
CUSTOM_PRESET = "custom (the sliders)"

#: Relative tolerance under which a control's value counts as a preset's (a log slider stores
#: 0.3 as 10^-0.52 = 0.302 once a student has touched it).
PRESET_RTOL = 0.015

_EXPECTED_ERRORS = (ValueError, TypeError, np.linalg.LinAlgError, ArithmeticError)


class FigureImage(W.Image):
    """An :class:`ipywidgets.Image` whose ``tooltip`` is its ``<img>``'s ``title``: the figure's
    alt text, what a screen reader announces (an Image widget has no ``alt`` attribute).

    The widgets' front end (``DOMWidgetView.updateTooltip`` of @jupyter-widgets/base 6) sets
    the title only when the model's ``description`` is empty, and reads ``description.length``
    of a model that has none, which fails the whole view for a plain Image with a tooltip.  The
    empty ``description`` synced here makes that path work, in JupyterLab and in the book.
    """

    description = Unicode("", help="always empty: lets the front end show the tooltip").tag(sync=True)


class Dashboard(W.VBox):
    """Controls, a live figure and the glue between them.

    Parameters
    ----------
    compute : callable
        The twin: ``compute(**params) -> dict`` (pure; tests and benchmarks call it directly).
        Slider-independent work should be cached inside it (``functools.lru_cache``).
    figure : privpca_edu.plotting.LiveFigure
        Created once; ``figure.draw(result)`` updates its artists in place.
    controls : dict name → ValueWidget
        Their ``value`` is passed to ``compute`` under ``name`` (in the order given, which is
        also the on-screen order).
    fixed : dict, optional
        Extra keyword arguments passed to ``compute`` unchanged.
    title, caption : str, optional
        HTML shown above the controls / below the figure.
    memo_size : int
        Results of this many distinct parameter settings are remembered, so returning to a
        setting redraws without recomputing (0 disables).
    image_width : int or None, default=None
        Width of the shown image in CSS pixels (``None``: the figure's own width at its dpi).
    noise_note : bool or None
        Show :data:`NOISE_REUSE_NOTE` under the figure (``None``: when a control is named
        ``"epsilon"``).
    presets : sequence of (label, dict name → value), optional
        Named settings, offered in a "setting" dropdown above the controls (plus
        :data:`CUSTOM_PRESET` for anything else).  Choosing one sets those controls at once (one
        update); moving a control shows the preset the controls now match, or "custom".
    advisory : callable, optional
        ``advisory(params) -> str``: HTML shown in plain view directly under the figure after
        every update (empty string: hidden).  For warnings a reader must not miss, such as a
        paper's weak δ; :meth:`privpca_edu.plotting.LiveFigure.set_notes` is for small print.
    link : callable, optional
        ``link(controls)`` keeps the controls consistent (e.g. k ≤ s ≤ p: it sets ranges, and
        ipywidgets clamps values to them).  Called once before the first update and on every
        control change before the update; controls it moves do not trigger updates of their
        own, so one slider release gives one recompute and one redraw.

    Attributes
    ----------
    image : ipywidgets.Image        the rendered figure (CSS class ``privpca-figure``)
    result : dict or None            the last successful twin result
    last_error : Exception or None   what the last update failed with
    last_warnings : list of str      warnings caught during the last compute
    n_computes : int                 how often ``compute`` actually ran (memo misses)
    preset : ipywidgets.Dropdown or None   the "setting" dropdown (when ``presets`` is given)
    advisory_html : ipywidgets.HTML or None  the plain-view warning under the figure
    timings : list of dict           per update (seconds of wall time): ``compute`` (twin),
                                     ``draw`` (artist updates), ``encode`` (Agg render + PNG),
                                     ``total``; and ``cpu``, the process CPU time of the update
    """

    def __init__(self, compute, figure, controls, *, fixed=None, title=None, caption=None, memo_size=64,
                 image_width=None, noise_note=None, presets=None, advisory=None, link=None):
        self.compute = compute
        self.link = link
        self._linking = False
        self.figure = figure
        self.controls = OrderedDict(controls)
        self.fixed = dict(fixed or {})
        self.memo_size = int(memo_size)
        self._memo = OrderedDict()
        self.static_fallback = True
        self.result = None
        self.last_error = None
        self.last_warnings = []
        self.n_computes = 0
        self.timings = []
        self._holding = False
        self.presets = [(str(label), dict(values)) for label, values in (presets or ())]
        for _, values in self.presets:
            unknown = set(values) - set(self.controls)
            if unknown:
                raise ValueError(f"preset names unknown controls: {sorted(unknown)}")
        self.advisory = advisory
        width_px = image_width or int(figure.fig.get_figwidth() * figure.fig.dpi)
        alt = figure.alt_text() if hasattr(figure, "alt_text") else None
        self.image = FigureImage(format="png", layout=W.Layout(width="100%", max_width=f"{width_px}px", height="auto"),
                                 tooltip=alt or None)
        self.image.add_class("privpca-figure")
        box = W.HBox(list(self.controls.values()),
                     layout=W.Layout(flex_flow="row wrap", align_items="center", grid_gap="2px 16px"))
        children = []
        if title:
            children.append(W.HTML(f"<b>{title}</b>"))
        self.preset = None
        if self.presets:
            labels = [label for label, _ in self.presets] + [CUSTOM_PRESET]
            self.preset = W.Dropdown(options=labels, value=self._matching_preset(), description="setting",
                                     style={"description_width": "initial"},
                                     layout=W.Layout(width="100%", max_width="440px"))
            self.preset.add_class("privpca-preset")
            self.preset.observe(self._on_preset, names="value")
            children.append(self.preset)
        children += [box, self.image]
        self.advisory_html = None
        if advisory is not None:
            self.advisory_html = W.HTML("", layout=W.Layout(display="none"))
            self.advisory_html.add_class("privpca-advisory")
            children.append(self.advisory_html)
        if noise_note is None:
            noise_note = "epsilon" in self.controls
        if noise_note:
            note = W.HTML(f"<div style='font-size:90%;font-style:italic;max-width:{width_px}px'>{NOISE_REUSE_NOTE}</div>")
            note.add_class("privpca-noise-note")
            children.append(note)
        if caption:
            children.append(W.HTML(f"<div style='font-size:90%;max-width:{width_px}px'>{caption}</div>"))
        super().__init__(children)
        self.add_class("privpca-dashboard")
        self._apply_link()
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self._start()

    # ------------------------------------------------------------------------------------
    def _start(self):
        """The first update: now, or (a Live Code kernel with this figure saved by the build) the
        saved PNG now and the update when the kernel is next idle (see the module docstring)."""
        path = start_frame_path(self, folder=os.environ.get(START_ENV))
        if path is not None and path.is_file():
            try:
                png = path.read_bytes()
            except OSError:
                png = b""
            if png and _when_idle(self._deferred_start):
                self.image.value = png
                self._sync_preset_and_advisory(self.params())
                return
        self.refresh()

    def _deferred_start(self):
        if not self.timings:  # (a slider moved before the kernel was idle: that update was the first)
            self.refresh()

    def params(self):
        """Collect the keyword arguments the next update passes to ``compute``.

        Returns
        -------
        dict
            The fixed arguments and every control's value, by name.
        """
        params = dict(self.fixed)
        params.update({name: control.value for name, control in self.controls.items()})
        return params

    def _apply_link(self):
        if self.link is None:
            return
        self._linking = True
        try:
            self.link(self.controls)
        finally:
            self._linking = False

    def _on_change(self, change):
        if self._holding or self._linking:  # a preset being applied, or a control the link moved:
            return                            # the one update of the change that caused it follows
        self._apply_link()
        self.refresh()

    def set_values(self, **values):
        """Set several controls and update once (a preset).

        Parameters
        ----------
        **values
            New values of controls, by name.

        Returns
        -------
        dict
            The update's timing: seconds of ``compute``, ``draw``, ``encode``, ``total`` and ``cpu``.
        """
        self._holding = True
        try:
            for name, value in values.items():
                self.controls[name].value = value
        finally:
            self._holding = False
        self._apply_link()
        return self.refresh()

    def _matching_preset(self):
        for label, values in self.presets:
            if all(same_setting(self.controls[name].value, value) for name, value in values.items()):
                return label
        return CUSTOM_PRESET

    def _on_preset(self, change):
        values = dict(self.presets).get(change["new"])
        if values is not None and not self._holding:
            self.set_values(**values)

    def _sync_preset_and_advisory(self, params):
        if self.preset is not None:
            label = self._matching_preset()
            if self.preset.value != label:
                self._holding = True  # showing the match is not choosing it
                try:
                    self.preset.value = label
                finally:
                    self._holding = False
        if self.advisory_html is not None:
            try:
                text = self.advisory(params) or ""
            except _EXPECTED_ERRORS:  # a bad setting: the figure already says what is wrong
                text = ""
            if text != self.advisory_html.value:
                self.advisory_html.value = text
                self.advisory_html.layout.display = None if text else "none"

    def _compute(self, params):
        try:
            key = tuple(sorted(params.items()))
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in self._memo:
            self._memo.move_to_end(key)
            return self._memo[key]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = self.compute(**params)
        self.n_computes += 1
        # Deprecation notices are for developers, not for a student looking at a figure.
        entry = (result, [str(w.message) for w in caught
                          if not issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning))])
        if key is not None and self.memo_size > 0:
            self._memo[key] = entry
            while len(self._memo) > self.memo_size:
                self._memo.popitem(last=False)
        return entry

    def refresh(self, **overrides):
        """Recompute and redraw now.

        ``overrides`` replace control values for this update only (tests use it to reach values a
        slider cannot, e.g. k > d).

        Parameters
        ----------
        **overrides
            Values replacing the controls' for this update only.

        Returns
        -------
        dict
            The update's timing: seconds of ``compute``, ``draw``, ``encode``, ``total`` and ``cpu``.
        """
        t0, c0 = time.perf_counter(), time.process_time()
        params = self.params()
        params.update(overrides)
        t1 = t0
        try:
            result, caught = self._compute(params)
            t1 = time.perf_counter()
            self.figure.draw(result, notes=caught)
            self.result, self.last_error, self.last_warnings = result, None, caught
        except _EXPECTED_ERRORS as exc:
            self._fail(exc, str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug must not kill a lecture; say what it was
            self._fail(exc, f"{type(exc).__name__}: {exc}")
        t2 = time.perf_counter()
        png = self.figure.png()
        t3 = time.perf_counter()
        self.image.value = png
        self._sync_preset_and_advisory(params)
        timing = {"compute": t1 - t0, "draw": t2 - t1, "encode": t3 - t2, "total": time.perf_counter() - t0,
                  "cpu": time.process_time() - c0}
        self.timings.append(timing)
        return timing

    def _fail(self, exc, message):
        self.last_error = exc
        self.last_warnings = []
        self.figure.show_error(message)

    def png(self):
        """Return the PNG bytes currently shown.

        Returns
        -------
        bytes
            The PNG image.
        """
        return bytes(self.image.value)

    def _repr_mimebundle_(self, **kwargs):
        """The widget view plus its current figure as ``image/png``.

        Front-ends show the richest type they can: JupyterLab and the static book (which
        restores saved widget state) show the live widget; anything without widget support
        (nbconvert, a plain notebook viewer, a page whose widget JavaScript did not load)
        falls back to the PNG.  One output, one figure: no stale copy below a live widget.
        """
        import base64

        data = super()._repr_mimebundle_(**kwargs)
        if self.static_fallback:
            data["image/png"] = base64.b64encode(self.png()).decode("ascii")
        return data


def _when_idle(callback):
    """Run ``callback`` in the kernel's main thread as soon as the running cell has finished
    (before the kernel handles its next message); False where there is no kernel event loop."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    loop = getattr(getattr(get_ipython(), "kernel", None), "io_loop", None)
    if loop is None or not hasattr(loop, "add_callback"):
        return False
    # At once, not later: a slider moved right after the page went live waits for it as it
    # would have in the cell, and no longer (a later dashboard cell of the page waits too).
    loop.add_callback(callback)
    return True


def start_frame_path(dashboard, params=None, *, folder=None):
    """Where the starting figure of ``dashboard`` at ``params`` (default: its current
    parameters) is saved in ``folder``; ``None`` when ``folder`` is empty or None.  The name is
    a digest of what determines the figure: the twin, the figure's class and size, the
    parameters, the controls, the package's source and the versions of NumPy and Matplotlib."""
    folder = (folder or "").strip()
    if not folder:
        return None
    import matplotlib

    from .explorable import _options, _source_digest

    fig = getattr(dashboard.figure, "fig", None)
    description = {
        "twin": f"{dashboard.compute.__module__}.{dashboard.compute.__qualname__}",
        "figure": f"{type(dashboard.figure).__module__}.{type(dashboard.figure).__qualname__}",
        "size": [repr(fig.get_size_inches().tolist()), repr(fig.dpi)] if fig is not None else None,
        "params": {k: repr(v) for k, v in sorted((params if params is not None else dashboard.params()).items())},
        "controls": [(name, type(c).__name__, c.description, repr(_options(c))) for name, c in
                     dashboard.controls.items()],
        "source": _source_digest(),
        "versions": [np.__version__, matplotlib.__version__],
    }
    key = hashlib.sha256(json.dumps(description, sort_keys=True, default=repr).encode()).hexdigest()[:24]
    return Path(folder) / f"{dashboard.compute.__name__}-{key}.png"


def _save_start_frame(dashboard):
    """Save the dashboard's figure as its starting figure (see :func:`start_frame_path`), once it
    has been computed in this process at its current parameters."""
    if not dashboard.timings or dashboard.last_error is not None:
        return
    path = start_frame_path(dashboard, folder=os.environ.get(SAVE_START_ENV))
    if path is None or path.exists():
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        partial.write_bytes(dashboard.png())
        os.replace(partial, path)
    except OSError:  # a read-only folder: Live Code then computes the first figure itself
        pass


def same_setting(a, b):
    """Control value ``a`` equals preset value ``b`` (floats within :data:`PRESET_RTOL`)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(a - b) <= PRESET_RTOL * abs(b)
    return a == b


def preset_values(presets, preset):
    """The control values of ``preset`` among ``presets`` ((label, values) pairs): a label, or
    ``"paper"`` for the second entry (by convention the paper's setting).  ValueError otherwise."""
    labels = dict(presets)
    key = presets[1][0] if preset == "paper" else preset
    if key not in labels:
        raise ValueError(f"preset must be 'paper' or one of {list(labels)}, got {preset!r}")
    return labels[key]


def advisory_box(html):
    """``html`` in the book's plain-view warning box (an orange bar on the left), for ``advisory``."""
    return ("<div style='border-left:5px solid #D55E00;background:#FFF3E8;color:#1a1a1a;padding:6px 10px;"
            f"margin:4px 0;max-width:672px;font-size:100%;line-height:1.4'>{html}</div>")


def noscript_html(dashboard):
    """The dashboard's current figure as ``<noscript><img alt=…></noscript>`` HTML.

    What a reader of the static book sees with JavaScript off (the saved widget view needs the
    widgets' JavaScript).  With JavaScript on a browser never renders a ``<noscript>`` element,
    so there is never a second copy of the figure on the page, in the book or in JupyterLab.
    """
    import base64
    import html

    alt = html.escape(dashboard.image.tooltip or "", quote=True)
    data = base64.b64encode(dashboard.png()).decode("ascii")
    width = dashboard.image.layout.max_width or "100%"
    return (f'<noscript><img class="privpca-figure" alt="{alt}" style="max-width:{width};width:100%" '
            f'src="data:image/png;base64,{data}"/></noscript>')


def _close_tree(widget):
    """Close ``widget`` and every widget inside it (their front-end models go away; the Python
    objects keep working)."""
    seen = set()
    stack = [widget]
    while stack:
        w = stack.pop()
        if id(w) in seen or not isinstance(w, W.Widget):
            continue
        seen.add(id(w))
        stack.extend(getattr(w, "children", ()) or ())
        if isinstance(w, Dashboard):
            stack.extend(w.controls.values())
            stack.extend(x for x in (w.image, w.preset, w.advisory_html) if x is not None)
        w.close()


def show(dashboard, static=True):
    """Display a dashboard, with its current (default) figure as a static fallback.

    The first output carries both the live widget (what JupyterLab, Binder and the static book
    with its saved widget state show) and the figure as ``image/png`` (what a viewer without
    widget support shows).  A second output holds the same figure with its alt text inside
    ``<noscript>`` (:func:`noscript_html`), for the built book read with JavaScript off: the
    book renders the widget view of the first output, which needs JavaScript.  No browser with
    JavaScript shows a ``<noscript>`` element, so the page never has a second, stale copy.
    ``static=False`` leaves both fallbacks out.  Returns ``None``.

    In a book build (:func:`privpca_edu.widgets.explorable.building`) the static page instead
    gets the dashboard precomputed over its grid of control values
    (:mod:`privpca_edu.widgets.explorable`): HTML controls that swap in the real frames.

    Parameters
    ----------
    dashboard : Dashboard
        The dashboard to display.
    static : bool, default=True
        Include the static fallbacks (``False``: the live widget only).
    """
    from IPython.display import HTML, display

    from . import explorable

    if static and explorable.building() is not None:
        # A book build: the static page gets the precomputed explorable instead of the widget
        # (privpca_edu/widgets/explorable.py); no widget state is saved for it.
        import base64

        manifest = explorable.precompute(dashboard)
        _close_tree(dashboard)
        # (the PNG: what a builder without HTML output, such as LaTeX, shows)
        display({"text/html": explorable.explorable_html(dashboard, manifest),
                 "image/png": base64.b64encode(dashboard.png()).decode("ascii")}, raw=True)
        return
    dashboard.static_fallback = bool(static)
    _save_start_frame(dashboard)
    display(dashboard)
    if static:
        display(HTML(noscript_html(dashboard)))
