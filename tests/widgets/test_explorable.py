"""The precomputed explorables of the static book (privpca_edu/widgets/explorable.py): a frame
shows exactly what the live dashboard computes for its state; the phone layout; the cache."""

from __future__ import annotations

import io
import math
import json

import pytest
from PIL import Image

from privpca_edu import widgets
from privpca_edu.plotting.accounting import SigmaFigure
from privpca_edu.widgets import explorable as X

SMALL_GRID = {"full": {"epsilon": (0.1, 1.0, 10.0)}, "sweep": {"n_steps": (1, 20)}}


@pytest.fixture(scope="module")
def sigma_manifest(tmp_path_factory):
    cache = tmp_path_factory.mktemp("frames")
    dashboard = widgets.sigma_dashboard(epsilon=1.0, delta=1e-5, n_steps=10, sensitivity=2.0)
    return cache, X.precompute(dashboard, cache=cache, spec=SMALL_GRID)


def test_every_state_of_the_grid_has_a_frame(sigma_manifest):
    _, manifest = sigma_manifest
    assert manifest["count"] == 5  # ε ∈ {0.1, 1, 10} at T = 10, then T ∈ {1, 20} at ε = 1
    eps = next(c for c in manifest["controls"] if c["name"] == "epsilon")
    assert eps["labels"] == ["0.1", "1", "10"] and eps["aria"] == "ε, privacy budget"
    delta = next(c for c in manifest["controls"] if c["name"] == "delta")
    assert len(delta["labels"]) == 1  # not in the grid: the page shows it disabled


def test_a_precomputed_state_equals_the_live_dashboard(sigma_manifest):
    _, manifest = sigma_manifest
    names = [c["name"] for c in manifest["controls"]]
    frame = manifest["frames"][",".join("2" if n == "epsilon" else "0" if n != "n_steps" else "1" for n in names)]
    live = widgets.sigma_dashboard(epsilon=1.0, delta=1e-5, n_steps=10, sensitivity=2.0)
    live.set_values(epsilon=10.0)
    assert frame["numbers"] and frame["numbers"] == json.loads(json.dumps(X.frame_numbers(live.result)))
    assert frame["alt"].startswith("ε = 10, δ = 1e-5, T = 10, ")
    # and a different state has different numbers (the comparison can fail)
    other = manifest["frames"][",".join("0" if n == "epsilon" else "0" if n != "n_steps" else "1" for n in names)]
    assert other["numbers"] != frame["numbers"]


def test_frames_are_palette_pngs_with_a_phone_layout(sigma_manifest):
    cache, manifest = sigma_manifest
    frame = next(iter(manifest["frames"].values()))
    wide = Image.open(io.BytesIO((cache / manifest["key"] / frame["w"]).read_bytes()))
    narrow = Image.open(io.BytesIO((cache / manifest["key"] / frame["n"]).read_bytes()))
    assert wide.mode == "P" and narrow.mode == "P"
    assert wide.size[0] == 672 and narrow.size[0] == X.NARROW_PX
    assert narrow.size[1] >= wide.size[1]  # (σ's figure has one column already: same height)


def test_an_unchanged_dashboard_is_not_recomputed(sigma_manifest):
    cache, manifest = sigma_manifest
    dashboard = widgets.sigma_dashboard(epsilon=1.0, delta=1e-5, n_steps=10, sensitivity=2.0)
    before = dashboard.n_computes
    again = X.precompute(dashboard, cache=cache, spec=SMALL_GRID)
    assert again == manifest and dashboard.n_computes == before


@pytest.mark.parametrize("name", ["LocalPrivacyFigure", "AttackFigure", "EuropeMapFigure"])
def test_relayout_stacks_panels_in_one_column(name):
    from privpca_edu import plotting
    from privpca_edu.plotting import europe, ldp

    cls = {"LocalPrivacyFigure": ldp.LocalPrivacyFigure, "AttackFigure": plotting.AttackFigure,
           "EuropeMapFigure": europe.EuropeMapFigure}[name]
    figure = cls()
    height = figure.fig.get_figheight()
    X.relayout_narrow(figure.fig)
    assert round(figure.fig.get_figwidth() * 72) == X.NARROW_PX
    assert figure.fig.get_figheight() > height
    axes = [ax for ax in figure.fig.get_axes() if ax.get_subplotspec() is not None]
    assert axes and all(ax.get_subplotspec().get_gridspec().get_geometry()[1] == 1 for ax in axes)


def test_names_of_controls():
    eps = widgets.epsilon_slider(2.0)
    assert X.accessible_name(eps) == "ε, privacy budget"
    assert X.short_name(eps) == "ε" and X.label_of(eps, 2.0) == "2"
    assert X.label_of(widgets.delta_slider(), 1e-5) == "1e-5"


def test_nothing_happens_outside_a_book_build(monkeypatch):
    monkeypatch.delenv(X.ENV_VAR, raising=False)
    assert X.building() is None and X.figure_html(SigmaFigure().fig) is None


def test_infinite_values_are_told_apart():
    assert X._same(math.inf, math.inf) and not X._same(5.0, math.inf) and not X._same(math.inf, 1.0)
    assert X._allowed(widgets.angle_slider(), -90.0)


@pytest.mark.parametrize("picklable", [True, False])
def test_static_figures_get_a_phone_copy(tmp_path, monkeypatch, picklable):
    from matplotlib.ticker import FuncFormatter

    from privpca_edu.plotting._live import new_figure

    monkeypatch.setenv(X.ENV_VAR, str(tmp_path))
    fig = new_figure(3.0)
    left, right = fig.subplots(1, 2)
    left.plot([0, 1], [0, 1])
    right.set_title("a title")
    if not picklable:
        right.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.1f}"))  # (a lambda: no pickle)
    size = tuple(fig.get_size_inches())
    html = X.figure_html(fig)
    assert '<source media="(max-width: 480px)"' in html and 'alt="Figure: a title"' in html
    narrow = sorted((tmp_path / "figures").glob("*.png"), key=lambda p: Image.open(p).size[0])[0]
    assert Image.open(narrow).size[0] == X.NARROW_PX
    assert tuple(fig.get_size_inches()) == size  # the notebook's figure is left as it was


def _drawn_texts(fig):
    """Every text a render of ``fig`` draws (tick labels of ticks outside the view are not drawn)."""
    from matplotlib.text import Text

    hidden = set()
    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            span = (high - low) * 1e-9
            hidden |= {id(t) for tick in axis.get_major_ticks() + axis.get_minor_ticks()
                       if not (tick.get_loc() is not None and low - span <= tick.get_loc() <= high + span)
                       for t in (tick.label1, tick.label2)}
    return [t for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and id(t) not in hidden]


def _outside(fig):
    renderer = fig.canvas.get_renderer()
    return [(t.get_text(), round(box.x0), round(box.x1)) for t in _drawn_texts(fig)
            for box in [t.get_window_extent(renderer)] if box.x0 < -0.5 or box.x1 > fig.bbox.x1 + 0.5]


@pytest.mark.parametrize("chapter", [1, 6])
def test_phone_frames_keep_every_text_inside_the_figure(chapter):
    # the live dashboards' phone twins, drawn as the book build draws a frame (long panel titles
    # made of pieces, legends, notes): nothing crosses the 360 px figure's left or right edge
    if chapter == 1:
        dashboard = widgets.attack_dashboard(epsilon=1.0, n_samples=20)
    else:
        from privpca_edu.widgets.ldp import ldp_dashboard

        dashboard = ldp_dashboard(epsilon=4.0, n_samples=1_000_000, n_features=20, support_size=4,
                                  n_components=2, delta=1e-5)
    narrow = X.narrow_figure(dashboard.figure)
    pixels = X.narrow_frame(narrow, dashboard)
    assert pixels.shape[1] == X.NARROW_PX
    assert not _outside(narrow.fig)
    if chapter == 1:  # panel (a), alone on its row, spans the column (its title no longer squeezes it)
        box = narrow.ax_rec.get_window_extent()
        assert box.width >= 0.75 * X.NARROW_PX
        assert "\n" not in narrow.t_rec.get_text()  # (the title's text is what was set, wrapped on screen only)


def test_phone_copy_of_a_static_figure_keeps_every_text_inside():
    from privpca_edu.experiments import ldp
    from privpca_edu.plotting import ldp as figures

    fig = figures.plot_user_report(ldp.user_report_example(epsilon=0.5, n_features=10, n_components=2, delta=1e-4))
    fig.suptitle("One user's report at ε = 0.5, d = 10, k = 2, δ = 1e-4: the noise is far larger than the record")
    X.relayout_narrow(fig)
    X.fit_texts(fig, layout=True)
    assert not _outside(fig)
    assert round(fig.get_figwidth() * 72) == X.NARROW_PX
