r"""Chapter 1 twin: what a PCA release leaks about one person, and what noise does about it.

The story.  A clinic releases the (uncentred) second-moment matrix
:math:`A = X^\top X/n` of ``n`` patients' normalised records, and the principal components
computed from it.  ``n - 1`` records come from a population law: a spiked Gaussian model
(:func:`privpca_edu.datasets.spiked_sparse`), each row scaled to norm 0.25.  Alice's record is
unusual: it has norm 1 (the bound every private mechanism assumes) and points along the
direction in which the population varies least.

Two attacks, run by someone who knows Alice's record, the population law and — the threat
model of differential privacy — every other record in the data set:

* **reconstruction** — compare the released top component with Alice's record
  (:math:`|\cos|` close to 1 means the release *is* Alice's record);
* **membership** — decide whether Alice is in the data set ("in": the ``n - 1`` others plus
  Alice; "out": the same others plus one fresh person from the population, a replace-one
  neighbour).  Score ``"components"``: :math:`\lVert \hat V_k^\top a\rVert^2`, the energy of
  Alice's record in the released top-k components; score ``"matrix"``: :math:`a^\top\hat A a`,
  the released matrix in Alice's direction.  The attacker picks the threshold that works best
  on half of the simulated releases ("shadow" releases) and is scored on the other half.

The fix is :class:`privpca_edu.AnalyzeGauss` (analytic calibration, valid for every ε): the
released matrix is :math:`A + E`, and the components are post-processing of it.  Whatever the
attacker does, a balanced membership guess against an (ε, δ)-DP release is right with
probability at most :math:`(e^\varepsilon + \delta)/(1 + e^\varepsilon)`; against a Gaussian
mechanism with sensitivity Δ and noise σ (μ-GDP, μ = Δ/σ) at most :math:`\Phi(\mu/2)`
(:func:`membership_accuracy_bound`).  Utility is the distance
:math:`\lVert\sin\Theta\rVert_F` between the private and the non-private top-k components on
the same data (0: privacy changed nothing; ``random_level``: as good as a random guess).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from scipy import special

from .._validation import check_delta, check_epsilon, check_int, check_n_components, check_positive
from ..datasets import spiked_sparse
from ..estimators import AnalyzeGauss
from ..privacy import gaussian_sigma, symmetric_noise
from ..subspace import fix_signs, random_subspace_distance
from ._threads import in_parallel

__all__ = ["membership_attack", "membership_accuracy_bound", "EPSILON_GRID", "POPULATION_NORM",
           "cache_info", "clear_caches"]

#: ε values of the trade-off curve (13 points, 3 per decade); ε = ∞ is added as the no-noise end.
EPSILON_GRID = np.logspace(-2, 2, 13)
#: Norm of every population record (Alice's has norm 1, the public bound ``data_norm``).
POPULATION_NORM = 0.25
#: Spike of the population law (eigenvalues 5 and Uniform[0, 1] before row normalisation).
POPULATION_SPIKE = 5.0
#: Trials that enter the utility average (of the 2 × n_pairs data sets), per ε.
N_UTILITY = 24


def membership_accuracy_bound(epsilon, delta, mu=None):
    r"""The best possible accuracy of a balanced membership guess against a private release.

    Parameters
    ----------
    epsilon, delta : float
        The release is (ε, δ)-DP.  Then any test has true-positive rate
        :math:`\mathrm{TPR} \le e^\varepsilon\,\mathrm{FPR} + \delta` and
        :math:`1-\mathrm{FPR} \le e^\varepsilon(1-\mathrm{TPR}) + \delta`; maximising
        (TPR + 1 − FPR)/2 over that region gives :math:`(e^\varepsilon + \delta)/(1+e^\varepsilon)`.
    mu : float, optional
        If the release is a Gaussian mechanism with sensitivity Δ and noise σ, it is μ-GDP with
        μ = Δ/σ (Dong, Roth & Su 2019): telling the two neighbours apart is telling
        N(0, 1) from N(μ, 1), and the best test is right with probability :math:`\Phi(\mu/2)`.

    Returns
    -------
    dict
        The bounds ``"dp"`` and ``"gdp"`` (``None`` when ``mu`` is not given).

    Examples
    --------
    >>> b = membership_accuracy_bound(1.0, 0.0, mu=1.0)
    >>> round(b["dp"], 4), round(b["gdp"], 4)
    (0.7311, 0.6915)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=True)
    if math.isinf(epsilon):
        dp = 1.0
    else:
        dp = min(1.0, (1.0 + delta * math.exp(-epsilon)) / (1.0 + math.exp(-epsilon)))
    gdp = None
    if mu is not None:
        mu = check_positive(mu, "mu", allow_zero=True, allow_inf=True)
        gdp = 1.0 if math.isinf(mu) else float(special.ndtr(mu / 2))
    return {"dp": dp, "gdp": gdp}


def _readonly(a):
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


@lru_cache(maxsize=32)
def _population(n_samples, n_features, n_pairs, seed):
    """The neighbouring data sets and their noiseless second-moment matrices (cached).

    One set of ``n - 1`` others, known to the attacker (the threat model of differential
    privacy: she may know everyone but Alice).  "In" adds Alice; the ``n_pairs`` "out" data
    sets add instead one fresh person each from the population.  Returns the "in" data set,
    Alice's record, the population's leading direction, the stack of statistics
    ``A = XᵀX/n`` (in: 0..P-1, all equal; out: P..2P-1) and the sensitivity Δ/n.
    """
    n, d, P = n_samples, n_features, n_pairs
    data = spiked_sparse(n - 1 + P, d, 1, d, spike=POPULATION_SPIKE, noise_high=1.0, scaling="unit",
                         random_state=seed)
    rows = data.X  # a fresh array: scaled and reused in place (no n × d copies at n = 10⁵)
    rows *= POPULATION_NORM
    replacements = rows[n - 1:].copy()
    # Alice: unit norm, along the direction in which the population varies least.
    _, eigvecs = np.linalg.eigh(data.covariance)
    alice = fix_signs(eigvecs[:, 0])
    rows[n - 1] = alice
    X_in = rows[:n]  # the n − 1 others, then Alice
    # The noiseless statistic and its sensitivity come from the mechanism itself: ε = inf runs
    # AnalyzeGauss's own code path with σ = 0 (release_parts never adds noise).
    parts = AnalyzeGauss(n_components=1, epsilon=np.inf, delta=1e-5).release_parts(X_in)
    # Replacing Alice by b changes XᵀX/n by (bbᵀ − aaᵀ)/n: one outer product out, one in —
    # the same identity the sensitivity argument uses (tests check it against release_parts).
    swap = (np.einsum("ti,tj->tij", replacements, replacements) - np.outer(alice, alice)) / n
    stats = np.concatenate([np.broadcast_to(parts.statistic, (P, d, d)), parts.statistic + swap])
    return {
        "X_in": _readonly(X_in),
        "replacements": _readonly(replacements),
        "alice": _readonly(alice),
        "population_direction": _readonly(fix_signs(data.components[0])),
        "statistics": _readonly(stats),
        "sensitivity": parts.sensitivity,
        "convention": parts.convention,
    }


def _eigenvectors(matrices):
    """Every eigenvector of a stack of symmetric matrices, by decreasing (algebraic) eigenvalue.

    The top-k eigenvectors (as AnalyzeGauss releases them) are the first k columns, for every
    k: the decompositions below are cached without k, so moving the k slider costs none.
    """
    _, vecs = np.linalg.eigh(matrices)
    return vecs[..., ::-1]


def _top_k(matrices, k):
    """Top-k eigenvectors (by algebraic eigenvalue, as AnalyzeGauss) of a stack of symmetric matrices."""
    return _eigenvectors(matrices)[..., :k]


def _sin_theta(U, V):
    """‖sin Θ‖_F = ‖U − V VᵀU‖_F for stacks of orthonormal (d, k) bases (subspace_distance, batched)."""
    residual = U - V @ (np.swapaxes(V, -1, -2) @ U)
    return np.sqrt(np.einsum("...ij,...ij->...", residual, residual))


@lru_cache(maxsize=32)
def _nonprivate_vectors(n_samples, n_features, n_pairs, seed):
    """Non-private eigenvectors of the releases that enter the utility average (:func:`_utility_index`)."""
    pop = _population(n_samples, n_features, n_pairs, seed)
    return _readonly(_eigenvectors(pop["statistics"][_utility_index(n_pairs)]))


def _nonprivate_top(n_samples, n_features, n_components, n_pairs, seed):
    """Non-private top-k of the releases that enter the utility average (:func:`_utility_index`)."""
    return _nonprivate_vectors(n_samples, n_features, n_pairs, seed)[..., :n_components]


def _utility_index(n_pairs):
    """The first N_UTILITY/2 "in" and the first N_UTILITY/2 "out" releases."""
    m = min(N_UTILITY // 2, n_pairs)
    return np.concatenate([np.arange(m), n_pairs + np.arange(m)])


def _noise_scale(epsilon, delta, sensitivity):
    """σ of each released entry: the call AnalyzeGauss(calibration="analytic") makes.

    Asked from privpca_edu.privacy with the sensitivity the estimator itself reported, so a large X is
    not copied once per ε (tests check the result equals ``AnalyzeGauss(...).fit(X).noise_scale_``).
    """
    return gaussian_sigma(sensitivity, epsilon, delta, method="analytic")


def _best_threshold(s_in, s_out):
    """Threshold t maximising the balanced accuracy of "in if score > t" on shadow data."""
    s_in, s_out = np.sort(s_in), np.sort(s_out)
    cand = np.unique(np.concatenate([s_in, s_out]))
    tpr = 1.0 - np.searchsorted(s_in, cand, side="right") / s_in.size
    tnr = np.searchsorted(s_out, cand, side="right") / s_out.size
    acc = 0.5 * (tpr + tnr)
    i = int(np.argmax(acc))
    if acc[i] <= 0.5:  # nothing beats guessing "in" always
        return -np.inf
    upper = cand[i + 1] if i + 1 < cand.size else cand[i] + 1.0
    return 0.5 * (cand[i] + upper)


def _attack_accuracy(scores, n_pairs):
    """Calibrate on pairs [0, P/2), score on pairs [P/2, P): (accuracy, standard error)."""
    half = n_pairs // 2
    s_in, s_out = scores[:n_pairs], scores[n_pairs:]
    t = _best_threshold(s_in[:half], s_out[:half])
    e_in, e_out = s_in[half:], s_out[half:]
    acc = 0.5 * (np.mean(e_in > t) + np.mean(e_out <= t))
    se = math.sqrt(max(acc * (1 - acc), 0.25 / (e_in.size + e_out.size)) / (e_in.size + e_out.size))
    return float(acc), float(se)


@lru_cache(maxsize=8)
def _unit_noise(n_features, n_pairs, convention, seed):
    """One draw of the mechanism's noise at σ = 1 for all 2P releases (cached).

    ``privacy.symmetric_noise`` draws standard normals and multiplies by σ last, so the noise at
    any σ is exactly σ times this draw with the same seed: the releases at different ε share
    their randomness (smooth curves), and release 0 equals ``AnalyzeGauss(random_state=seed)``'s.
    """
    return _readonly(symmetric_noise(n_features, 1.0, convention=convention, size=2 * n_pairs, random_state=seed))


@lru_cache(maxsize=32)
def _scores(n_samples, n_features, n_pairs, seed):
    """aᵀAa and aᵀGa for every release: the matrix attack's score is their σ-weighted sum."""
    pop = _population(n_samples, n_features, n_pairs, seed)
    G = _unit_noise(n_features, n_pairs, pop["convention"], seed + 1)
    a = pop["alice"]
    return (_readonly(np.einsum("d,tde,e->t", a, pop["statistics"], a)),
            _readonly(np.einsum("d,tde,e->t", a, G, a)))


@lru_cache(maxsize=4)
def _release_vectors(n, d, P, seed, sigma):
    """Eigenvectors of all 2P releases at noise σ (the live ε; cached so a k move reuses them)."""
    pop = _population(n, d, P, seed)
    G = _unit_noise(d, P, pop["convention"], seed + 1)
    return _readonly(_eigenvectors(pop["statistics"] + sigma * G))


def _utility(V_sub, V_np):
    dist = _sin_theta(V_sub, V_np)
    return float(dist.mean()), float(dist.std(ddof=1) / math.sqrt(dist.size))


def _evaluate(n, d, k, P, seed, sigma, components=True):
    """Score the attacks and the utility at noise σ (every release drawn once).

    The matrix attack needs no eigendecomposition; the utility needs one for the first
    ``N_UTILITY`` releases; the components attack (``components=True``) for all 2P of them
    (which include the utility's: one decomposition serves both).
    """
    pop = _population(n, d, P, seed)
    V_np = _nonprivate_top(n, d, k, P, seed)
    base, unit = _scores(n, d, P, seed)
    acc_m, se_m = _attack_accuracy(base + sigma * unit, P)
    idx = _utility_index(P)
    if components:
        V = _release_vectors(n, d, P, seed, sigma)[..., :k]
        V_sub = V[idx]
    else:
        G = _unit_noise(d, P, pop["convention"], seed + 1)
        V_sub = _top_k(pop["statistics"][idx] + sigma * G[idx], k)
    utility, utility_se = _utility(V_sub, V_np)
    out = {
        "V_first": V_sub[0],  # release 0 is the first "in" release
        "accuracy_matrix": acc_m, "se_matrix": se_m,
        "utility": utility, "utility_se": utility_se,
    }
    if components:
        score = np.sum(np.einsum("tdk,d->tk", V, pop["alice"]) ** 2, axis=1)
        out["accuracy_components"], out["se_components"] = _attack_accuracy(score, P)
    return out


@lru_cache(maxsize=8)
def _curve_k_free(n_samples, n_features, delta, n_pairs, seed):
    """Everything of the curve that does not depend on k (cached): σ, the matrix attack and the
    bounds at every grid ε, and the eigenvectors of the utility releases (one batched call)."""
    n, d, P = n_samples, n_features, n_pairs
    pop = _population(n, d, P, seed)
    G = _unit_noise(d, P, pop["convention"], seed + 1)
    base, unit = _scores(n, d, P, seed)
    idx = _utility_index(P)
    keys = ("accuracy_matrix", "bound_dp", "bound_gdp", "noise_scale")
    out = {key: np.empty(EPSILON_GRID.size) for key in keys}
    releases = np.empty((EPSILON_GRID.size, idx.size, d, d))
    stats, noise = pop["statistics"][idx], G[idx]
    for i, eps in enumerate(EPSILON_GRID):
        sigma = _noise_scale(float(eps), delta, pop["sensitivity"])
        out["accuracy_matrix"][i] = _attack_accuracy(base + sigma * unit, P)[0]
        bound = membership_accuracy_bound(eps, delta, mu=pop["sensitivity"] / sigma)
        out["bound_dp"][i], out["bound_gdp"][i], out["noise_scale"][i] = bound["dp"], bound["gdp"], sigma
        releases[i] = stats + sigma * noise
    out = {key: _readonly(value) for key, value in out.items()}
    out["vectors"] = _readonly(_eigenvectors(releases))
    return out


@lru_cache(maxsize=64)
def _curve(n_samples, n_features, n_components, delta, n_pairs, seed):
    """The trade-off curve over :data:`EPSILON_GRID` (independent of the ε slider; cached).

    The matrix attack, the utility and the bounds at every grid ε; the components attack (an
    eigendecomposition of every release) is computed at the chosen ε only.
    """
    free = _curve_k_free(n_samples, n_features, delta, n_pairs, seed)
    V_np = _nonprivate_top(n_samples, n_features, n_components, n_pairs, seed)
    utility = np.array([_utility(V_sub, V_np)[0] for V_sub in free["vectors"][..., :n_components]])
    curve = {key: free[key] for key in ("accuracy_matrix", "bound_dp", "bound_gdp", "noise_scale")}
    curve["utility"] = _readonly(utility)
    curve["epsilon"] = _readonly(EPSILON_GRID.copy())
    return curve


def membership_attack(epsilon=1.0, n_samples=20, *, n_features=10, n_components=1, delta=1e-5,
                      n_pairs=200, random_state=0):
    r"""Reconstruction and membership attacks on a PCA release, without and with noise.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of :class:`~privpca_edu.AnalyzeGauss` (analytic calibration);
        ``numpy.inf`` means the plain, non-private release.
    n_samples : int
        Number n of records in each released data set (Alice or her replacement plus the same n − 1
        others, whom the attacker knows).
    n_features : int
        Dimension d ≥ 2.
    n_components : int
        Number of components k released (1 ≤ k ≤ d).
    delta : float
        Privacy parameter δ of the release.
    n_pairs : int
        Releases simulated per side: ``n_pairs`` of "in" (fresh noise each) and ``n_pairs``
        of "out" (a different replacement person and fresh noise each); half calibrate the
        attacker's threshold, half score it (accuracy standard error ≈ √(1/(4·n_pairs))).
    random_state : int
        Seed of the data (``random_state``) and of the noise (``random_state + 1``); the same
        noise draws are reused at every ε, so curves are smooth in ε.

    Returns
    -------
    dict
        ``alice`` (d,), ``data_in`` (the n × d "Alice in" data set, read-only; Alice is the
        last row), ``population_direction`` (d,), ``released_component`` and
        ``nonprivate_component`` (top component of the first "in" release, sign aligned with
        Alice), ``cosine`` and ``cosine_nonprivate`` (their \|cos\| with Alice's record),
        ``accuracy`` (dict: ``"components"``, ``"matrix"``) and ``accuracy_se``, ``bound``
        (dict: ``"dp"``, ``"gdp"``, see :func:`membership_accuracy_bound`), ``utility`` (mean
        ‖sin Θ‖_F between private and non-private top-k) and ``random_level``,
        ``noise_scale`` (σ of each released entry), ``sensitivity`` (Δ/n), ``mu`` (Δ/σ),
        ``curve`` (over :data:`EPSILON_GRID`: ``accuracy_matrix``, ``utility``, ``bound_dp``,
        ``bound_gdp``, ``noise_scale``), the parameters, ``notes``.

    Examples
    --------
    >>> r = membership_attack(np.inf, 20, n_pairs=40)
    >>> r["cosine"] > 0.9, r["accuracy"]["matrix"]
    (True, 1.0)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    n = check_int(n_samples, "n_samples", low=2)
    d = check_int(n_features, "n_features", low=2)
    k = check_n_components(n_components, d)
    P = check_int(n_pairs, "n_pairs", low=4)
    seed = check_int(random_state, "random_state", low=0)

    pop = _population(n, d, P, seed)
    V_np = _nonprivate_top(n, d, k, P, seed)
    _scores(n, d, P, seed)  # (and the noise) shared by both halves below: computed once, first
    sigma = 0.0 if math.isinf(epsilon) else _noise_scale(epsilon, delta, pop["sensitivity"])
    # the curve (13 × 24 eigendecompositions) and the live ε (2P of them) on two cores
    curve, res = in_parallel(lambda: _curve(n, d, k, delta, P, seed),
                             lambda: _evaluate(n, d, k, P, seed, sigma, components=True))
    mu = math.inf if sigma == 0 else pop["sensitivity"] / sigma
    bound = membership_accuracy_bound(epsilon, delta, mu=mu)

    alice = np.asarray(pop["alice"])
    v = res["V_first"][:, 0]
    v_np = V_np[0][:, 0]  # release 0: the first "in" data set
    v = v if v @ alice >= 0 else -v
    v_np = v_np if v_np @ alice >= 0 else -v_np
    notes = []
    if delta > 1.0 / n:
        notes.append(f"δ = {delta:g} > 1/n = {1 / n:g}: a weak guarantee (a mechanism may publish one record outright with probability δ)")
    return {
        "epsilon": epsilon, "delta": delta, "n_samples": n, "n_features": d, "n_components": k,
        "n_pairs": P, "random_state": seed,
        "alice": alice.copy(),
        "data_in": pop["X_in"],
        "population_direction": np.asarray(pop["population_direction"]).copy(),
        "released_component": v,
        "nonprivate_component": v_np.copy(),
        "cosine": float(abs(v @ alice)),
        "cosine_nonprivate": float(abs(v_np @ alice)),
        "accuracy": {"components": res["accuracy_components"], "matrix": res["accuracy_matrix"]},
        "accuracy_se": {"components": res["se_components"], "matrix": res["se_matrix"]},
        "bound": bound,
        "utility": res["utility"],
        "utility_se": res["utility_se"],
        "random_level": random_subspace_distance(d, k),
        "noise_scale": sigma,
        "sensitivity": pop["sensitivity"],
        "mu": mu,
        "curve": curve,
        "notes": notes,
    }


_CACHED = (_population, _nonprivate_vectors, _unit_noise, _scores, _release_vectors, _curve_k_free, _curve)


def cache_info():
    """Hit/miss counters of the slider-independent caches (used by the tests)."""
    return {f.__name__.lstrip("_"): f.cache_info() for f in _CACHED}


def clear_caches():
    for f in _CACHED:
        f.cache_clear()
