"""The book's figures, drawn from the results of :mod:`privpca_edu.experiments`.

One module per experiments module, with the same name (``plotting.ldp`` draws
``experiments.ldp``), on two shared parts:

* :mod:`._live`: :class:`LiveFigure`, the base of every figure (built once, artists moved in
  place, blitted with matplotlib's public API, PNG by Pillow);
* :mod:`._style`: one palette (Okabe–Ito, keyed by method), markers and line styles, the
  book's notation for axis labels, and the page size (the 688 px text column).

Every figure class has a ``plot_…`` function returning a static :class:`matplotlib.figure.Figure`.
Figures compute nothing: every number drawn is a field of the experiment result.
"""

from . import _style as style
from ._live import WRAP_UNITS, LiveFigure, TitleBlock, encode_png, new_figure
from .accounting import SigmaFigure, plot_sigma_curves
from .attack import AttackFigure
from .subspaces import AnglesFigure, PlanesFigure

# the chapter modules, imported by name: ``from privpca_edu.plotting import ldp``
from . import auditing, dps_pca, europe, ldp, noisy_covariance, protocol, robust  # noqa: E402,F401

__all__ = [
    "LiveFigure", "TitleBlock", "WRAP_UNITS", "new_figure", "encode_png", "style",
    "AttackFigure", "SigmaFigure", "plot_sigma_curves",
    "PlanesFigure", "AnglesFigure",
    "accounting", "attack", "subspaces", "noisy_covariance", "auditing", "ldp", "protocol", "dps_pca", "robust",
    "europe",
]
