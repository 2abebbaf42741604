"""Chapter 5 dashboard: recipe C (Gaussian-DP audit) on honest and broken mechanisms, live.

Wiring only (controls → twin → figure), on the shared :class:`~privpca_edu.widgets.dashboard.Dashboard`:
twin :func:`privpca_edu.experiments.auditing.gdp_audit`, figure
:class:`privpca_edu.plotting.auditing.GdpAuditFigure`.
"""

from __future__ import annotations

import ipywidgets as W

from ..experiments.auditing import AUDITED_MECHANISMS, gdp_audit
from ..plotting.auditing import GdpAuditFigure
from . import controls as C
from .dashboard import Dashboard

__all__ = ["gdp_audit_dashboard", "AUDIT_N_DRAWS_OPTIONS"]

#: Releases per data set offered by the N slider (SE ≈ √(2/N): 0.045 … 0.006).
AUDIT_N_DRAWS_OPTIONS = (1000, 2000, 5000, 10_000, 20_000, 50_000)


def gdp_audit_dashboard(mechanism="Analyze Gauss (analytic σ)", sigma_multiplier=1.0, n_draws=20_000, epsilon=1.0,
                        *, delta=1e-5, seed=0):
    """Chapter 5: audit a mechanism's (ε, δ) claim from its releases (recipe C).

    Twin: :func:`privpca_edu.experiments.auditing.gdp_audit`.

    Controls: the mechanism (honest ones and mutants), a multiplier on its noise, the number
    N of releases per data set, and the advertised ε.  δ and the seed are fixed arguments.

    Parameters
    ----------
    mechanism : str, default="Analyze Gauss (analytic σ)"
        Starting value of the mechanism control.
    sigma_multiplier : float, default=1.0
        Starting value of the noise multiplier control.
    n_draws : int, default=20000
        Starting value of the releases-per-data-set N control.
    epsilon : float, default=1.0
        Starting value of the advertised ε control.
    delta : float, default=1e-5
        The advertised δ. Fixed for the dashboard (passed to the twin unchanged).
    seed : int, default=0
        Seed of the releases. Fixed for the dashboard (passed to the twin unchanged).

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    controls = {
        "mechanism": C.method_picker(list(AUDITED_MECHANISMS), mechanism, description="mechanism", width="380px"),
        "sigma_multiplier": W.FloatSlider(value=sigma_multiplier, min=0.25, max=2.0, step=0.05,
                                          description="noise × (1 = as documented)", readout_format=".2f",
                                          continuous_update=False, style={"description_width": "initial"},
                                          layout=W.Layout(width="360px")),
        "n_draws": C.n_samples_slider(n_draws, options=AUDIT_N_DRAWS_OPTIONS, description="N (releases per data set)"),
        "epsilon": C.epsilon_slider(epsilon, min_exp=-1, max_exp=1, step=0.05, description="claimed ε"),
    }
    return Dashboard(gdp_audit, GdpAuditFigure(), controls, fixed={"delta": delta, "seed": seed})
