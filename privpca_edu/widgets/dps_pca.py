"""The DPS-PCA chapter's dashboard (twin: :func:`privpca_edu.experiments.dps_pca.dps_pca_explorer`)."""

from __future__ import annotations

import math

from ..experiments.dps_pca import PAPER_DELTA, dps_pca_explorer
from ..plotting.dps_pca import DPSExplorerFigure
from ..privacy import ITERATIVE_CALIBRATIONS
from . import controls as C
from .dashboard import Dashboard

__all__ = ["dps_pca_dashboard", "DELTA_PRESETS"]

#: The named δ settings of the dashboard's "setting" menu: label → δ (None: the slider's own value).
DELTA_PRESETS = {
    "safe default: δ = 10⁻⁵": 1e-5,
    f"paper's setting: δ = {PAPER_DELTA:g}, not a meaningful guarantee": PAPER_DELTA,
    "custom (the sliders)": None,
}


def _preset_of(delta):
    """The menu entry that names ``delta`` (the custom entry when no preset does).  A log slider
    stores 0.3 as 10^-0.52 = 0.302 once touched: within 1.5 % counts as the preset's value."""
    return next((label for label, value in DELTA_PRESETS.items()
                 if value is not None and math.isclose(value, delta, rel_tol=0.015)), "custom (the sliders)")


def _explorer(setting, **params):
    """The twin, called with the controls' values; ``setting`` only moves the δ slider (below)."""
    return dps_pca_explorer(**params)


def dps_pca_dashboard(epsilon=2.0, delta=1e-5, sparsity=20, n_iter=10, n_providers=1, threshold_init=False,
                      calibration="paper"):
    """Error trajectories of DPS-PCA with Theorem 4.3's terms, and the "privacy for free" map.

    Controls: a setting menu (the safe default δ = 10⁻⁵, or the paper's δ = 0.3 of its Fig. 3(a),
    which the figure then marks as not a meaningful guarantee), ε, δ (log sliders), ŝ, T, number
    of providers N, the start (dense or the literal thresholded one: the initialisation pitfall)
    and the σ calibration.  Choosing a setting moves the δ slider; moving the slider elsewhere
    selects "custom".
    """
    setting = C.method_picker(list(DELTA_PRESETS), _preset_of(delta), description="setting", width="auto")
    delta_control = C.delta_slider(delta, min_exp=-6, max_exp=-0.1, step=0.05)

    # registered before the dashboard's own observers, so the δ slider has moved when it redraws
    def _apply_preset(change):
        value = DELTA_PRESETS[change["new"]]
        if value is not None:
            delta_control.value = value

    def _name_preset(change):
        setting.value = _preset_of(change["new"])

    setting.observe(_apply_preset, names="value")
    delta_control.observe(_name_preset, names="value")
    controls = {
        "setting": setting,
        "epsilon": C.epsilon_slider(epsilon, min_exp=-1, max_exp=2, step=0.05),
        "delta": delta_control,
        "sparsity": C.sparsity_slider(sparsity, min=5, max=200),
        "n_iter": C.n_steps_slider(n_iter, min=1, max=30, description="T (iterations)"),
        "n_providers": C.n_samples_slider(n_providers, options=(1, 2, 5, 10, 20, 50, 100, 1000),
                                          description="N (providers)"),
        "threshold_init": C.method_picker([("dense random start", False), ("thresholded random start", True)],
                                          bool(threshold_init), description="start", kind="toggle"),
        "calibration": C.method_picker(list(ITERATIVE_CALIBRATIONS), calibration, description="σ calibration"),
    }
    return Dashboard(_explorer, DPSExplorerFigure(), controls)
