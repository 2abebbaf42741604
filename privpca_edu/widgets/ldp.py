"""Chapter 6 (*Local privacy: when nobody is trusted*): the local-DP dashboard.

Twin: :func:`privpca_edu.experiments.ldp.ldp_dashboard_data`; figure:
:class:`privpca_edu.plotting.ldp.LocalPrivacyFigure`.  Data generation is cached in the twin
(second moments drawn once per (n, p, k, s)); Algorithm 1 uses the fast aggregated path.
"""

from __future__ import annotations

from ..plotting import ldp as plotting_ldp
from ..experiments import ldp as ldp_experiments
from . import controls as C
from .dashboard import Dashboard

__all__ = ["ldp_dashboard"]


def ldp_dashboard(epsilon=4.0, n_samples=1_000_000, n_features=20, support_size=4, n_components=2, *, gap=10.0,
                  delta=1e-4, calibration="replacement", random_state=0):
    """Local vs central PCA: sliders ε, n, d, s*, k.  δ, the gap, calibration and seed are fixed.

    Twin: :func:`privpca_edu.experiments.ldp.ldp_dashboard_data` (same keyword arguments).
    """
    controls = {
        "epsilon": C.epsilon_slider(epsilon, min_exp=-1, max_exp=1.3, step=0.05, description="ε (per user)"),
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
                     fixed={"gap": gap, "delta": delta, "calibration": calibration, "random_state": random_state},
                     caption=caption, link=_link_sizes)


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
