r"""Effective sample size: local (Algorithm 1) against central (Analyze Gauss) PCA over n, for several ε."""

from __future__ import annotations

import math

import numpy as np

from ..._validation import check_int
from ...privacy import analyze_gauss_noise_scale, local_noise_scale
from ...subspace import random_subspace_distance
from ._shared import _central_errors, _ldp_errors, _Notes, _pca_error, second_moment
from .figures import BOOK_DENSE

__all__ = ["effective_sample_size"]


def effective_sample_size(epsilons=(1.0, 2.0, 4.0, 8.0), n_values=None, *, settings=None, n_repeats=5,
                          calibration="replacement", random_state=0):
    r"""Local (Algorithm 1) vs central (Analyze Gauss) vs non-private error over n, for several ε.

    The local noise :math:`\bar Z` has entries of standard deviation
    :math:`\sigma_1/\sqrt n = c_\delta/(\varepsilon\sqrt n)`: the error depends on (n, ε) only
    through :math:`n\varepsilon^2` — Theorem 1's *effective sample size*.  Analyze Gauss's noise
    is :math:`c_\delta/(n\varepsilon)` (with the same calibration constant), a function of
    :math:`n\varepsilon`.  Plotting against :math:`n\varepsilon^2` (local) and
    :math:`n\varepsilon` (central) collapses the curves of different ε.  With the same δ and
    calibration, the two noise levels are equal when the central mechanism has only √n users:
    local privacy costs a square root of the sample size.

    Parameters
    ----------
    epsilons : sequence of float, default (1, 2, 4, 8)
        One curve per ε.
    n_values : sequence of int, optional
        The grid of n; default 11 values from 10² to 10⁷ (log-spaced).
    settings : dict, optional
        Changes to :data:`BOOK_DENSE` (``n_features``, ``n_components``, ``gap``, ``delta``).
    n_repeats : int, default 5
        Noise draws per point.
    calibration : {"replacement", "paper", "analytic"}, default "replacement"
        The local calibration (the central one is "analytic" when this is, else "classic").
    random_state : int, default 0
        Seed of the model, the data and the noise.

    Returns
    -------
    dict
        ``n`` (grid), ``epsilons``, ``local`` / ``central`` (mean errors, (ε, n)),
        ``local_se`` / ``central_se``, ``nonprivate`` (n,), ``random_level``,
        ``local_noise_sd`` / ``central_noise_sd`` ((ε, n): per-entry noise sd of the released
        matrix), ``settings``, ``notes``.
    """
    base = dict(BOOK_DENSE)
    base.update(settings or {})
    p, k, gap, delta = int(base["n_features"]), int(base["n_components"]), float(base["gap"]), base["delta"]
    if n_values is None:
        n_values = tuple(int(v) for v in np.round(np.logspace(2, 7, 11)))
    n_values = tuple(int(v) for v in n_values)
    eps_values = tuple(float(e) for e in epsilons)
    n_repeats = check_int(n_repeats, "n_repeats", low=1)
    seed = check_int(random_state, "random_state", low=0)
    shape = (len(eps_values), len(n_values))
    local, central, local_se, central_se, sd_local, sd_central = (np.full(shape, np.nan) for _ in range(6))
    nonpriv = np.full(len(n_values), np.nan)
    cal_central = "analytic" if calibration == "analytic" else "classic"
    with _Notes() as notes:
        for j, n in enumerate(n_values):
            data = second_moment(max(n, p), p, k, gap=gap, random_state=seed) if n < p else \
                second_moment(n, p, k, gap=gap, random_state=seed)
            S, V = np.asarray(data["second_moment"]), np.asarray(data["components"]).T
            nonpriv[j] = _pca_error(S, V)
            for i, eps in enumerate(eps_values):
                e_l, _ = _ldp_errors(S, n, V, "dense", eps, delta, calibration, n_repeats, seed, {})
                e_c = _central_errors(S, n, V, eps, delta, cal_central, n_repeats, seed)
                local[i, j], central[i, j] = e_l.mean(), e_c.mean()
                local_se[i, j] = e_l.std(ddof=1) / math.sqrt(n_repeats) if n_repeats > 1 else np.nan
                central_se[i, j] = e_c.std(ddof=1) / math.sqrt(n_repeats) if n_repeats > 1 else np.nan
                sigma1 = local_noise_scale(eps, delta, 1.0, calibration)["noise_scale"]
                sd_local[i, j] = sigma1 / math.sqrt(n)
                sd_central[i, j] = analyze_gauss_noise_scale(n, eps, delta, 1.0, cal_central)
    return dict(n=np.array(n_values, dtype=float), epsilons=np.array(eps_values), local=local, central=central,
                local_se=local_se, central_se=central_se, nonprivate=nonpriv,
                random_level=random_subspace_distance(p, k, kind="projection"), local_noise_sd=sd_local,
                central_noise_sd=sd_central, settings=base, calibration=calibration, notes=notes.messages)
