"""The DPS-PCA chapter's dashboard (twin: :func:`privpca_edu.experiments.dps_pca.dps_pca_explorer`)."""

from __future__ import annotations

from ..experiments.dps_pca import PAPER_DELTA, dps_pca_explorer
from ..plotting.dps_pca import DPSExplorerFigure
from ..privacy import ITERATIVE_CALIBRATIONS
from . import controls as C
from .dashboard import CUSTOM_PRESET, Dashboard

__all__ = ["dps_pca_dashboard", "DELTA_PRESETS"]

#: The named δ settings of the dashboard's "setting" menu: label → δ (None: the slider's own value).
DELTA_PRESETS = {
    "safe default: δ = 10⁻⁵": 1e-5,
    f"paper's setting: δ = {PAPER_DELTA:g}, not a meaningful guarantee": PAPER_DELTA,
    CUSTOM_PRESET: None,
}


def dps_pca_dashboard(epsilon=2.0, delta=1e-5, sparsity=20, n_iter=10, n_providers=1, threshold_init=False,
                      calibration="paper"):
    """Error trajectories of DPS-PCA with Theorem 4.3's terms, and the "privacy for free" map.

    Controls: a setting menu (the safe default δ = 10⁻⁵, or the paper's δ = 0.3 of its Fig. 3(a),
    which the figure then marks as not a meaningful guarantee), ε, δ (log sliders), ŝ, T, number
    of providers N, the start (dense or the literal thresholded one: the initialisation pitfall)
    and the σ calibration.  Choosing a setting moves the δ slider (one update); moving the slider
    elsewhere selects "custom" (the dashboard's own preset menu).

    Parameters
    ----------
    epsilon : float, default=2.0
        Starting value of the ε control.
    delta : float, default=1e-5
        Starting value of the δ control.
    sparsity : int, default=20
        Starting value of the ŝ control.
    n_iter : int, default=10
        Starting value of the T control.
    n_providers : int, default=1
        Starting value of the number of providers N control.
    threshold_init : bool, default=False
        Starting value of the start (thresholded or dense) control.
    calibration : str, default="paper"
        Starting value of the σ calibration control.

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    controls = {
        "epsilon": C.epsilon_slider(epsilon, min_exp=-1, max_exp=2, step=0.05),
        "delta": C.delta_slider(delta, min_exp=-6, max_exp=-0.1, step=0.05),
        "sparsity": C.sparsity_slider(sparsity, min=5, max=200),
        "n_iter": C.n_steps_slider(n_iter, min=1, max=30, description="T (iterations)"),
        "n_providers": C.n_samples_slider(n_providers, options=(1, 2, 5, 10, 20, 50, 100, 1000),
                                          description="N (providers)"),
        "threshold_init": C.method_picker([("dense random start", False), ("thresholded random start", True)],
                                          bool(threshold_init), description="start", kind="toggle"),
        "calibration": C.method_picker(list(ITERATIVE_CALIBRATIONS), calibration, description="σ calibration"),
    }
    presets = [(label, {"delta": value}) for label, value in DELTA_PRESETS.items() if value is not None]
    return Dashboard(dps_pca_explorer, DPSExplorerFigure(), controls, presets=presets)
