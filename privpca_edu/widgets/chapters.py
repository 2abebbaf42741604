"""One function per interactive figure of the book; each returns an :class:`ipywidgets.Widget`.

Each is three lines of wiring: controls (from :mod:`.controls`), the twin (from
:mod:`privpca_edu.experiments`), the drawing (from :mod:`privpca_edu.plotting`).
"""

from __future__ import annotations

import math

from .. import experiments, plotting
from . import controls as C
from .dashboard import Dashboard, advisory_box, preset_values, same_setting

__all__ = ["attack_dashboard", "sigma_dashboard", "planes_dashboard", "angles_dashboard", "SENSITIVITY_OPTIONS",
           "SIGMA_PRESETS", "DPS_PCA_PAPER_SETTING", "large_delta_warning"]

#: Δ choices of :func:`sigma_dashboard`: (label, value).
SENSITIVITY_OPTIONS = (
    ("Δ = 1 (XᵀX, add/remove)", 1.0),
    ("Δ = √2 (XᵀX, replace-one)", math.sqrt(2.0)),
    ("Δ = 2 (DPS-PCA's Σ̂Q, replace-one)", 2.0),
)


#: The DPS-PCA paper's privacy setting (Ge et al. 2018, Section 5: δ = 0.3 and T = 10 noisy power
#: iterations; Δ = 2 is the sensitivity of its Σ̂Q for rows of norm ≤ 1), the setting of
#: :data:`privpca_edu.experiments.DPS_PCA_SIGMA_TABLE`.
DPS_PCA_PAPER_SETTING = {"delta": 0.3, "n_steps": 10, "sensitivity": 2.0}

#: Named settings of :func:`sigma_dashboard`'s "setting" dropdown: (label, control values).
SIGMA_PRESETS = (
    ("safe default: δ = 10⁻⁵", {"delta": 1e-5}),
    ("DPS-PCA paper's setting: δ = 0.3, T = 10, Δ = 2", DPS_PCA_PAPER_SETTING),
)

#: From this δ on, the chapter-2 dashboard shows :func:`large_delta_warning` under its figure.
LARGE_DELTA = 0.01


def large_delta_warning(params):
    """HTML warning shown in plain view under the σ figure when δ ≥ 0.01 ('' otherwise).

    Why δ that large is no guarantee: the mechanism that publishes every record, in the clear,
    independently with probability δ is (0, δ)-DP (neighbours differ in one record, which
    appears with probability δ), hence (ε, δ)-DP for every ε.
    """
    delta = float(params["delta"])
    if not delta >= LARGE_DELTA:
        return ""
    paper = all(same_setting(float(params[k]), v) for k, v in DPS_PCA_PAPER_SETTING.items())
    percent = f"{100 * delta:.2g}"
    lead = ("This is the DPS-PCA paper's setting (δ = 0.3, T = 10, Δ = 2), shown to compare with its table. "
            if paper else "")
    return advisory_box(f"<b>Warning: δ = {delta:.2g} is not a privacy guarantee worth having.</b> {lead}"
                        f"A mechanism that publishes each record in the clear with probability {delta:.2g} "
                        f"(about {percent} % of the data) satisfies (ε, δ)-DP with this δ for every ε. "
                        "Real releases need δ far below 1/n, such as 10⁻⁵.")


def attack_dashboard(epsilon=1.0, n_samples=20, *, n_features=10, n_components=1, delta=1e-5, random_state=0):
    """Chapter 1: attacks against a PCA release, and the cost of stopping them.

    Reconstruction and membership attacks, and the noise that stops them.
    Twin: :func:`privpca_edu.experiments.membership_attack`.

    Controls: ε (log slider), n, d, k.  δ and the seed are fixed arguments.

    Parameters
    ----------
    epsilon : float, default=1.0
        Starting value of the ε control.
    n_samples : int, default=20
        Starting value of the n control.
    n_features : int, default=10
        Starting value of the d control.
    n_components : int, default=1
        Starting value of the k control.
    delta : float, default=1e-5
        Privacy parameter δ. Fixed for the dashboard (passed to the twin unchanged).
    random_state : int, default=0
        Seed of the data and the noise. Fixed for the dashboard (passed to the twin unchanged).

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    controls = {
        "epsilon": C.epsilon_slider(epsilon, min_exp=-2, max_exp=2, step=0.05),
        "n_samples": C.n_samples_slider(n_samples),
        "n_features": C.n_features_slider(n_features, min=2, max=30),
        "n_components": C.n_components_slider(n_components, min=1, max=5),
    }
    return Dashboard(experiments.membership_attack, plotting.AttackFigure(), controls,
                     fixed={"delta": delta, "random_state": random_state})


def sigma_dashboard(epsilon=1.0, delta=1e-5, n_steps=10, sensitivity=2.0, *, preset=None):
    """Chapter 2: per-step Gaussian noise σ against ε for every accounting method.

    Twin: :func:`privpca_edu.experiments.sigma_curves`.

    Controls (in this order — the ε slider is the first slider on the page): ε, δ (log
    sliders), T, Δ, under a "setting" dropdown (:data:`SIGMA_PRESETS`).  The default δ = 10⁻⁵
    is a safe one; the preset "DPS-PCA paper's setting" (δ = 0.3, T = 10, Δ = 2,
    :data:`DPS_PCA_PAPER_SETTING`) is that of the reference table of σ per calibration, whose
    values then appear as black crosses.  Whenever δ ≥ 0.01 a warning says, in plain view under
    the figure, why such a δ protects nobody (:func:`large_delta_warning`).

    ``preset`` (a label of :data:`SIGMA_PRESETS`, or ``"paper"`` for the DPS-PCA paper's
    setting) starts the dashboard at that setting instead of the arguments.

    Parameters
    ----------
    epsilon : float, default=1.0
        Starting value of the ε control.
    delta : float, default=1e-5
        Starting value of the δ control.
    n_steps : int, default=10
        Starting value of the T control.
    sensitivity : float, default=2.0
        Starting value of the Δ control.
    preset : str or None, default=None
        A label of :data:`SIGMA_PRESETS` (or ``"paper"``) to start at instead of the arguments.

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    if preset is not None:
        values = preset_values(SIGMA_PRESETS, preset)
        delta = values.get("delta", delta)
        n_steps = values.get("n_steps", n_steps)
        sensitivity = values.get("sensitivity", sensitivity)
    options = list(SENSITIVITY_OPTIONS)
    if all(abs(value - sensitivity) > 1e-12 for _, value in options):
        options.append((f"Δ = {sensitivity:g}", float(sensitivity)))
    value = next(v for _, v in options if abs(v - sensitivity) <= 1e-12)
    controls = {
        "epsilon": C.epsilon_slider(epsilon, min_exp=-2, max_exp=2, step=0.05),
        "delta": C.delta_slider(delta, min_exp=-10, max_exp=-0.1, step=0.01),
        "n_steps": C.n_steps_slider(n_steps, min=1, max=50),
        "sensitivity": C.method_picker(options, value, description="sensitivity (rows of norm ≤ 1)",
                                       width="440px"),
    }
    return Dashboard(experiments.sigma_curves, plotting.SigmaFigure(), controls, presets=SIGMA_PRESETS,
                     advisory=large_delta_warning)


def planes_dashboard(tilt_x=30.0, tilt_y=0.0, n_components=2):
    """Chapter 3: rotate a plane (or a line) in R³ and read off the three distances.

    Twin: :func:`privpca_edu.experiments.plane_distances`.

    Parameters
    ----------
    tilt_x : float, default=30.0
        Starting value of the tilt about x₁ (degrees) control.
    tilt_y : float, default=0.0
        Starting value of the tilt about x₂ (degrees) control.
    n_components : {1, 2}, default=2
        Lines (1) or planes (2) at the start.

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    controls = {
        "tilt_x": C.angle_slider(tilt_x, description="tilt about x₁ (°)"),
        "tilt_y": C.angle_slider(tilt_y, description="tilt about x₂ (°)"),
        "n_components": C.method_picker([("lines (k = 1)", 1), ("planes (k = 2)", 2)], n_components,
                                        description="subspaces", kind="toggle"),
    }
    return Dashboard(experiments.plane_distances, plotting.PlanesFigure(), controls)


def angles_dashboard(theta1=30.0, theta2=60.0, n_features=10):
    """Chapter 3: two planes in R^d with two independent principal angles.

    Twin: :func:`privpca_edu.experiments.angle_distances`.

    Parameters
    ----------
    theta1 : float, default=30.0
        Starting value of the θ₁ (degrees, 0–90) control.
    theta2 : float, default=60.0
        Starting value of the θ₂ (degrees, 0–90) control.
    n_features : int, default=10
        Starting value of the ambient dimension d control.

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    controls = {
        "theta1": C.angle_slider(theta1, min=0, max=90, description="θ₁ (°)"),
        "theta2": C.angle_slider(theta2, min=0, max=90, description="θ₂ (°)"),
        "n_features": C.n_samples_slider(n_features, options=(4, 5, 6, 10, 20, 50, 100, 1000),
                                         description="d (ambient dimension)"),
    }
    return Dashboard(experiments.angle_distances, plotting.AnglesFigure(), controls)
