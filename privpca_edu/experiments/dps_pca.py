"""DPS-PCA's Section 5 experiments (Ge et al. 2018) as functions returning tidy arrays.

Every function defaults to the paper's settings (Ge et al. 2018, Sections 5.1–5.2: n = 10⁵,
d = 1000, k = 5, s* = 10, ŝ = 50, T = 10, one provider) and accepts ``scale="book"`` for the
smaller setting the chapter runs live.  Data: rows scaled to unit norm (a
per-record map, so it costs no privacy) so that ``data_norm = 1`` holds; the paper does not say
how it normalised, so absolute levels can differ from its figures — orderings and shapes are
what we compare.

The algorithm is the package's own: :func:`privpca_edu.estimators.dps_pca.run_dps_pca` (what
``DPSPCA.fit`` runs) on a cached scatter matrix, so one data draw serves many seeds.
"""

from __future__ import annotations

import functools
import math
import time

import numpy as np

from .._validation import check_option, as_generator, single_threaded_blas
from ..datasets import spiked_sparse, spiked_sparse_scatter
from ..estimators import PPCA
from ..estimators.ppca import bingham_gibbs
from ..estimators.dps_pca import initial_basis
from ..estimators.dps_pca import sparse_product, run_dps_pca
from ..privacy import dps_pca_sigma, mod_sulq_noise_scale, symmetric_noise
from ..subspace import sin_theta, random_subspace_distance, subspace_distance, thin_qr, top_eigenvectors
from ._lockstep import sin_theta_rows

__all__ = [
    "SCALES",
    "model_scatter",
    "trajectories",
    "figure2_theory",
    "figure3a",
    "figure3b",
    "figure4a",
    "figure4b",
    "final_error",
    "table1",
    "PAPER_TABLE1",
    "PAPER_DELTA",
    "weak_delta_warning",
]

#: Sizes of the paper and of the book's live version.
SCALES = {
    "paper": dict(n_samples=100_000, n_features=1000, n_components=5, support_size=10, sparsity=50, n_iter=10),
    "book": dict(n_samples=20_000, n_features=200, n_components=5, support_size=10, sparsity=20, n_iter=10),
}

#: The δ of the paper's Fig. 3(a) and Fig. 4(a) (Section 5): far above 1/n, so not a meaningful
#: guarantee; the chapter's dashboard offers it as a named preset, never as its default.
PAPER_DELTA = 0.3

#: The paper's Table 1 (CPU seconds, Intel Xeon 3.4 GHz; DPS-PCA "< 1 ms").
PAPER_TABLE1 = {"d": (200, 400, 800), "DPS-PCA": (1e-3, 1e-3, 1e-3), "MOD-SuLQ": (0.008, 0.021, 0.097),
                "PPCA (100 Gibbs sweeps)": (9.82, 37.46, 173.78)}


def _progress(iterable, progress, desc=""):
    """Wrap with tqdm when ``progress`` is true and tqdm is installed; else return as is."""
    if not progress:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm comes with jupyter-book, not a dependency
        return iterable
    return tqdm(iterable, desc=desc, leave=False)


def _settings(scale, **overrides):
    check_option(scale, "scale", tuple(SCALES))
    cfg = dict(SCALES[scale])
    cfg.update({k: v for k, v in overrides.items() if v is not None})
    return cfg


@functools.lru_cache(maxsize=8)
def model_scatter(n_samples, n_features, n_components, support_size, data_seed=0, scaling="unit"):
    """Return the cached scatter matrix and truth of one draw of the §5.1 model (X never stored).

    Parameters
    ----------
    n_samples, n_features, n_components, support_size : int
        Number of rows n, dimension d, number of components k and support size s* of
        :func:`~privpca_edu.datasets.spiked_sparse_scatter`.
    data_seed : int, default 0
        The data's seed.
    scaling : {"unit", "none"}, default "unit"
        Per-row scaling of the records.

    Returns
    -------
    scatter : ndarray, shape (d, d)
        XᵀX (read-only).
    n_samples : int
        Number of rows n.
    truth : ndarray, shape (k, d)
        Q*ᵀ: one true direction per row, as ``data.components``.
    eigenvalues : ndarray, shape (d,)
        The population eigenvalues, leading first.
    """
    data = spiked_sparse_scatter(n_samples, n_features, n_components, support_size, scaling=scaling,
                                 random_state=data_seed)
    scatter = data.info["scatter"]
    scatter.setflags(write=False)
    return scatter, n_samples, data.components, data.eigenvalues


def _truth_columns(truth, scatter):
    """The (k, d) ``truth`` as the contiguous (d, k) basis the iterations compare against (a copy).

    Refuses any other shape, so a (d, k) basis passed by mistake raises instead of being read
    as k = d − … directions (at k = d every basis spans R^d and the distance is 0 either way)."""
    truth = np.asarray(truth, dtype=np.float64)
    d = scatter.shape[0]
    if truth.ndim != 2 or truth.shape[1] != d or truth.shape[0] > d:
        raise ValueError(f"truth must be the (k, n_features) = (k, {d}) true basis, one direction per row "
                         f"(as data.components), got shape {truth.shape}")
    return np.ascontiguousarray(truth.T)


def trajectories(scatter, n_samples, truth, *, epsilon, delta, sparsity, n_iter, seeds, calibration="paper",
                 threshold_init=False, noise="independent"):
    """Return D(Q(t), Q*) for t = 0..T (t = 0 is the start Q(1)) for each seed.

    Exactly Algorithm 1 with one provider holding all n rows; seed s draws the random start and
    the noise, as ``DPSPCA(random_state=s)`` would.

    Parameters
    ----------
    scatter : ndarray, shape (d, d)
        XᵀX (:func:`model_scatter`).
    n_samples : int
        Number of rows n.
    truth : ndarray, shape (k, d)
        The true basis, one direction per row (as :func:`model_scatter` returns it); a (d, k)
        array raises.
    epsilon, delta : float
        The privacy budget of the whole run (``epsilon=inf``: no noise).
    sparsity : int
        Truncation level ŝ, the rows kept by each truncation.
    n_iter : int
        T.
    seeds : iterable of int or Generator
        One run per seed.
    calibration : str, default "paper"
        The calibration of σ (:func:`~privpca_edu.privacy.dps_pca_sigma`'s ``method``).
    threshold_init : bool, default False
        Truncate the random start to ŝ rows.
    noise : {"independent", "shared"}, default "independent"
        As :func:`~privpca_edu.estimators.dps_pca.run_dps_pca`.

    Returns
    -------
    ndarray, shape (n_seeds, T + 1)
        ‖sin Θ‖_F of each iterate against the truth.
    """
    truth = _truth_columns(truth, scatter)
    d, k = truth.shape
    sigma = dps_pca_sigma(epsilon, delta, n_iter, method=calibration)
    out = np.empty((len(seeds), n_iter + 1))
    with single_threaded_blas():
        for i, seed in enumerate(seeds):
            rng = as_generator(seed)
            Q1 = initial_basis("random", d, k, sparsity, threshold_init, rng)
            history, _ = run_dps_pca([scatter], [n_samples], Q1, sparsity, n_iter, sigma, noise=noise,
                                     random_state=rng)
            out[i] = [sin_theta(Q, truth) for Q in history]  # bases are orthonormal by construction
    return out


def _sweep(param_name, values, scale, epsilon, delta, n_seeds, data_seed, progress, calibration, **overrides):
    cfg = _settings(scale, **overrides)
    scatter, n, truth, eigenvalues = model_scatter(cfg["n_samples"], cfg["n_features"], cfg["n_components"],
                                                    cfg["support_size"], data_seed)
    runs = []
    for v in _progress(values, progress, param_name):
        eps, dl = (v, delta) if param_name == "epsilon" else (epsilon, v)
        runs.append(trajectories(scatter, n, truth, epsilon=eps, delta=dl, sparsity=cfg["sparsity"],
                                 n_iter=cfg["n_iter"], seeds=range(n_seeds), calibration=calibration))
    runs = np.array(runs)  # (len(values), n_seeds, T + 1)
    return dict(values=np.asarray(values, dtype=float), parameter=param_name, iteration=np.arange(cfg["n_iter"] + 1),
                mean=runs.mean(axis=1), std=runs.std(axis=1, ddof=1) if n_seeds > 1 else np.zeros(runs.shape[::2]),
                runs=runs, settings=dict(cfg, epsilon=epsilon, delta=delta, n_seeds=n_seeds, calibration=calibration),
                random_guess=random_subspace_distance(cfg["n_features"], cfg["n_components"]))


def figure3a(scale="paper", *, epsilons=(0.5, 1.0, 1.5, 2.0), delta=0.3, n_seeds=20, data_seed=0, progress=False,
             calibration="paper", **overrides):
    """Compute Fig. 3(a): error against iteration for several ε at δ = 0.3 (mean and sd over seeds).

    Parameters
    ----------
    scale : {"paper", "book"}, default="paper"
        The sizes (:data:`SCALES`).
    epsilons : sequence of float, default=(0.5, 1.0, 1.5, 2.0)
        The ε values.
    delta : float, default=0.3
        The paper's δ (not a meaningful guarantee: see :data:`PAPER_DELTA`).
    n_seeds : int, default=20
        Runs per value.
    data_seed : int, default=0
        Seed of the data.
    progress : bool, default=False
        Show a tqdm progress bar.
    calibration : str, default="paper"
        The σ calibration, as :class:`~privpca_edu.DPSPCA`.
    **overrides
        Entries of the scale's settings to replace (e.g. ``n_samples=5000``).

    Returns
    -------
    dict
        ``values``, ``parameter``, ``iteration``, ``mean`` and ``std`` (over seeds, by value and
        iteration), ``runs``, ``settings`` and ``random_guess``.
    """
    return _sweep("epsilon", epsilons, scale, None, delta, n_seeds, data_seed, progress, calibration, **overrides)


def figure3b(scale="paper", *, deltas=(0.01, 0.05, 0.1, 0.5), epsilon=1.0, n_seeds=20, data_seed=0, progress=False,
             calibration="paper", **overrides):
    """Compute Fig. 3(b): error against iteration for several δ.

    The paper's text says ε = 1.0 and its caption ε = 2.0 (Section 5, Figure 2); pass ``epsilon=`` to
    choose and label the plot with it.

    Parameters
    ----------
    scale : {"paper", "book"}, default="paper"
        The sizes (:data:`SCALES`).
    deltas : sequence of float, default=(0.01, 0.05, 0.1, 0.5)
        The δ values.
    epsilon : float, default=1.0
        The ε.
    n_seeds : int, default=20
        Runs per value.
    data_seed : int, default=0
        Seed of the data.
    progress : bool, default=False
        Show a tqdm progress bar.
    calibration : str, default="paper"
        The σ calibration, as :class:`~privpca_edu.DPSPCA`.
    **overrides
        Entries of the scale's settings to replace (e.g. ``n_samples=5000``).

    Returns
    -------
    dict
        ``values``, ``parameter``, ``iteration``, ``mean`` and ``std`` (over seeds, by value and
        iteration), ``runs``, ``settings`` and ``random_guess``.
    """
    return _sweep("delta", deltas, scale, epsilon, None, n_seeds, data_seed, progress, calibration, **overrides)


def figure2_theory(*, epsilons=None, delta=0.01, n_iter=10, n_samples=100_000, n_features=1000, n_components=5,
                   support_size=10, sparsity=50, eigenvalues=None, C1=1.0, C2=1.0, calibration="paper"):
    """Compute Fig. 2: the three terms of Theorem 4.3 against ε.

    Fig. 2: the three terms of Theorem 4.3 against ε (δ = 0.01; the paper's other parameters
    are not given, so the §5.1 model's unnormalised spectrum is the default).

    Where ``valid`` is False the theorem says nothing (the figure shades it).

    Parameters
    ----------
    epsilons : array_like or None, default=None
        The ε values (``None``: 37 points from 0.2 to 2).
    delta : float, default=0.01
        Privacy parameter δ.
    n_iter : int, default=10
        Number of iterations T.
    n_samples : int, default=100000
        Number of rows n.
    n_features : int, default=1000
        Dimension d.
    n_components : int, default=5
        Number of components k.
    support_size : int, default=10
        Size s* of the row support.
    sparsity : int, default=50
        Number ŝ of rows kept.
    eigenvalues : array_like or None, default=None
        The spectrum (``None``: k spikes of 100, the rest 10).
    C1, C2 : float, default=1.0
        The theorem's constants, as :func:`privpca_edu.bounds.dps_pca`.
    calibration : str, default="paper"
        The σ calibration.

    Returns
    -------
    dict
        Arrays over ε of ``xi_stat``, ``xi_priv``, ``xi_opt_final`` (t = T), ``total``,
        ``minimax_lower``, ``alpha``, ``rho``, ``sigma`` and the boolean ``valid``, plus ``epsilon``
        and ``delta``.
    """
    from ..bounds.distributed import dps_pca as thm43

    epsilons = np.linspace(0.2, 2.0, 37) if epsilons is None else np.asarray(epsilons, dtype=float)
    if eigenvalues is None:
        eigenvalues = np.r_[np.full(n_components, 100.0), np.full(n_features - n_components, 10.0)]
    keys = ("xi_stat", "xi_priv", "minimax_lower", "alpha", "rho", "sigma")
    out = {key: np.empty(len(epsilons)) for key in keys}
    out.update(xi_opt_final=np.empty(len(epsilons)), total=np.empty(len(epsilons)), valid=np.empty(len(epsilons), bool))
    for i, eps in enumerate(epsilons):
        r = thm43(eps, delta, n_iter, n_samples, 1, n_features, n_components, support_size, sparsity, eigenvalues,
                  C1=C1, C2=C2, calibration=calibration)
        for key in keys:
            out[key][i] = r[key]
        out["xi_opt_final"][i] = r["xi_opt"][-1]
        out["total"][i] = r["total"][-1]
        out["valid"][i] = r["valid"]
    out["epsilon"] = epsilons
    out["delta"] = delta
    return out


def _ppca_error(scatter, n_components, epsilon, sweeps, truth, rng):
    # PPCA's law exp(c·tr(VᵀXᵀXV)) with c from the estimator itself (one source of truth)
    c = PPCA(n_components, epsilon=epsilon).bingham_concentration(epsilon, 1.0)
    V = bingham_gibbs(c * scatter, n_components, sweeps, rng)
    return subspace_distance(V, truth)


def _mod_sulq_error(scatter, n, n_components, epsilon, delta, truth, rng):
    # ModSuLQ's release A + E (β from privpca_edu.privacy, the estimator's own calibration) on a cached A
    d = scatter.shape[0]
    beta = mod_sulq_noise_scale(d, n, epsilon, delta)
    _, V = top_eigenvectors(scatter / n + symmetric_noise(d, beta, random_state=rng), n_components)
    return subspace_distance(V, truth)


def final_error(method, scatter, n_samples, truth, *, epsilon, delta, sparsity=50, n_iter=10, ppca_sweeps=1000,
                random_state=None):
    """Return D(Q̂, Q*) of one run of ``method`` on a cached scatter matrix.

    One repetition of one point of Fig. 4, as :func:`figure4a` and :func:`figure4b` compute it
    (DPS-PCA's final iterate, PPCA's Gibbs sampler, MOD-SuLQ's noisy covariance), for running the
    grid point by point (``python -m privpca_edu.reproduce dps-pca``).

    Parameters
    ----------
    method : {"DPS-PCA", "PPCA", "MOD-SuLQ"}
        The method.
    scatter : ndarray, shape (d, d)
        XᵀX (:func:`model_scatter`).
    n_samples : int
        Number of rows n.
    truth : ndarray, shape (k, d)
        The true basis, one direction per row; a (d, k) array raises.
    epsilon, delta : float
        The privacy budget.
    sparsity : int, default 50
        Truncation level ŝ (DPS-PCA only).
    n_iter : int, default 10
        T (DPS-PCA only).
    ppca_sweeps : int, default 1000
        Gibbs sweeps (PPCA only).
    random_state : None, int or Generator
        Seeds the start and the noise.

    Returns
    -------
    float
        ‖sin Θ‖_F between the estimate and the truth.
    """
    check_option(method, "method", ("DPS-PCA", "PPCA", "MOD-SuLQ"))
    rng = as_generator(random_state)
    k = _truth_columns(truth, scatter).shape[1]
    if method == "DPS-PCA":
        return float(trajectories(scatter, n_samples, truth, epsilon=epsilon, delta=delta, sparsity=sparsity,
                                  n_iter=n_iter, seeds=[rng])[0, -1])
    if method == "PPCA":
        with single_threaded_blas():
            return float(_ppca_error(scatter, k, epsilon, ppca_sweeps, truth, rng))
    return float(_mod_sulq_error(scatter, n_samples, k, epsilon, delta, truth, rng))


def figure4a(scale="paper", *, epsilons=None, delta=0.3, n_seeds=3, ppca_sweeps=1000, data_seed=0, progress=False,
             **overrides):
    """Compute Fig. 4(a): final error against ε for DPS-PCA, PPCA (Gibbs) and MOD-SuLQ.

    The paper's x-axis runs 0.8–2.0 (Section 5); both D = ‖sin Θ‖_F and the projection distance
    √2·D are returned, because the paper's y-axis (up to 3.0) suggests it plotted the latter.
    PPCA with 1000 sweeps at d = 1000 costs 12 000 rank-one eigenvalue updates of size 1000
    (12 per sweep for k = 5), about three minutes per run on one core (``bingham_gibbs`` warns
    with its estimate): use ``scale="book"`` or fewer ``ppca_sweeps`` for a quick look.

    Parameters
    ----------
    scale : {"paper", "book"}, default="paper"
        The sizes (:data:`SCALES`).
    epsilons : sequence of float or None, default=None
        The ε values (``None``: the paper's 0.8–2.0).
    delta : float, default=0.3
        The paper's δ (not a meaningful guarantee).
    n_seeds : int, default=3
        Runs per point.
    ppca_sweeps : int, default=1000
        PPCA's Gibbs sweeps.
    data_seed : int, default=0
        Seed of the data.
    progress : bool, default=False
        Show a tqdm progress bar.
    **overrides
        Entries of the scale's settings to replace.

    Returns
    -------
    dict
        ``epsilon``, ``methods``, ``sin_theta`` and ``projection`` (method → mean over seeds),
        ``runs``, ``random_guess`` and ``settings``.
    """
    cfg = _settings(scale, **overrides)
    epsilons = np.round(np.arange(0.8, 2.0001, 0.1), 2) if epsilons is None else np.asarray(epsilons, float)
    scatter, n, truth, _ = model_scatter(cfg["n_samples"], cfg["n_features"], cfg["n_components"],
                                         cfg["support_size"], data_seed)
    methods = ("DPS-PCA", "PPCA", "MOD-SuLQ")
    err = {m: np.empty((len(epsilons), n_seeds)) for m in methods}
    for i, eps in enumerate(_progress(epsilons, progress, "epsilon")):
        err["DPS-PCA"][i] = trajectories(scatter, n, truth, epsilon=eps, delta=delta, sparsity=cfg["sparsity"],
                                         n_iter=cfg["n_iter"], seeds=range(n_seeds))[:, -1]
        for j in range(n_seeds):
            rng = np.random.default_rng([data_seed, i, j])
            with single_threaded_blas():
                err["PPCA"][i, j] = _ppca_error(scatter, cfg["n_components"], eps, ppca_sweeps, truth, rng)
            err["MOD-SuLQ"][i, j] = _mod_sulq_error(scatter, n, cfg["n_components"], eps, delta, truth, rng)
    return dict(epsilon=epsilons, methods=methods, sin_theta={m: e.mean(axis=1) for m, e in err.items()},
                projection={m: math.sqrt(2) * e.mean(axis=1) for m, e in err.items()}, runs=err,
                random_guess=random_subspace_distance(cfg["n_features"], cfg["n_components"]),
                settings=dict(cfg, delta=delta, n_seeds=n_seeds, ppca_sweeps=ppca_sweeps))


def figure4b(scale="paper", *, dims=(40, 60, 80, 100, 120, 140, 160), epsilon=1.0, delta=0.1, n_components=3,
             support_size=10, n_samples=None, n_seeds=3, ppca_sweeps=1000, data_seed=0, progress=False, sparsity=None):
    """Compute Fig. 4(b): final error against dimension d (n = 10⁵, ε = 1, δ = 0.1, k = 3, s* = 10).

    The paper's text says d = 40–140 and its axis runs to 160; the default covers both.

    Parameters
    ----------
    scale : {"paper", "book"}, default="paper"
        The sizes (:data:`SCALES`).
    dims : sequence of int, default=(40, 60, 80, 100, 120, 140, 160)
        The dimensions d.
    epsilon : float, default=1.0
        Privacy parameter ε.
    delta : float, default=0.1
        Privacy parameter δ.
    n_components : int, default=3
        Number of components k.
    support_size : int, default=10
        Size s* of the row support.
    n_samples : int or None, default=None
        Number of rows n (``None``: the scale's).
    n_seeds : int, default=3
        Runs per point.
    ppca_sweeps : int, default=1000
        PPCA's Gibbs sweeps.
    data_seed : int, default=0
        Seed of the data.
    progress : bool, default=False
        Show a tqdm progress bar.
    sparsity : int or None, default=None
        DPS-PCA's ŝ (``None``: the scale's).

    Returns
    -------
    dict
        ``dims``, ``methods``, ``sin_theta`` (method → mean over seeds), ``runs`` and ``settings``.
    """
    n = n_samples or SCALES[scale]["n_samples"]
    s_hat = sparsity or SCALES[scale]["sparsity"]
    methods = ("DPS-PCA", "PPCA", "MOD-SuLQ")
    err = {m: np.empty((len(dims), n_seeds)) for m in methods}
    for i, d in enumerate(_progress(dims, progress, "d")):
        scatter, _, truth, _ = model_scatter(n, d, n_components, support_size, data_seed)
        err["DPS-PCA"][i] = trajectories(scatter, n, truth, epsilon=epsilon, delta=delta, sparsity=min(s_hat, d),
                                         n_iter=SCALES[scale]["n_iter"], seeds=range(n_seeds))[:, -1]
        for j in range(n_seeds):
            rng = np.random.default_rng([data_seed, d, j])
            with single_threaded_blas():
                err["PPCA"][i, j] = _ppca_error(scatter, n_components, epsilon, ppca_sweeps, truth, rng)
            err["MOD-SuLQ"][i, j] = _mod_sulq_error(scatter, n, n_components, epsilon, delta, truth, rng)
    return dict(dims=np.asarray(dims), methods=methods, sin_theta={m: e.mean(axis=1) for m, e in err.items()},
                runs=err, settings=dict(n_samples=n, epsilon=epsilon, delta=delta, n_components=n_components,
                                         support_size=support_size, sparsity=s_hat, n_seeds=n_seeds,
                                         ppca_sweeps=ppca_sweeps))


def table1(dims=(200, 400, 800), *, n_samples=20_000, n_components=5, ppca_sweeps=100, repeats=3, data_seed=0):
    """Time the methods of Table 1 (median seconds).

    Table 1: CPU time (median seconds) of DPS-PCA (T = 10, excluding forming Σ̂, as the paper's
    "< 1 ms" implies), MOD-SuLQ (noise + top-k, excluding Σ̂) and PPCA (``ppca_sweeps`` Gibbs
    sweeps), plus the time to form Σ̂ itself.

    Parameters
    ----------
    dims : sequence of int, default=(200, 400, 800)
        The dimensions d.
    n_samples : int, default=20000
        Number of rows n.
    n_components : int, default=5
        Number of components k.
    ppca_sweeps : int, default=100
        PPCA's Gibbs sweeps.
    repeats : int, default=3
        Timings per cell (the median is kept).
    data_seed : int, default=0
        Seed of the data.

    Returns
    -------
    dict
        ``d`` and, per method and for forming Σ̂, the median seconds at each d.
    """
    rows = {"d": tuple(dims), "DPS-PCA": [], "MOD-SuLQ": [], "PPCA (100 Gibbs sweeps)": [], "form Σ̂": []}
    for d in dims:
        data = spiked_sparse(n_samples, d, n_components, 10, scaling="unit", random_state=data_seed)
        t0 = time.perf_counter()
        scatter = data.X.T @ data.X
        rows["form Σ̂"].append(time.perf_counter() - t0)
        truth = data.components
        timing = {"DPS-PCA": [], "MOD-SuLQ": [], "PPCA (100 Gibbs sweeps)": []}
        for r in range(repeats):
            t0 = time.perf_counter()
            trajectories(scatter, n_samples, truth, epsilon=1.0, delta=0.3, sparsity=50, n_iter=10, seeds=[r])
            timing["DPS-PCA"].append(time.perf_counter() - t0)
            rng = np.random.default_rng(r)
            t0 = time.perf_counter()
            _mod_sulq_error(scatter, n_samples, n_components, 1.0, 0.3, truth, rng)
            timing["MOD-SuLQ"].append(time.perf_counter() - t0)
            if r == 0:  # PPCA is slow: one run
                t0 = time.perf_counter()
                with single_threaded_blas():
                    _ppca_error(scatter, n_components, 1.0, ppca_sweeps, truth, rng)
                timing["PPCA (100 Gibbs sweeps)"].append(time.perf_counter() - t0)
        for key, values in timing.items():
            rows[key].append(float(np.median(values)))
    return rows


# ---------------------------------------------------------------------------------------------
# The chapter's live figure
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=8)
def _book_spectrum(n_samples, n_features, n_components, support_size, data_seed):
    scatter, n, _, _ = model_scatter(n_samples, n_features, n_components, support_size, data_seed)
    lam = np.linalg.eigvalsh(scatter / n)[::-1].copy()
    lam.setflags(write=False)
    return lam


def privacy_for_free_map(*, delta, n_iter, n_providers, n_features, n_components, support_size, sparsity,
                         eigenvalues, calibration="paper", epsilons=None, n_samples=None, C1=1.0):
    """Where Theorem 4.3's privacy term falls below its statistical term, over a grid of (ε, n).

    Returns ``epsilon`` (grid), ``n_samples`` (grid), ``ratio`` = ξ_priv/ξ_stat (NaN where the
    theorem says nothing) and ``valid`` (the conditions :func:`~privpca_edu.bounds.dps_pca` checks:
    ŝ ≥ s*, α < 1 − γ and a positive success probability).  Vectorised over n: σ depends on ε only.
    """
    from ..bounds import dps_pca as thm43, dps_pca_success_probability

    epsilons = np.logspace(-1, 2, 61) if epsilons is None else np.asarray(epsilons, float)
    ns = np.logspace(3, 7, 61) if n_samples is None else np.asarray(n_samples, float)
    lam = np.asarray(eigenvalues, float)
    k = n_components
    lam1, lamk, lamk1 = lam[0], lam[k - 1], lam[k]
    ref = thm43(1.0, delta, n_iter, 1000, n_providers, n_features, k, support_size, sparsity, lam, C1=C1,
                calibration=calibration)
    gamma, tau = ref["gamma"], ref["tau"]
    import warnings

    from .._validation import PrivacyWarning

    with warnings.catch_warnings():  # theory over a grid: the ε/T ≥ 1 caveat concerns no run here
        warnings.simplefilter("ignore", PrivacyWarning)
        sigmas = np.array([dps_pca_sigma(e, delta, n_iter, method=calibration) for e in epsilons])
    alpha = 2 * k * n_providers * sigmas[:, None] * (math.sqrt(sparsity) + math.sqrt(k) + tau) / (ns[None, :] * lamk)
    success = dps_pca_success_probability(n_iter, tau, ns, n_features)
    valid = (alpha < 1 - gamma) & (success[None, :] > 0) & (sparsity >= support_size)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.where(valid, gamma / (1 - alpha), np.nan)
        one_minus = 1 - rho**0.25
        xi_priv = (1 + 2 * math.sqrt(k * support_size / sparsity)) * alpha / (1 - alpha) / (math.sqrt(3) * one_minus)
        xi_stat = (C1 * math.sqrt(k) / one_minus * math.sqrt(lam1 * lamk1) / (lamk - lamk1)
                   * np.sqrt(support_size * (k + math.log(n_features)) / ns[None, :]))
        ratio = np.where(valid, xi_priv / xi_stat, np.nan)
    return dict(epsilon=epsilons, n_samples=ns, ratio=ratio, valid=valid)


#: The dashboard's largest T: the seeds' noise is drawn this far once (later draws never change
#: earlier ones), so moving the T slider draws nothing new.
_DRAWS_T = 30


def _seed_draws(d, k, s_hat, threshold_init, n_seeds, T):
    """Every seed's start Q(1) and standard noise draws Z(1), …, Z(T), stacked ((m, d, k) and
    (T, m, d, k)): what ``DPSPCA(random_state=seed)`` takes from its stream, in that order
    (:func:`trajectories`).  The noise of iteration t is σ·Z(t) bit for bit
    (``rng.standard_normal(shape) * σ``), so the draws serve every ε, δ, N and calibration."""
    Q1, Z = _seed_draws_cached(d, k, s_hat if threshold_init else None, bool(threshold_init), n_seeds,
                               max(T, _DRAWS_T))
    return Q1, Z[:T]


@functools.lru_cache(maxsize=32)
def _seed_draws_cached(d, k, s_hat, threshold_init, n_seeds, T):
    Q1 = np.empty((n_seeds, k, d)).transpose(0, 2, 1)  # each Q(1) column-major, as thin_qr returns it
    Z = np.empty((T, n_seeds, d, k))
    for seed in range(n_seeds):
        rng = as_generator(seed)
        Q1[seed] = initial_basis("random", d, k, s_hat, threshold_init, rng)  # s_hat is used only to threshold
        for t in range(T):
            Z[t, seed] = rng.standard_normal((d, k))
    Q1.setflags(write=False)
    Z.setflags(write=False)
    return Q1, Z


def _products(C, Q):
    """``estimators.dps_pca.sparse_product(C, Q[b])`` for every basis of the stack Q."""
    d = C.shape[0]
    rows = [np.flatnonzero(Qb.any(axis=1)) for Qb in Q]
    sizes = {r.size for r in rows}
    if all(size > d // 2 for size in sizes):
        return np.matmul(C, Q)
    if len(sizes) == 1:  # the usual case after the first step: ŝ kept rows in every basis
        rows = np.array(rows)
        picked = np.take_along_axis(Q, rows[:, :, None], axis=1)
        return np.matmul(picked.transpose(0, 2, 1), C[rows]).transpose(0, 2, 1)
    return np.array([sparse_product(C, Qb) for Qb in Q])


def _kept_rows_stack(V, n_rows):
    """``subspace.kept_rows(V[b], n_rows)`` for every matrix of a stack: (m, n_rows) sorted indices
    (largest row norms; among ties at the cut-off, the smaller indices)."""
    norms = np.einsum("bij,bij->bi", V, V)
    d = norms.shape[1]
    cut = np.partition(norms, d - n_rows, axis=1)[:, d - n_rows, None]
    greater = norms > cut
    ties = norms == cut
    room = n_rows - greater.sum(axis=1, keepdims=True)
    keep = greater | (ties & (np.cumsum(ties, axis=1) <= room))
    return np.nonzero(keep)[1].reshape(len(V), n_rows)


def _lockstep_trajectories(scatter, n, truth, Q1, Z, s_hat, sigma):
    """``D(Q(t), Q*)`` for t = 1..T+1 of every seed, and the last bases: the iterations of
    :func:`run_dps_pca` (its aggregated path: the server sees (ΣᵢCᵢ)Q + ΣᵢGᵢ, here
    ``scatter @ Q + σ·Z(t)`` with σ the total noise scale) and of ``truncated_orthogonal_iteration``,
    for all seeds at once.  The QR factorisations are :func:`~privpca_edu.subspace.thin_qr` on each
    seed's matrix; products, noise, row selection and distances are stacked.  Bit for bit the
    trajectories of :func:`trajectories` (tested)."""
    m, d, k = Q1.shape
    truth = _truth_columns(truth, scatter)
    T = Z.shape[0]
    out = np.empty((m, T + 1))
    Q = Q1
    out[:, 0] = sin_theta_rows(Q, truth)
    with single_threaded_blas():
        for t in range(T):
            K = (_products(scatter, Q) + Z[t] * sigma) / n
            Q = np.zeros((m, k, d)).transpose(0, 2, 1)
            if s_hat == d:
                for b in range(m):
                    Q[b] = thin_qr(thin_qr(K[b])[0])[0]
            else:
                V = np.array([thin_qr(Kb)[0] for Kb in K])
                for b, keep in enumerate(_kept_rows_stack(V, s_hat)):
                    Q[b, keep] = thin_qr(V[b, keep])[0]
            out[:, t + 1] = sin_theta_rows(Q, truth)
    return out, Q


_NONPRIVATE = {}  # (model, ŝ, seeds, start) → (trajectories with σ = 0 up to the largest T asked, last bases)


def _nonprivate_mean(n_samples, d, k, support_size, data_seed, s_hat, T, n_seeds, threshold_init):
    """Mean trajectory with σ = 0 (``trajectories(epsilon=inf)``), cached independently of T: the
    first T steps do not depend on how many follow, so a longer run's prefix is the answer, and a
    larger T continues the stored run from its last bases with the same (zero-scaled) draws."""
    key = (n_samples, d, k, support_size, data_seed, s_hat, n_seeds, threshold_init)
    runs, last = _NONPRIVATE.pop(key, (None, None))
    done = -1 if runs is None else runs.shape[1] - 1
    if done < T:
        scatter, n, truth, _ = model_scatter(n_samples, d, k, support_size, data_seed)
        Q1, Z = _seed_draws(d, k, s_hat, threshold_init, n_seeds, T)
        if runs is None:
            runs, last = _lockstep_trajectories(scatter, n, truth, Q1, Z, s_hat, 0.0)
        else:
            more, last = _lockstep_trajectories(scatter, n, truth, last, Z[done:], s_hat, 0.0)
            runs = np.concatenate([runs, more[:, 1:]], axis=1)
    _NONPRIVATE[key] = (runs, last)  # most recently used last
    while len(_NONPRIVATE) > 64:
        _NONPRIVATE.pop(next(iter(_NONPRIVATE)))
    out = runs[:, : T + 1].mean(axis=0)
    out.setflags(write=False)
    return out


def clear_caches():
    """Forget the chapter dashboard's cached draws and trajectories (e.g. before timing a cold start)."""
    for f in (_seed_draws_cached, _cached_map, _book_spectrum):
        f.cache_clear()
    _NONPRIVATE.clear()


@functools.lru_cache(maxsize=64)
def _cached_map(delta, T, N, d, k, support_size, s_hat, calibration, n_samples, data_seed):
    lam = _book_spectrum(n_samples, d, k, support_size, data_seed)
    return privacy_for_free_map(delta=delta, n_iter=T, n_providers=N, n_features=d, n_components=k,
                                support_size=support_size, sparsity=s_hat, eigenvalues=lam, calibration=calibration,
                                epsilons=np.logspace(-1, 2, 41), n_samples=np.logspace(3, 7, 41))


def weak_delta_warning(delta, n_samples):
    """Write the warning the chapter's figure shows in plain view when δ > 1/n (empty otherwise).

    Parameters
    ----------
    delta : float
        Privacy parameter δ.
    n_samples : int
        Number of rows n.

    Returns
    -------
    str
        The warning (plain text, several lines), or ``""``.
    """
    if delta <= 1 / n_samples:
        return ""
    paper = math.isclose(delta, PAPER_DELTA, rel_tol=0.015)  # a touched log slider holds 0.302
    head = ["⚠ the paper's setting:"] if paper else ["⚠ weak δ:"]
    return "\n".join(head + [f"δ = {delta:g} > 1/n = {1 / n_samples:.0e},", "not a meaningful", "privacy guarantee"])


def dps_pca_explorer(epsilon=2.0, delta=1e-5, sparsity=20, n_iter=10, n_providers=1, threshold_init=False,
                     calibration="paper", *, n_seeds=8, n_samples=20_000, n_features=200, n_components=5,
                     support_size=10, data_seed=0):
    """Twin of the chapter's dashboard: DPS-PCA error trajectories with Theorem 4.3's terms.

    The book-scale §5.1 model (rows scaled to unit norm, cached), split evenly over
    ``n_providers`` providers.  Only the aggregate Σᵢ(CᵢQ + Gᵢ) reaches the estimate and its
    exact part is the pooled scatter whatever the split, so the providers differ only in how
    much noise they add in total (√N·σ with independent noise).

    Returns a dict: ``iteration`` (0..T), ``runs`` (n_seeds × T+1), ``mean``, ``nonprivate``
    (mean trajectory with σ = 0), ``random_guess``, ``sigma``, ``bound`` (Theorem 4.3 terms:
    ``xi_stat``, ``xi_priv``, ``xi_opt`` over t = 1..T, ``valid``, ``reason``), ``map``
    (:func:`privacy_for_free_map`) and the settings; ``delta_warning`` is
    :func:`weak_delta_warning` (non-empty when δ > 1/n), which the figure shows in plain view.
    """
    from ..bounds.distributed import dps_pca as thm43
    from .._validation import check_int

    d, k = check_int(n_features, "n_features", low=2), check_int(n_components, "n_components", low=1)
    s_hat = check_int(sparsity, "sparsity", low=k, high=d)
    T = check_int(n_iter, "n_iter", low=1)
    N = check_int(n_providers, "n_providers", low=1, high=n_samples)
    scatter, n, truth, _ = model_scatter(n_samples, d, k, support_size, data_seed)
    sigma = dps_pca_sigma(epsilon, delta, T, method=calibration)
    # Only the aggregate reaches the estimate: run_dps_pca([scatter / N] * N, sizes, …,
    # total_scatter=scatter) for each seed, which the lock-step runner reproduces bit for bit with
    # the seeds' cached start and noise draws (the independent Gᵢ sum to √N·σ times one draw).
    Q1, Z = _seed_draws(d, k, s_hat, bool(threshold_init), n_seeds, T)
    runs = _lockstep_trajectories(scatter, n, truth, Q1, Z, s_hat, sigma * math.sqrt(N))[0]
    free = _nonprivate_mean(n_samples, d, k, support_size, data_seed, s_hat, T, n_seeds, bool(threshold_init))
    lam = _book_spectrum(n_samples, d, k, support_size, data_seed)
    bound = thm43(epsilon, delta, T, n, N, d, k, support_size, s_hat, lam, calibration=calibration)
    fmap = _cached_map(delta, T, N, d, k, support_size, s_hat, calibration, n_samples, data_seed)
    return dict(iteration=np.arange(T + 1), runs=runs, mean=runs.mean(axis=0), nonprivate=free,
                random_guess=random_subspace_distance(d, k), sigma=sigma, bound=bound, map=fmap, epsilon=epsilon,
                delta=delta, sparsity=s_hat, n_iter=T, n_providers=N, n_samples=n, n_features=d, n_components=k,
                support_size=support_size, threshold_init=threshold_init, calibration=calibration,
                stuck=int(np.sum(runs[:, -1] > 0.97 * math.sqrt(k))), delta_warning=weak_delta_warning(delta, n))
