r"""Wang & Xu's Figures 1 (dense, Algorithm 1) and 2 (sparse, Algorithm 2) as data.

Error curves against n (or p, k, ε, s), one repetition at a point, and the figures' panels at
two scales.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ..._validation import check_delta, check_epsilon, check_int, check_option
from ...subspace import random_subspace_distance
from ._shared import _draw_second_moment, _ldp_errors, _model, _Notes, _pca_error, _progress, second_moment

__all__ = ["BOOK_DENSE", "BOOK_SPARSE", "PAPER_DENSE", "PAPER_SPARSE", "FIGURE_GRIDS", "ldp_error_curves",
           "repetition_errors", "paper_figure"]

#: The book's dense setting (a small "demo regime"): trends are visible for n = 10⁴ … 10⁷.
BOOK_DENSE = dict(n_samples=1_000_000, n_features=10, n_components=2, gap=10.0, epsilon=4.0, delta=1e-4)
#: The book's sparse setting: p = 20, s = 4 — Algorithm 2 beats Algorithm 1 around n = 10⁶.
BOOK_SPARSE = dict(n_samples=1_000_000, n_features=20, n_components=2, support_size=4, gap=10.0, epsilon=4.0,
                   delta=1e-4)
#: The paper's stated dense setting (ε = 0.5, Δ = 1): every error sits at the
#: random level 2.958 for k = 5 — the noise swamps the signal.
PAPER_DENSE = dict(n_samples=100_000, n_features=40, n_components=5, gap=1.0, epsilon=0.5, delta=1e-4)
#: The paper's sparse setting (Figure 2): p = 400, n = 2000, k = 10, ε = 2, s ∈ {15, 20, 40, 80}.
PAPER_SPARSE = dict(n_samples=2000, n_features=400, n_components=10, support_size=20, gap=1.0, epsilon=2.0,
                    delta=1e-4)


_VARIABLES = ("n_samples", "n_features", "n_components", "epsilon", "support_size")
_ALIASES = {"n": "n_samples", "p": "n_features", "k": "n_components", "eps": "epsilon", "s": "support_size"}


def _setting_at(base, x_name, x, curve_name, c):
    setting = dict(base)
    setting[x_name] = x
    setting[curve_name] = c
    return setting


@lru_cache(maxsize=512)
def _curve_cached(algorithm, n, p, k, s, gap, epsilon, delta, calibration, n_repeats, seed, solver_items, method):
    data = second_moment(n, p, k, gap=gap, support_size=s, random_state=seed, method=method)
    S, V = np.asarray(data["second_moment"]), np.asarray(data["components"]).T
    with _Notes() as notes:
        errs, iters = _ldp_errors(S, n, V, algorithm, epsilon, delta, calibration, n_repeats, seed, dict(solver_items))
    return errs, iters, _pca_error(S, V), tuple(notes.messages)


def ldp_error_curves(algorithm="dense", x="n_samples", x_values=(10_000, 100_000, 1_000_000), curve="epsilon",
                     curve_values=(1.0, 2.0, 4.0, 8.0), *, settings=None, n_repeats=10, calibration="replacement",
                     solver=None, method="auto", random_state=0, progress=None):
    r"""Mean LDP error against one parameter, one curve per value of another (Figures 1–2).

    Parameters
    ----------
    algorithm : {"dense", "sparse"}
        Algorithm 1 (:class:`LocalGaussianPCA`) or 2 (:class:`LocalSparsePCA`).
    x : str
        Parameter on the horizontal axis: ``"n_samples"``, ``"n_features"``,
        ``"n_components"``, ``"epsilon"``, ``"support_size"`` (aliases n, p, k, eps, s).
    x_values : sequence
        The values on the horizontal axis.
    curve : str
        Parameter across curves, one of the same names as ``x``.
    curve_values : sequence
        The values of the curves.
    settings : dict, optional
        The fixed parameters (``n_samples``, ``n_features``, ``n_components``, ``gap``,
        ``epsilon``, ``delta``, ``support_size``); default :data:`BOOK_DENSE` or
        :data:`BOOK_SPARSE`.
    n_repeats : int
        Noise draws per point (the paper: 20).  The data (S) is drawn once per point.
    calibration : {"replacement", "paper", "analytic"}
        The local calibration (:func:`~privpca_edu.privacy.local_noise_scale`).
    solver : dict, optional
        Extra :class:`LocalSparsePCA` arguments (``lam_scale``, ``adaptive_rho``, …).
    method : {"auto", "wishart", "data"}
        How S is drawn (:func:`second_moment`).
    random_state : int
        Seed of the model, the data and the noise.
    progress : None, True or callable(done, total)
        ``True``: a tqdm bar if tqdm is installed, else a printed percentage.

    Returns
    -------
    dict
        ``x``, ``x_name``, ``curve_values``, ``curve_name``, ``mean``, ``se`` and ``nonprivate``
        (arrays (curves, x)), ``iterations`` (mean ADMM iterations, sparse), ``random_level``
        (curves, x), ``algorithm``, ``settings``, ``notes`` (caveats, e.g. ε ≥ 1 with the classic
        constant).
    """
    check_option(algorithm, "algorithm", ("dense", "sparse"))
    x_name, curve_name = _ALIASES.get(x, x), _ALIASES.get(curve, curve)
    check_option(x_name, "x", _VARIABLES)
    check_option(curve_name, "curve", _VARIABLES)
    if x_name == curve_name:
        raise ValueError(f"x and curve must differ, got {x_name!r} twice")
    base = dict(BOOK_DENSE if algorithm == "dense" else BOOK_SPARSE)
    base.update(settings or {})
    if algorithm == "dense":
        base["support_size"] = None
    n_repeats = check_int(n_repeats, "n_repeats", low=1)
    seed = check_int(random_state, "random_state", low=0)
    check_option(calibration, "calibration", ("replacement", "paper", "analytic"))
    solver_items = tuple(sorted((solver or {}).items()))
    xs, cs = list(x_values), list(curve_values)
    shape = (len(cs), len(xs))
    mean, se, nonpriv, iters, level = (np.full(shape, np.nan) for _ in range(5))
    notes = []
    step = _progress(progress, len(cs) * len(xs))
    for i, c in enumerate(cs):
        for j, xv in enumerate(xs):
            st = _setting_at(base, x_name, xv, curve_name, c)
            n, p, k = int(st["n_samples"]), int(st["n_features"]), int(st["n_components"])
            s = None if st.get("support_size") is None else int(st["support_size"])
            eps = check_epsilon(st["epsilon"])
            delta = check_delta(st["delta"])
            errs, its, pca, msgs = _curve_cached(algorithm, n, p, k, s, float(st["gap"]), eps, delta, calibration,
                                                 n_repeats, seed, solver_items, method)
            mean[i, j] = errs.mean()
            se[i, j] = errs.std(ddof=1) / math.sqrt(n_repeats) if n_repeats > 1 else np.nan
            nonpriv[i, j] = pca
            iters[i, j] = its.mean()
            level[i, j] = random_subspace_distance(p, k, kind="projection")
            notes += [m for m in msgs if m not in notes]
            step()
    return dict(x=np.array(xs, dtype=float), x_name=x_name, curve_values=np.array(cs, dtype=float),
                curve_name=curve_name, mean=mean, se=se, nonprivate=nonpriv, iterations=iters,
                random_level=level, algorithm=algorithm, settings=base, n_repeats=n_repeats,
                calibration=calibration, notes=notes)


def repetition_errors(algorithm, n_samples, n_features, n_components, *, support_size=None, gap=1.0, epsilon=2.0,
                      delta=1e-4, calibration="replacement", solver=None, method="auto", model_seed=0,
                      random_state=None):
    """One repetition at one point of Figures 1–2: a fresh sample and one noise draw.

    The population (V, Σ) is the cached model of ``model_seed`` (shared by every point, as in
    :func:`ldp_error_curves`); the sample's S and the mechanism's noise come from
    ``random_state``.  Used to run the figures' grids task by task
    (``python -m privpca_edu.reproduce``).

    Parameters
    ----------
    algorithm : {"dense", "sparse"}
        Algorithm 1 or 2.
    n_samples, n_features, n_components : int
        Number of users n, dimension p and number of components k, as :func:`second_moment`.
    support_size : int, optional
        Support size s of the row-sparse model, as :func:`second_moment`; default dense.
    gap : float, default 1.0
        Signal/gap parameter Δ > 0, as :func:`second_moment`.
    epsilon, delta : float
        Each user's ε and δ (defaults 2.0 and 1e-4).
    calibration : {"replacement", "paper", "analytic"}, default "replacement"
        The local calibration (:func:`~privpca_edu.privacy.local_noise_scale`).
    solver : dict, optional
        Extra :class:`~privpca_edu.LocalSparsePCA` arguments.
    method : {"auto", "wishart", "data"}, default "auto"
        How S is drawn (:func:`second_moment`).
    model_seed : int, default 0
        Seed of the population (V, Σ).
    random_state : None, SeedSequence or Generator
        The sample's and the noise's randomness.

    Returns
    -------
    error : float
        Projection distance of the private estimate to the true V.
    nonprivate_error : float
        The same for non-private PCA of the sample.
    iterations : int
        ADMM iterations (0 for Algorithm 1).
    """
    check_option(algorithm, "algorithm", ("dense", "sparse"))
    rng = np.random.default_rng(random_state)
    V, Sigma, _, _ = _model(n_features, n_components, float(gap), support_size, model_seed)
    V = np.asarray(V)
    S, _ = _draw_second_moment(V, np.asarray(Sigma), float(gap), n_samples, method, rng)
    errors, iters = _ldp_errors(S, n_samples, V, algorithm, epsilon, delta, calibration, 1, rng, dict(solver or {}))
    return float(errors[0]), float(_pca_error(S, V)), int(iters[0])


#: Grids of :func:`paper_figure` (Wang & Xu, Section 6, Figures 1–2):
#: the "paper" grids use its stated fixed settings and our choice of swept values.
FIGURE_GRIDS = {
    ("book", 1): dict(settings=BOOK_DENSE, x=(10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000),
                      panels={"n_components": (1, 2, 3, 4), "n_features": (6, 10, 20, 40),
                              "epsilon": (1.0, 2.0, 4.0, 8.0)}, n_repeats=10),
    ("paper", 1): dict(settings=PAPER_DENSE, x=(10_000, 30_000, 100_000, 300_000, 1_000_000),
                       panels={"n_components": (5, 10, 15, 20), "n_features": (20, 40, 60, 80),
                               "epsilon": (0.5, 1.0, 2.0, 4.0)}, n_repeats=20),
    ("book", 2): dict(settings=BOOK_SPARSE, x=(10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000),
                      panels={"n_components": (1, 2, 3), "n_features": (20, 40, 80),
                              "epsilon": (1.0, 2.0, 4.0, 8.0), "support_size": (3, 4, 8)}, n_repeats=10),
    ("paper", 2): dict(settings=PAPER_SPARSE, x=(500, 1000, 2000, 4000),
                       panels={"n_components": (5, 10, 15, 20), "n_features": (200, 400, 800),
                               "epsilon": (0.5, 1.0, 2.0, 4.0), "support_size": (15, 20, 40, 80)}, n_repeats=20),
}


def paper_figure(figure=1, panel="epsilon", *, scale="book", n_repeats=None, calibration="replacement",
                 random_state=0, progress=None):
    r"""One panel of Wang & Xu's Figure 1 (dense, Algorithm 1) or 2 (sparse, Algorithm 2).

    Every panel is error against n, one curve per value of ``panel`` (k, p, ε, or s for
    Figure 2).

    * ``scale="book"`` (default): a small "demo regime" (Figure 1: p = 10, k = 2,
      Δ = 10, ε = 4; Figure 2: p = 20, k = 2, s = 4), n from 10⁴ to 10⁷, 10 repeats —
      seconds, and the trends (error falls with n and ε, rises with p and k) are visible.
    * ``scale="paper"``: the paper's stated settings (Figure 1: p = 40, k = 5, Δ = 1, ε = 0.5;
      Figure 2: p = 400, k = 10, s = 20, ε = 2, n around 2000), 20 repeats.  Minutes (Figure 2:
      each ADMM solve at p = 400 takes seconds), and — as a signal-to-noise count
      predicts — most points sit at the random-guess level, so the trends are flat.

    The swept values here are our choice.

    Parameters
    ----------
    figure : {1, 2}, default 1
        Figure 1 (dense, Algorithm 1) or 2 (sparse, Algorithm 2).
    panel : str, default "epsilon"
        The parameter across curves: ``"n_components"``, ``"n_features"``, ``"epsilon"``, or
        ``"support_size"`` (Figure 2 only); aliases k, p, eps, s.
    scale : {"book", "paper"}, default "book"
        The grid (:data:`FIGURE_GRIDS`).
    n_repeats : int, optional
        Noise draws per point; default the grid's (10 at book scale, 20 at paper scale).
    calibration : {"replacement", "paper", "analytic"}, default "replacement"
        As :func:`ldp_error_curves`.
    random_state : int, default 0
        As :func:`ldp_error_curves`.
    progress : None, True or callable(done, total), optional
        As :func:`ldp_error_curves`.

    Returns
    -------
    dict
        As :func:`ldp_error_curves`, plus ``figure``, ``panel`` and ``scale``.
    """
    figure = check_int(figure, "figure", low=1, high=2)
    check_option(scale, "scale", ("book", "paper"))
    grid = FIGURE_GRIDS[(scale, figure)]
    panel = _ALIASES.get(panel, panel)
    check_option(panel, "panel", tuple(grid["panels"]))
    reps = grid["n_repeats"] if n_repeats is None else n_repeats
    out = ldp_error_curves("dense" if figure == 1 else "sparse", "n_samples", grid["x"], panel, grid["panels"][panel],
                           settings=grid["settings"], n_repeats=reps, calibration=calibration,
                           random_state=random_state, progress=progress)
    out.update(figure=figure, panel=panel, scale=scale)
    return out

