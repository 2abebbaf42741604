"""The Europe-map chapter's dashboard (twin: :func:`privpca_edu.experiments.europe.europe_map`)."""

from __future__ import annotations

from ..experiments.europe import available_methods, europe_map
from ..plotting.europe import EuropeMapFigure
from . import controls as C
from .dashboard import Dashboard

__all__ = ["europe_dashboard"]


def europe_dashboard(method="Kendall (spherical)", epsilon=1.0, delta=1e-5, seed=0, *, source="synthetic",
                     methods=None):
    """Private 2-D map of Europe next to the non-private one, with the similarity scores.

    Controls: ε (log slider 0.01 … 1000), the method (every entry of
    :data:`~privpca_edu.experiments.europe.METHODS` whose estimator is installed, unless
    ``methods`` is given), δ (log slider 1e-10 … 0.01) and the noise seed.  ``source``
    ("synthetic" or "novembre") is fixed for the dashboard; the figure's title says which one
    is shown.

    Parameters
    ----------
    method : str, default="Kendall (spherical)"
        Starting value of the method control.
    epsilon : float, default=1.0
        Starting value of the ε control.
    delta : float, default=1e-5
        Starting value of the δ control.
    seed : int, default=0
        Starting value of the noise seed control.
    source : {"synthetic", "novembre"}, default="synthetic"
        The data. Fixed for the dashboard (passed to the twin unchanged).
    methods : sequence of str or None, default=None
        The methods offered (``None``: every installed one).

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    options = list(methods) if methods is not None else list(available_methods())
    if method not in options:
        options.insert(0, method)  # a missing method is still selectable: the figure says why it fails
    controls = {  # ε first, as in every chapter (the first slider on the page is the budget)
        "epsilon": C.epsilon_slider(epsilon, min_exp=-2, max_exp=3, step=0.05),
        "method": C.method_picker(options, method, description="method", width="330px"),
        "delta": C.delta_slider(delta, min_exp=-10, max_exp=-2, step=0.05),
        "seed": C.seed_picker(seed, description="noise seed"),
    }
    return Dashboard(europe_map, EuropeMapFigure(), controls, fixed={"source": source})
