r"""Figures of the chapter *Local privacy: when nobody is trusted* (Wang & Xu 2019), as data.

Pure, seeded functions (no plotting, no widgets).  Every mechanism runs through the package's
estimators (:class:`~privpca_edu.LocalGaussianPCA`, :class:`~privpca_edu.LocalSparsePCA`,
:class:`~privpca_edu.AnalyzeGauss`'s own calibration) and every bound through
:mod:`privpca_edu.bounds.local` (re-exported by :mod:`privpca_edu.bounds`).  One module per
figure family; every public name is importable from here.

======================================  =========================================================
:func:`second_moment`                    the cached S = XᵀX/n of the chapter's model (``_shared``)
:func:`ldp_error_curves`                 error vs n (or p, k, ε) for several values of a second
                                         parameter: the paper's Figures 1 (dense) and 2 (sparse)
                                         (``figures``)
:func:`paper_figure`                     the panels of Figures 1–2 at ``scale="book"`` (default,
                                         seconds) or ``scale="paper"`` (the paper's sizes, long)
:func:`effective_sample_size`            LDP vs central Analyze Gauss vs non-private over n for
                                         several ε; n·ε² (local) and n·ε (central) collapse them
                                         (``effective_size``)
:func:`user_report_example`              one user's record and noisy report (``user_report``)
:func:`ldp_dashboard_data`               the chapter's live dashboard twin (ε, n, p, s, k)
                                         (``dashboard``)
:func:`real_data_table`                  Table 1's shape on scikit-learn's bundled data sets
                                         (``real_data``)
======================================  =========================================================

Error metric (Wang & Xu, Section 3): the unsquared, unhalved projector distance
:math:`\lVert\hat V\hat V^\top - VV^\top\rVert_F\in[0, \sqrt{2k}]` against the **true**
population subspace V of :func:`privpca_edu.datasets.ldp_spiked`
(``subspace_distance(kind="projection")``); the random-guess level is
:math:`\sqrt{2k(1 - k/p)}`.
"""

from __future__ import annotations

from . import _shared, dashboard, figures, user_report
from ._shared import second_moment
from .dashboard import (DASHBOARD_N, DASHBOARD_N_CENTRAL, DASHBOARD_SOLVER, PARALLEL_MIN_FEATURES,
                        ldp_dashboard_data)
from .effective_size import effective_sample_size
from .figures import (BOOK_DENSE, BOOK_SPARSE, FIGURE_GRIDS, PAPER_DENSE, PAPER_SPARSE, ldp_error_curves,
                      paper_figure, repetition_errors)
from .real_data import REAL_DATA_SCALING_NOTE, REAL_DATASETS, real_data_repetition, real_data_table
from .user_report import user_report_example

__all__ = [
    "BOOK_DENSE",
    "BOOK_SPARSE",
    "PAPER_DENSE",
    "PAPER_SPARSE",
    "FIGURE_GRIDS",
    "second_moment",
    "ldp_error_curves",
    "repetition_errors",
    "paper_figure",
    "effective_sample_size",
    "DASHBOARD_N",
    "DASHBOARD_N_CENTRAL",
    "DASHBOARD_SOLVER",
    "PARALLEL_MIN_FEATURES",
    "ldp_dashboard_data",
    "user_report_example",
    "real_data_table",
    "real_data_repetition",
    "REAL_DATASETS",
    "REAL_DATA_SCALING_NOTE",
    "clear_caches",
]


def clear_caches():
    """Forget the cached models, second moments, curves and dashboard errors (e.g. before timing a cold start)."""
    _shared._model.cache_clear()
    _shared._second_moment_cached.cache_clear()
    figures._curve_cached.cache_clear()
    dashboard._ERRORS.clear()
    dashboard._dashboard_curves.cache_clear()
    dashboard._nonprivate_error.cache_clear()
    dashboard._unit_noise.cache_clear()
    user_report._user_record.cache_clear()
