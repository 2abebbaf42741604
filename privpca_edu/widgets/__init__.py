"""Interactive figures: controls, experiment twin, figure.

Controls → experiment twin (:mod:`privpca_edu.experiments`) → figure
(:mod:`privpca_edu.plotting`).

One function per interactive figure, each returning an :class:`ipywidgets.Widget` (a
:class:`Dashboard`); its plain-Python twin computes the same figure data without widgets.

========================  ==============================================  =========
widget                    twin                                            chapter
========================  ==============================================  =========
``attack_dashboard``      ``experiments.membership_attack``               1
``sigma_dashboard``       ``experiments.sigma_curves``                    2
``planes_dashboard``      ``experiments.plane_distances``                 3
``angles_dashboard``      ``experiments.angle_distances``                 3
``noisy_covariance_…``    ``experiments.noisy_covariance.noisy_covariance_errors``  4
``gdp_audit_dashboard``   ``experiments.auditing.gdp_audit``              5
``ldp_dashboard``         ``experiments.ldp`` (local vs central)          6
``hospitals_dashboard``   ``experiments.protocol.hospitals_demo``         7
``dps_pca_dashboard``     ``experiments.dps_pca.dps_pca_explorer``        8
``heavy_tails_dashboard`` ``experiments.robust`` (errors vs tails)        9
``breakdown_dashboard``   ``experiments.robust`` (outliers dragged in)    9
``europe_dashboard``      ``experiments.europe.europe_map``               10
========================  ==============================================  =========

In a notebook::

    from privpca_edu import widgets
    widgets.show(widgets.sigma_dashboard())   # live widget, with its figure as a static fallback

Adding a chapter: write the twin in :mod:`privpca_edu.experiments`, a
:class:`~privpca_edu.plotting.LiveFigure` subclass in :mod:`privpca_edu.plotting`, and a
three-line function here that passes controls from :mod:`.controls` to :class:`Dashboard`.
"""

from .chapters import SENSITIVITY_OPTIONS, angles_dashboard, attack_dashboard, planes_dashboard, sigma_dashboard
from .controls import (
    N_SAMPLES_OPTIONS,
    angle_slider,
    contamination_slider,
    delta_slider,
    epsilon_slider,
    method_picker,
    n_components_slider,
    n_features_slider,
    n_samples_slider,
    n_steps_slider,
    seed_picker,
    sparsity_slider,
)
from .auditing import gdp_audit_dashboard
from .dashboard import Dashboard, show
from .dps_pca import dps_pca_dashboard
from .europe import europe_dashboard
from .exercises import check_answer
from .ldp import ldp_dashboard
from .noisy_covariance import noisy_covariance_dashboard
from .protocol import OWNER_OPTIONS, hospitals_dashboard
from .robust import breakdown_dashboard, heavy_tails_dashboard

__all__ = [
    "Dashboard", "show", "check_answer",
    "attack_dashboard", "sigma_dashboard", "planes_dashboard", "angles_dashboard", "SENSITIVITY_OPTIONS",
    "noisy_covariance_dashboard", "gdp_audit_dashboard", "dps_pca_dashboard", "ldp_dashboard", "europe_dashboard",
    "heavy_tails_dashboard", "breakdown_dashboard", "hospitals_dashboard", "OWNER_OPTIONS",
    "epsilon_slider", "delta_slider", "sparsity_slider", "contamination_slider", "n_samples_slider",
    "n_features_slider", "n_components_slider", "n_steps_slider", "angle_slider", "seed_picker",
    "method_picker", "N_SAMPLES_OPTIONS",
]

from . import explorable as _explorable

_explorable.install_figure_formatter()  # (a book build only: phone layouts of static figures)
