r"""Kim & Jung (2025) §4 experiments and the *Heavy tails and outliers* chapter's twins.

* :func:`error_vs_n` — Figs 2–4: mean loss :math:`\lVert\sin\Theta(\hat V, V)\rVert_2` (largest
  principal angle, ``subspace_distance(kind="max_angle")``) against n for each d, one figure per
  law (Gaussian, multivariate t₁, 5 % contaminated Gaussian); :func:`figures_2_to_4` runs all three.
* :func:`error_vs_epsilon` — Fig. 5: the same against ε at fixed n, d.
* :func:`heavy_tails_explorer` — twin of the chapter's main dashboard (sliders: contamination,
  t degrees of freedom, ε, δ).
* :func:`breakdown_demo` — twin of the breakdown dashboard (drag outliers in).

Model (Kim & Jung, Section 4.1, :func:`privpca_edu.datasets.elliptical`): dispersion
Σ = I + 9v₁v₁ᵀ + 4v₂v₂ᵀ, k = 2.  Settings the paper does not give (its n and d grids, the ε grid of
Fig. 5, the outlier law) are **our choices**, listed in :data:`SCALES`.

Methods: ``"sph"`` and ``"wins"`` (g-DPPCA, r = √d), ``"AG"``, ``"SGPCA"`` (true spikes (9, 4) and
σ₀² = 1, default surrogate Δ), ``"NSGGD"`` (T = 50, η = 1, full batch, Haar start).  With
``baselines="paper"`` (default, to reproduce the figures) AG and NSGGD see the data centred at its
mean and scaled by its largest norm, as the paper did — **not private**
(:class:`~privpca_edu.estimators.robust.NonPrivateAnalyzeGaussReplication`,
``NSGGD(paper_normalization=True)``); ``baselines="private"`` uses the private
:class:`~privpca_edu.AnalyzeGauss` and NSGGD with a *public* row bound B = √d instead (rows above
it scaled down).  SGPCA is never worst-case private (its Δ is model-based).

Every method sees the same data in a repetition.  The noiseless statistic of each noisy-matrix
method is computed once per data set and reused for every ε (the noise is a fixed standard draw
times σ(ε): common random numbers, so curves over ε are smooth); this is exactly the release
``fit`` makes, through the estimators' own ``release_parts``.
"""

from __future__ import annotations

import contextlib
import functools
import math
import warnings

import numpy as np
from scipy import stats

from ..bounds.robust import kendall_breakdown, kendall_dppca_thm34, kendall_population_eigenvalues
from .._validation import (PrivacyWarning, check_int, check_option, as_generator, clip_rows,
                           single_threaded_blas)
from ..datasets import elliptical, outlier_direction, spike_directions
from ..estimators.covariance import AnalyzeGauss
from ..estimators.robust import NSGGD, SGPCA, KendallDPPCA, NonPrivateAnalyzeGaussReplication, kendall_tau_matrix
from ..privacy import gaussian_sigma, nsggd_noise_scale, symmetric_noise
from ..subspace import fix_signs, random_orthonormal, subspace_distance, top_eigenvectors
from ._threads import in_parallel

__all__ = [
    "METHODS",
    "METHOD_LABELS",
    "FAMILIES",
    "SCALES",
    "method_losses",
    "repetition_losses",
    "error_vs_n",
    "figures_2_to_4",
    "error_vs_epsilon",
    "figure5",
    "heavy_tails_explorer",
    "precompute_explorer_bounds",
    "breakdown_demo",
    "DF_OPTIONS",
    "clear_caches",
]

METHODS = ("sph", "wins", "AG", "SGPCA", "NSGGD")
METHOD_LABELS = {
    "sph": "sph-DPPCA (Kendall, spherical)",
    "wins": "wins-DPPCA (Kendall, winsorized r = √d)",
    "AG": "AG (Analyze Gauss)",
    "SGPCA": "SGPCA (Cai, Xia & Zha)",
    "NSGGD": "NSGGD (Maunu, Yu & Lerman)",
}
FAMILIES = ("gaussian", "t", "contaminated")

#: The book's live sizes and the paper-scale sizes (Kim & Jung, Section 4.1; the grids are ours).
SCALES = {
    "book": dict(n_samples=(250, 500, 1000, 2000), n_features=(10,), n_reps=4, epsilons=(0.2, 0.5, 1.0, 2.0, 5.0),
                 fig5_n=1000, fig5_d=10),
    "paper": dict(n_samples=(500, 1000, 2000, 4000, 8000), n_features=(10, 20, 50), n_reps=100,
                  epsilons=(0.1, 0.2, 0.5, 1.0, 2.0, 5.0), fig5_n=2000, fig5_d=10),
}

#: Degrees of freedom offered by the explorer (∞ = Gaussian).
DF_OPTIONS = (1.0, 2.0, 3.0, 5.0, 10.0, 30.0, math.inf)

_SPIKES = (10.0, 5.0)


def _progress(iterable, progress, desc="", total=None):
    """tqdm.auto progress bar when ``progress`` and tqdm is importable; otherwise the iterable itself."""
    if not progress:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm ships with Jupyter, not a dependency
        return iterable
    return tqdm(iterable, desc=desc, total=total, leave=False)


def _loss(components, truth):
    return subspace_distance(components, truth, kind="max_angle")


def _noisy_matrix_losses(est, X, truth, epsilons, delta, rng):
    """Loss of a NoisyMatrixMechanism at each ε from one statistic and one standard noise draw."""
    parts = est.release_parts(X)
    d = parts.statistic.shape[0]
    E0 = symmetric_noise(d, 1.0, convention=parts.convention, random_state=rng)
    k = truth.shape[0]
    out = []
    for eps in epsilons:
        sigma = gaussian_sigma(parts.sensitivity, eps, delta, method=est.calibration)
        out.append(_loss(top_eigenvectors(parts.statistic + sigma * E0, k)[1], truth))
    return out


def method_losses(X, truth, epsilons=(1.0,), delta=1e-5, *, methods=METHODS, baselines="paper",
                  calibration="classic", random_state=0):
    """Return the loss of every method on one data set, for each ε.

    The building block of the figure functions.

    Parameters
    ----------
    X : ndarray, shape (n, d)
        The data.
    truth : ndarray, shape (k, d)
        The true basis, one direction per row (as ``data.components``); a (d, k) array raises.
    epsilons : sequence of float, default (1.0,)
        The ε values.
    delta : float, default 1e-5
        Privacy parameter δ.
    methods : sequence of str, default METHODS
        Which methods to run (entries of :data:`METHODS`).
    baselines : {"paper", "private"}, default "paper"
        Kim & Jung's non-private Analyze Gauss replication, or the private one.
    calibration : str, default "classic"
        The Gaussian calibration of the noisy-matrix methods.
    random_state : int, default 0
        Seeds the privacy noise (and NSGGD's start) independently per method.

    Returns
    -------
    dict
        Method → list of losses (sine of the largest principal angle), one per ε.
    """
    check_option(baselines, "baselines", ("paper", "private"))
    epsilons = tuple(float(e) for e in np.atleast_1d(epsilons))
    d = X.shape[1]
    truth = np.asarray(truth, dtype=np.float64)
    if truth.ndim != 2 or truth.shape[1] != d or truth.shape[0] > d:
        raise ValueError(f"truth must be the (k, n_features) = (k, {d}) true basis, one direction per row "
                         f"(as data.components), got shape {truth.shape}")
    k = truth.shape[0]
    seeds = np.random.SeedSequence(random_state if random_state is not None else 0).spawn(len(METHODS))
    rngs = dict(zip(METHODS, (np.random.default_rng(s) for s in seeds)))
    out = {}
    for m in methods:
        check_option(m, "method", METHODS)
        if m in ("sph", "wins"):
            est = KendallDPPCA(k, transform_kind="spherical" if m == "sph" else "winsorized", calibration=calibration)
            out[m] = _noisy_matrix_losses(est, X, truth, epsilons, delta, rngs[m])
        elif m == "AG":
            est = (NonPrivateAnalyzeGaussReplication(k, calibration=calibration) if baselines == "paper"
                   else AnalyzeGauss(k, data_norm=math.sqrt(d), calibration=calibration))
            out[m] = _noisy_matrix_losses(est, X, truth, epsilons, delta, rngs[m])
        elif m == "SGPCA":
            est = SGPCA(k, spikes=tuple(s - 1.0 for s in _SPIKES[:k]), calibration=calibration)
            out[m] = _noisy_matrix_losses(est, X, truth, epsilons, delta, rngs[m])
        else:
            seed = int(rngs[m].integers(2**31))
            losses = []
            for eps in epsilons:
                est = NSGGD(k, epsilon=eps, delta=delta, paper_normalization=baselines == "paper",
                            data_norm=math.sqrt(d), random_state=seed)
                losses.append(_loss(est.fit(X).components_, truth))
            out[m] = losses
    return {m: np.asarray(v) for m, v in out.items()}


@contextlib.contextmanager
def _quiet():
    """Silence the warnings the paper's settings raise by design (classic σ at ε ≥ 1, the
    non-private replication baselines); the results carry a note instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        yield


def _notes(epsilons, calibration, baselines):
    notes = []
    if calibration == "classic" and max(epsilons) >= 1:
        notes.append("classic σ at ε ≥ 1, as the paper (its proof needs ε < 1)")
    if baselines == "paper":
        notes.append("AG, NSGGD: the paper's data-dependent scaling, not private")
    notes.append("SGPCA: model-based Δ, not worst-case private")
    return notes


def _family_kwargs(family, df, contamination):
    check_option(family, "family", FAMILIES)
    if family == "t":
        return dict(family="t", df=df)
    if family == "contaminated":
        return dict(family="contaminated", contamination=contamination)
    return dict(family="gaussian")


def repetition_losses(family, n_samples, n_features, seed, *, epsilons=(1.0,), delta=1e-5, methods=METHODS,
                      baselines="paper", calibration="classic", df=1.0, contamination=0.05):
    """Run one repetition of Figs 2–5: draw a data set of the law from ``seed``, return :func:`method_losses`.

    ``seed`` (a :class:`numpy.random.SeedSequence`) spawns the data's generator and the noise
    seed, exactly as one cell of :func:`error_vs_n` or one repetition of :func:`error_vs_epsilon`
    does; used to run those grids cell by cell (``python -m privpca_edu.reproduce g-dppca``).

    Parameters
    ----------
    family : {"gaussian", "t", "contaminated"}
        The law of the data.
    n_samples : int
        Number of rows n.
    n_features : int
        Dimension d.
    seed : numpy.random.SeedSequence
        Spawns the data's generator and the noise seed.
    epsilons : sequence of float, default=(1.0,)
        The ε values.
    delta : float, default=1e-5
        Privacy parameter δ.
    methods : sequence of str, default=("sph", "wins", "AG", "SGPCA", "NSGGD")
        Entries of :data:`METHODS`.
    baselines : {"paper", "private"}, default="paper"
        AG and NSGGD with the paper's data-dependent scaling (not private) or with the public
        bound √d.
    calibration : {"classic", "analytic"}, default="classic"
        The Gaussian σ calibration.
    df : float, default=1.0
        Degrees of freedom of the t law (``family="t"``).
    contamination : float, default=0.05
        Replaced fraction (``family="contaminated"``).

    Returns
    -------
    dict
        Method → array of losses over ε (:func:`method_losses`).
    """
    data_rng, noise_rng = (np.random.default_rng(c) for c in seed.spawn(2))
    data = elliptical(n_samples, n_features, random_state=data_rng, **_family_kwargs(family, df, contamination))
    with _quiet(), single_threaded_blas():
        return method_losses(data.X, data.components, epsilons, delta, methods=methods, baselines=baselines,
                             calibration=calibration, random_state=int(noise_rng.integers(2**31)))


def error_vs_n(family="gaussian", *, scale="book", n_samples=None, n_features=None, n_reps=None, epsilon=1.0,
               delta=1e-5, methods=METHODS, baselines="paper", calibration="classic", df=1.0, contamination=0.05,
               progress=True, random_state=0):
    r"""Compute Figs 2–4 of Kim & Jung: mean loss against n, for each d, for one law.

    Parameters
    ----------
    family : {"gaussian", "t", "contaminated"}, default="gaussian"
        The law of the data.
    scale : {"book", "paper"}, default="book"
        The sizes (:data:`SCALES`).
    n_samples, n_features : sequence of int or None, default=None
        The grids of n and d (``None``: the scale's).
    n_reps : int or None, default=None
        Repetitions per cell (``None``: the scale's).
    epsilon : float, default=1.0
        Privacy parameter ε.
    delta : float, default=1e-5
        Privacy parameter δ.
    methods : sequence of str, default=("sph", "wins", "AG", "SGPCA", "NSGGD")
        Entries of :data:`METHODS`.
    baselines : {"paper", "private"}, default="paper"
        AG and NSGGD with the paper's data-dependent scaling (not private) or with the public
        bound √d.
    calibration : {"classic", "analytic"}, default="classic"
        The Gaussian σ calibration.
    df : float, default=1.0
        Degrees of freedom of the t law (``family="t"``).
    contamination : float, default=0.05
        Replaced fraction (``family="contaminated"``).
    progress : bool, default=True
        Show a tqdm progress bar.
    random_state : int, default=0
        Root seed of the repetitions.

    Returns
    -------
    dict
        The keys ``family``, ``n_samples`` (array), ``n_features`` (array), ``methods``, ``mean`` and ``se``
        (dict method → array (len(d), len(n))), ``losses`` (dict method → (d, n, reps)), ``epsilon``,
        ``delta``, ``settings``, ``notes``.
    """
    check_option(scale, "scale", tuple(SCALES))
    cfg = SCALES[scale]
    ns = tuple(n_samples or cfg["n_samples"])
    ds = tuple(n_features or cfg["n_features"])
    reps = check_int(n_reps or cfg["n_reps"], "n_reps", low=1)
    _family_kwargs(family, df, contamination)  # checks family before any work
    losses = {m: np.zeros((len(ds), len(ns), reps)) for m in methods}
    seq = np.random.SeedSequence(random_state)
    cells = [(i, j, r) for i in range(len(ds)) for j in range(len(ns)) for r in range(reps)]
    data_seeds = seq.spawn(len(cells))
    with _quiet():
        with single_threaded_blas():
            for (i, j, r), s in _progress(list(zip(cells, data_seeds)), progress, f"Fig. {family}", len(cells)):
                res = repetition_losses(family, ns[j], ds[i], s, epsilons=(epsilon,), delta=delta, methods=methods,
                                        baselines=baselines, calibration=calibration, df=df,
                                        contamination=contamination)
                for m in methods:
                    losses[m][i, j, r] = res[m][0]
    mean = {m: v.mean(axis=2) for m, v in losses.items()}
    se = {m: (v.std(axis=2, ddof=1) / math.sqrt(reps) if reps > 1 else np.zeros(v.shape[:2])) for m, v in losses.items()}
    return dict(family=family, n_samples=np.asarray(ns), n_features=np.asarray(ds), methods=tuple(methods), mean=mean,
                se=se, losses=losses, epsilon=epsilon, delta=delta,
                settings=dict(scale=scale, n_reps=reps, baselines=baselines, calibration=calibration, df=df,
                              contamination=contamination, spikes=_SPIKES),
                notes=_notes((epsilon,), calibration, baselines))


def figures_2_to_4(scale="book", **kwargs):
    """Compute Figs 2, 3 and 4: :func:`error_vs_n` for the Gaussian, t₁ and 5 % contaminated laws.

    Parameters
    ----------
    scale : {"book", "paper"}, default="book"
        The sizes.
    **kwargs
        Passed to :func:`error_vs_n`.

    Returns
    -------
    dict
        Family → the result of :func:`error_vs_n`.
    """
    return {family: error_vs_n(family, scale=scale, **kwargs) for family in FAMILIES}


def error_vs_epsilon(family="gaussian", *, scale="book", epsilons=None, n_samples=None, n_features=None, n_reps=None,
                     delta=1e-5, methods=METHODS, baselines="paper", calibration="classic", df=1.0, contamination=0.05,
                     progress=True, random_state=0):
    """Compute Fig. 5 of Kim & Jung: mean loss against ε at fixed n, d (book: 1000, 10; paper scale: 2000, 10).

    Parameters
    ----------
    family : {"gaussian", "t", "contaminated"}, default="gaussian"
        The law of the data.
    scale : {"book", "paper"}, default="book"
        The sizes (:data:`SCALES`).
    epsilons : sequence of float or None, default=None
        The ε values (``None``: the scale's).
    n_samples, n_features : int or None, default=None
        The fixed n and d (``None``: the scale's).
    n_reps : int or None, default=None
        Repetitions per ε (``None``: the scale's).
    delta : float, default=1e-5
        Privacy parameter δ.
    methods : sequence of str, default=("sph", "wins", "AG", "SGPCA", "NSGGD")
        Entries of :data:`METHODS`.
    baselines : {"paper", "private"}, default="paper"
        AG and NSGGD with the paper's data-dependent scaling (not private) or with the public
        bound √d.
    calibration : {"classic", "analytic"}, default="classic"
        The Gaussian σ calibration.
    df : float, default=1.0
        Degrees of freedom of the t law (``family="t"``).
    contamination : float, default=0.05
        Replaced fraction (``family="contaminated"``).
    progress : bool, default=True
        Show a tqdm progress bar.
    random_state : int, default=0
        Root seed of the repetitions.

    Returns
    -------
    dict
        As :func:`error_vs_n`, with ``epsilons`` and ``mean``/``se`` as arrays over ε.
    """
    check_option(scale, "scale", tuple(SCALES))
    cfg = SCALES[scale]
    eps = tuple(float(e) for e in (epsilons or cfg["epsilons"]))
    n = check_int(n_samples or cfg["fig5_n"], "n_samples", low=2)
    d = check_int(n_features or cfg["fig5_d"], "n_features", low=3)
    reps = check_int(n_reps or cfg["n_reps"], "n_reps", low=1)
    _family_kwargs(family, df, contamination)  # checks family before any work
    losses = {m: np.zeros((len(eps), reps)) for m in methods}
    seeds = np.random.SeedSequence(random_state).spawn(reps)
    with _quiet():
        with single_threaded_blas():
            for r, s in _progress(list(enumerate(seeds)), progress, f"Fig. 5 {family}", reps):
                res = repetition_losses(family, n, d, s, epsilons=eps, delta=delta, methods=methods,
                                        baselines=baselines, calibration=calibration, df=df,
                                        contamination=contamination)
                for m in methods:
                    losses[m][:, r] = res[m]
    mean = {m: v.mean(axis=1) for m, v in losses.items()}
    se = {m: (v.std(axis=1, ddof=1) / math.sqrt(reps) if reps > 1 else np.zeros(len(eps))) for m, v in losses.items()}
    return dict(family=family, epsilons=np.asarray(eps), n_samples=n, n_features=d, methods=tuple(methods), mean=mean,
                se=se, losses=losses, delta=delta,
                settings=dict(scale=scale, n_reps=reps, baselines=baselines, calibration=calibration, df=df,
                              contamination=contamination, spikes=_SPIKES),
                notes=_notes(eps, calibration, baselines))


def figure5(scale="book", **kwargs):
    """Compute Fig. 5 for the three laws: :func:`error_vs_epsilon` per family.

    Parameters
    ----------
    scale : {"book", "paper"}, default="book"
        The sizes.
    **kwargs
        Passed to :func:`error_vs_epsilon`.

    Returns
    -------
    dict
        Family → the result of :func:`error_vs_epsilon`.
    """
    return {family: error_vs_epsilon(family, scale=scale, **kwargs) for family in FAMILIES}


# =============================================================================================
# Twin of the heavy-tails dashboard
# =============================================================================================
@functools.lru_cache(maxsize=64)
def _coupled_data(n, d, df, contamination, seed):
    """The explorer's data: t_ν with the §9.1 dispersion, then round(η n) rows replaced by outliers.

    Same law as ``elliptical(family="t")`` followed by the ``"contaminated"`` replacement, but
    *coupled* across slider values (common random numbers): the χ²_ν radii are quantiles of fixed
    uniforms, and the outliers are the first m of a fixed random order of rows with fixed draws.
    Moving ν or η therefore changes the data continuously instead of redrawing it.
    Cached: the key holds everything the data depend on.
    """
    rng = np.random.default_rng([seed, 9091])
    V = spike_directions(d, 2).T  # (d, 2): the spikes as columns, for the products below
    lam = np.asarray(_SPIKES)
    W = rng.standard_normal((n, d))
    q = rng.uniform(size=n)
    order = rng.permutation(n)
    Z = rng.standard_normal((n, d))
    X = W + ((W @ V) * (np.sqrt(lam) - 1.0)) @ V.T
    if not math.isinf(df):
        X /= np.sqrt(stats.chi2.ppf(q, df) / df)[:, None]
    u = outlier_direction(V.T)
    m = int(round(contamination * n))
    out = order[:m]
    kappa = 10.0 * lam[0]
    X[out] = Z[out] + np.outer(Z[out] @ u * (math.sqrt(kappa) - 1.0), u)
    mask = np.zeros(n, dtype=bool)
    mask[out] = True
    X.setflags(write=False)
    mask.setflags(write=False)
    return X, V, u, mask


@functools.lru_cache(maxsize=64)
def _explorer_statistics(n, d, df, contamination, seed, baselines, calibration):
    """Noiseless statistics of the noisy-matrix methods for one data set (ε-independent; cached)."""
    X, V, u, mask = _coupled_data(n, d, df, contamination, seed)
    k = 2
    ests = {
        "sph": KendallDPPCA(k, calibration=calibration),
        "wins": KendallDPPCA(k, transform_kind="winsorized", calibration=calibration),
        "AG": (NonPrivateAnalyzeGaussReplication(k, calibration=calibration) if baselines == "paper"
               else AnalyzeGauss(k, data_norm=math.sqrt(d), calibration=calibration)),
        "SGPCA": SGPCA(k, spikes=tuple(s - 1.0 for s in _SPIKES), calibration=calibration),
    }
    rng = np.random.default_rng([seed, 4242])
    # The two Kendall τ matrices (O(n²d) each, in large BLAS products and array operations that
    # release the GIL) are most of the work: the spherical one goes to a second thread.
    with _quiet():
        sph, rest = in_parallel(lambda: ests["sph"].release_parts(X),
                                lambda: {m: est.release_parts(X) for m, est in ests.items() if m != "sph"})
    rest["sph"] = sph
    parts = {m: (est, rest[m]) for m, est in ests.items()}
    noise = {m: symmetric_noise(d, 1.0, convention=p.convention, random_state=rng) for m, (_, p) in parts.items()}
    return parts, noise, int(rng.integers(2**31))


def clear_caches():
    """Forget the twins' cached data sets, statistics, draws and curves.

    Forget the twins' cached data sets, statistics, draws and curves (e.g. before timing a cold
    start).  The population eigenvalues behind the bound (a Monte-Carlo integral per (d, ν), which
    the dashboard computes once when it is built) are kept.
    """
    for f in (_coupled_data, _explorer_statistics, _nsggd_inputs, _breakdown_base, _breakdown_parts,
              _breakdown_unit_noise, _breakdown_curves):
        f.cache_clear()


#: NSGGD's settings in the explorer (the estimator's defaults: T = 50, η = 1, full batch, Haar start).
_NSGGD = NSGGD(2)


@functools.lru_cache(maxsize=64)
def _nsggd_inputs(n, d, df, contamination, seed, baselines, calibration):
    """What ``NSGGD(2, paper_normalization=baselines == "paper", data_norm=√d,
    random_state=nsggd_seed).fit(X)`` computes before its loop and draws in it, none of which
    depends on ε or δ: the rows as fit prepares them (centred and max-norm scaled, or clipped to
    √d), the row bound B (the rows are divided by it; σ is for B = 1), the Haar start V₀ and the standard draws Z(1..T) (the
    noise of step t is σ(ε)·Z(t) bit for bit).  Cached per explorer data set."""
    X = np.array(_coupled_data(n, d, df, contamination, seed)[0])
    nsggd_seed = _explorer_statistics(n, d, df, contamination, seed, baselines, calibration)[2]
    if baselines == "paper":  # as NSGGD.fit with paper_normalization=True (not private)
        X -= X.mean(axis=0)
        top = float(np.max(np.linalg.norm(X, axis=1)))
        if top > 0:
            X /= top
        data_norm = 1.0
    else:
        with _quiet():
            X, _ = clip_rows(X, math.sqrt(d), warn=True)
        data_norm = math.sqrt(d)
        X /= data_norm  # NSGGD runs on X/B (scale-equivariant), σ calibrated for B = 1
    rng = as_generator(nsggd_seed)
    V0 = random_orthonormal(d, 2, rng)
    Z = np.array([rng.standard_normal((d, 2)) for _ in range(_NSGGD.n_iter)])
    for a in (X, V0, Z):
        a.setflags(write=False)
    return X, data_norm, V0, Z


def _nsggd_lockstep(inputs, epsilon, delta):
    """``NSGGD.fit`` on several data sets at once (its loop with full batches and constant steps,
    the steps of every data set stacked: ``ggd_gradient``, the noise projected on the tangent
    space, ``grassmann_step``); the objective values, which the loop records but never uses, are
    not computed.  Returns the components (m, d, k) as ``fit`` leaves them (``fix_signs``) and σ.
    Bit for bit the estimator's (tested)."""
    X = np.array([x for x, _, _, _ in inputs])
    V = np.array([v for _, _, v, _ in inputs])
    Z = np.stack([z for _, _, _, z in inputs], axis=1)  # (T, m, d, k)
    n = X.shape[1]
    data_norm = inputs[0][1]
    sigma = 0.0 if math.isinf(epsilon) else nsggd_noise_scale(n, epsilon, delta, _NSGGD.n_iter, 1.0)
    step = float(_NSGGD.step_size)
    with single_threaded_blas():
        for t in range(_NSGGD.n_iter):
            XV = X @ V  # ggd_gradient
            R = X - XV @ V.transpose(0, 2, 1)
            dist = np.sqrt(np.einsum("bij,bij->bi", R, R))
            scale = np.zeros_like(dist)
            on = dist > 1e-12
            scale[on] = 1.0 / dist[on]
            G = -(R * scale[:, :, None]).transpose(0, 2, 1) @ XV / n
            if sigma > 0:
                N = Z[t] * sigma
                G = G + (N - V @ (V.transpose(0, 2, 1) @ N))
            U, sv, Wt = np.linalg.svd(-G, full_matrices=False)  # grassmann_step
            Vn = (V @ Wt.transpose(0, 2, 1)) * np.cos(step * sv)[:, None, :] + U * np.sin(step * sv)[:, None, :]
            Q, Rq = np.linalg.qr(Vn)
            V = Q * np.where(np.diagonal(Rq, axis1=1, axis2=2) < 0, -1.0, 1.0)[:, None, :]
    return np.array([fix_signs(v) for v in V]), sigma * data_norm  # σ in the units of X, as NSGGD.noise_scale_


def precompute_explorer_bounds(n_features=10, dfs=None):
    """Compute and cache the population eigenvalues behind :func:`heavy_tails_explorer`'s bound.

    Theorem 3.4's bound needs the eigenvalues of the population Kendall matrix, a Monte-Carlo
    estimate (50 000 draws) for each transform and ν; the first explorer call at a new ν pays
    for it.  A dashboard calls this once before its first slider move.

    Parameters
    ----------
    n_features : int, default 10
        Dimension d, as passed to :func:`heavy_tails_explorer`.
    dfs : sequence of float, optional
        The degrees of freedom ν to prepare (default :data:`DF_OPTIONS`, the slider's values).
    """
    d = check_int(n_features, "n_features", low=4)
    for df in DF_OPTIONS if dfs is None else dfs:
        for kind in ("spherical", "winsorized"):
            _population_eigs(d, kind, float(df))


@functools.lru_cache(maxsize=16)
def _population_eigs(d, transform_kind, df):
    family = "gaussian" if math.isinf(df) else "t"
    return kendall_population_eigenvalues(np.r_[_SPIKES, np.ones(d - 2)], transform_kind, family=family,
                                          df=df if family == "t" else 1.0, n_draws=50_000, random_state=0)


def heavy_tails_explorer(contamination=0.0, df=math.inf, epsilon=1.0, delta=1e-5, *, n_samples=1000, n_features=10,
                         n_reps=4, baselines="paper", calibration="classic", random_state=0):
    r"""Twin of the chapter's dashboard: every method's error at one setting, with Theorem 3.4.

    Data: multivariate t_ν (ν = ``df``, ∞ = Gaussian) with dispersion Σ = I + 9v₁v₁ᵀ + 4v₂v₂ᵀ, then a
    fraction η = ``contamination`` of rows replaced by outliers N(0, I + 99uuᵀ), u ⊥ v₁, v₂
    (:func:`_coupled_data`).  ``n_reps`` data sets (seeds ``random_state`` + r).

    Parameters
    ----------
    contamination : float, default=0.0
        The replaced fraction η.
    df : float, default=numpy.inf
        Degrees of freedom ν of the t law (∞: Gaussian).
    epsilon : float, default=1.0
        Privacy parameter ε.
    delta : float, default=1e-5
        Privacy parameter δ.
    n_samples : int, default=1000
        Number of rows n.
    n_features : int, default=10
        Dimension d.
    n_reps : int, default=4
        Data sets.
    baselines : {"paper", "private"}, default="paper"
        As :func:`method_losses`.
    calibration : {"classic", "analytic"}, default="classic"
        The Gaussian σ calibration.
    random_state : int, default=0
        Seed of the first data set.

    Returns
    -------
    dict
        The keys ``methods``, ``losses`` (method → array over reps), ``mean``, ``bound`` (method → Thm 3.4
        rate form with C = 1 for "sph"/"wins"), ``bound_terms``, ``scatter`` (first data set
        in the (v₁, u) plane: coordinates and outlier mask), ``directions`` (method → the 2 × 2 matrix
        Bᵀ V̂, B = [v₁, u]: the shadow of the estimated subspace on that plane, first data set),
        ``noise_scale`` (σ per method), settings, ``notes``.
    """
    n = check_int(n_samples, "n_samples", low=10)
    d = check_int(n_features, "n_features", low=4)
    reps = check_int(n_reps, "n_reps", low=1)
    eta = float(contamination)
    if not (0.0 <= eta < 1.0):
        raise ValueError(f"contamination must be in [0, 1), got {contamination}")
    df = float(df)
    if not df > 0:
        raise ValueError(f"df must be > 0, got {df}")
    check_option(baselines, "baselines", ("paper", "private"))
    losses = {m: np.zeros(reps) for m in METHODS}
    sigmas = {}
    directions = {}
    # NSGGD on every data set at once (its ε-independent inputs cached): the same components as
    # NSGGD(2, epsilon, delta, paper_normalization=…, data_norm=√d, random_state=nsggd_seed).fit(X)
    nsggd, sigmas["NSGGD"] = _nsggd_lockstep([_nsggd_inputs(n, d, df, eta, random_state + r, baselines, calibration)
                                              for r in range(reps)], epsilon, delta)
    with _quiet():
        with single_threaded_blas():
            for r in range(reps):
                seed = random_state + r
                X, V, u, mask = _coupled_data(n, d, df, eta, seed)
                parts, noise, nsggd_seed = _explorer_statistics(n, d, df, eta, seed, baselines, calibration)
                comps = {}
                for m, (est, p) in parts.items():
                    sigma = gaussian_sigma(p.sensitivity, epsilon, delta, method=est.calibration)
                    sigmas[m] = sigma
                    comps[m] = top_eigenvectors(p.statistic + sigma * noise[m], 2)[1]
                comps["NSGGD"] = np.ascontiguousarray(nsggd[r].T).T  # as components_.T of the fit
                for m in METHODS:
                    losses[m][r] = _loss(comps[m], V)
                if r == 0:
                    plane = np.column_stack([V[:, 0], u])
                    scatter = dict(x=X @ V[:, 0], y=X @ u, outlier=np.asarray(mask))
                    for m in METHODS:
                        # the "shadow" of the estimated subspace on the (v₁, u) plane: the image of its
                        # unit circle, {Bᵀ V̂ c : ‖c‖ = 1}, B = [v₁, u] (a segment along v₁ for the truth)
                        directions[m] = plane.T @ comps[m]
    bounds, terms = {}, {}
    for m, kind, g2 in (("sph", "spherical", 1.0), ("wins", "winsorized", float(d))):
        lam_K = _population_eigs(d, kind, df)
        b = kendall_dppca_thm34(lam_K, 2, n, d, epsilon, delta, eta, g_sup2=g2)
        bounds[m] = b["total"]
        terms[m] = b
    return dict(methods=METHODS, losses=losses, mean={m: float(v.mean()) for m, v in losses.items()}, bound=bounds,
                bound_terms=terms, scatter=scatter, directions=directions, noise_scale=sigmas,
                contamination=eta, df=df, epsilon=float(epsilon), delta=float(delta), n_samples=n, n_features=d,
                n_reps=reps, baselines=baselines, calibration=calibration,
                notes=_notes((epsilon,), calibration, baselines))


# =============================================================================================
# Twin of the breakdown dashboard
# =============================================================================================
@functools.lru_cache(maxsize=8)
def _breakdown_base(n, lam1, seed):
    rng = np.random.default_rng([seed, 77])
    clean = rng.standard_normal((n, 2)) * [math.sqrt(lam1), 1.0]
    jitter = rng.standard_normal((n, 2))
    order = rng.permutation(n)
    for a in (clean, jitter, order):
        a.setflags(write=False)
    return clean, jitter, order


def _breakdown_data(n, lam1, seed, fraction, distance):
    return _breakdown_data_m(n, lam1, seed, int(round(fraction * n)), distance)


def _breakdown_data_m(n, lam1, seed, m, distance):
    clean, jitter, order = _breakdown_base(n, lam1, seed)
    X = clean.copy()
    idx = order[:m]
    # outliers: a cloud at distance `distance` along u = e₂ (perpendicular to v₁ = e₁), spread ∝ distance/10
    X[idx] = np.column_stack([jitter[idx, 0] * distance / 10, distance + jitter[idx, 1] * distance / 10])
    mask = np.zeros(n, dtype=bool)
    mask[idx] = True
    return X, mask, m


def _breakdown_estimators(epsilon):
    return (("AG", NonPrivateAnalyzeGaussReplication(1, epsilon=epsilon)), ("sph", KendallDPPCA(1, epsilon=epsilon)))


@functools.lru_cache(maxsize=256)
def _breakdown_parts(n, lam1, seed, m, distance):
    """Noiseless statistic and sensitivity of covariance PCA and Kendall for m outliers (cached:
    they do not depend on ε, so the privacy toggle redraws only the noise)."""
    X, _, _ = _breakdown_data_m(n, lam1, seed, m, distance)
    with _quiet():
        return {name: est.release_parts(X) for name, est in _breakdown_estimators(1.0)}


@functools.lru_cache(maxsize=8)
def _breakdown_unit_noise(convention, seed):
    E0 = symmetric_noise(2, 1.0, convention=convention, random_state=seed)
    E0.setflags(write=False)
    return E0


def _first_directions(X, epsilon, rng_seed, parts=None):
    """First component of covariance PCA (AG's statistic, paper normalisation) and of spherical
    Kendall, without noise (ε = ∞) or with the fixed noise draw scaled to ε.  ``parts``: the
    estimators' ``release_parts`` of X if known (:func:`_breakdown_parts`)."""
    out = {}
    with _quiet():
        for name, est in _breakdown_estimators(epsilon):
            p = parts[name] if parts is not None else est.release_parts(X)
            E0 = _breakdown_unit_noise(p.convention, rng_seed)
            sigma = gaussian_sigma(p.sensitivity, epsilon, 1e-5, method=est.calibration)
            out[name] = top_eigenvectors(p.statistic + sigma * E0, 1)[1][:, 0]
            out[name + "_eigs"] = np.linalg.eigvalsh(p.statistic)[::-1]
    return out


@functools.lru_cache(maxsize=32)
def _breakdown_curves(n, lam1, seed, distance, epsilon):
    fractions = np.linspace(0.0, 0.5, 51)
    curves = {"AG": np.zeros(len(fractions)), "sph": np.zeros(len(fractions))}
    ests = _breakdown_estimators(epsilon)
    with _quiet():
        for i, f in enumerate(fractions):
            parts = _breakdown_parts(n, lam1, seed, int(round(f * n)), distance)
            for name, est in ests:  # as _first_directions
                p = parts[name]
                sigma = gaussian_sigma(p.sensitivity, epsilon, 1e-5, method=est.calibration)
                v = top_eigenvectors(p.statistic + sigma * _breakdown_unit_noise(p.convention, seed), 1)[1][:, 0]
                curves[name][i] = abs(v[1])  # |sin angle to v₁ = e₁|
    for c in curves.values():
        c.setflags(write=False)
    return fractions, curves


def breakdown_demo(fraction=0.1, distance=30.0, epsilon=math.inf, *, n_samples=200, spike=9.0, random_state=0):
    r"""Twin of the breakdown dashboard: drag outliers in, watch covariance PCA break and Kendall hold.

    2-D data, n points from N(0, diag(λ₁, 1)) (target v₁ = e₁); a fraction of them replaced by a
    cloud at ``distance`` along u = e₂.  Loss: |sin θ| between the first component and v₁.  AG is
    the covariance statistic (paper normalisation), Kendall the spherical one; ``epsilon=inf``
    shows the statistics themselves (breakdown is about them), a finite ε adds each method's noise.

    Parameters
    ----------
    fraction : float, default=0.1
        Fraction of points replaced by outliers.
    distance : float, default=30.0
        Distance of the outlier cloud along u = e₂.
    epsilon : float, default=numpy.inf
        Privacy parameter ε (``numpy.inf``: the statistics themselves, no noise).
    n_samples : int, default=200
        Number of points n.
    spike : float, default=9.0
        The variance λ₁ of the clean law N(0, diag(λ₁, 1)).
    random_state : int, default=0
        Seed.

    Returns
    -------
    dict
        The keys ``X``, ``outlier`` (mask), ``directions`` (method → unit vector), ``loss`` (method → float),
        ``fractions`` and ``curves`` (loss against the outlier fraction at this distance), the
        Theorem 3.3 bound along the same fractions (``bound_curve``, clean-data eigengap) and its
        guaranteed fraction ``breakdown_lower_bound``, and the AG breakdown point 1/n.
    """
    n = check_int(n_samples, "n_samples", low=10)
    frac = float(fraction)
    if not (0.0 <= frac <= 0.5):
        raise ValueError(f"fraction must be in [0, 0.5], got {fraction}")
    dist = float(distance)
    if not dist > 0:
        raise ValueError(f"distance must be > 0, got {distance}")
    X, mask, m = _breakdown_data(n, float(spike), random_state, frac, dist)
    dirs = _first_directions(X, epsilon, random_state, parts=_breakdown_parts(n, float(spike), random_state, m, dist))
    loss = {name: abs(dirs[name][1]) for name in ("AG", "sph")}
    fractions, curves = _breakdown_curves(n, float(spike), random_state, dist, epsilon)
    clean = _breakdown_data(n, float(spike), random_state, 0.0, dist)[0]
    eig_clean = np.linalg.eigvalsh(kendall_tau_matrix(clean))[::-1]
    ms = np.round(fractions * n).astype(int)
    bd = kendall_breakdown(eig_clean, 1, n, ms)
    return dict(X=X, outlier=mask, n_outliers=m, directions={k: dirs[k] for k in ("AG", "sph")}, loss=loss,
                fractions=fractions, curves=curves, bound_curve=np.minimum(1.0, bd["sin_theta_bound"]),
                breakdown_lower_bound=bd["breakdown_lower_bound"],
                guaranteed_fraction=bd["guaranteed_replacements"] / n, covariance_breakdown=1.0 / n,
                fraction=frac, distance=dist, epsilon=float(epsilon), n_samples=n, spike=float(spike))
