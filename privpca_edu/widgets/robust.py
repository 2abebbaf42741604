"""The *Heavy tails and outliers* chapter's dashboards.

Twins: :func:`privpca_edu.experiments.robust.heavy_tails_explorer` and
:func:`privpca_edu.experiments.robust.breakdown_demo`; figures:
:class:`privpca_edu.plotting.robust.HeavyTailsFigure` and :class:`~privpca_edu.plotting.robust.BreakdownFigure`.
Data, the noiseless statistics and the population eigenvalues behind the bound are cached in the
twins (keyed on what they depend on), so an ε or δ move only adds noise and runs NSGGD again.
"""

from __future__ import annotations

import math

import ipywidgets as W

from ..experiments import robust as robust_experiments
from ..plotting.robust import BreakdownFigure, HeavyTailsFigure
from . import controls as C
from .dashboard import Dashboard

__all__ = ["heavy_tails_dashboard", "breakdown_dashboard", "DF_LABELS"]

#: (label, ν) pairs of the degrees-of-freedom slider.
DF_LABELS = tuple((("∞" if math.isinf(v) else f"{v:g}"), v) for v in robust_experiments.DF_OPTIONS)


def heavy_tails_dashboard(contamination=0.0, df=math.inf, epsilon=1.0, delta=1e-5, *, n_samples=1000, n_features=10,
                          n_reps=3, baselines="paper", calibration="classic", random_state=0):
    """All five methods' errors side by side with Theorem 3.4: sliders contamination, ν, ε, δ.

    Twin: :func:`privpca_edu.experiments.robust.heavy_tails_explorer` (same keyword arguments).

    Parameters
    ----------
    contamination : float, default=0.0
        Starting value of the outlier fraction η control.
    df : float, default=numpy.inf
        Starting value of the t degrees of freedom ν control.
    epsilon : float, default=1.0
        Starting value of the ε control.
    delta : float, default=1e-5
        Starting value of the δ control.
    n_samples : int, default=1000
        Number of rows n. Fixed for the dashboard (passed to the twin unchanged).
    n_features : int, default=10
        Dimension d. Fixed for the dashboard (passed to the twin unchanged).
    n_reps : int, default=3
        Data sets per method. Fixed for the dashboard (passed to the twin unchanged).
    baselines : str, default="paper"
        Which baselines are compared. Fixed for the dashboard (passed to the twin unchanged).
    calibration : str, default="classic"
        The σ calibration. Fixed for the dashboard (passed to the twin unchanged).
    random_state : int, default=0
        Seed. Fixed for the dashboard (passed to the twin unchanged).

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    robust_experiments.precompute_explorer_bounds(n_features)  # the bound's Monte-Carlo cache, once
    controls = {
        "contamination": C.contamination_slider(contamination, max=0.3, description="outliers (fraction η)"),
        "df": W.SelectionSlider(options=DF_LABELS, value=df, description="t degrees of freedom ν",
                                continuous_update=False, style={"description_width": "initial"},
                                layout=W.Layout(width="360px")),
        "epsilon": C.epsilon_slider(epsilon, min_exp=-1, max_exp=1, step=0.05),
        "delta": C.delta_slider(delta, min_exp=-10, max_exp=-2, step=0.1),
    }
    caption = ("Each bar is a method's mean error ‖sin Θ‖₂ over a few data sets (dots: each one). Black segments: "
               "the Theorem 3.4 bound for the Kendall methods, evaluated at C = 1 (the paper does not give C, so only "
               "its size relative to the bars is meaningful). Try ν = 1 (Cauchy: no mean, no variance) and 5 % "
               "outliers.")
    return Dashboard(robust_experiments.heavy_tails_explorer, HeavyTailsFigure(), controls,
                     fixed={"n_samples": n_samples, "n_features": n_features, "n_reps": n_reps, "baselines": baselines,
                            "calibration": calibration, "random_state": random_state},
                     caption=caption)


def breakdown_dashboard(fraction=0.1, distance=30.0, epsilon=math.inf, *, n_samples=200, spike=9.0, random_state=0):
    """Drag outliers in: covariance PCA (AG's statistic) turns at once, Kendall's τ holds.

    Twin: :func:`privpca_edu.experiments.robust.breakdown_demo` (same keyword arguments).

    Parameters
    ----------
    fraction : float, default=0.1
        Starting value of the outlier fraction control.
    distance : float, default=30.0
        Starting value of the outlier distance control.
    epsilon : float, default=numpy.inf
        Starting value of the privacy (no noise, ε = 5 or ε = 1) control.
    n_samples : int, default=200
        Number of rows n. Fixed for the dashboard (passed to the twin unchanged).
    spike : float, default=9.0
        The spike of the model. Fixed for the dashboard (passed to the twin unchanged).
    random_state : int, default=0
        Seed. Fixed for the dashboard (passed to the twin unchanged).

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    controls = {
        "fraction": C.contamination_slider(fraction, max=0.5, description="outliers (fraction)"),
        "distance": W.FloatLogSlider(value=distance, base=10, min=0, max=3, step=0.05, description="outlier distance",
                                     readout_format=".3g", continuous_update=False,
                                     style={"description_width": "initial"}, layout=W.Layout(width="360px")),
        "epsilon": C.method_picker([("no noise", math.inf), ("ε = 5", 5.0), ("ε = 1", 1.0)], epsilon,
                                   description="privacy", kind="toggle"),
    }
    caption = ("The green dotted line marks how many outliers Theorem 3.3 (with the book's constant) guarantees "
               "Kendall's τ survives; the black dotted curve is its bound on how far the first component can turn. Covariance PCA has breakdown point 1/n: "
               "a single far-away record can turn it.")
    return Dashboard(robust_experiments.breakdown_demo, BreakdownFigure(), controls,
                     fixed={"n_samples": n_samples, "spike": spike, "random_state": random_state}, caption=caption)
