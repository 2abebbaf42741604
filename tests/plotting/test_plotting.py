"""The book's figures as a reader sees them: readable text, colour-blind-safe series, alt text,
public matplotlib API only.

Every dashboard (at the book's defaults, or smaller data where the default takes seconds) and
every static figure of the notebooks (on small experiment results) is drawn by
``tests/plotting/figure_gallery.py``; these tests measure what they draw.
"""

import ast
import functools
import io
import itertools
import os
import pathlib

import numpy as np
import pytest
from matplotlib.colors import to_rgb
from matplotlib.lines import Line2D
from matplotlib.text import Text

from privpca_edu import plotting
from privpca_edu.plotting import _style as S

import figure_gallery

PACKAGE = pathlib.Path(plotting.__file__).parent


# ------------------------------------------------------------------ public matplotlib API only
def _private_attribute_uses(path):
    """``obj._name`` in a module where obj is not ``self``/``cls`` (our own objects use their own
    private names only through ``self``): private attributes of matplotlib objects."""
    tree = ast.parse(path.read_text(), filename=str(path))
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            hits.append(f"{path.name}:{node.lineno}: .{node.attr}")
    return hits


def test_plotting_uses_no_private_matplotlib_attribute():
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) >= 12  # _live, _style and one module per experiments module
    hits = [hit for path in modules for hit in _private_attribute_uses(path)]
    assert not hits, hits


def test_private_attribute_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f(font, legend):\n    return font._layout('x'), legend._legend_box\n")
    assert len(_private_attribute_uses(bad)) == 2


def test_one_plotting_module_per_experiments_module():
    root = PACKAGE.parent / "experiments"  # its modules and subpackages (experiments/ldp/)
    experiments = ({p.stem for p in root.glob("*.py") if not p.stem.startswith("_")}
                   | {p.parent.name for p in root.glob("*/__init__.py") if not p.parent.name.startswith("_")})
    figures = {p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")}
    assert figures == experiments - {"__init__"}
    assert not list(PACKAGE.parent.glob("plotting_*.py"))  # no second home for figure code


# ------------------------------------------------------------------ the figures themselves
@functools.lru_cache(maxsize=None)
def _live(name):
    return figure_gallery.LIVE()[name]()


@functools.lru_cache(maxsize=None)
def _static(name):
    return figure_gallery.STATIC()[name]()


LIVE_NAMES = sorted(figure_gallery.LIVE_NAMES)
STATIC_NAMES = sorted(figure_gallery.STATIC_NAMES)


def _natural_width_px(fig, tight):
    """Width of the PNG the reader's browser receives: the canvas (dashboards) or the tight bbox
    that the inline backend saves (static figures)."""
    if not tight:
        return fig.get_figwidth() * fig.dpi
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    from PIL import Image

    return Image.open(io.BytesIO(buf.getvalue())).width


def _smallest_text_px(fig, tight):
    """The smallest font of any visible text, in CSS px as shown in the 688 px column."""
    natural = _natural_width_px(fig, tight)
    shown = min(natural, S.WIDTH_PX)  # the image is shown at its width, or shrunk to the column
    scale = shown / natural
    sizes = [(t.get_fontsize() * fig.dpi / 72.0 * scale, t.get_text()[:40]) for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return min(sizes)


@pytest.mark.parametrize("name", LIVE_NAMES)
def test_dashboard_text_is_at_least_11_px_in_the_column(name):
    dash = _live(name)
    dash.png()
    size, text = _smallest_text_px(dash.figure.fig, tight=False)
    assert size >= S.MIN_FONT_PX, (name, size, text)
    # shown at its natural width in the column: no down-scaling
    assert dash.figure.fig.get_figwidth() * dash.figure.fig.dpi <= S.WIDTH_PX


@pytest.mark.slow
@pytest.mark.parametrize("name", STATIC_NAMES)
def test_static_figure_text_is_at_least_11_px_in_the_column(name):
    size, text = _smallest_text_px(_static(name), tight=True)
    assert size >= S.MIN_FONT_PX, (name, size, text)


def test_font_check_can_fail():
    fig = plotting.new_figure(3.0)
    ax = fig.subplots()
    ax.set_title("tiny", fontsize=7)
    size, text = _smallest_text_px(fig, tight=False)
    assert size < S.MIN_FONT_PX and text == "tiny"
    wide = plotting.new_figure(3.0, width=2 * S.WIDTH)  # drawn twice too wide: shrunk by half on the page
    wide.subplots().set_title("big", fontsize=12)
    assert _smallest_text_px(wide, tight=False)[0] == pytest.approx(6.0, rel=0.05)


# ------------------------------------------------------------------ colour-blind safe
def _cvd_distance(c1, c2):
    """The smallest CAM02-UCS distance between two colours as seen with normal vision,
    deuteranopia and protanopia (colorspacious's simulation at severity 100)."""
    from colorspacious import cspace_convert, deltaE

    out = []
    for cvd in (None, "deuteranomaly", "protanomaly"):
        a, b = np.array(to_rgb(c1)), np.array(to_rgb(c2))
        if cvd is not None:
            space = {"name": "sRGB1+CVD", "cvd_type": cvd, "severity": 100}
            a, b = (np.clip(cspace_convert(x, space, "sRGB1"), 0, 1) for x in (a, b))
        out.append(float(deltaE(a, b, input_space="sRGB1")))
    return min(out)


def _series(ax):
    """(colour, marker, line style, label) of every line series drawn on ``ax``."""
    out = []
    for line in ax.get_lines():
        x = np.asarray(line.get_xdata(), dtype=float) if len(line.get_xdata()) else np.empty(0)
        if not line.get_visible() or x.size == 0:
            continue
        out.append((to_rgb(line.get_color()), line.get_marker(), str(line.get_linestyle()), line.get_label()))
    return out


def _check_axes_series(ax, where):
    series = _series(ax)
    colours = sorted({c for c, *_ in series})
    for c1, c2 in itertools.combinations(colours, 2):
        d = _cvd_distance(c1, c2)
        assert d >= S.MIN_CVD_DISTANCE, (where, c1, c2, round(d, 1))
    # series in a legend are told apart by marker or line style too, not by colour alone
    shown = {}
    for colour, marker, ls, label in series:
        if not label.startswith("_"):
            shown.setdefault((marker, ls), set()).add(colour)
    clash = {k: v for k, v in shown.items() if len(v) > 1}
    assert not clash, (where, clash)


@pytest.mark.parametrize("name", LIVE_NAMES)
def test_dashboard_series_stay_apart_under_colour_blindness(name):
    fig = _live(name).figure.fig
    for i, ax in enumerate(fig.axes):
        _check_axes_series(ax, (name, i))


@pytest.mark.slow
@pytest.mark.parametrize("name", STATIC_NAMES)
def test_static_series_stay_apart_under_colour_blindness(name):
    for i, ax in enumerate(_static(name).axes):
        _check_axes_series(ax, (name, i))


def test_palette_is_distinct_under_simulated_dichromacy():
    # the six accounting methods share one axes in chapter 2: every pair stays apart
    keys = ("paper", "classic", "analytic_basic", "advanced", "zcdp", "analytic_exact")
    for a, b in itertools.combinations(keys, 2):
        assert _cvd_distance(S.style(a)["color"], S.style(b)["color"]) >= S.MIN_CVD_DISTANCE, (a, b)
        assert (S.style(a)["marker"], S.style(a)["ls"]) != (S.style(b)["marker"], S.style(b)["ls"])


def test_colour_check_can_fail():
    # the old chapter 2 pair: matplotlib's default red and green merge under deuteranopia
    assert _cvd_distance("#d62728", "#2ca02c") < S.MIN_CVD_DISTANCE
    fig = plotting.new_figure(3.0)
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], color="#d62728", label="a")
    ax.plot([0, 1], [1, 0], color="#2ca02c", label="b")
    with pytest.raises(AssertionError):
        _check_axes_series(ax, "red/green")


# ------------------------------------------------------------------ words for the figures
@pytest.mark.parametrize("name", LIVE_NAMES)
def test_every_dashboard_image_has_alt_text(name):
    dash = _live(name)
    alt = dash.figure.alt_text()
    assert len(alt) > 60 and alt == dash.image.tooltip


def test_every_figure_class_says_what_it_shows():
    from privpca_edu.plotting._live import LiveFigure

    classes, stack = [], [LiveFigure]
    while stack:
        cls = stack.pop()
        stack += cls.__subclasses__()
        if cls.__module__.startswith("privpca_edu.plotting.") and not cls.__name__.startswith("_") \
                and cls.__name__ not in ("LiveFigure", "StaticFigure"):
            classes.append(cls)
    assert len(classes) >= 15
    missing = [c.__name__ for c in classes if len(c.alt) < 60]
    assert not missing, missing


# ------------------------------------------------------------------ notation
def test_axis_labels_print_no_tex_as_text():
    # mathtext is between dollars; TeX markup outside them prints as text (``λ_{k+1}``)
    bad = []
    for name in LIVE_NAMES:
        fig = _live(name).figure.fig
        for t in fig.findobj(Text):
            s = t.get_text()
            outside = "".join(part for i, part in enumerate(s.split("$")) if i % 2 == 0)
            if any(token in outside for token in ("_{", "^{", "\\", "_F", ">=", "alpha", "gamma")):
                bad.append((name, s))
    assert not bad, bad


# ------------------------------------------------------------------ chapter 3's reference levels
@pytest.mark.parametrize("d", [4, 10, 50, 1000])
def test_angles_reference_levels_are_computed_and_inside_the_axes(d):
    from privpca_edu import experiments
    from privpca_edu.subspace import random_subspace_distance

    fig = plotting.AnglesFigure(experiments.angle_distances(80.0, 85.0, n_features=d))
    _, _, _, levels, _ = fig.bar_parts
    top = fig.ax_bar.get_ylim()[1]
    ys = [seg[0][1] for seg in levels.get_segments()]
    assert ys[2] == pytest.approx(random_subspace_distance(d, 2, "max_angle"))
    assert max(ys) < top
    assert ys[1] == pytest.approx(np.sqrt(2) * ys[0])


def test_planes_max_angle_level_is_the_random_plane_level():
    from privpca_edu import experiments

    fig = plotting.PlanesFigure(experiments.plane_distances())
    _, _, _, levels, _ = fig.bar_parts
    # d = 3, k = 2: one angle between the normals, E sin² = 1 − 1/3
    assert levels.get_segments()[2][0][1] == pytest.approx(np.sqrt(2 / 3))


# ------------------------------------------------------------------ stamped texts
def test_stamped_text_is_the_text_agg_draws():
    # a text blended from its stamps (one per line) matches Agg drawing the same text, to within
    # anti-aliasing rounding, at any sub-pixel position and rotation; drawing it again is all hits
    from privpca_edu.plotting._stamps import StampRenderer

    texts = ("(a) ε = 0.37, Δ = √2\nsecond line", r"$\|\sin\Theta\|_F \approx 1.265$")
    for x, s, rotation in itertools.product((0.1, 0.3137, 0.52), texts, (0, 90, 30)):
        fig = plotting.new_figure(2.5, layout=None)
        text = fig.text(x, 0.4, s, fontsize=S.NORMAL, color=S.OKABE_ITO["blue"], rotation=rotation)
        canvas = fig.canvas
        canvas.draw()
        direct = np.asarray(canvas.buffer_rgba()).astype(int)
        text.set_visible(False)
        canvas.draw()
        text.set_visible(True)
        stamps, background = StampRenderer(canvas.get_renderer()), canvas.copy_from_bbox(fig.bbox)
        lines = s.count("\n") + 1
        for _ in range(2):
            canvas.restore_region(background)
            text.draw(stamps)
        stamped = np.asarray(canvas.buffer_rgba()).astype(int)
        assert (stamps.misses, stamps.hits, stamps.direct) == (lines, lines, 0)
        differ = np.abs(stamped - direct).max(axis=-1)
        assert differ.max() <= 2 and (differ > 0).sum() <= 4, (s, x, rotation)
        assert (direct != 255).any(axis=-1).sum() > 200  # the text is there


def test_the_stamp_renderer_is_a_renderer_that_forwards_all_but_text():
    # matplotlib code that checks isinstance(renderer, RendererBase) accepts it, and every method
    # of the renderer interface but draw_text is the wrapped Agg renderer's (not RendererBase's
    # defaults): a full figure drawn through it equals the canvas's own draw
    from matplotlib.backend_bases import RendererBase

    from privpca_edu.plotting._stamps import StampRenderer

    fig = plotting.new_figure(2.5)
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [1, 0, 2], marker="o")
    ax.set_title("(a) ε = 0.5")
    fig.canvas.draw()
    direct = np.asarray(fig.canvas.buffer_rgba()).astype(int)
    renderer = fig.canvas.get_renderer()
    stamps = StampRenderer(renderer)
    assert isinstance(stamps, RendererBase)
    for name in [n for n in vars(RendererBase) if not n.startswith("__") and n != "draw_text"]:
        assert getattr(StampRenderer, name) is not getattr(RendererBase, name), name
    assert stamps.get_canvas_width_height() == renderer.get_canvas_width_height()
    renderer.clear()
    fig.draw(stamps)
    differ = np.abs(np.asarray(fig.canvas.buffer_rgba()).astype(int) - direct).max(axis=-1)
    assert differ.max() <= 2 and stamps.misses > 0
