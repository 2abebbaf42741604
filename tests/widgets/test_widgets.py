"""The dashboards: construct, redraw in place on a control change, survive bad values.

No browser is needed: an ipywidgets control's ``value`` can be set from Python, which fires
the same observer a slider release fires in JupyterLab.
"""

import math
import os
import warnings

import ipywidgets as W
import numpy as np
import pytest

from privpca_edu import experiments, plotting, widgets
from privpca_edu.experiments import accounting, attack
from privpca_edu.widgets.controls import random_value

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

DASHBOARDS = {
    "attack": lambda: widgets.attack_dashboard(epsilon=1.0, n_samples=20),
    "sigma": lambda: widgets.sigma_dashboard(),
    "planes": lambda: widgets.planes_dashboard(),
    "angles": lambda: widgets.angles_dashboard(),
}


@pytest.fixture(params=sorted(DASHBOARDS))
def dash(request):
    return DASHBOARDS[request.param]()


def _sliders(widget):
    """All slider controls in on-screen order (depth first)."""
    out = []
    if isinstance(widget, (W.FloatLogSlider, W.FloatSlider, W.IntSlider, W.SelectionSlider)):
        out.append(widget)
    for child in getattr(widget, "children", ()):
        out += _sliders(child)
    return out


def test_dashboard_constructs_with_a_figure(dash):
    assert isinstance(dash, W.Widget) and isinstance(dash, widgets.Dashboard)
    assert dash.png().startswith(PNG_MAGIC)
    assert dash.last_error is None and dash.result is not None
    assert dash.n_computes == 1
    assert "privpca-figure" in dash.image._dom_classes
    for slider in _sliders(dash):
        assert slider.continuous_update is False, slider.description


def test_moving_a_control_recomputes_and_changes_the_image(dash):
    control = next(iter(dash.controls.values()))
    before, computes = dash.png(), dash.n_computes
    if isinstance(control, W.SelectionSlider):
        control.value = control.options[-1]
    else:
        control.value = control.min + 0.8 * (control.max - control.min) if not isinstance(
            control, W.FloatLogSlider) else control.base ** (control.min + 0.8 * (control.max - control.min))
    assert dash.n_computes == computes + 1
    assert dash.png() != before
    assert dash.last_error is None
    assert len(dash.timings) == 2 and dash.timings[-1]["total"] > 0


def test_figure_is_updated_in_place(dash):
    fig, axes = dash.figure.fig, list(dash.figure.fig.axes)
    first = next(iter(dash.controls.values()))
    if isinstance(first, W.SelectionSlider):
        first.value = first.options[0]
    else:
        first.value = first.max if not isinstance(first, W.FloatLogSlider) else first.base ** first.max
    assert dash.figure.fig is fig and list(fig.axes) == axes  # no new figure, no new axes


def test_sigma_dashboard_epsilon_is_the_first_slider():
    # the live-JupyterLab browser test presses ArrowRight on the first slider of chapter 2
    dash = widgets.sigma_dashboard()
    first = _sliders(dash)[0]
    assert isinstance(first, W.FloatLogSlider) and first.description.startswith("ε")
    assert first is dash.controls["epsilon"]
    before = dash.png()
    first.value = first.base ** (np.log10(first.value) + first.step)  # one ArrowRight
    assert dash.png() != before and dash.last_error is None


def test_sigma_dashboard_defaults_to_a_safe_delta_and_offers_the_papers_setting():
    from privpca_edu.widgets.chapters import DPS_PCA_PAPER_SETTING, SIGMA_PRESETS
    from privpca_edu.widgets.dashboard import CUSTOM_PRESET

    dash = widgets.sigma_dashboard()
    assert dash.params()["delta"] == pytest.approx(1e-5)
    assert dash.preset.value == SIGMA_PRESETS[0][0] and "10⁻⁵" in dash.preset.value
    assert dash.advisory_html.value == "" and dash.advisory_html.layout.display == "none"
    assert dash.result["reference"] == []  # no table crosses at a realistic δ
    # the named preset: one update sets δ, T and Δ together, and the table's crosses appear
    computes = dash.n_computes
    paper = next(label for label, values in SIGMA_PRESETS if values == DPS_PCA_PAPER_SETTING)
    assert "DPS-PCA paper's setting" in paper
    dash.preset.value = paper
    assert dash.n_computes == computes + 1
    assert {k: dash.params()[k] for k in DPS_PCA_PAPER_SETTING} == DPS_PCA_PAPER_SETTING
    assert len(dash.result["reference"]) == 20 and dash.result["reference_at"]["paper"] == 57.96
    # its warning in plain view: an HTML block directly under the figure, at full text size
    children = list(dash.children)
    assert children.index(dash.advisory_html) == children.index(dash.image) + 1
    assert dash.advisory_html.layout.display is None
    text = dash.advisory_html.value
    assert "Warning" in text and "DPS-PCA paper's setting" in text and "δ = 0.3" in text
    assert "font-size:100%" in text and "in the clear with probability 0.3" in text
    # a slider moved away from the preset: "custom", and the warning follows δ
    dash.controls["delta"].value = 0.05
    assert dash.preset.value == CUSTOM_PRESET and dash.n_computes == computes + 2
    assert "δ = 0.05" in dash.advisory_html.value and "DPS-PCA paper's setting" not in dash.advisory_html.value
    dash.preset.value = SIGMA_PRESETS[0][0]
    assert dash.params()["delta"] == pytest.approx(1e-5) and dash.advisory_html.layout.display == "none"
    dash.preset.value = CUSTOM_PRESET  # choosing "custom" changes nothing
    assert dash.params()["delta"] == pytest.approx(1e-5)
    # the preset is recognised after a slider round trip (a log slider stores 0.3 as 10^-0.52)
    dash.set_values(delta=10 ** -0.52, n_steps=10, sensitivity=2.0)
    assert dash.preset.value == paper and len(dash.result["reference"]) == 20
    assert widgets.sigma_dashboard(preset="paper").params()["delta"] == 0.3
    with pytest.raises(ValueError, match="preset"):
        widgets.sigma_dashboard(preset="nope")


def test_preset_names_must_be_controls():
    with pytest.raises(ValueError, match="unknown controls"):
        widgets.Dashboard(experiments.sigma_curves, plotting.SigmaFigure(),
                          {"epsilon": widgets.epsilon_slider(1.0)}, presets=[("x", {"delta": 0.1})])


def test_returning_to_a_setting_uses_the_memo():
    dash = widgets.sigma_dashboard()
    eps = dash.controls["epsilon"]
    eps.value = 2.0
    eps.value = 1.0  # the initial value: remembered
    assert dash.n_computes == 2


@pytest.mark.parametrize(
    "make, overrides, match",
    [
        (DASHBOARDS["attack"], dict(n_components=50), "n_components"),  # k > d
        (DASHBOARDS["attack"], dict(epsilon=-1.0), "epsilon"),
        (DASHBOARDS["sigma"], dict(delta=1.0), "delta"),  # δ → 1
        (DASHBOARDS["sigma"], dict(epsilon=0.0), "epsilon"),
        (DASHBOARDS["planes"], dict(tilt_x=float("nan")), "tilt_x"),
        (DASHBOARDS["angles"], dict(n_features=3), "n_features"),
    ],
)
def test_invalid_value_shows_message_in_figure(make, overrides, match):
    dash = make()
    good = dash.png()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dash.refresh(**overrides)  # must not raise
    assert dash.last_error is not None and match in str(dash.last_error)
    assert dash.figure.error is not None and match in dash.figure.error
    assert dash.figure._error.get_visible()
    assert dash.png() != good  # the message is drawn into the image
    dash.refresh()  # back to the controls' (valid) values: the message disappears
    assert dash.last_error is None and not dash.figure._error.get_visible()


def test_reachable_bad_combination_k_greater_than_d():
    dash = widgets.attack_dashboard()
    dash.controls["n_features"].value = 3
    dash.controls["n_components"].value = 5  # both sliders in range, the combination is not
    assert isinstance(dash.last_error, ValueError) and "n_components" in dash.figure.error
    dash.controls["n_components"].value = 2
    assert dash.last_error is None


@pytest.mark.parametrize("overrides", [dict(epsilon=1e-300), dict(epsilon=1e300), dict(delta=1e-300),
                                       dict(delta=0.999999), dict(n_steps=10_000)])
def test_extreme_sigma_values_never_raise(overrides):
    dash = widgets.sigma_dashboard()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dash.refresh(**overrides)
    assert dash.png().startswith(PNG_MAGIC)


def test_extreme_slider_ends_work():
    dash = widgets.attack_dashboard()
    for control in dash.controls.values():
        for value in ((control.options[0], control.options[-1]) if isinstance(control, W.SelectionSlider)
                      else ((control.base ** control.min, control.base ** control.max)
                            if isinstance(control, W.FloatLogSlider) else (control.min, control.max))):
            control.value = value
            assert dash.png().startswith(PNG_MAGIC)
    dash = widgets.sigma_dashboard()
    for name in ("epsilon", "delta"):
        c = dash.controls[name]
        for value in (c.base ** c.min, c.base ** c.max):
            c.value = value
            assert dash.last_error is None, (name, value, dash.last_error)


def test_slider_independent_cache_is_hit():
    attack.clear_caches()
    dash = widgets.attack_dashboard(epsilon=1.0, n_samples=50)
    info = attack.cache_info()
    dash.controls["epsilon"].value = 4.0
    after = attack.cache_info()
    assert after["curve"].hits == info["curve"].hits + 1 and after["curve"].misses == info["curve"].misses
    assert after["population"].misses == info["population"].misses

    accounting.clear_caches()
    dash = widgets.sigma_dashboard(delta=1e-5)
    dash.controls["epsilon"].value = 3.0
    info = accounting.cache_info()["curves"]
    assert info.misses == 1 and info.hits == 1


def test_warnings_become_notes_not_stderr():
    def compute(x):
        warnings.warn("careful: x is large", UserWarning)
        return {"x": x}

    class Fig(plotting.LiveFigure):
        def _build(self):
            self.ax = self.fig.add_subplot()
            self.line = self._animate(self.ax.plot([0, 1], [0, 0])[0])

        def _draw(self, data):
            self.line.set_ydata([0, data["x"]])

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dash = widgets.Dashboard(compute, Fig(), {"x": W.FloatSlider(value=0.5, continuous_update=False)})
    assert dash.last_warnings == ["careful: x is large"]
    assert "careful" in dash.figure._note.get_text()


def test_unexpected_exceptions_are_shown_too():
    calls = []

    def compute(x):
        calls.append(x)
        if x > 0.5:
            raise RuntimeError("a bug")
        return {"x": x}

    class Fig(plotting.LiveFigure):
        def _build(self):
            self.ax = self.fig.add_subplot()

        def _draw(self, data):
            self.ax.set_title(f"{data['x']}")

    slider = W.FloatSlider(value=0.1, max=1.0, continuous_update=False)
    dash = widgets.Dashboard(compute, Fig(), {"x": slider})
    slider.value = 0.9
    assert isinstance(dash.last_error, RuntimeError) and "RuntimeError: a bug" in dash.figure.error


def test_controls_factories():
    eps = widgets.epsilon_slider(0.5)
    assert isinstance(eps, W.FloatLogSlider) and eps.value == pytest.approx(0.5) and not eps.continuous_update
    delta = widgets.delta_slider(1e-5)
    assert isinstance(delta, W.FloatLogSlider) and delta.base ** delta.max < 1
    for factory in (widgets.sparsity_slider, widgets.contamination_slider, widgets.n_samples_slider,
                    widgets.n_features_slider, widgets.n_components_slider, widgets.n_steps_slider,
                    widgets.angle_slider):
        assert factory().continuous_update is False
    assert widgets.n_samples_slider(123).value == 123  # off-grid values are added, not rejected
    assert isinstance(widgets.method_picker(["a", "b"]), W.Dropdown)
    assert isinstance(widgets.method_picker(["a", "b"], kind="toggle"), W.ToggleButtons)
    with pytest.raises(ValueError, match="kind"):
        widgets.method_picker(["a"], kind="radio")
    assert isinstance(widgets.seed_picker(), W.BoundedIntText)


def test_static_figures_draw_every_artist():
    # savefig (inline backend, the static book) must include the "animated" artists
    import io

    fig = plotting.plot_sigma_curves(experiments.sigma_curves())
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.getvalue().startswith(PNG_MAGIC)
    live = plotting.SigmaFigure(experiments.sigma_curves())
    blank = plotting.SigmaFigure()
    assert live.png() != blank.png()  # the curves are drawn by the blitting path as well


def test_live_figure_without_animated_artists_never_goes_stale():
    # a chapter figure that forgets _animate (or sets blit = False) is drawn in full every time
    class Plain(plotting.LiveFigure):
        def _build(self):
            self.ax = self.fig.add_subplot()
            (self.line,) = self.ax.plot([0, 1], [0, 0])
            self.ax.set_ylim(0, 1)

        def _draw(self, data):
            self.line.set_ydata([0, data["y"]])

    fig = Plain({"y": 0.1})
    first = fig.png()
    fig.draw({"y": 0.9})
    second = fig.png()
    assert second != first
    fig.show_error("boom")
    assert fig.png() != second
    fig.draw({"y": 0.9})
    assert fig.png() == second


def test_blitting_matches_a_full_render():
    # the cached-background path draws exactly what a full redraw draws
    live = plotting.AttackFigure(experiments.membership_attack(1.0, 20))
    live.png()
    result = experiments.membership_attack(3.0, 20)
    live.draw(result)
    blitted = live.png()
    live._static_version += 1  # force a new background for the same state (texts now from stamps)
    again = live.png()
    differ = np.abs(_decode(again) - _decode(blitted)).max(axis=-1) > TEXT_ROUNDING
    assert differ.sum() <= 20


# ------------------------------------------------------------------ blitting == a full render
def _decode(png):
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def _full_render_png(figure):
    """The figure drawn by ``fig.canvas.draw()`` with no artist animated (what savefig shows)."""
    animated = [a for a in figure.fig.findobj() if a.get_animated()]
    for artist in animated:
        artist.set_animated(False)
    try:
        figure.fig.canvas.draw()
        return plotting.encode_png(np.asarray(figure.fig.canvas.buffer_rgba()))
    finally:
        for artist in animated:
            artist.set_animated(True)


def _dashboard(name):
    from privpca_edu.widgets.auditing import gdp_audit_dashboard
    from privpca_edu.widgets.ldp import ldp_dashboard
    from privpca_edu.widgets.noisy_covariance import noisy_covariance_dashboard
    from privpca_edu.widgets.robust import breakdown_dashboard, heavy_tails_dashboard

    return {
        "attack": widgets.attack_dashboard, "planes": widgets.planes_dashboard,
        "noisy_covariance": lambda: noisy_covariance_dashboard(n_features=12, n_samples=500),
        "gdp_audit": lambda: gdp_audit_dashboard(n_draws=2000), "ldp": ldp_dashboard,
        "heavy_tails": lambda: heavy_tails_dashboard(n_samples=400, n_reps=2), "breakdown": breakdown_dashboard,
    }[name]()


#: Moves that change axis limits, legends, visibility, the number of bars … and come back.
BLIT_MOVES = {
    "attack": [("epsilon", 30.0), ("n_features", 25), ("n_components", 3), ("n_samples", 1000), ("n_features", 7),
               ("epsilon", 0.05)],
    "planes": [("tilt_y", 40.0), ("n_components", 1), ("tilt_x", -60.0), ("n_components", 2)],
    "noisy_covariance": [("epsilon", 0.01), ("n_components", 2), ("delta", 1e-2), ("n_features", 5),
                         ("epsilon", 50.0)],
    "gdp_audit": [("sigma_multiplier", 0.5), ("mechanism", "mutant: Analyze Gauss with σ/2"), ("epsilon", 5.0),
                  ("n_draws", 1000), ("sigma_multiplier", 2.0)],
    "ldp": [("n_features", 40), ("n_components", 4), ("epsilon", 0.3), ("n_samples", 30_000)],
    "heavy_tails": [("contamination", 0.1), ("df", 1.0), ("epsilon", 5.0)],
    "breakdown": [("distance", 500.0), ("fraction", 0.3), ("epsilon", 1.0), ("distance", 3.0)],
}


#: Largest difference (of 255) allowed per channel between a blitted frame and a full render.
TEXT_ROUNDING = 24


def _assert_blit_equals_full(dash, where):
    dash.figure.png()  # a second blitted frame of the same state (from the cached background)
    blitted, full = _decode(dash.figure.png()), _decode(_full_render_png(dash.figure))
    assert blitted.shape == full.shape
    # Animated texts are blended from stamps (plotting._stamps): their anti-aliased edges may
    # differ from Agg's direct text by a few levels; a stale, missing or misordered artist differs
    # by far more (a colour key painted over by a map: black text on colour vs on white).
    differ = np.abs(blitted - full).max(axis=-1) > TEXT_ROUNDING
    assert differ.sum() <= 20, (where, int(differ.sum()))


#: Every blitted dashboard of the book (the hospitals' figure is redrawn in full: blit = False).
WALKED = ("attack", "sigma", "planes", "angles", "noisy_covariance", "gdp_audit", "ldp", "dps_pca", "heavy_tails",
          "breakdown", "europe")


@pytest.mark.parametrize("name", WALKED)
def test_random_slider_walks_blit_what_a_full_render_draws(name):
    # Every frame a student sees after a random walk over the controls (fixed seed) is the picture
    # a full draw of the same state gives: chapter 8's map must not paint over its colour key.
    from privpca_edu.widgets.dps_pca import dps_pca_dashboard
    from privpca_edu.widgets.europe import europe_dashboard

    makers = {"sigma": widgets.sigma_dashboard, "angles": widgets.angles_dashboard, "dps_pca": dps_pca_dashboard,
              "europe": europe_dashboard}
    dash = makers[name]() if name in makers else _dashboard(name)
    assert dash.figure.blit
    rng = np.random.default_rng(sum(map(ord, name)))
    _assert_blit_equals_full(dash, "defaults")
    names = list(dash.controls)
    for step in range(4):
        control = names[rng.integers(len(names))]
        value = random_value(dash.controls[control], rng)
        dash.controls[control].value = value
        _assert_blit_equals_full(dash, (step, control, value))


def test_dps_dashboard_defaults_to_a_safe_delta_and_names_the_papers_setting():
    # Chapter 8: δ = 10⁻⁵ by default; the paper's δ = 0.3 is a named preset whose warning is
    # drawn in plain view in the figure (not in the small note line), and only then.
    from privpca_edu.experiments.dps_pca import PAPER_DELTA
    from privpca_edu.widgets.dps_pca import DELTA_PRESETS, dps_pca_dashboard

    dash = dps_pca_dashboard()
    assert dash.controls["delta"].value == 1e-5 and dash.result["delta"] == 1e-5
    setting = dash.preset
    assert DELTA_PRESETS[setting.value] == 1e-5
    assert not dash.figure.t_weak.get_visible() and dash.result["delta_warning"] == ""
    paper = next(label for label, value in DELTA_PRESETS.items() if value == PAPER_DELTA)
    assert "paper" in paper and "not a meaningful guarantee" in paper
    setting.value = paper
    assert dash.controls["delta"].value == PAPER_DELTA and dash.result["delta"] == PAPER_DELTA
    assert dash.last_error is None and dash.figure.t_weak.get_visible()
    text = dash.figure.t_weak.get_text()
    assert "paper's setting" in text and "not a meaningful" in text and "δ = 0.3 > 1/n" in text
    assert "weak" not in dash.figure._note.get_text()  # said once, in the box
    dash.controls["delta"].value = 0.01  # a δ no preset names
    assert DELTA_PRESETS[setting.value] is None and dash.figure.t_weak.get_visible()
    assert "paper" not in dash.figure.t_weak.get_text()
    dash.controls["delta"].value = 1e-5
    assert DELTA_PRESETS[setting.value] == 1e-5 and not dash.figure.t_weak.get_visible()


def test_dps_dashboard_draws_theorem_43_at_the_iterates_it_bounds():
    # The theorem bounds Q^(t), t = 1..T, and Q^(1) is the start (iteration 0 of the figure).
    from privpca_edu.widgets.dps_pca import dps_pca_dashboard

    dash = dps_pca_dashboard(epsilon=50.0, n_iter=6)
    b = dash.result["bound"]
    assert b["valid"]
    x, y = dash.figure.l_terms["total"].get_data()
    assert list(x) == list(range(6)) and np.allclose(y, b["total"])
    dash.controls["sparsity"].value = 5  # ŝ < s* = 10: the theorem says nothing
    assert not dash.result["bound"]["valid"] and "ŝ = 5 < s* = 10" in dash.result["bound"]["reason"]
    assert len(dash.figure.l_terms["total"].get_data()[0]) == 0 and dash.figure.t_silent.get_visible()


@pytest.mark.parametrize("name", ["attack", "ldp"])
def test_long_walks_compose_backgrounds_that_equal_a_full_render(name):
    # chapters 1 and 6 redraw single panels (cells), titles from pieces and every text from
    # stamps: after many random moves, every frame is still the full render of its state
    dash = _dashboard(name)
    rng = np.random.default_rng(7)
    names = list(dash.controls)
    for step in range(12):
        control = names[rng.integers(len(names))]
        value = random_value(dash.controls[control], rng)
        dash.controls[control].value = value
        assert dash.last_error is None, dash.last_error
        _assert_blit_equals_full(dash, (step, control, value))
    assert any(len(cache) > 1 for _, _, cache in dash.figure._cells)  # panels were redrawn alone


@pytest.mark.parametrize("name", sorted(BLIT_MOVES))
def test_blitted_frames_equal_a_full_render(name):
    # After every control move the PNG the dashboard shows (cached background + animated artists,
    # legends replayed) must be the picture a full draw of the same state gives — never stale.
    dash = _dashboard(name)
    assert dash.figure.blit
    for control, value in [(None, None)] + BLIT_MOVES[name]:
        if control is not None:
            before = dash.png()
            dash.controls[control].value = value
            assert dash.last_error is None, dash.last_error
            assert dash.png() != before, (control, value)
        dash.figure.png()  # a second blitted frame of the same state (from the cached background)
        blitted, full = _decode(dash.figure.png()), _decode(_full_render_png(dash.figure))
        assert blitted.shape == full.shape
        differ = np.abs(blitted - full).max(axis=-1) > TEXT_ROUNDING
        assert differ.sum() <= 20, (control, value, int(differ.sum()))


def test_backgrounds_are_reused_when_limits_come_back():
    dash = widgets.attack_dashboard()
    fig = dash.figure.fig  # a full render (LiveFigure._full_draw) is figure.draw
    calls = []
    draw = fig.draw
    fig.draw = lambda *a, **k: (calls.append(1), draw(*a, **k))[1]
    dash.controls["n_features"].value = 25  # a wider frame for the bars: a new background
    dash.controls["n_features"].value = 8
    n = len(calls)
    dash.controls["n_features"].value = 26  # back to frames seen before: no full render
    dash.controls["n_features"].value = 9
    dash.controls["epsilon"].value = 3.0
    assert len(calls) == n


def test_a_limit_change_redraws_only_its_panel():
    # chapter 1: a wider frame for the bars (n_features 10 -> 25) changes panel (a)'s limits only;
    # the new background is panel (a) drawn alone on the bare figure, the other panels' cells reused
    dash = widgets.attack_dashboard()
    fig = dash.figure
    assert fig._cells and len(fig._cells) == 3
    drawn = []
    full = fig.fig.draw
    fig.fig.draw = lambda *a, **k: (drawn.append("figure"), full(*a, **k))[1]
    for ax in fig.fig.axes:
        ax.draw = (lambda ax, draw: lambda renderer: (drawn.append(ax), draw(renderer))[1])(ax, ax.draw)
    dash.controls["n_features"].value = 25
    assert drawn == [fig.ax_rec]
    _assert_blit_equals_full(dash, "n_features 25")


def test_a_panel_drawing_outside_its_cell_falls_back_to_a_full_render():
    # chapter 3: at d = 4 the distance panel's tick labels ("2.00") reach into the next cell; the
    # pixel check catches it and the frame is drawn in full, never composed wrongly
    dash = widgets.angles_dashboard()
    for d in (4, 5, 4):
        dash.controls["n_features"].value = d
        _assert_blit_equals_full(dash, d)
    assert any(piece is None for _, _, cache in dash.figure._cells for piece in cache.values())


def test_a_linked_slider_move_updates_once():
    # chapter 6: moving p below s clamps s (k <= s <= p); that is one compute and one redraw
    from privpca_edu.widgets.ldp import ldp_dashboard

    dash = ldp_dashboard()
    dash.controls["n_features"].value = 40
    dash.controls["support_size"].value = 35
    updates, computes = len(dash.timings), dash.n_computes
    dash.controls["n_features"].value = 25
    assert dash.controls["support_size"].value == 25 and dash.result["support_size"] == 25
    assert (len(dash.timings), dash.n_computes) == (updates + 1, computes + 1)
    dash.controls["n_components"].value = 5
    dash.controls["n_features"].value = 6  # k.max = 5 and s in [5, 6]: clamped, still one update
    assert dash.controls["support_size"].value == 6 and dash.last_error is None
    assert len(dash.timings) == updates + 3


def test_ldp_dashboard_defaults_to_a_safe_delta_and_names_wang_and_xus_setting():
    # Chapter 6: δ = 10⁻⁵ by default; Wang & Xu's δ = 10⁻⁴ is a named preset (one update), and
    # whenever δ > 1/n a warning stands in plain view directly under the figure
    from privpca_edu.widgets.dashboard import CUSTOM_PRESET
    from privpca_edu.widgets.ldp import LDP_PRESETS, ldp_dashboard

    dash = ldp_dashboard()
    assert dash.controls["delta"].value == 1e-5 and dash.result["delta"] == 1e-5
    assert "delta" not in dash.fixed and dash.preset.value == LDP_PRESETS[0][0] == "book default: δ = 10⁻⁵ (still > 1/n here)"
    children = list(dash.children)
    assert children.index(dash.advisory_html) == children.index(dash.image) + 1
    # n = 10⁶: even 10⁻⁵ is above 1/n (nδ = 10), and the box says so, without naming the paper
    text = dash.advisory_html.value
    assert dash.advisory_html.layout.display is None and "δ = 10⁻⁵ > 1/n = 10⁻⁶" in text
    assert "nδ = 10 of the 1,000,000 users" in text and "Wang & Xu" not in text
    paper = LDP_PRESETS[1][0]
    assert paper == "Wang & Xu's setting: δ = 10⁻⁴ (weak: δ > 1/n)"
    updates, computes = len(dash.timings), dash.n_computes
    dash.preset.value = paper
    assert dash.controls["delta"].value == 1e-4 and dash.result["delta"] == 1e-4 and dash.last_error is None
    assert (len(dash.timings), dash.n_computes) == (updates + 1, computes + 1)
    text = dash.advisory_html.value
    assert dash.advisory_html.layout.display is None
    assert "Wang & Xu's setting" in text and "δ = 10⁻⁴ > 1/n = 10⁻⁶" in text and "nδ = 100 of" in text
    # δ ≤ 1/n: no warning; a δ no preset names is "custom"
    dash.controls["n_samples"].value = 10_000
    assert dash.preset.value == paper and dash.advisory_html.value == ""
    assert dash.advisory_html.layout.display == "none"
    dash.controls["n_samples"].value = 1_000_000
    dash.controls["delta"].value = 1e-7
    assert dash.preset.value == CUSTOM_PRESET and dash.advisory_html.layout.display == "none"
    dash.preset.value = LDP_PRESETS[0][0]
    assert dash.params()["delta"] == 1e-5 and dash.advisory_html.layout.display is None
    # the link still holds with the new control: a clamping d move is one update
    updates = len(dash.timings)
    dash.controls["support_size"].value = 20
    dash.controls["n_features"].value = 10
    assert dash.controls["support_size"].value == 10 and dash.result["support_size"] == 10
    assert len(dash.timings) == updates + 2
    assert ldp_dashboard(preset="paper").params()["delta"] == 1e-4
    with pytest.raises(ValueError, match="preset"):
        ldp_dashboard(preset="nope")


def test_an_epsilon_move_rasterises_only_what_changed():
    # titles are rows of short pieces (TitleBlock) and every line of text is cached as a stamp:
    # an ε move draws the changed numbers anew, not whole titles, ticks or legends
    from privpca_edu.widgets.ldp import ldp_dashboard

    for make, most in ((widgets.attack_dashboard, 7), (ldp_dashboard, 12)):
        dash = make()
        stamps = dash.figure._stamps
        dash.controls["epsilon"].value = 2.0
        for value in (0.5, 3.0):
            misses, glyphs = stamps.misses, sum(len(key[0]) for key in stamps._cache)
            dash.controls["epsilon"].value = value
            assert stamps.misses - misses <= most, (make.__name__, value, stamps.misses - misses)
            new = sum(len(key[0]) for key in stamps._cache) - glyphs  # characters of the new lines
            assert new <= 12 * most, (make.__name__, value, new)
    # the pieces of a title row follow each other without gap or overlap
    renderer = dash.figure.fig.canvas.get_renderer()
    for row in dash.figure.t_n.pieces:
        boxes = [piece.get_window_extent(renderer) for piece in row]
        assert all(abs(a.x1 - b.x0) < 0.5 for a, b in zip(boxes, boxes[1:])), [(b.x0, b.x1) for b in boxes]


def test_png_encoder_round_trips():
    live = plotting.PlanesFigure(experiments.plane_distances(20.0, 10.0))
    png = live.png()
    assert png.startswith(PNG_MAGIC)
    assert np.array_equal(_decode(png), np.asarray(live.fig.canvas.buffer_rgba())[..., :3])


def test_check_answer(capsys):
    # "2.1": DPS-PCA's per-step sigma at eps = 1, delta = 1e-6, T = 10 (rtol 1e-3), about 116.0
    sigma = 20 * math.sqrt(2 * math.log(2e7))
    assert widgets.check_answer("2.1", None) is None
    assert widgets.check_answer("2.1", sigma * (1 + 5e-4)) is True
    assert widgets.check_answer("2.1", 2 * sigma, hint="think") is False
    assert widgets.check_answer("2.1", "abc") is False
    out = capsys.readouterr().out
    assert "not answered yet" in out and "correct" in out and "Hint: think" in out
    with pytest.raises(TypeError, match="exercise is an id"):
        widgets.check_answer(1.0, 1.0)
    with pytest.raises(ValueError, match="no answer key"):
        widgets.check_answer("99.9", 1.0)


def test_show_displays_one_output_with_a_static_fallback(monkeypatch):
    shown = []
    import base64

    import IPython.display

    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    dash = widgets.angles_dashboard()
    widgets.show(dash)
    # the widget (with its PNG), then the same PNG and its alt text for pages read without
    # JavaScript, inside <noscript>: never a second visible copy
    assert shown[0] is dash and len(shown) == 2
    fallback = shown[1].data
    assert fallback.startswith("<noscript><img ") and fallback.endswith("</noscript>")
    assert f'alt="{dash.figure.alt_text()}"' in fallback
    assert base64.b64encode(dash.png()).decode() in fallback
    bundle = dash._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]) == dash.png()
    widgets.show(dash, static=False)
    assert "image/png" not in dash._repr_mimebundle_()


@pytest.mark.slow
def test_saved_widget_state_holds_the_png(tmp_path, monkeypatch):
    """Executed headless (as the book build does), the notebook's saved widget state contains
    the Image widget's PNG bytes, so the static HTML page shows the figure without a kernel."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    monkeypatch.setenv("PYTHONPATH", root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "%matplotlib inline\nfrom privpca_edu import widgets\nwidgets.show(widgets.angles_dashboard())")]
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    images = [m for m in state.values() if m["model_name"] == "ImageModel"]
    assert len(images) == 1 and images[0]["buffers"][0]["path"] == ["value"]
    import base64

    assert base64.b64decode(images[0]["buffers"][0]["data"]).startswith(PNG_MAGIC)
    outputs = nb.cells[0].outputs
    assert len(outputs) == 2
    assert "application/vnd.jupyter.widget-view+json" in outputs[0]["data"]
    assert "image/png" in outputs[0]["data"]  # the static fallback, in the same output
    assert outputs[1]["data"]["text/html"].startswith("<noscript><img ")  # for pages read without JavaScript
    assert not any(o.get("name") == "stderr" for o in outputs)


def test_dashboards_with_an_epsilon_control_say_the_noise_is_one_draw_rescaled():
    import ipywidgets as W

    from matplotlib.figure import Figure

    from privpca_edu.widgets.dashboard import NOISE_REUSE_NOTE, Dashboard

    class _Fig:  # the smallest duck-typed live figure: the note does not depend on the drawing
        def __init__(self):
            self.fig = Figure(figsize=(3, 2), dpi=100)

        def draw(self, result, notes=()):
            pass

        def show_error(self, message):
            pass

        def png(self):
            return b""

    def twin(epsilon=1.0, n=1):
        return {}

    def notes(d):
        return [c for c in d.children if isinstance(c, W.HTML) and NOISE_REUSE_NOTE in c.value]

    with_eps = Dashboard(twin, _Fig(), {"epsilon": W.FloatSlider(value=1.0)})
    without = Dashboard(twin, _Fig(), {"n": W.IntSlider(value=1)})
    assert len(notes(with_eps)) == 1 and not notes(without)
    assert "fresh noise" in NOISE_REUSE_NOTE


def test_figure_image_syncs_an_empty_description():
    # without it the widgets' front end fails to render an Image that has a tooltip (it reads
    # description.length), and the book's dashboards vanish
    dash = widgets.angles_dashboard()
    state = dash.image.get_state()
    assert state["description"] == "" and len(state["tooltip"]) > 60


def test_live_code_starts_from_the_saved_figure_and_computes_when_idle(tmp_path, monkeypatch):
    """The live build saves a dashboard's starting figure; a Live Code kernel constructing the
    same dashboard shows it at once and computes only when the kernel is idle (here: when the
    queued callback runs), and a figure at other settings is never taken from the folder."""
    import IPython.display

    from privpca_edu.widgets import dashboard as D

    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: None)
    monkeypatch.setenv(D.SAVE_START_ENV, str(tmp_path))
    built = widgets.sigma_dashboard(epsilon=1.0)
    widgets.show(built)                                   # the build's notebook run saves it
    saved = D.start_frame_path(built, folder=str(tmp_path))
    assert saved.read_bytes() == built.png()
    monkeypatch.delenv(D.SAVE_START_ENV)

    queued = []
    monkeypatch.setenv(D.START_ENV, str(tmp_path))
    monkeypatch.setattr(D, "_when_idle", lambda callback: queued.append(callback) or True)
    live = widgets.sigma_dashboard(epsilon=1.0)
    assert live.n_computes == 0 and live.result is None and len(queued) == 1
    assert live.png() == built.png()                      # shown at once, as the page showed it
    queued.pop()()                                        # the kernel is idle: computed for real
    assert live.n_computes == 1 and live.result is not None and live.png() == built.png()
    live.controls["epsilon"].value = 2.0                  # a slider: a new figure, computed
    assert live.n_computes == 2 and live.png() != built.png()

    moved = widgets.sigma_dashboard(epsilon=1.0)          # a slider moved before the kernel was idle
    moved.controls["epsilon"].value = 2.0
    queued.pop()()
    assert moved.n_computes == 1 and moved.result["epsilon"] == pytest.approx(2.0)

    other = widgets.sigma_dashboard(epsilon=3.0)          # other settings: nothing saved for them
    assert other.n_computes == 1 and not queued
    assert D.start_frame_path(other, folder=str(tmp_path)) != saved

    monkeypatch.setattr(D, "_when_idle", lambda callback: False)   # no kernel event loop
    assert widgets.sigma_dashboard(epsilon=1.0).n_computes == 1


def test_when_idle_needs_a_kernel():
    from privpca_edu.widgets import dashboard as D

    assert D._when_idle(lambda: None) is False            # (pytest: no IPython kernel)


def test_live_code_reads_the_simulated_europe_data_the_build_saved(tmp_path, monkeypatch):
    """The Europe dashboard's slider-independent part (the simulated data, its non-private map):
    saved by the live build, read back by a Live Code kernel instead of simulated again."""
    from privpca_edu.experiments import europe as ex

    ex._nonprivate.cache_clear()
    monkeypatch.setenv("PRIVPCA_LIVE_START_SAVE", str(tmp_path))
    built = ex.nonprivate_map("synthetic")
    monkeypatch.delenv("PRIVPCA_LIVE_START_SAVE")
    assert len(list(tmp_path.glob("europe-nonprivate-*.pickle"))) == 1

    ex._nonprivate.cache_clear()
    monkeypatch.setenv("PRIVPCA_LIVE_START", str(tmp_path))
    monkeypatch.setattr(ex, "_nonprivate_parts", lambda *args: pytest.fail("simulated again"))
    read = ex.nonprivate_map("synthetic")
    assert read is not built and np.array_equal(read["nonprivate"], built["nonprivate"])
    assert np.array_equal(read["data"].X, built["data"].X) and not read["nonprivate"].flags.writeable
    result = ex.europe_map("Kendall (spherical)", epsilon=1.0)
    assert result["private"].shape == built["nonprivate"].shape
    ex._nonprivate.cache_clear()
