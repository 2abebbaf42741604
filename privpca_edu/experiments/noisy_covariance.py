r"""Figures of the chapter *Noisy covariance: Analyze Gauss, MOD-SuLQ and PPCA*, as data.

Pure functions (no plotting, no widgets): the chapter's dashboards and static figures call
them, and so do the tests and benchmarks.  Every mechanism runs through the package's own
estimators (:class:`~privpca_edu.AnalyzeGauss`, :class:`~privpca_edu.ModSuLQ`,
:class:`~privpca_edu.PPCA`); every bound through :mod:`privpca_edu.bounds`.  Nothing here
re-derives a noise scale.

=================================  ============================================================
:func:`noisy_covariance_errors`     ε, δ, d, n, k, seed → subspace error of AG, MOD-SuLQ, PPCA
                                    over a few seeds, an ε sweep, Davis–Kahan bounds, random
                                    guess level (the live dashboard's twin)
:func:`bingham_2d`                  d = 2: axial angle of PPCA draws at several ε against the
                                    exact Bingham density
:func:`gibbs_mixing`                distance of Hoff's Gibbs chains per sweep from a worst start
:func:`mod_sulq_at_scale`           why MOD-SuLQ fails at d = 1000 (Ge et al. 2018, Section 5)
=================================  ============================================================

Errors are :math:`\lVert\sin\Theta\rVert_F` against the **non-private PCA of the same data**
(the top-k eigenvectors of :math:`X^\top X/n`): that isolates what the privacy noise costs and
is exactly what Davis–Kahan bounds.  The non-private PCA's own distance to the true subspace
(sampling error) is reported alongside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache, wraps

import numpy as np

from .. import bounds, datasets
from .._validation import check_delta, check_epsilon, check_int, check_option, check_positive, single_threaded_blas
from ..audit import audit_bingham_2d, bingham_density_2d
from ..estimators import PPCA, AnalyzeGauss, ModSuLQ
from ..estimators.ppca import bingham_gibbs, sample_bingham_exact
from ..privacy import symmetric_noise
from ..subspace import random_subspace_distance, subspace_distance, top_eigenvectors

__all__ = [
    "METHODS",
    "DEFAULT_EPSILON_GRID",
    "noisy_covariance_errors",
    "summary_rows",
    "spiked_data",
    "bingham_2d",
    "gibbs_mixing",
    "mod_sulq_at_scale",
    "normalised_spiked_eigenvalues",
    "clear_caches",
]

#: The three mechanisms of the chapter, in plotting order.
METHODS = ("AnalyzeGauss", "ModSuLQ", "PPCA")
#: ε values of the sweep drawn behind the live point (half-decades, 0.03 … 30).  Seven points
#: keep a cold sweep (new d, n, k or seed) within the live budget: PPCA's exact sampler costs
#: ~10 ms per ε at d = 30 (see the report on ``sample_bingham_exact``'s first batch size).
DEFAULT_EPSILON_GRID = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0)
#: Limits of the live dashboard's sizes: large enough to see the d-dependence, small enough that
#: one control change computes in well under 100 ms.
MAX_FEATURES = 80
MAX_SAMPLES = 20_000


def one_blas_thread(fn):
    """Run ``fn`` with BLAS limited to one thread (``_validation.single_threaded_blas``).

    These twins loop over small matrices (d ≤ 80 eigendecompositions, batches of noise):
    measured here, OpenBLAS's thread start-up makes them several times slower on 2 cores, and
    ``mod_sulq_at_scale`` 20× slower on a loaded machine.  Entering the limit costs ~1 ms.
    """

    @wraps(fn)
    def wrapper(*args, **kwargs):
        with single_threaded_blas():
            return fn(*args, **kwargs)

    return wrapper


def _frozen(a):
    a = np.asarray(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True)
class _SpikedData:
    X: np.ndarray
    components: np.ndarray  # true leading subspace (k, d): one direction per row
    second_moment: np.ndarray  # XᵀX/n, as AnalyzeGauss/ModSuLQ compute it (release_parts)
    gram: np.ndarray  # XᵀX, as PPCA's Bingham parameter is built from it (concentration 1)
    eigenvalues: np.ndarray  # of XᵀX/n, descending
    pca_basis: np.ndarray  # top-k eigenvectors of XᵀX/n as columns (d, k), a basis as in subspace
    pca_error: float  # ‖sin Θ‖_F(PCA, truth): sampling error
    eigengap: float  # λ_k − λ_{k+1} of XᵀX/n


@lru_cache(maxsize=32)
@one_blas_thread
def spiked_data(n_samples, n_features, n_components, seed):
    """Build the chapter's data, cached on (n, d, k, seed): dense spiked model, rows of unit norm.

    ``datasets.spiked_sparse`` with the paper's spectrum (k spikes of 100, a Uniform[0, 10]
    tail) and ``support_size = d`` (no sparsity: this chapter is not about sparse PCA), rows
    divided by their norms (``data_norm = 1`` then holds).  Also cached:
    the statistic the noisy-matrix estimators release (``AnalyzeGauss.release_parts``, XᵀX/n),
    the matrix PPCA's Bingham law is built from (``PPCA.bingham_parameter`` at concentration 1,
    XᵀX), the eigenvalues, the non-private PCA basis, its distance to the truth and the
    eigengap.  Arrays are read-only.

    Parameters
    ----------
    n_samples : int
        Number of rows n.
    n_features : int
        Dimension d.
    n_components : int
        Number of spikes k.
    seed : int
        Seed of the data.

    Returns
    -------
    object
        Frozen, with ``X``, ``components`` (true (d, k) basis), ``second_moment`` (XᵀX/n),
        ``gram`` (XᵀX), ``eigenvalues`` (of XᵀX/n, descending), ``pca_basis``, ``pca_error`` and
        ``eigengap``.
    """
    data = datasets.spiked_sparse(n_samples, n_features, n_components, support_size=n_features,
                                  scaling="unit", random_state=seed)
    X = data.X
    # The estimators' own statistics (not re-derived here): ε = inf gives them without noise.
    A = AnalyzeGauss(n_components, epsilon=math.inf).release_parts(X).statistic
    gram = PPCA(n_components, epsilon=2.0).bingham_parameter(X)  # concentration ε/2 = 1
    eigenvalues = np.linalg.eigvalsh(A)[::-1]
    _, basis = top_eigenvectors(A, n_components)
    return _SpikedData(
        X=_frozen(X), components=_frozen(data.components), second_moment=_frozen(A), gram=_frozen(gram),
        eigenvalues=_frozen(eigenvalues), pca_basis=_frozen(basis),
        pca_error=subspace_distance(basis, data.components),
        eigengap=float(eigenvalues[n_components - 1] - eigenvalues[n_components]),
    )


def _rng(seed, stream):
    """Independent generator per (seed, method): methods never share noise."""
    return np.random.default_rng((seed, stream))


# The fast path.  A control change must compute in well under 100 ms, and an estimator call
# re-validates, copies and re-multiplies the n×d data each time (≈ 5 ms at n = 5000, d = 50),
# 30 times for an ε sweep.  So the data-dependent statistic is taken once from the estimators
# (``spiked_data``) and each release is drawn as the estimators draw it: the same σ function
# (privacy, via bounds), the same ``symmetric_noise`` call, the same Bingham sampler.  For the
# same generator the numbers are identical to ``AnalyzeGauss.sample_releases`` /
# ``ModSuLQ.sample_releases`` / ``PPCA.sample_components`` / ``PPCA.fit`` (Gibbs):
# tests/experiments/test_chapter_experiments.py asserts it, so this path cannot drift from the estimators.
def _noisy_matrix_errors(data, noise_scale, n_draws, rng):
    d = data.second_moment.shape[0]
    k = data.pca_basis.shape[1]
    releases = data.second_moment + symmetric_noise(d, noise_scale, convention=AnalyzeGauss.noise_convention,
                                                    size=n_draws, random_state=rng)
    return np.array([subspace_distance(top_eigenvectors(R, k)[1], data.pca_basis) for R in releases])


def _ppca_errors(epsilon, data, n_draws, rng, n_sweeps):
    k = data.pca_basis.shape[1]
    if math.isinf(epsilon):
        return np.zeros(n_draws)  # PPCA(ε = inf) returns the exact top-k eigenvectors
    parameter = (epsilon / 2.0) * data.gram  # = PPCA(k, epsilon=ε).bingham_parameter(X), B = 1
    if k == 1:
        v = sample_bingham_exact(parameter, size=n_draws, random_state=rng, log_ratio=PPCA._log_ratio)
        return np.array([subspace_distance(row[:, None], data.pca_basis) for row in v])
    return np.array([subspace_distance(bingham_gibbs(parameter, k, n_sweeps, random_state=rng), data.pca_basis)
                     for _ in range(n_draws)])


def _bounds_at(data, n, d, k, epsilon, delta, calibration):
    if not data.eigengap > 0:  # pragma: no cover - a spiked model always has a gap at k
        raise ValueError("the data have no eigengap at k; Davis–Kahan does not apply")
    return {
        "AnalyzeGauss": bounds.analyze_gauss_bound(n, d, k, epsilon, delta, data.eigengap, calibration=calibration),
        "ModSuLQ": bounds.mod_sulq_bound(n, d, k, epsilon, delta, data.eigengap),
    }


def _errors_at(data, bnds, epsilon, seed, n_seeds, ppca_sweeps, include_ppca=True):
    errors = {
        "AnalyzeGauss": _noisy_matrix_errors(data, bnds["AnalyzeGauss"]["noise_scale"], n_seeds, _rng(seed, 1)),
        "ModSuLQ": _noisy_matrix_errors(data, bnds["ModSuLQ"]["noise_scale"], n_seeds, _rng(seed, 2)),
    }
    errors["PPCA"] = (_ppca_errors(epsilon, data, n_seeds, _rng(seed, 3), ppca_sweeps) if include_ppca
                      else np.full(n_seeds, np.nan))
    return errors


def _summaries(errors_per_epsilon):
    arr = np.array(errors_per_epsilon)  # (m, n_seeds)
    out = tuple(_frozen(f(arr, axis=1)) for f in (np.mean, np.min, np.max))
    return out


@lru_cache(maxsize=64)
def _noisy_matrix_sweep(n, d, k, seed, delta, n_seeds, grid, calibration):
    """ε sweep of Analyze Gauss and MOD-SuLQ (errors and capped Davis–Kahan bounds); cached."""
    data = spiked_data(n, d, k, seed)
    errs = {"AnalyzeGauss": [], "ModSuLQ": []}
    bound = {"AnalyzeGauss": [], "ModSuLQ": []}
    for eps in grid:
        bnds = _bounds_at(data, n, d, k, eps, delta, calibration)
        for stream, name in enumerate(errs, start=1):
            errs[name].append(_noisy_matrix_errors(data, bnds[name]["noise_scale"], n_seeds, _rng(seed, stream)))
            bound[name].append(bnds[name]["sin_theta_bound"])
    return {name: _summaries(e) for name, e in errs.items()}, {name: _frozen(np.array(b)) for name, b in bound.items()}


@lru_cache(maxsize=64)
def _ppca_sweep(n, d, k, seed, n_seeds, grid):
    """ε sweep of PPCA (k = 1 only: exact sampler); cached separately since δ does not enter it.

    For k > 1 its Gibbs chains cost milliseconds each, so PPCA is drawn at the live ε only and
    the sweep is NaN.
    """
    if k != 1:
        nan = _frozen(np.full(len(grid), np.nan))
        return nan, nan, nan
    data = spiked_data(n, d, k, seed)
    return _summaries([_ppca_errors(eps, data, n_seeds, _rng(seed, 3), 1) for eps in grid])


def clear_caches():
    """Forget cached data and sweeps (benchmarks measure cold control changes with it)."""
    for fn in (spiked_data, _noisy_matrix_sweep, _ppca_sweep):
        fn.cache_clear()


def _epsilon_sweep(n, d, k, seed, delta, n_seeds, grid, calibration):
    """ε sweep behind the live point: (mean, min, max, bound) dicts keyed by method."""
    noisy, bound = _noisy_matrix_sweep(n, d, k, seed, delta, n_seeds, grid, calibration)
    summaries = dict(noisy, PPCA=_ppca_sweep(n, d, k, seed, n_seeds, grid))
    mean, low, high = ({name: summaries[name][j] for name in METHODS} for j in range(3))
    return mean, low, high, bound


@one_blas_thread
def noisy_covariance_errors(epsilon=1.0, delta=1e-5, n_features=30, n_samples=2000, n_components=1, seed=0,
                            *, n_seeds=5, calibration="analytic", ppca_sweeps=2,
                            epsilon_grid=DEFAULT_EPSILON_GRID):
    r"""Subspace error of Analyze Gauss, MOD-SuLQ and PPCA on one data set, over a few seeds.

    The twin of the chapter's live dashboard.  Data: :func:`spiked_data` (cached on
    (n, d, k, seed)).  For each method, ``n_seeds`` independent runs at (ε, δ); the error is
    ‖sin Θ‖_F to the non-private PCA of the same data.  Also: the same over an ε sweep
    (cached: moving ε only recomputes the live point), the Davis–Kahan bound
    (:func:`privpca_edu.bounds.analyze_gauss_bound`, :func:`~privpca_edu.bounds.mod_sulq_bound`)
    and the random-guess level √(k(d − k)/d).

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε > 0 for all three mechanisms (``numpy.inf``: no noise).
    delta : float
        Privacy parameter δ in (0, 1) for Analyze Gauss and MOD-SuLQ (PPCA is pure ε-DP).
    n_features : int
        Dimension d in [2, 80].
    n_samples : int
        Number of rows n in [10, 20 000] (the dashboard offers 200 … 5000).
    n_components : int
        Number of components k in [1, min(3, d − 1)].
    seed : int
        Seed of the data; the mechanisms' seeds derive from it.
    n_seeds : int
        Independent runs per method (1 … 50).
    calibration : {"analytic", "classic"}
        Analyze Gauss's σ.  ``"analytic"`` (default) is valid for every ε; ``"classic"`` is the
        paper's and warns for ε ≥ 1.
    ppca_sweeps : int
        Gibbs sweeps per PPCA run when k > 1 (k = 1 uses the exact sampler).  A few sweeps mix
        well at these sizes but only approximate the Bingham law: the result's ``notes`` say so.
    epsilon_grid : sequence of float
        The ε sweep.

    Returns
    -------
    dict
        The arguments (``epsilon`` … ``calibration``), ``methods``;
        ``errors``: method → (n_seeds,) ‖sin Θ‖_F to the non-private PCA at ε;
        ``bounds``: "AnalyzeGauss"/"ModSuLQ" → the :mod:`privpca_edu.bounds` dict at ε;
        ``noise_scale``: method → σ of each noise entry of XᵀX/n (PPCA: 2B²/ε, the
        exponential mechanism's "temperature" on XᵀX);
        ``epsilon_grid`` (m,) and ``sweep_mean`` / ``sweep_min`` / ``sweep_max``: method → (m,)
        over the seeds (PPCA NaN when k > 1); ``sweep_bound``: "AnalyzeGauss"/"ModSuLQ" → (m,)
        capped Davis–Kahan bound;
        ``random_guess`` √(k(d − k)/d); ``max_distance`` √min(k, d − k);
        ``pca_error`` non-private PCA vs the true subspace; ``eigengap`` of XᵀX/n;
        ``ppca_sampler``; ``notes`` (caveats a figure prints).

    Examples
    --------
    >>> r = noisy_covariance_errors(epsilon=1.0, n_features=20, n_samples=1000, n_seeds=3)
    >>> sorted(r["errors"]), r["errors"]["AnalyzeGauss"].shape
    (['AnalyzeGauss', 'ModSuLQ', 'PPCA'], (3,))
    >>> round(r["random_guess"], 4)
    0.9747
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    d = check_int(n_features, "n_features", low=2, high=MAX_FEATURES)
    n = check_int(n_samples, "n_samples", low=10, high=MAX_SAMPLES)
    k = check_int(n_components, "n_components", low=1)
    if k > min(3, d - 1):
        raise ValueError(f"n_components must be at most min(3, n_features − 1) = {min(3, d - 1)} "
                         f"(k < d, and k ≤ 3 keeps PPCA live), got n_components={k} with n_features={d}")
    seed = check_int(seed, "seed", low=0)
    n_seeds = check_int(n_seeds, "n_seeds", low=1, high=50)
    check_option(calibration, "calibration", ("analytic", "classic"))
    ppca_sweeps = check_int(ppca_sweeps, "ppca_sweeps", low=1, high=1000)
    grid = tuple(check_epsilon(float(e), "epsilon_grid entries") for e in epsilon_grid)
    if not grid:
        raise ValueError("epsilon_grid must contain at least one value, got an empty sequence")

    data = spiked_data(n, d, k, seed)
    bnds = _bounds_at(data, n, d, k, epsilon, delta, calibration)
    errors = _errors_at(data, bnds, epsilon, seed, n_seeds, ppca_sweeps)
    mean, low, high, bound = _epsilon_sweep(n, d, k, seed, delta, n_seeds, grid, calibration)
    sampler = "exact (Kent–Ganeiber–Mardia)" if k == 1 else f"Gibbs, {ppca_sweeps} sweep(s) per run"
    notes = []
    if k > 1:
        notes.append(f"PPCA with k = {k} uses {ppca_sweeps} Gibbs sweep(s): an approximation of the "
                     "Bingham law, so its ε-DP holds only in the limit; its ε sweep is not drawn")
    return dict(
        epsilon=epsilon, delta=delta, n_features=d, n_samples=n, n_components=k, seed=seed, n_seeds=n_seeds,
        calibration=calibration, methods=METHODS,
        errors={name: _frozen(e) for name, e in errors.items()},
        bounds=bnds,
        noise_scale=dict(AnalyzeGauss=bnds["AnalyzeGauss"]["noise_scale"], ModSuLQ=bnds["ModSuLQ"]["noise_scale"],
                         PPCA=0.0 if math.isinf(epsilon) else 2.0 / epsilon),
        epsilon_grid=_frozen(np.array(grid)),
        sweep_mean=mean, sweep_min=low, sweep_max=high, sweep_bound=bound,
        random_guess=random_subspace_distance(d, k),
        max_distance=math.sqrt(min(k, d - k)),
        pca_error=data.pca_error,
        eigengap=data.eigengap,
        ppca_sampler=sampler,
        notes=notes,
    )


def summary_rows(result):
    """Summarise a :func:`noisy_covariance_errors` result as one dict per method.

    For a printed table: mean error at ε, the capped Davis–Kahan bound (None for PPCA), vacuous,
    noise scale.

    Parameters
    ----------
    result : dict
        A result of :func:`noisy_covariance_errors`.

    Returns
    -------
    list of dict
        ``method``, ``mean_error``, ``davis_kahan`` and ``vacuous`` (``None`` for PPCA) and
        ``noise_scale``.
    """
    rows = []
    for name in METHODS:
        b = result["bounds"].get(name)
        rows.append(dict(
            method=name, mean_error=float(np.mean(result["errors"][name])),
            davis_kahan=None if b is None else b["sin_theta_bound"],
            vacuous=None if b is None else b["vacuous"], noise_scale=result["noise_scale"][name],
        ))
    return rows


# ---------------------------------------------------------------------------------------------
# d = 2: what the exponential mechanism samples
# ---------------------------------------------------------------------------------------------
def _two_dimensional_data(n_samples, angle_degrees, seed):
    rng = np.random.default_rng(seed)
    t = math.radians(angle_degrees)
    R = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    Z = rng.standard_normal((n_samples, 2)) * [1.0, 0.5]
    X = Z @ R.T
    return X / np.linalg.norm(X, axis=1, keepdims=True)  # unit rows: data_norm = 1 holds


@one_blas_thread
def bingham_2d(epsilons=(0.25, 1.0, 4.0), n_samples=20, angle_degrees=30.0, n_draws=20_000, seed=0):
    r"""Sample PPCA in the plane: the law of its output direction, sampled and exact.

    Data: ``n_samples`` unit-norm points whose principal axis is at ``angle_degrees``.  For each
    ε, ``n_draws`` outputs of ``PPCA(1, epsilon=ε, sampler="exact")`` (one vectorised call), their
    axial angle θ ∈ [0, π) (v and −v are the same direction), and the exact density of θ,
    :math:`p(\theta) \propto \exp(\tfrac{\varepsilon}{2} v_\theta^\top X^\top X v_\theta)`
    (:func:`privpca_edu.audit.bingham_density_2d`), plus recipe E's χ² test of the draws.

    Parameters
    ----------
    epsilons : sequence of float, default=(0.25, 1.0, 4.0)
        The ε values.
    n_samples : int, default=20
        Number of data points.
    angle_degrees : float, default=30.0
        The data's principal axis, in degrees.
    n_draws : int, default=20000
        Outputs per ε.
    seed : int, default=0
        Seed.

    Returns
    -------
    dict
        ``epsilons``; ``theta_grid`` (radians, [0, π)); ``density``: ε → exact density on the
        grid; ``samples``: ε → angles θ of the draws; ``chi2``: ε → recipe E's
        :class:`~privpca_edu.audit.AuditResult` (an honest sampler passes; ``None`` for laws too
        concentrated for a χ² test on 60 bins); ``principal_angle`` of the data's top
        eigenvector; ``X`` the data; ``notes``.

    Examples
    --------
    >>> r = bingham_2d(epsilons=(1.0,), n_draws=2000)
    >>> r["samples"][1.0].shape, bool(r["chi2"][1.0].passed)
    ((2000,), True)
    """
    eps = tuple(check_positive(float(e), "epsilons entries") for e in epsilons)
    if not eps:
        raise ValueError("epsilons must contain at least one value")
    n = check_int(n_samples, "n_samples", low=2)
    n_draws = check_int(n_draws, "n_draws", low=100)
    angle = float(angle_degrees)
    seed = check_int(seed, "seed", low=0)
    X = _two_dimensional_data(n, angle, seed)
    _, top = top_eigenvectors(X.T @ X, 1)
    principal = float(np.mod(np.arctan2(top[1, 0], top[0, 0]), np.pi))
    grid = np.linspace(0.0, np.pi, 721)
    density, samples, chi2 = {}, {}, {}
    for j, e in enumerate(eps):
        est = PPCA(1, epsilon=e, sampler="exact")
        A = est.bingham_parameter(X)
        v = est.sample_components(X, n_draws, random_state=_rng(seed, 10 + j))
        dens = bingham_density_2d(grid, A)
        density[e] = _frozen(dens)
        samples[e] = _frozen(np.mod(np.arctan2(v[:, 1], v[:, 0]), np.pi))
        # Recipe E's χ² needs every bin's expected count to be representable: skip it for laws
        # so concentrated that the density spans more than 12 orders of magnitude.
        chi2[e] = audit_bingham_2d(v, A) if dens.min() > 1e-12 * dens.max() else None
    return dict(epsilons=eps, theta_grid=_frozen(grid), density=density, samples=samples, chi2=chi2,
                principal_angle=principal, X=_frozen(X), n_samples=n, n_draws=n_draws, notes=[])


# ---------------------------------------------------------------------------------------------
# Gibbs mixing
# ---------------------------------------------------------------------------------------------
@one_blas_thread
def gibbs_mixing(n_features=30, n_components=2, epsilon=1.0, n_samples=2000, n_sweeps=12, n_chains=6,
                 seed=0, reference_sweeps=60):
    r"""Measure how fast Hoff's Gibbs sampler forgets a worst-case start.

    Chains target PPCA's matrix Bingham law :math:`\propto \exp(\tfrac\varepsilon2\mathrm{tr}(V^\top X^\top XV))`
    (``PPCA.bingham_parameter``) on :func:`spiked_data`, started from a basis orthogonal to the
    leading subspace (distance √k, the worst start).  ``reference_sweeps``-long chains from
    random starts give the level the exact law settles at.  A finite chain only approximates
    the law, so PPCA's ε-DP holds only in the limit of infinitely many sweeps.

    Parameters
    ----------
    n_features : int, default=30
        Dimension d.
    n_components : int, default=2
        Number of components k.
    epsilon : float, default=1.0
        PPCA's ε.
    n_samples : int, default=2000
        Number of rows n.
    n_sweeps : int, default=12
        Sweeps per chain.
    n_chains : int, default=6
        Chains from the worst-case start.
    seed : int, default=0
        Seed.
    reference_sweeps : int, default=60
        Length of the reference chains from random starts.

    Returns
    -------
    dict
        ``distance`` (n_chains, n_sweeps + 1), column 0 the start; ``exact_level`` the mean
        distance of long chains from random starts (the law's typical distance);
        ``random_guess``; ``max_distance``; the arguments; ``notes``.

    Examples
    --------
    >>> r = gibbs_mixing(n_features=10, n_sweeps=3, n_chains=2, reference_sweeps=5)
    >>> r["distance"].shape
    (2, 4)
    """
    d = check_int(n_features, "n_features", low=3, high=MAX_FEATURES)
    k = check_int(n_components, "n_components", low=1, high=d // 2)
    epsilon = check_positive(epsilon, "epsilon")
    n = check_int(n_samples, "n_samples", low=10, high=MAX_SAMPLES)
    n_sweeps = check_int(n_sweeps, "n_sweeps", low=1)
    n_chains = check_int(n_chains, "n_chains", low=1)
    seed = check_int(seed, "seed", low=0)
    reference_sweeps = check_int(reference_sweeps, "reference_sweeps", low=1)
    data = spiked_data(n, d, k, seed)
    A = PPCA(k, epsilon=epsilon).bingham_parameter(data.X)
    # Worst start: the eigenvectors k+1 … 2k of XᵀX (orthogonal to the top-k subspace).
    _, V_all = np.linalg.eigh(np.asarray(data.X).T @ np.asarray(data.X))
    V0 = V_all[:, ::-1][:, k:2 * k]
    dist = np.empty((n_chains, n_sweeps + 1))
    for c in range(n_chains):
        dist[c, 0] = subspace_distance(V0, data.pca_basis)
        row = dist[c]

        def record(sweep, V, row=row):
            row[sweep + 1] = subspace_distance(V, data.pca_basis)

        bingham_gibbs(A, k, n_sweeps, random_state=_rng(seed, 100 + c), V0=V0, callback=record)
    ref = [subspace_distance(bingham_gibbs(A, k, reference_sweeps, random_state=_rng(seed, 200 + c)),
                             data.pca_basis) for c in range(n_chains)]
    return dict(distance=_frozen(dist), exact_level=float(np.mean(ref)), random_guess=random_subspace_distance(d, k),
                max_distance=math.sqrt(min(k, d - k)), n_features=d, n_components=k, epsilon=epsilon,
                n_samples=n, seed=seed, reference_sweeps=reference_sweeps, notes=[])


# ---------------------------------------------------------------------------------------------
# MOD-SuLQ at the paper's scale
# ---------------------------------------------------------------------------------------------
def normalised_spiked_eigenvalues(eigenvalues, n_draws=4000, random_state=0):
    r"""Compute the eigenvalues of :math:`\mathbb E[xx^\top/\lVert x\rVert^2]` for x ~ N(0, UΛUᵀ).

    Scaling rows to unit norm keeps the eigenvectors U (odd symmetry kills the off-diagonal
    terms) and maps λᵢ to :math:`\mathbb E[\lambda_i z_i^2 / \sum_j \lambda_j z_j^2]`, z ~ N(0, I):
    a d-dimensional Monte-Carlo average, no d×d matrix needed.

    Parameters
    ----------
    eigenvalues : array_like
        The eigenvalues λ of the covariance.
    n_draws : int, default=4000
        Monte Carlo draws.
    random_state : None, int or numpy.random.Generator, default=0
        Seed or generator.

    Returns
    -------
    means : ndarray
        The eigenvalues of the normalised second moment, in the order of ``eigenvalues``.
    ses : ndarray
        Their standard errors.
    """
    lam = np.asarray(eigenvalues, dtype=np.float64)
    n_draws = check_int(n_draws, "n_draws", low=10)
    rng = np.random.default_rng(random_state)
    acc = np.zeros_like(lam)
    acc2 = np.zeros_like(lam)
    done = 0
    chunk = max(1, 2_000_000 // lam.size)
    while done < n_draws:
        m = min(chunk, n_draws - done)
        w = rng.standard_normal((m, lam.size)) ** 2 * lam
        r = w / w.sum(axis=1, keepdims=True)
        acc += r.sum(axis=0)
        acc2 += (r * r).sum(axis=0)
        done += m
    mean = acc / n_draws
    se = np.sqrt(np.maximum(acc2 / n_draws - mean**2, 0.0) / n_draws)
    return mean, se


@one_blas_thread
def mod_sulq_at_scale(n_features=1000, n_samples=100_000, n_components=5, epsilon=1.0, delta=0.3, seed=0,
                      n_mc=4000):
    r"""Explain why MOD-SuLQ returns a random subspace at the DPS-PCA paper's scale (Ge et al. 2018, Section 5).

    The paper's model (d = 1000, n = 10⁵, k = 5, spikes 100, tail Uniform[0, 10]) with rows
    scaled to unit norm.  Computes, without generating the 800 MB data set:

    * β (``privacy.mod_sulq_noise_scale``) and the typical ‖E‖₂ ≈ 2√d β (:mod:`privpca_edu.bounds`),
      plus one simulated ‖E‖₂ (a 1000×1000 ``symmetric_noise`` draw);
    * the normalised eigenvalues (:func:`normalised_spiked_eigenvalues`): λ_k and the gap;
    * the Davis–Kahan bound (vacuous) and the random-guess level;
    * one MOD-SuLQ-sized and one Analyze-Gauss-sized perturbation of the *population* matrix
      :math:`\mathbb E[xx^\top/\lVert x\rVert^2]` and the distance of its top-k eigenvectors to
      the truth (what MOD-SuLQ / Analyze Gauss would return with infinitely many samples).

    Takes about a second (three 1000×1000 eigendecompositions).

    Parameters
    ----------
    n_features : int, default=1000
        Dimension d.
    n_samples : int, default=100000
        Number of rows n.
    n_components : int, default=5
        Number of spikes k.
    epsilon : float, default=1.0
        Privacy parameter ε.
    delta : float, default=0.3
        Privacy parameter δ (the paper's).
    seed : int, default=0
        Seed of the simulated noise.
    n_mc : int, default=4000
        Monte Carlo draws of the normalised eigenvalues.

    Returns
    -------
    dict
        The named numbers above.
    """
    d = check_int(n_features, "n_features", low=2)
    n = check_int(n_samples, "n_samples", low=1)
    k = check_int(n_components, "n_components", low=1, high=d - 1)
    epsilon = check_positive(epsilon, "epsilon")
    delta = check_delta(delta)
    seed = check_int(seed, "seed", low=0)
    model = datasets.spiked_sparse(2, d, k, support_size=min(10, d), random_state=seed)  # Σ and Q* only
    lam_pop, U = np.linalg.eigh(model.covariance)
    lam_pop, U = lam_pop[::-1], U[:, ::-1]
    lam_norm, lam_se = normalised_spiked_eigenvalues(lam_pop, n_mc, random_state=seed)
    gap = float(lam_norm[k - 1] - lam_norm[k])
    sigma_norm = (U * lam_norm) @ U.T
    ms = bounds.mod_sulq_bound(n, d, k, epsilon, delta, gap)
    ag = bounds.analyze_gauss_bound(n, d, k, epsilon, delta, gap, calibration="analytic")
    rng = _rng(seed, 7)
    G = symmetric_noise(d, 1.0, random_state=rng)  # common random numbers for both mechanisms
    measured_norm = float(np.max(np.abs(np.linalg.eigvalsh(G)))) * ms["noise_scale"]
    out = dict(
        n_features=d, n_samples=n, n_components=k, epsilon=epsilon, delta=delta,
        beta=ms["noise_scale"], expected_spectral_norm=ms["expected_spectral_norm"],
        measured_spectral_norm=measured_norm,
        lambda_k=float(lam_norm[k - 1]), lambda_k_plus_1=float(lam_norm[k]), eigengap=gap,
        lambda_se=float(lam_se[k - 1]),
        noise_to_gap=ms["noise_to_gap"], davis_kahan=ms["davis_kahan"], vacuous=ms["vacuous"],
        random_guess=ms["random_guess"], max_distance=ms["max_distance"],
        analyze_gauss_sigma=ag["noise_scale"], analyze_gauss_spectral_norm=ag["expected_spectral_norm"],
        analyze_gauss_davis_kahan=ag["sin_theta_bound"],
    )
    truth = model.components
    for name, scale in (("mod_sulq", ms["noise_scale"]), ("analyze_gauss", ag["noise_scale"])):
        _, V = top_eigenvectors(sigma_norm + scale * G, k)
        out[f"{name}_population_error"] = subspace_distance(V, truth)
    return out
