"""Chapter 6 (*Local privacy: when nobody is trusted*): the local-DP dashboard.

Twin: :func:`privpca_edu.experiments.ldp.ldp_dashboard_data`; figure:
:class:`privpca_edu.plotting.ldp.LocalPrivacyFigure`.  Data generation is cached in the twin
(second moments drawn once per (n, p, k, s)); Algorithm 1 uses the fast aggregated path.
"""

from __future__ import annotations

import math

from ..plotting import ldp as plotting_ldp
from ..experiments import ldp as ldp_experiments
from . import controls as C
from .dashboard import Dashboard, advisory_box, preset_values

__all__ = ["ldp_dashboard", "DELTA_OPTIONS", "LDP_PRESETS", "WANG_XU_DELTA", "weak_delta_warning"]

#: The δ menu of the dashboard: (label, value).  A menu, not a slider: every δ value needs its own
#: curves (the twin caches them per δ), and these are the values worth comparing.
DELTA_OPTIONS = (("10⁻⁸", 1e-8), ("10⁻⁷", 1e-7), ("10⁻⁶", 1e-6), ("10⁻⁵", 1e-5), ("10⁻⁴", 1e-4), ("10⁻³", 1e-3))

#: Wang & Xu's δ (their experiments, Section 6): far above 1/n for their n.
WANG_XU_DELTA = 1e-4

#: Named settings of the dashboard's "setting" menu: (label, control values).
LDP_PRESETS = (
    ("book default: δ = 10⁻⁵ (still > 1/n here)", {"delta": 1e-5}),
    ("Wang & Xu's setting: δ = 10⁻⁴ (weak: δ > 1/n)", {"delta": WANG_XU_DELTA}),
)


def _power_of_ten(x):
    """10⁻⁵ for 1e-5 (a power of ten), else the number as ``:.2g``."""
    e = round(math.log10(x))
    if math.isclose(x, 10.0 ** e, rel_tol=1e-9):
        return "10" + str(e).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))
    return f"{x:.2g}"


def weak_delta_warning(params):
    """HTML warning shown in plain view under the figure when δ > 1/n ('' otherwise).

    Why: a report that is the user's record in the clear with probability δ (and noise
    otherwise) is (ε, δ)-locally private for every ε, and releases about nδ of the n records.
    """
    delta, n = float(params["delta"]), int(params["n_samples"])
    if not delta * n > 1:
        return ""
    lead = ("This is Wang & Xu's setting (δ = 10⁻⁴), shown to reproduce their experiments. "
            if math.isclose(delta, WANG_XU_DELTA, rel_tol=1e-9) else "")
    exposed = delta * n
    return advisory_box(
        f"<b>Warning: δ = {_power_of_ten(delta)} > 1/n = {_power_of_ten(1 / n)}, a weak guarantee.</b> {lead}"
        f"A protocol in which each user sends their record in the clear with probability δ is (ε, δ)-locally "
        f"private with this δ for every ε, and would expose about nδ = {exposed:,.0f} of the {n:,} users. "
        "A guarantee worth having needs δ well below 1/n.")


def ldp_dashboard(epsilon=4.0, n_samples=1_000_000, n_features=20, support_size=4, n_components=2, *, gap=10.0,
                  delta=1e-5, calibration="replacement", random_state=0, preset=None):
    """Local vs central PCA (the local-privacy chapter's dashboard).

    Local vs central PCA: sliders ε, n, d, s*, k and a δ menu (:data:`DELTA_OPTIONS`), under a
    "setting" menu (:data:`LDP_PRESETS`).  The gap, calibration and seed are fixed.

    δ starts at the book's default 10⁻⁵ (above 1/n at n = 10⁶: the box under the figure says so); the preset "Wang & Xu's setting" sets their δ = 10⁻⁴.
    Whenever δ > 1/n a warning under the figure says, in plain view, why that is a weak
    guarantee (:func:`weak_delta_warning`).  ``preset`` (a label of :data:`LDP_PRESETS`, or
    ``"paper"``) starts the dashboard at that setting instead of ``delta``.

    Twin: :func:`privpca_edu.experiments.ldp.ldp_dashboard_data` (same keyword arguments; its own
    default δ is the paper's 10⁻⁴, which the chapter's reproductions use).

    Parameters
    ----------
    epsilon : float, default=4.0
        Starting value of the ε control.
    n_samples : int, default=1000000
        Starting value of the n control.
    n_features : int, default=20
        Starting value of the d control.
    support_size : int, default=4
        Starting value of the s* control.
    n_components : int, default=2
        Starting value of the k control.
    gap : float, default=10.0
        The eigengap of the model. Fixed for the dashboard (passed to the twin unchanged).
    delta : float, default=1e-5
        Starting value of the δ menu control.
    calibration : str, default="replacement"
        The σ calibration. Fixed for the dashboard (passed to the twin unchanged).
    random_state : int, default=0
        Seed. Fixed for the dashboard (passed to the twin unchanged).
    preset : str or None, default=None
        A label of :data:`LDP_PRESETS` (or ``"paper"``) to start at instead of ``delta``.

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    if preset is not None:
        delta = preset_values(LDP_PRESETS, preset)["delta"]
    options = list(DELTA_OPTIONS)
    match = [v for _, v in options if math.isclose(v, delta, rel_tol=1e-9)]
    if not match:
        options = sorted(options + [(f"{delta:.2g}", float(delta))], key=lambda o: o[1])
        match = [float(delta)]
    controls = {
        "epsilon": C.epsilon_slider(epsilon, min_exp=-1, max_exp=1.3, step=0.05, description="ε (per user)"),
        "delta": C.method_picker(options, match[0], description="δ (per user)", width="200px"),
        "n_samples": C.n_samples_slider(n_samples, options=ldp_experiments.DASHBOARD_N, description="n (users)"),
        "n_features": C.n_features_slider(n_features, min=6, max=60),
        "support_size": C.sparsity_slider(support_size, min=2, max=60, description="s* (true support rows)"),
        "n_components": C.n_components_slider(n_components, min=1, max=5),
    }
    caption = ("Each user's report (b) is mostly noise; the server's average of n reports has noise σ₁/√n per "
               "entry. Notice in (c) how many more users the local curves need than the central one, and in "
               "(d) how the measured errors compare with Theorems 1–4, drawn with their unnamed constants set "
               "to 1: at the defaults the errors lie far above every marker, which shows rates, not values.")
    return Dashboard(ldp_experiments.ldp_dashboard_data, plotting_ldp.LocalPrivacyFigure(), controls,
                     fixed={"gap": gap, "calibration": calibration, "random_state": random_state},
                     caption=caption, link=_link_sizes, presets=LDP_PRESETS, advisory=weak_delta_warning)


def _link_sizes(controls):
    """Keep k ≤ s ≤ p on the sliders themselves (ipywidgets clamps the value to the new range).

    The dashboard's ``link``: it runs before the first update and before every update, and
    the values it clamps cause no update of their own, so the figure never sees an impossible
    setting from a slider and a p move that clamps s redraws once.
    """
    p, s, k = controls["n_features"], controls["support_size"], controls["n_components"]
    k.max = min(5, p.value - 1)
    s.max = p.value
    s.min = k.value
