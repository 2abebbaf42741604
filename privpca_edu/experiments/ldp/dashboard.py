r"""The chapter's live dashboard twin: local dense and sparse PCA, central Analyze Gauss, bounds.

The dashboard computes each method at all the n of its curves at once (:func:`_errors_batch`):
cached standard noise draws rescaled by σ(ε), one calibration per ε, and Algorithm 2's ADMMs
as one stack (:func:`privpca_edu.estimators.local.fantope_admm_stack`).  The straightforward
computation, one estimator fit per noise draw, is :func:`_errors_now`; the tests compare them.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from functools import lru_cache

import numpy as np

from ..._validation import check_delta, check_epsilon, check_int, check_option, check_positive
from ...bounds import local as _bounds_ldp
from ...estimators import AnalyzeGauss
from ...estimators.local import check_solver_params, default_sparse_penalty, fantope_admm, fantope_admm_stack
from ...privacy import analyze_gauss_noise_scale, local_noise_scale, symmetric_noise
from ...subspace import random_subspace_distance, sin_theta, top_eigenvectors
from .._threads import in_parallel, n_workers
from ._shared import (_central_errors, _frozen, _ldp_errors, _ldp_estimator, _merge_notes, _Notes, _pca_error,
                      _stream, second_moment)
from .user_report import user_report_example

__all__ = ["DASHBOARD_N", "DASHBOARD_N_CENTRAL", "DASHBOARD_SOLVER", "PARALLEL_MIN_FEATURES", "ldp_dashboard_data"]


#: n values of the dashboard's curves (and of its n slider).
DASHBOARD_N = (10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000)
#: n values of the central (Analyze Gauss) curve: it reaches small errors with far fewer users.
DASHBOARD_N_CENTRAL = (30, 100, 300, 1000, 3000, 10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000)
#: The solver the dashboard uses for Algorithm 2 (residual balancing: ~15 iterations instead of
#: ~50, the same solution to the tolerance).
DASHBOARD_SOLVER = (("adaptive_rho", True),)
#: From this many features on, the dashboard's ADMM batch is split over two threads (below, the
#: Python overhead between the small eigendecompositions holds the GIL for most of the time).
PARALLEL_MIN_FEATURES = 30


def _errors_now(kind, n, p, k, s, gap, epsilon, delta, calibration, n_repeats, seed):
    """Errors of one method ("dense", "sparse", "central" or "nonprivate") at one n (and the
    ADMM iteration counts of "sparse"), through the estimators one fit at a time; warnings
    propagate to the caller.  The straightforward computation: the dashboard computes the same
    numbers with :func:`_errors_batch` (the tests compare the two: the same draws and notes, the
    same errors to rounding, and to the ADMM's stopping-rule tolerance for Algorithm 2)."""
    data = second_moment(n, p, k, gap=gap, support_size=s, random_state=seed)
    S, V = np.asarray(data["second_moment"]), np.asarray(data["components"]).T
    iters = None
    if kind == "central":
        errors = _central_errors(S, n, V, epsilon, delta, calibration, n_repeats, seed)
    elif kind == "nonprivate":
        errors = np.array([_pca_error(S, V)])
    else:
        errors, iters = _ldp_errors(S, n, V, kind, epsilon, delta, calibration, n_repeats, seed,
                                    dict(DASHBOARD_SOLVER) if kind == "sparse" else {})
    return _frozen(errors), None if iters is None else _frozen(iters)


@lru_cache(maxsize=1024)
def _unit_noise(p, convention, seed, *purpose):
    """The standard draw Z of one noise stream (σ = 1): ``symmetric_noise(p, σ, …)`` from the same
    stream is σ·Z bit for bit (it scales its draw last), so Z serves every ε and every n."""
    return _frozen(symmetric_noise(p, 1.0, convention=convention, random_state=_stream(seed, *purpose)))


def _projection_error(basis, V):
    """``subspace_distance(components, V, kind="projection")`` for components = basis.T stored as
    the estimators store it (a C-contiguous (k, d) array), without the input checks."""
    return math.sqrt(2.0) * sin_theta(np.ascontiguousarray(basis.T).T, V)



def _sparse_solutions(released, k, lams, est, n_threads):
    """Algorithm 2's ADMM on every released matrix, ``(Y, n_iter, converged)``: one stack
    (:func:`~privpca_edu.estimators.local.fantope_admm_stack`), or two interleaved halves on two threads."""
    def solve(part):
        res = fantope_admm_stack(released[part], k, lams[part], rho=est.rho, adaptive_rho=bool(est.adaptive_rho),
                                 tol=est.tol, max_iter=est.max_iter)
        return res.Y, res.n_iter, res.converged

    m = len(released)
    if n_threads < 2 or m < 2:
        return solve(slice(None))
    # Every other problem to each thread (each problem's iterations do not depend on the others in
    # its stack): the problems come in order of n, and the largest n (the least noise) can take
    # ten times the iterations of the smallest, so contiguous halves would leave one thread idle.
    a, b = in_parallel(lambda: solve(slice(0, None, 2)), lambda: solve(slice(1, None, 2)))
    out = []
    for x, y in zip(a, b):
        both = np.empty((m,) + x.shape[1:], dtype=x.dtype)
        both[0::2], both[1::2] = x, y
        out.append(both)
    return tuple(out)


@lru_cache(maxsize=512)
def _nonprivate_error(n, p, k, s, gap, seed):
    data = second_moment(n, p, k, gap=gap, support_size=s, random_state=seed)
    return _pca_error(np.asarray(data["second_moment"]), np.asarray(data["components"]).T)


def _errors_batch(kind, ns, p, k, s, gap, epsilon, delta, calibration, n_repeats, seed):
    """``[(errors, iterations, notes) for n in ns]``: :func:`_errors_now` at several n at once.

    The same numbers (to the tolerances of :func:`_errors_now`) and the same notes, with what
    does not depend on ε done once:
    the standard noise draws are cached (:func:`_unit_noise`: σ(ε)·Z is exactly what the fit
    draws), σ and its warnings come from the estimator's own calibration once per ε instead of
    once per fit, and Algorithm 2's ADMMs run as one stack (:func:`_sparse_solutions`)."""
    out = []
    if kind == "nonprivate":
        return [(_frozen(np.array([_nonprivate_error(n, p, k, s, gap, seed)])), None, ()) for n in ns]
    data = [second_moment(n, p, k, gap=gap, support_size=s, random_state=seed) for n in ns]
    V = np.asarray(data[0]["components"]).T
    if kind == "central":
        ag = AnalyzeGauss(k, epsilon=epsilon, delta=delta, calibration=calibration)
        for n, dat in zip(ns, data):
            with _Notes() as notes:  # as _central_errors, which the reference fit runs
                sigma = analyze_gauss_noise_scale(n, check_epsilon(epsilon), delta, 1.0, calibration)
            S = np.asarray(dat["second_moment"])
            errors = [sin_theta(top_eigenvectors(S + sigma * _unit_noise(p, ag.noise_convention, seed, "central", r),
                                                  k)[1], V) * math.sqrt(2.0) for r in range(n_repeats)]
            out.append((_frozen(np.array(errors)), None, tuple(notes.messages)))
        return out
    est = _ldp_estimator(kind, k, epsilon, delta, calibration, None, dict(DASHBOARD_SOLVER) if kind == "sparse" else {})
    with _Notes() as notes:  # what every fit_second_moment raises before its noise is drawn
        sigma1 = est.noise_calibration()["noise_scale"]
    released = []
    for n, dat in zip(ns, data):
        S, scale = np.asarray(dat["second_moment"]), sigma1 / math.sqrt(n)
        for r in range(n_repeats):
            R = S + scale * _unit_noise(p, est.noise_convention, seed, "ldp", kind, r)
            released.append((R + R.T) / 2)
    released = np.array(released)
    if kind == "dense":
        errors = [_projection_error(top_eigenvectors(R, k)[1], V) for R in released]
        iters = np.zeros(len(released), dtype=int)
        extra = [()] * len(released)
    else:
        check_solver_params(est)
        lams = np.array([default_sparse_penalty(sigma1, n, p, est.lam_scale) if est.lam is None else float(est.lam)
                         for n in ns for _ in range(n_repeats)])
        threads = n_workers() if p >= PARALLEL_MIN_FEATURES else 1
        Y, iters, converged = _sparse_solutions(released, k, lams, est, threads)
        extra = [()] * len(released)
        for i in np.flatnonzero(~converged):  # rare: rerun the solver itself for its warning
            with _Notes() as again:
                res = fantope_admm(released[i], k, lams[i], rho=est.rho, adaptive_rho=bool(est.adaptive_rho),
                                   tol=est.tol, max_iter=est.max_iter)
            Y[i], iters[i], extra[i] = res.Y, res.n_iter, tuple(again.messages)
        errors = [_projection_error(top_eigenvectors(y, k)[1], V) for y in Y]
    for j in range(len(ns)):
        rows = slice(j * n_repeats, (j + 1) * n_repeats)
        messages = _merge_notes(list(notes.messages), [m for e in extra[rows] for m in e])
        out.append((_frozen(np.array(errors[rows])), _frozen(np.asarray(iters[rows])), tuple(messages)))
    return out


_ERRORS = OrderedDict()  # (kind, n, …) → (errors, iterations, notes): an LRU of _dashboard_errors
_ERRORS_SIZE = 1024


def _store_errors(key, entry):
    _ERRORS[key] = entry
    while len(_ERRORS) > _ERRORS_SIZE:
        _ERRORS.popitem(last=False)
    return entry


def _fill_errors(kind, ns, *rest):
    """Compute the missing :func:`_dashboard_errors` of one method at the n of ``ns`` in one batch."""
    missing = [n for n in dict.fromkeys(ns) if (kind, n, *rest) not in _ERRORS]
    if missing:
        for n, entry in zip(missing, _errors_batch(kind, tuple(missing), *rest)):
            _store_errors((kind, n, *rest), entry)


def _dashboard_errors(*key):
    """(errors, iterations, short notes) of :func:`_errors_now`, cached: the dashboard's live
    point is one of its curve points, and the curves of a setting come back when only n moves
    back and forth."""
    entry = _ERRORS.get(key)
    if entry is None:
        _fill_errors(key[0], (key[1],), *key[2:])
        entry = _ERRORS[key]
    _ERRORS.move_to_end(key)
    return entry



@lru_cache(maxsize=256)
def _dashboard_curves(epsilon, p, k, s, gap, delta, calibration, n_repeats, seed):
    # Each method at all its n in one batch (Algorithm 2's ADMMs in lock step: _errors_batch).
    central_calibration = "analytic" if calibration == "analytic" else "classic"
    n_central = tuple(max(n, p) for n in DASHBOARD_N_CENTRAL)
    for kind in ("dense", "sparse", "nonprivate"):
        _fill_errors(kind, DASHBOARD_N, p, k, s, gap, epsilon, delta, calibration, n_repeats, seed)
    _fill_errors("central", n_central, p, k, s, gap, epsilon, delta, central_calibration, n_repeats, seed)
    messages = []
    rows = {"dense": [], "sparse": [], "nonprivate": []}
    for n in DASHBOARD_N:
        for kind in ("dense", "sparse", "nonprivate"):
            errors, _, notes = _dashboard_errors(kind, n, p, k, s, gap, epsilon, delta, calibration, n_repeats, seed)
            rows[kind].append(errors.mean() if kind != "nonprivate" else errors[0])
            _merge_notes(messages, notes)
    central = []
    for n in n_central:
        errors, _, notes = _dashboard_errors("central", n, p, k, s, gap, epsilon, delta, central_calibration,
                                             n_repeats, seed)
        central.append(errors.mean())
        _merge_notes(messages, notes)
    out = {key: _frozen(np.array(v)) for key, v in rows.items()}
    out["central"] = _frozen(np.array(central))
    return out, tuple(messages)



def _matching_n(n_grid, errors, target):
    """Smallest n (log-interpolated) at which a decreasing error curve reaches ``target``."""
    n_grid, errors = np.asarray(n_grid, float), np.asarray(errors, float)
    below = np.nonzero(errors <= target)[0]
    if below.size == 0:
        return math.inf
    j = int(below[0])
    if j == 0:
        return float(n_grid[0])
    e0, e1 = errors[j - 1], errors[j]
    t = 0.0 if e0 == e1 else (e0 - target) / (e0 - e1)
    return float(np.exp(np.log(n_grid[j - 1]) + t * (np.log(n_grid[j]) - np.log(n_grid[j - 1]))))



def ldp_dashboard_data(epsilon=4.0, n_samples=1_000_000, n_features=20, support_size=4, n_components=2, *,
                       gap=10.0, delta=1e-4, calibration="replacement", n_repeats=2, random_state=0):
    r"""The chapter's dashboard: local dense and sparse PCA, central Analyze Gauss, theorem bounds.

    Data: :func:`~privpca_edu.datasets.ldp_spiked` with support size s (row-sparse V), second
    moments cached (:func:`second_moment`).  At the chosen setting it reports the mean error
    (``n_repeats`` noise draws) of Algorithm 1 (:class:`LocalGaussianPCA`), Algorithm 2
    (:class:`LocalSparsePCA`, default λ, residual balancing), Analyze Gauss with the same ε, δ
    (the central model, a trusted curator) and non-private PCA; the curves of all four over n;
    the n at which central Analyze Gauss reaches the local error (the *matching* n, next to
    √n); the effective sample size nε²; Theorems 1–4 at C = 1; and one user's report
    (:func:`user_report_example`).

    Parameters
    ----------
    epsilon : float, default 4.0
        Privacy parameter ε of each user's report (and of the central mechanism).
    n_samples : int, default 1_000_000
        Number of users n, at least p; the live point (the curves span :data:`DASHBOARD_N`).
    n_features : int, default 20
        Dimension p.
    support_size : int, default 4
        Support size s, the number of non-zero rows of the true V (k ≤ s ≤ p).
    n_components : int, default 2
        Number of components k, 1 ≤ k < p.
    gap : float, default 10.0
        Δ of :func:`~privpca_edu.datasets.ldp_spiked`.
    delta : float, default 1e-4
        Privacy parameter δ of each user's report.
    calibration : {"replacement", "paper", "analytic"}, default "replacement"
        The local calibration (the central one is "analytic" when this is, else "classic").
    n_repeats : int, default 2
        Noise draws averaged at each point.
    random_state : int, default 0
        Seed of the model, the data and the noise.

    Returns
    -------
    dict
        ``errors`` (dense, sparse, central, non-private at the live point), ``curves`` (the four
        over n), ``matching_central_n``, ``sqrt_n``, ``effective_sample_size``, ``theorem``
        (Theorems 1–4 at C = 1), ``user`` (:func:`user_report_example`), ``noise_scale``,
        ``aggregate_noise_scale``, ``eigengap``, ``admm_iterations``, ``random_level``,
        ``max_error``, ``notes`` and the settings; every array read-only.
    """
    eps = check_epsilon(epsilon)
    n = check_int(n_samples, "n_samples", low=1)
    p = check_int(n_features, "n_features", low=2)
    k = check_int(n_components, "n_components", low=1, high=p - 1)
    s = check_int(support_size, "support_size", low=k, high=p)
    delta = check_delta(delta)
    gap = check_positive(gap, "gap")
    check_option(calibration, "calibration", ("replacement", "paper", "analytic"))
    seed = check_int(random_state, "random_state", low=0)
    n_repeats = check_int(n_repeats, "n_repeats", low=1)
    if n < p:
        raise ValueError(f"n_samples must be >= n_features here, got n={n} < p={p}")
    curves, curve_notes = _dashboard_curves(eps, p, k, s, float(gap), delta, calibration, n_repeats, seed)
    eigenvalues = np.asarray(second_moment(n, p, k, gap=gap, support_size=s, random_state=seed)["eigenvalues"])
    cal_central = "analytic" if calibration == "analytic" else "classic"
    live = []  # the notes of the live point, in the order its computations raise them
    dense, _, msgs = _dashboard_errors("dense", n, p, k, s, float(gap), eps, delta, calibration, n_repeats, seed)
    _merge_notes(live, msgs)
    sparse, iters, msgs = _dashboard_errors("sparse", n, p, k, s, float(gap), eps, delta, calibration, n_repeats, seed)
    _merge_notes(live, msgs)
    central, _, msgs = _dashboard_errors("central", n, p, k, s, float(gap), eps, delta, cal_central, n_repeats, seed)
    _merge_notes(live, msgs)
    with _Notes() as notes:
        sigma1 = local_noise_scale(eps, delta, 1.0, calibration)["noise_scale"]
        report = user_report_example(eps, p, k, support_size=s, gap=gap, delta=delta, calibration=calibration,
                                     random_state=seed)
    _merge_notes(live, notes.messages)
    errors = dict(dense=float(dense.mean()), sparse=float(sparse.mean()), central=float(central.mean()),
                  nonprivate=float(_nonprivate_error(n, p, k, s, float(gap), seed)))
    matching = _matching_n(DASHBOARD_N_CENTRAL, curves["central"], errors["dense"])
    theorem = dict(
        lower_dense=_bounds_ldp.ldp_lower_bound(n, p, k, eps, eigenvalues),
        upper_dense=_bounds_ldp.local_gaussian_upper_bound(n, p, k, eps, delta, eigenvalues),
        lower_sparse=_bounds_ldp.ldp_sparse_lower_bound(n, p, k, s, eps, eigenvalues),
        upper_sparse=_bounds_ldp.local_sparse_upper_bound(n, p, k, s, eps, eigenvalues),
    )
    all_notes = list(curve_notes) + [m for m in live if m not in curve_notes]
    return dict(
        epsilon=eps, n_samples=n, n_features=p, n_components=k, support_size=s, gap=gap, delta=delta,
        calibration=calibration, noise_scale=sigma1, aggregate_noise_scale=sigma1 / math.sqrt(n),
        eigengap=float(eigenvalues[k - 1] - eigenvalues[k]), errors=errors, admm_iterations=float(iters.mean()),
        curves=dict(n=np.array(DASHBOARD_N, dtype=float), n_central=np.array(DASHBOARD_N_CENTRAL, dtype=float),
                    **curves),
        matching_central_n=matching, sqrt_n=math.sqrt(n), effective_sample_size=n * eps**2,
        random_level=random_subspace_distance(p, k, kind="projection"),
        max_error=math.sqrt(2 * min(k, p - k)), theorem=theorem, user=report, notes=all_notes,
    )

