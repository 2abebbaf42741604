"""Precomputed explorables: every dashboard moves on the static page of the book.

The static book has no kernel, so a slider cannot recompute anything.  At book build time
(``book/_ext/explorables.py`` sets :data:`ENV_VAR` for the notebooks it executes),
:func:`~privpca_edu.widgets.dashboard.show` therefore renders the dashboard's figure for a grid
of control values — through the dashboard itself (:meth:`Dashboard.set_values`: the same twin,
the same seeds, the same figure class) — and displays, instead of the widget, plain HTML
controls bound to those frames (``book/_ext/static/privpca-explorable.js``).  Nothing here
computes or draws a figure of its own.

The grid of a dashboard (:data:`GRIDS`, keyed by the name of its twin): a full grid over the one
or two controls its chapter is about, and one-at-a-time sweeps of the others around the
dashboard's starting values.  A control with a single value in the grid (a seed) is shown
disabled.  Every frame is drawn twice: at the book's column width, and re-laid out for a phone
(:func:`narrow_figure`: the panels stacked in one column of :data:`NARROW_PX` px, same font
sizes), and both are saved as palette PNGs; the page's ``<picture>`` picks one by screen width.

Frames are cached on disk under the key of everything that determines them (the package's
source, the dashboard's controls and fixed arguments, the grid, the versions of numpy and
matplotlib): an unchanged chapter is not recomputed by the next build.

Outside a book build (JupyterLab, Live Code, tests) nothing of this runs.
"""

from __future__ import annotations

import hashlib
import html
import io
import itertools
import json
import math
import os
import re
from pathlib import Path

import ipywidgets as W
import numpy as np

from .._version import source_digest

__all__ = ["GRIDS", "ENV_VAR", "NARROW_PX", "STATIC_TOKEN", "building", "grid_states", "precompute",
           "explorable_html", "narrow_figure", "relayout_narrow", "fit_texts", "narrow_frame", "figure_html", "install_figure_formatter",
           "state_phrase", "frame_numbers"]

#: The folder of the frame cache; set by the book's Sphinx extension for the notebooks it runs.
ENV_VAR = "PRIVPCA_EXPLORABLES"

#: Width of a phone figure, CSS px (a 390 px phone's text column is about 360 px).
NARROW_PX = 360

#: Placeholder for the page's relative path to ``_static/`` (the Sphinx extension fills it in).
STATIC_TOKEN = "@@PRIVPCA_STATIC@@"

#: Bump when this module changes how frames are drawn or named (the cache key includes it; the
#: rest of the package's source is hashed).
FRAME_VERSION = 3

#: The folder under ``_static/`` holding the frames.
SITE_FOLDER = "privpca-explorables"

_EPS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)

#: Per twin: ``full`` controls (every combination), ``sweep`` controls (one at a time, the others
#: at their starting values).  A value list ``"all"`` means every option of the control.  The
#: starting value of each control is always added.  Controls not named stay at their value.
GRIDS = {
    "membership_attack": {"full": {"epsilon": _EPS, "n_samples": (5, 10, 20, 50, 100)},
                          "sweep": {"n_features": (2, 5, 10, 20, 30), "n_components": (1, 2, 3, 5)}},
    "sigma_curves": {"full": {"epsilon": _EPS, "delta": (1e-10, 1e-7, 1e-5, 1e-3, 0.3)},
                     "sweep": {"n_steps": (1, 2, 5, 10, 20, 50), "sensitivity": "all"}},
    "plane_distances": {"full": {"tilt_x": tuple(range(-90, 91, 15)), "n_components": "all"},
                        "sweep": {"tilt_y": tuple(range(-90, 91, 30))}},
    "angle_distances": {"full": {"theta1": tuple(range(0, 91, 15)), "theta2": tuple(range(0, 91, 15))},
                        "sweep": {"n_features": "all"}},
    "noisy_covariance_errors": {"full": {"epsilon": _EPS, "n_components": (1, 2, 3)},
                                "sweep": {"delta": (1e-10, 1e-7, 1e-5, 1e-3, 0.1), "n_features": (5, 10, 30, 60),
                                          "n_samples": "all"}},
    "gdp_audit": {"full": {"mechanism": "all", "sigma_multiplier": (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)},
                  "sweep": {"n_draws": "all", "epsilon": (0.1, 0.3, 1.0, 3.0, 10.0)}},
    "ldp_dashboard_data": {"full": {"epsilon": (0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 12.0, 16.0),
                                    "delta": (1e-5, 1e-4)},
                           "sweep": {"n_samples": "all", "n_features": (6, 10, 20, 40, 60),
                                     "support_size": (2, 4, 8, 16), "n_components": (1, 2, 3)}},
    # (each number of hospitals and key length re-encrypts every record, the slow part of the grid;
    # the 2048-bit key, the slowest, is left to the live dashboard: the page shows it disabled)
    "hospitals_demo": {"full": {"n_owners": "all", "epsilon": (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)},
                       "sweep": {"key_length": (1024, 1536)}},
    "dps_pca_explorer": {"full": {"epsilon": (0.1, 0.3, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0), "delta": (1e-5, 0.3)},
                         "sweep": {"sparsity": (5, 10, 20, 50, 100, 200), "n_iter": (1, 3, 10, 20, 30),
                                   "n_providers": (1, 10, 100, 1000), "threshold_init": "all",
                                   "calibration": "all"}},
    "heavy_tails_explorer": {"full": {"contamination": (0.0, 0.02, 0.05, 0.1, 0.2, 0.3), "df": "all"},
                             "sweep": {"epsilon": (0.1, 0.3, 1.0, 3.0, 10.0), "delta": (1e-10, 1e-7, 1e-5, 1e-3)}},
    "breakdown_demo": {"full": {"fraction": (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5), "epsilon": "all"},
                       "sweep": {"distance": (1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0)}},
    "europe_map": {"full": {"epsilon": (0.01, 0.1, 0.3, 1.0, 3.0, 10.0, 100.0, 1000.0), "method": "all"},
                   "sweep": {"delta": (1e-10, 1e-7, 1e-5, 1e-2)}},
}

_STEP_KINDS = (W.FloatLogSlider, W.FloatSlider, W.IntSlider, W.SelectionSlider)


def building():
    """The frame cache folder when a book build is running (:data:`ENV_VAR`), else ``None``."""
    folder = os.environ.get(ENV_VAR, "").strip()
    return Path(folder) if folder else None


# -- controls -----------------------------------------------------------------------------------
def _options(control):
    """(label, value) pairs of a picker or selection slider, or None for a numeric slider."""
    if not hasattr(control, "options"):
        return None
    pairs = []
    for option in control.options:
        pairs.append(option if isinstance(option, tuple) else (str(option), option))
    return pairs


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and (math.isinf(a) or math.isinf(b)):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))
    return a == b


def _allowed(control, value):
    """Whether ``value`` is a value the live control can take (range, or one of its options)."""
    options = _options(control)
    if options is not None:
        return any(_same(value, v) for _, v in options)
    if isinstance(control, W.FloatLogSlider):
        low, high = control.base ** control.min, control.base ** control.max
    else:
        low, high = control.min, control.max
    return low - 1e-9 * abs(low) <= value <= high + 1e-9 * abs(high)


def _value_list(control, spec):
    options = _options(control)
    values = [v for _, v in options] if spec == "all" else list(spec)
    if isinstance(control, W.IntSlider):
        values = [int(v) for v in values]
    elif isinstance(control, W.FloatSlider) or isinstance(control, W.FloatLogSlider):
        values = [float(v) for v in values]
    values = [v for v in values if _allowed(control, v)]
    if not any(_same(v, control.value) for v in values):
        values.append(control.value)
    return values


def label_of(control, value):
    """How the control shows ``value`` (its option label, or the readout's format)."""
    options = _options(control)
    if options is not None:
        for label, v in options:
            if _same(v, value):
                return label
        return str(value)
    fmt = getattr(control, "readout_format", None)
    if isinstance(value, float):
        text = format(value, fmt.lstrip(".") and fmt or ".3g") if fmt else f"{value:g}"
        if "e" in text:  # 1e-05 -> 1e-5
            mantissa, exponent = text.split("e")
            text = f"{mantissa}e{int(exponent)}"
        return text
    return str(value)


def short_name(control):
    """The symbol of a control's description: 'ε' for 'ε (privacy budget)'."""
    description = control.description or ""
    return re.sub(r"\s*\(.*\)\s*$", "", description).strip() or description


def accessible_name(control):
    """'ε, privacy budget' for 'ε (privacy budget)' (a screen reader's name of the control)."""
    description = (control.description or "").strip()
    match = re.match(r"^(.*?)\s*\((.*)\)\s*$", description)
    return f"{match.group(1)}, {match.group(2)}" if match and match.group(1) else description


def state_phrase(controls, state):
    """'ε = 2, n = 20, d = 10, k = 1': the state a frame shows, in words (its alt text starts so)."""
    return ", ".join(f"{short_name(c)} = {label_of(c, state[name])}" for name, c in controls.items())


def grid_states(dashboard, spec):
    """The control settings to precompute: full grid × sweeps (dicts name → value), defaults first."""
    controls = dashboard.controls
    default = {name: c.value for name, c in controls.items()}
    full = {name: _value_list(controls[name], values) for name, values in spec.get("full", {}).items()
            if name in controls}
    sweep = {name: _value_list(controls[name], values) for name, values in spec.get("sweep", {}).items()
             if name in controls}
    states, seen = [dict(default)], {_state_key(default)}
    names = list(full)
    for combo in itertools.product(*(full[n] for n in names)):
        state = dict(default, **dict(zip(names, combo)))
        if _state_key(state) not in seen:
            seen.add(_state_key(state))
            states.append(state)
    for name, values in sweep.items():
        for value in values:
            state = dict(default, **{name: value})
            if _state_key(state) not in seen:
                seen.add(_state_key(state))
                states.append(state)
    return states


def _state_key(state):
    return tuple((k, repr(v)) for k, v in sorted(state.items()))


# -- phone layout -------------------------------------------------------------------------------
def relayout_narrow(fig, width_px=NARROW_PX):
    """Re-lay ``fig`` out for a phone: its panels stacked in one column ``width_px`` wide.

    Each panel keeps its height (the fonts keep their size, so text stays as large on a phone as
    in the column); a figure with sub-figures has each sub-figure's panels stacked and the
    sub-figures' heights adjusted.  Only public matplotlib API (``GridSpec``,
    ``Axes.set_subplotspec``, ``set_size_inches``).  Call before the figure's first render.
    """
    dpi = 72.0
    width_in = width_px / dpi

    def stack(container, height):
        """Restack the gridded axes of a figure or sub-figure; return its new height."""
        axes = [ax for ax in container.get_children() if hasattr(ax, "get_subplotspec")
                and ax.get_subplotspec() is not None and ax.get_figure(root=False) is container]
        if not axes:
            return height
        grid = axes[0].get_subplotspec().get_gridspec()
        nrows, ncols = grid.get_geometry()
        ratios = np.asarray(grid.get_height_ratios() or [1.0] * nrows, dtype=float)
        axes = sorted(axes, key=lambda ax: (ax.get_subplotspec().rowspan.start, ax.get_subplotspec().colspan.start))
        if ncols == 1 or len(axes) == 1:
            moved = [ax.get_legend() for ax in axes if ax.get_legend() is not None
                     and getattr(ax.get_legend(), "_privpca_below", None) == "beside"]
            return height + sum((len(leg.get_texts()) * 14 + 12) / dpi for leg in moved)
        heights = []
        for ax in axes:
            rows = ax.get_subplotspec().rowspan
            extra = 0.0
            legend = ax.get_legend()
            if legend is not None and getattr(legend, "_privpca_below", None) == "beside":
                extra = (len(legend.get_texts()) * 14 + 12) / dpi  # room for the legend moved below
            heights.append(height * ratios[rows.start:rows.stop].sum() / ratios.sum() + extra)
        new_grid = container.add_gridspec(len(axes), 1, height_ratios=heights)
        for i, ax in enumerate(axes):
            ax.set_subplotspec(new_grid[i])
        return float(sum(heights))

    height = fig.get_figheight()
    legends_below(fig)
    from ..plotting import TitleBlock

    for ax in fig.get_axes():  # panel titles made of pieces wrap at the figure's right edge
        for child in ax.get_children():
            if isinstance(child, TitleBlock):
                child.wrap_at(4.0)
    subfigs = list(getattr(fig, "subfigs", []) or [])
    if subfigs:
        grid = subfigs[0].get_subplotspec().get_gridspec() if hasattr(subfigs[0], "get_subplotspec") else None
        ratios = np.asarray((grid.get_height_ratios() if grid is not None else None) or [1.0] * len(subfigs),
                            dtype=float)
        new_heights = [stack(sf, height * ratios[i] / ratios.sum()) for i, sf in enumerate(subfigs)]
        if grid is not None and grid.get_geometry()[1] == 1:
            grid.set_height_ratios(new_heights)
        new_height = sum(new_heights)
    else:
        new_height = stack(fig, height)
    fig.set_size_inches(width_in, new_height, forward=False)
    engine = fig.get_layout_engine()
    if engine is not None and hasattr(engine, "set"):
        try:
            engine.set(w_pad=2 / 72, h_pad=3 / 72)
        except TypeError:
            pass
    return fig


def fit_texts(fig, margin=4.0, *, layout=False):
    """Wrap, between words, every horizontal text of ``fig`` that crosses its left or right edge
    (titles, suptitles, axis labels, legend entries, notes): the phone layout's one mechanism for
    long texts.  A panel title made of pieces (:class:`~privpca_edu.plotting.TitleBlock`)
    wraps itself (:func:`relayout_narrow` turns that on); tick labels and rotated texts are left
    alone.  Widths are measured with the figure's own renderer (public API:
    ``canvas.get_renderer``, ``Text.get_window_extent``), at the positions of the figure's last
    layout; ``layout=True`` lays the figure out first (``canvas.draw``), and again after each
    round of wrapping until nothing more wraps (three rounds at most).  Returns the texts it
    wrapped (a list).
    """
    if layout:
        changed = []
        for _ in range(3):
            fig.canvas.draw()
            wrapped = fit_texts(fig, margin)
            if not wrapped:
                break
            changed += wrapped
        return changed
    from matplotlib.text import Text

    from ..plotting import WRAP_UNITS, TitleBlock

    renderer = fig.canvas.get_renderer()
    right = fig.bbox.x1 - margin
    skip = set()
    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis, getattr(ax, "zaxis", None)):
            if axis is not None:
                skip.update(id(t) for t in axis.get_ticklabels(which="both"))
        for child in ax.get_children():
            if isinstance(child, TitleBlock):
                skip.update(id(t) for t in child.get_children())
    changed = []
    for text in fig.findobj(Text):
        content = text.get_text()
        if (id(text) in skip or not content.strip() or not text.get_visible() or text.get_rotation() % 180
                or text.get_figure(root=True) is not fig):
            continue
        box = text.get_window_extent(renderer)
        if box.x1 <= right + 0.5 and box.x0 >= margin - 0.5:
            continue
        align = text.get_horizontalalignment()
        if align == "left":
            room = right - box.x0
        elif align == "right":
            room = box.x1 - margin
        else:
            middle = (box.x0 + box.x1) / 2
            room = 2 * min(middle - margin, right - middle)
        if room <= 0:
            continue
        lines = []
        for line in content.split("\n"):
            current = ""
            for word in WRAP_UNITS.findall(line):
                trial = current + word
                text.set_text(trial.strip())
                if current.strip() and text.get_window_extent(renderer).width > room:
                    lines.append(current.strip())
                    current = word.lstrip()
                else:
                    current = trial
            lines.append(current.strip())
        wrapped = "\n".join(lines)
        text.set_text(wrapped)
        if wrapped != content:
            changed.append(text)
    return changed


def legends_below(fig):
    """Move every axes legend that sits right of its axes to below them (a phone has no room at
    the side), and every legend already below its axes to a fixed distance under them;
    constrained layout then makes room for it.  Returns how many were moved."""
    from matplotlib.transforms import ScaledTranslation

    moved = 0
    for ax in fig.get_axes():
        legend = ax.get_legend()
        if legend is None or getattr(legend, "_privpca_below", False):
            continue
        anchor = legend.get_bbox_to_anchor()
        if anchor is None:
            continue
        beside = anchor.x0 >= ax.bbox.x1 - 2
        # below at a fraction of the axes' height: a shorter phone panel would put it over the
        # x label; a fixed distance under the axis instead
        below = anchor.y1 <= ax.bbox.y0 + 2 and anchor.x0 < ax.bbox.x1 - 2
        if not (beside or below):
            continue
        # under the tick labels and the x label (two-line tick labels too), 34 px at least
        try:
            axis_box = ax.xaxis.get_tightbbox(fig.canvas.get_renderer())
            drop = max(34.0, ax.bbox.y0 - axis_box.y0 + 6.0) if axis_box is not None else 34.0
        except Exception:  # noqa: BLE001 - a canvas without a renderer: the usual distance
            drop = 34.0
        offset = ScaledTranslation(0.0, -drop / fig.dpi, fig.dpi_scale_trans)
        legend.set_loc("upper left")
        legend.set_bbox_to_anchor((0.0, 0.0), transform=ax.transAxes + offset)
        legend._privpca_below = "beside" if beside else "under"  # (our own attribute, not matplotlib's)
        moved += 1
    return moved


def narrow_figure(live_figure):
    """A second instance of ``live_figure``'s class, laid out for a phone (:func:`relayout_narrow`);
    ``None`` if the class cannot be built without arguments."""
    try:
        twin = type(live_figure)()
    except TypeError:
        return None
    relayout_narrow(twin.fig)
    twin.note_lines = 4  # a note wraps to twice as many lines in the narrow column
    twin._reserve_note_space()  # the note line's share of the new height
    return twin


def narrow_frame(narrow, dashboard):
    """Draw ``dashboard``'s current state (its result, or its error) on its phone twin ``narrow``
    (:func:`narrow_figure`) and return the rendered RGBA pixels."""
    if dashboard.last_error is None:
        narrow.draw(dashboard.result, notes=dashboard.last_warnings)
    else:
        narrow.show_error(str(dashboard.last_error))
    legends_below(narrow.fig)  # (a legend made while drawing)
    _fit_frame(narrow)
    narrow.render()
    return np.asarray(narrow.fig.canvas.buffer_rgba())


def _fit_frame(figure):
    """Wrap the texts of a phone twin's frame (:func:`fit_texts`).  Before the first render (the
    layout is still free) layout and wrapping alternate until nothing changes; afterwards the
    frozen layout's positions are used, and a wrapped text outside the animated ones renews the
    cached backgrounds."""
    if not figure._layout_frozen:
        fit_texts(figure.fig, layout=True)
        return
    if any(not text.get_animated() for text in fit_texts(figure.fig)):
        figure._static_version = ("wrapped", figure._static_version)


# -- frames -------------------------------------------------------------------------------------
def _palette_png(png_or_rgba):
    """PNG bytes (or an RGBA array) encoded with a 256-colour palette (a third of the size; Pillow)."""
    from PIL import Image

    if isinstance(png_or_rgba, (bytes, bytearray)):
        image = Image.open(io.BytesIO(png_or_rgba)).convert("RGB")
    else:
        rgba = np.ascontiguousarray(png_or_rgba, dtype=np.uint8)
        image = Image.frombytes("RGB", (rgba.shape[1], rgba.shape[0]), rgba, "raw", "RGBX")
    paletted = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    paletted.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue(), image.size


def _texts(figure):
    """The titles of a live figure's panels, in reading order (what a sighted reader reads first)."""
    from ..plotting import TitleBlock

    lines = []
    for ax in figure.fig.axes:
        if not ax.get_visible():
            continue
        for loc in ("left", "center", "right"):
            text = ax.get_title(loc=loc)
            if text:
                lines.append(text)
        for child in ax.get_children():
            if isinstance(child, TitleBlock) and child.get_visible():
                text = child.get_text()
                if text.strip():
                    lines.append(text)
    for text in figure.fig.texts:
        if text.get_visible() and text.get_text().strip():
            lines.append(text.get_text())
    if getattr(figure.fig, "_suptitle", None) is not None and figure.fig._suptitle.get_text():
        lines.insert(0, figure.fig._suptitle.get_text())
    return [re.sub(r"\s+", " ", line).strip() for line in lines if line.strip()]


def frame_numbers(result, limit=400):
    """The finite scalar numbers of a twin result, as ``{key: float}`` (sorted keys; nested dicts
    flattened with dots).  What the static page's frame shows, checked against the live dashboard."""
    out = {}

    def walk(prefix, value):
        if len(out) >= limit:
            return
        if isinstance(value, dict):
            for key in sorted(value, key=str):
                walk(f"{prefix}.{key}" if prefix else str(key), value[key])
        elif isinstance(value, (bool, np.bool_)):
            return
        elif isinstance(value, (int, float, np.integer, np.floating)):
            number = float(value)
            if math.isfinite(number):
                out[prefix] = number
        elif isinstance(value, np.ndarray) and value.dtype.kind in "fiu" and 0 < value.size <= 64:
            for i, number in enumerate(np.ravel(value).astype(float)):
                if math.isfinite(number):
                    out[f"{prefix}[{i}]"] = number

    walk("", result if isinstance(result, dict) else {})
    return out


def _source_digest():
    """A digest of the package's Python source: any change to it invalidates the frame cache
    (this module excluded: see FRAME_VERSION)."""
    return source_digest(exclude=("widgets/explorable.py",))


def _cache_key(dashboard, states):
    import matplotlib

    description = {
        "twin": f"{dashboard.compute.__module__}.{dashboard.compute.__qualname__}",
        "figure": f"{type(dashboard.figure).__module__}.{type(dashboard.figure).__qualname__}",
        "fixed": {k: repr(v) for k, v in sorted(dashboard.fixed.items())},
        "controls": [(name, type(c).__name__, c.description, repr(_options(c)),
                      repr(getattr(c, "min", None)), repr(getattr(c, "max", None))) for name, c in
                     dashboard.controls.items()],
        "states": [_state_key(s) for s in states],
        "source": _source_digest(),
        "versions": [np.__version__, matplotlib.__version__, NARROW_PX, FRAME_VERSION],
    }
    return hashlib.sha256(json.dumps(description, sort_keys=True, default=repr).encode()).hexdigest()[:20]


def precompute(dashboard, cache=None, spec=None):
    """Render ``dashboard``'s figure at every state of its grid, through the dashboard itself.

    Returns the manifest (a dict; also written as ``manifest.json`` in the frame folder
    ``cache/<key>/``, next to the PNG frames).  A folder that already holds a manifest is reused.
    The dashboard is left at its starting values (its default figure redrawn).
    """
    cache = Path(cache) if cache is not None else building()
    spec = spec if spec is not None else GRIDS.get(dashboard.compute.__name__, {})
    states = grid_states(dashboard, spec)
    key = _cache_key(dashboard, states)
    folder = cache / key
    manifest_path = folder / "manifest.json"
    if manifest_path.exists():
        try:
            return json.loads(manifest_path.read_text(encoding="utf-8"))
        except ValueError:
            pass
    folder.mkdir(parents=True, exist_ok=True)
    controls = dashboard.controls
    default = {name: c.value for name, c in controls.items()}
    narrow = narrow_figure(dashboard.figure)
    frames = []
    for state in states:
        dashboard.set_values(**state)
        actual = {name: c.value for name, c in controls.items()}  # (a link may clamp a value)
        if any(not _same(actual[n], state[n]) for n in state):
            continue
        wide_png, wide_size = _palette_png(dashboard.png())
        files = {"w": _save(folder, wide_png)}
        sizes = {"w": list(wide_size)}
        if narrow is not None:
            narrow_png, narrow_size = _palette_png(narrow_frame(narrow, dashboard))
            files["n"] = _save(folder, narrow_png)
            sizes["n"] = list(narrow_size)
        titles = _texts(dashboard.figure)
        alt = state_phrase(controls, state) + ": " + ("; ".join(titles) + ". " if titles else "")
        if dashboard.last_error is not None:
            alt += f"the settings fail: {dashboard.last_error}. "
        alt += dashboard.figure.alt_text() if hasattr(dashboard.figure, "alt_text") else ""
        frames.append({
            "state": state, "files": files, "sizes": sizes, "alt": alt.strip(),
            "advisory": dashboard.advisory_html.value if dashboard.advisory_html is not None else "",
            "preset": dashboard.preset.value if dashboard.preset is not None else None,
            "numbers": frame_numbers(dashboard.result) if dashboard.last_error is None else {},
            "error": str(dashboard.last_error) if dashboard.last_error is not None else None,
        })
    dashboard.set_values(**default)
    manifest = _manifest(dashboard, key, default, frames)
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, allow_nan=False), encoding="utf-8")
    return manifest


def _save(folder, png):
    name = hashlib.sha1(png).hexdigest()[:16] + ".png"
    path = folder / name
    if not path.exists():
        path.write_bytes(png)
    return name


def _manifest(dashboard, key, default, frames):
    """The JSON the page's script reads: controls (their grid values), frames keyed by indices."""
    controls, grid = [], {}
    for name, control in dashboard.controls.items():
        values = []
        for frame in frames:
            value = frame["state"][name]
            if not any(_same(value, v) for v in values):
                values.append(value)
        options = _options(control)
        if options is not None:  # pickers keep the control's own order
            order = [v for _, v in options]
            values.sort(key=lambda v: next((i for i, o in enumerate(order) if _same(o, v)), len(order)))
        else:
            values.sort()
        grid[name] = values
        kind = "range" if isinstance(control, _STEP_KINDS) else "select"
        all_labels = None
        if kind == "select" and options is not None:  # every option, the ones outside the grid disabled
            all_labels = [[label, next((i for i, v in enumerate(values) if _same(v, value)), -1)]
                          for label, value in options]
        controls.append({
            "name": name, "label": control.description or name, "aria": accessible_name(control),
            "symbol": short_name(control), "kind": kind,
            "labels": [label_of(control, v) for v in values],
            "all": all_labels,
            "default": next(i for i, v in enumerate(values) if _same(v, default[name])),
        })

    def index_of(name, value):
        return next((i for i, v in enumerate(grid[name]) if _same(v, value)), None)

    out_frames, advisories = {}, []
    for frame in frames:
        index = ",".join(str(index_of(name, frame["state"][name])) for name in dashboard.controls)
        advisory = frame["advisory"] or ""
        if advisory not in advisories:
            advisories.append(advisory)
        out_frames[index] = {"w": frame["files"]["w"], "n": frame["files"].get("n"), "alt": frame["alt"],
                             "a": advisories.index(advisory), "p": frame["preset"],
                             "numbers": frame["numbers"], "error": frame["error"]}
    presets = []
    for label, values in getattr(dashboard, "presets", []):
        indices = {}
        for name, value in values.items():
            found = index_of(name, value)
            if found is None:
                found = next((i for i, v in enumerate(grid[name]) if isinstance(v, float)
                              and abs(v - value) <= 0.015 * abs(value)), None)
            if found is None:
                indices = None
                break
            indices[name] = found
        presets.append({"label": label, "values": indices})
    return {"key": key, "controls": controls, "frames": out_frames, "advisories": advisories,
            "presets": presets, "sizes": frames[0]["sizes"], "count": len(out_frames),
            "twin": dashboard.compute.__name__}


# -- HTML ---------------------------------------------------------------------------------------
def _id(key, name):
    return f"privpca-x-{key[:10]}-{name}"


def explorable_html(dashboard, manifest):
    """The static page's dashboard: HTML controls, the ``<picture>`` of the default frame, the
    dashboard's own notes and caption, and one line on how to run it live."""
    key = manifest["key"]
    base = f"{STATIC_TOKEN}{SITE_FOLDER}/{key}/"
    default_index = ",".join(str(c["default"]) for c in manifest["controls"])
    frame = manifest["frames"][default_index]
    wide_w, wide_h = manifest["sizes"]["w"]
    parts = [f'<div class="privpca-explorable" id="privpca-x-{key[:10]}" data-base="{base}">']
    if manifest["presets"]:
        current = frame["p"]
        options = []
        for i, preset in enumerate(manifest["presets"]):
            disabled = "" if preset["values"] is not None else " disabled"
            selected = " selected" if preset["label"] == current else ""
            options.append(f'<option value="{i}"{selected}{disabled}>{html.escape(preset["label"])}</option>')
        custom = " selected" if current not in [p["label"] for p in manifest["presets"]] else ""
        options.append(f'<option value="custom"{custom}>custom (the sliders)</option>')
        pid = _id(key, "preset")
        parts.append(f'<div class="privpca-x-control privpca-x-preset"><label for="{pid}">setting</label>'
                     f'<select id="{pid}" data-preset="1" aria-label="setting" disabled>{"".join(options)}</select></div>')
    parts.append('<div class="privpca-x-controls">')
    for ctrl in manifest["controls"]:
        cid = _id(key, ctrl["name"])
        n = len(ctrl["labels"])
        fixed = n == 1
        label = html.escape(ctrl["label"])
        aria = html.escape(ctrl["aria"], quote=True)
        current = html.escape(ctrl["labels"][ctrl["default"]])
        note = (' <span class="privpca-x-fixed">(fixed on this page)</span>' if fixed else "")
        cls = "privpca-x-control" + (" privpca-x-disabled" if fixed else "")
        if ctrl["kind"] == "range":
            parts.append(
                f'<div class="{cls}"><label for="{cid}">{label}</label>'
                f'<input type="range" id="{cid}" data-name="{ctrl["name"]}" min="0" max="{n - 1}" step="1" '
                f'value="{ctrl["default"]}" aria-label="{aria}" '
                f'aria-valuetext="{html.escape(ctrl["symbol"])} = {current}" disabled>'
                f'<output for="{cid}">{current}</output>{note}</div>')
        else:
            opts = []
            entries = ctrl["all"] or [[lab, i] for i, lab in enumerate(ctrl["labels"])]
            for lab, index in entries:
                if index < 0:
                    opts.append(f'<option disabled>{html.escape(lab)} (live only)</option>')
                else:
                    selected = " selected" if index == ctrl["default"] else ""
                    opts.append(f'<option value="{index}"{selected}>{html.escape(lab)}</option>')
            parts.append(f'<div class="{cls}"><label for="{cid}">{label}</label>'
                         f'<select id="{cid}" data-name="{ctrl["name"]}" aria-label="{aria}" disabled>'
                         f'{"".join(opts)}</select>{note}</div>')
    parts.append("</div>")
    narrow = frame.get("n")
    source = (f'<source media="(max-width: 480px)" srcset="{base}{narrow}" '
              f'width="{manifest["sizes"]["n"][0]}" height="{manifest["sizes"]["n"][1]}">' if narrow else "")
    parts.append(f'<picture class="privpca-x-picture">{source}'
                 f'<img class="privpca-figure privpca-x-frame" src="{base}{frame["w"]}" '
                 f'width="{wide_w}" height="{wide_h}" alt="{html.escape(frame["alt"], quote=True)}"></picture>')
    parts.append(f'<div class="privpca-x-advisory" aria-live="polite">{manifest["advisories"][frame["a"]]}</div>')
    for child in dashboard.children:  # the dashboard's own notes and caption, as the widget shows them
        if isinstance(child, W.HTML) and child is not dashboard.advisory_html and child.value:
            if dashboard.preset is not None and child is dashboard.preset:
                continue
            parts.append(f'<div class="privpca-x-note">{child.value}</div>')
    parts.append(
        f'<p class="privpca-x-live">This figure is precomputed at {manifest["count"]} settings. To run it live, '
        'use <b>Live Code</b> (<code>bash scripts/live_book.sh</code>) or open the notebook in JupyterLab.</p>')
    slim = {k: manifest[k] for k in ("key", "controls", "advisories", "presets", "sizes")}
    slim["frames"] = {index: {k: v for k, v in f.items() if k not in ("numbers", "error")}
                      for index, f in manifest["frames"].items()}
    data = json.dumps(slim,
                      ensure_ascii=False, allow_nan=False).replace("</", "<\\/")
    parts.append(f'<script type="application/json" class="privpca-x-data">{data}</script>')
    parts.append("</div>")
    return "".join(parts)


# -- static figures -----------------------------------------------------------------------------
def figure_html(fig):
    """A matplotlib figure as ``<picture>``: the figure as the notebook shows it, and a copy laid
    out for a phone (:func:`relayout_narrow`) that screens ≤ 480 px pick.  ``None`` when not
    building the book (the notebook's own PNG output is then used)."""
    import pickle

    cache = building()
    if cache is None:
        return None
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi, bbox_inches="tight")
    wide = buffer.getvalue()
    narrow = None
    restore = None
    from matplotlib.text import Text

    from ..plotting import TitleBlock

    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        try:
            copy = pickle.loads(pickle.dumps(fig))
            FigureCanvasAgg(copy)
        except Exception:  # noqa: BLE001 - e.g. a lambda tick formatter: re-lay the figure out in place
            copy = fig     # (its PNG above is already made; its size and grid are put back below)
            restore = (fig.get_size_inches().copy(), [(ax, ax.get_subplotspec()) for ax in fig.get_axes()])
        if copy.get_figwidth() * 72.0 > NARROW_PX * 1.1:
            if restore is not None:
                restore += ([(t, t.get_text()) for t in copy.findobj(Text)],)
            relayout_narrow(copy)
            if copy.get_layout_engine() is None:
                copy.set_layout_engine("constrained")
            fit_texts(copy, layout=True)  # long texts wrap at the phone column's edges
            buffer = io.BytesIO()
            copy.savefig(buffer, format="png", dpi=72.0)  # exactly NARROW_PX wide (no tight box)
            narrow = buffer.getvalue()
    except Exception:  # noqa: BLE001 - a figure that cannot be re-laid out keeps its one layout
        narrow = None
    if restore is not None:
        size, specs, *texts = restore
        fig.set_size_inches(size, forward=False)
        for ax, spec in specs:
            if spec is not None:
                ax.set_subplotspec(spec)
        for text, content in (texts[0] if texts else ()):
            text.set_text(content)
        for ax in fig.get_axes():
            for child in ax.get_children():
                if isinstance(child, TitleBlock) and child.wrap_margin is not None:
                    child.wrap_at(None)
    folder = cache / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    wide_png, wide_size = _palette_png(wide)
    name = _save(folder, wide_png)
    titles = [t for ax in fig.axes for t in (ax.get_title("left"), ax.get_title(), ax.get_title("right")) if t]
    if getattr(fig, "_suptitle", None) is not None and fig._suptitle.get_text():
        titles.insert(0, fig._suptitle.get_text())
    alt = "Figure: " + "; ".join(re.sub(r"\s+", " ", t) for t in titles) if titles else "Figure"
    source = ""
    if narrow is not None:
        narrow_png, narrow_size = _palette_png(narrow)
        narrow_name = _save(folder, narrow_png)
        source = (f'<source media="(max-width: 480px)" srcset="{STATIC_TOKEN}{SITE_FOLDER}/figures/{narrow_name}" '
                  f'width="{narrow_size[0]}" height="{narrow_size[1]}">')
    return (f'<picture class="privpca-static-figure">{source}<img src="{STATIC_TOKEN}{SITE_FOLDER}/figures/{name}" '
            f'width="{wide_size[0]}" height="{wide_size[1]}" alt="{html.escape(alt, quote=True)}"></picture>')


def install_figure_formatter():
    """In a book build, display matplotlib figures as :func:`figure_html` (IPython's HTML formatter)."""
    if building() is None:
        return False
    try:
        from IPython import get_ipython
        from matplotlib.figure import Figure
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    formatter = shell.display_formatter.formatters["text/html"]
    formatter.for_type(Figure, figure_html)
    return True
