"""Chapter 4 dashboard: Analyze Gauss, MOD-SuLQ and PPCA on the same data, live.

Wiring only (controls → twin → figure), on the shared :class:`~privpca_edu.widgets.dashboard.Dashboard`:
twin :func:`privpca_edu.experiments.noisy_covariance.noisy_covariance_errors`, figure
:class:`privpca_edu.plotting.noisy_covariance.NoisyCovarianceFigure`.
"""

from __future__ import annotations

from ..experiments.noisy_covariance import MAX_FEATURES, noisy_covariance_errors
from ..plotting.noisy_covariance import NoisyCovarianceFigure
from . import controls as C
from .dashboard import Dashboard

__all__ = ["noisy_covariance_dashboard", "NOISY_COVARIANCE_N_OPTIONS"]

#: Sample sizes of the chapter's n slider (a cold control change stays under ~100 ms up to 5000).
NOISY_COVARIANCE_N_OPTIONS = (200, 500, 1000, 2000, 5000)


def noisy_covariance_dashboard(epsilon=1.0, delta=1e-5, n_features=30, n_samples=2000, n_components=1, seed=0,
                               *, n_seeds=5, calibration="analytic"):
    """Chapter 4: subspace error of Analyze Gauss, MOD-SuLQ and PPCA against ε.

    With the Davis–Kahan bounds and the random-guess level.
    Twin: :func:`privpca_edu.experiments.noisy_covariance.noisy_covariance_errors`.

    Controls: ε, δ (log sliders), d, n, k, data seed.  ``n_seeds`` (runs per method) and Analyze
    Gauss's ``calibration`` are fixed arguments.  PPCA uses the exact sampler for k = 1 and
    two Gibbs sweeps per run for k > 1 (the figure says so).

    Parameters
    ----------
    epsilon : float, default=1.0
        Starting value of the ε control.
    delta : float, default=1e-5
        Starting value of the δ control.
    n_features : int, default=30
        Starting value of the d control.
    n_samples : int, default=2000
        Starting value of the n control.
    n_components : int, default=1
        Starting value of the k control.
    seed : int, default=0
        Starting value of the data seed control.
    n_seeds : int, default=5
        Runs per method. Fixed for the dashboard (passed to the twin unchanged).
    calibration : {"analytic", "classic"}, default="analytic"
        Analyze Gauss's calibration. Fixed for the dashboard (passed to the twin unchanged).

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    controls = {
        "epsilon": C.epsilon_slider(epsilon, min_exp=-2, max_exp=2, step=0.05),
        "delta": C.delta_slider(delta, min_exp=-10, max_exp=-1, step=0.1),
        "n_features": C.n_features_slider(n_features, min=2, max=min(60, MAX_FEATURES)),
        "n_samples": C.n_samples_slider(n_samples, options=NOISY_COVARIANCE_N_OPTIONS),
        "n_components": C.n_components_slider(n_components, min=1, max=3),
        "seed": C.seed_picker(seed, description="data seed"),
    }
    return Dashboard(noisy_covariance_errors, NoisyCovarianceFigure(), controls,
                     fixed={"n_seeds": n_seeds, "calibration": calibration})
