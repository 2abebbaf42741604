r"""One user's record, its outer product and the noisy report that leaves the device.

The chapter's first figure and the dashboard's fourth panel.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..._validation import check_int
from ...estimators.local import LocalGaussianPCA
from ._shared import _frozen, _model, _Notes, _rows, _stream

__all__ = ["user_report_example"]


@lru_cache(maxsize=64)
def _user_record(p, k, gap, s, seed):
    """One record of the dashboard's population (same model V)."""
    V = np.asarray(_model(p, k, gap, s, seed)[0])
    return _frozen(_rows(V, gap, 1, _stream(seed, "user-row"))[0])


def user_report_example(epsilon=4.0, n_features=10, n_components=2, *, support_size=None, gap=10.0, delta=1e-4,
                        calibration="replacement", random_state=0):
    r"""One user's record x, their :math:`xx^\top` and their noisy report :math:`xx^\top + Z`.

    The report is drawn by :meth:`LocalGaussianPCA.user_report` — exactly what leaves the
    device.  The record is one row of the population of :func:`second_moment` (same model V).

    Parameters
    ----------
    epsilon : float, default 4.0
        Privacy parameter ε of the report.
    n_features : int, default 10
        Dimension p.
    n_components : int, default 2
        Number of components k of the population.
    support_size : int, optional
        Support size s of the population (row-sparse V); default dense.
    gap : float, default 10.0
        Δ of :func:`~privpca_edu.datasets.ldp_spiked`.
    delta : float, default 1e-4
        Privacy parameter δ of the report.
    calibration : {"replacement", "paper", "analytic"}, default "replacement"
        The local calibration.
    random_state : int, default 0
        Seed of the population, the record and the report's noise.

    Returns
    -------
    dict
        ``record``, ``outer`` (:math:`xx^\top`), ``report``, ``noise_scale`` (σ₁),
        ``signal_to_noise`` (:math:`\lVert xx^\top\rVert_F/\lVert Z\rVert_F`), ``notes``.
    """
    p = check_int(n_features, "n_features", low=2)
    k = check_int(n_components, "n_components", low=1, high=p - 1)
    s = None if support_size is None else check_int(support_size, "support_size", low=k, high=p)
    seed = check_int(random_state, "random_state", low=0)
    x = np.asarray(_user_record(p, k, float(gap), s, seed))
    with _Notes() as notes:
        est = LocalGaussianPCA(k, epsilon=epsilon, delta=delta, calibration=calibration)
        report = est.user_report(x, random_state=_stream(seed, "report", p))
        sigma1 = est.noise_calibration(warn=False)["noise_scale"]
    outer = np.outer(x, x)
    noise = report - outer
    snr = float(np.linalg.norm(outer) / np.linalg.norm(noise)) if np.any(noise) else math.inf
    return dict(record=x, outer=outer, report=report, noise_scale=sigma1, signal_to_noise=snr,
                notes=notes.messages)
