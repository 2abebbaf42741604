r"""The local-DP chapter's shared model: streams, the cached population and S, the estimators' runs.

Private to :mod:`privpca_edu.experiments.ldp` (:func:`second_moment` is re-exported there).

**Simulation shortcut.**  Everything Algorithm 1 and 2 compute depends on the data only through
:math:`S = X^\top X/n`, and the fast path adds :math:`\bar Z` to it
(:meth:`LocalGaussianPCA.fit_second_moment`).  For Gaussian rows, S has the Wishart law
:math:`W_p(\Sigma, n)/n`, which is drawn here directly in O(p³) (Bartlett decomposition) instead
of generating n rows — what makes n = 10⁷ instant.  Under this model a row exceeds norm 1 with
probability below 10⁻¹⁰ (tr Σ ≤ 1/5), so the clipping the estimators would apply is
immaterial; ``method="data"`` generates the rows instead (used when n < p, and by the tests to
check the two agree).
"""

from __future__ import annotations

import math
import warnings
from functools import lru_cache

import numpy as np

from ..._validation import check_epsilon, check_int, check_option, check_positive
from ...datasets import ldp_spiked_model
from ...estimators import AnalyzeGauss
from ...estimators.local import LocalGaussianPCA, LocalSparsePCA
from ...privacy import analyze_gauss_noise_scale, symmetric_noise
from ...subspace import subspace_distance, top_eigenvectors

__all__ = ["second_moment"]

_METHODS = ("auto", "wishart", "data")


def _frozen(a):
    a = np.asarray(a)
    a.setflags(write=False)
    return a


def _stream(seed, *keys):
    """A generator for one (seed, purpose, …) combination: independent streams, reproducible."""
    words = [int(seed)] + [int(k) if isinstance(k, (int, np.integer)) else sum(map(ord, str(k))) * 7919 + len(str(k))
                           for k in keys]
    return np.random.default_rng(np.random.SeedSequence(words))


# ---------------------------------------------------------------------------------------------
# Data: the model and the second moment, cached
# ---------------------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _model(n_features, n_components, gap, support_size, seed):
    components, Sigma, eigenvalues, support = ldp_spiked_model(n_features, n_components, gap=gap,
                                                               support_size=support_size,
                                                               random_state=_stream(seed, "model"))
    V = np.ascontiguousarray(components.T)  # (p, k): the true directions as columns, for the products here
    return _frozen(V), _frozen(Sigma), _frozen(eigenvalues), None if support is None else _frozen(support)


def _wishart_second_moment(Sigma, n, rng):
    """S = X^T X / n for n i.i.d. N(0, Σ) rows, drawn directly (Bartlett decomposition).

    The same law as ``scipy.stats.wishart(df=n, scale=Σ).rvs() / n``; kept because it consumes
    the generator in this order (the chapter's cached numbers are reproducible from their seeds).
    """
    p = Sigma.shape[0]
    L = np.linalg.cholesky(Sigma)
    A = np.tril(rng.standard_normal((p, p)), -1)
    A[np.arange(p), np.arange(p)] = np.sqrt(rng.chisquare(n - np.arange(p)))
    LA = L @ A
    S = LA @ LA.T / n
    return (S + S.T) / 2


@lru_cache(maxsize=256)
def _second_moment_cached(n, p, k, gap, support_size, seed, method):
    V, Sigma, eigenvalues, support = _model(p, k, gap, support_size, seed)
    return _draw_second_moment(np.asarray(V), np.asarray(Sigma), gap, n, method, _stream(seed, "second_moment", n))


def _draw_second_moment(V, Sigma, gap, n, method, rng):
    """(S, method used): S of n rows of the model (V, Σ), drawn with ``rng`` (see :func:`second_moment`)."""
    p = V.shape[0]
    if method == "auto":
        method = "wishart" if n >= p and n * p > 200_000 else "data"
    if method == "wishart":
        if n < p:
            raise ValueError(f"method='wishart' needs n_samples >= n_features, got n={n} < p={p}")
        return _frozen(_wishart_second_moment(Sigma, n, rng)), method
    # Rows in chunks, exactly as datasets.ldp_spiked draws them (same model V), clipped to norm 1.
    S = np.zeros((p, p))
    done = 0
    chunk = max(1, 2_000_000 // p)
    while done < n:
        m = min(chunk, n - done)
        X = _rows(V, gap, m, rng)
        S += X.T @ X
        done += m
    return _frozen(S / n), "data"


def _rows(V, gap, m, rng):
    """m rows of the ldp_spiked law on a given V (as datasets.ldp_spiked draws them), clipped to norm 1."""
    p, k = V.shape
    base = 1.0 / (5 * p * (gap + 1))
    X = math.sqrt(gap * base) * (rng.standard_normal((m, k)) @ V.T) + math.sqrt(base) * rng.standard_normal((m, p))
    norms = np.linalg.norm(X, axis=1)
    over = norms > 1.0
    X[over] /= norms[over, None]
    return X


def second_moment(n_samples, n_features, n_components, *, gap=10.0, support_size=None, random_state=0,
                  method="auto"):
    r"""The non-private :math:`S = X^\top X/n` of :func:`~privpca_edu.datasets.ldp_spiked` data, cached.

    Parameters
    ----------
    n_samples, n_features, n_components : int
        Number of users n, dimension p and number of components k (1 ≤ k < p), as
        :func:`privpca_edu.datasets.ldp_spiked`.
    gap : float, default 10.0
        Signal/gap parameter Δ > 0, as :func:`privpca_edu.datasets.ldp_spiked`.
    support_size : int, optional
        Support size s with k ≤ s ≤ p for the row-sparse model; default dense.
    random_state : int, default 0
        Seed: the model (V) depends on (p, k, Δ, s, seed) only, so curves over n share it.
    method : {"auto", "wishart", "data"}, default "auto"
        ``"wishart"``: S drawn from its exact law (needs n ≥ p); ``"data"``: n rows generated in
        chunks and clipped to norm 1; ``"auto"``: Wishart when n ≥ p and n·p > 2·10⁵.

    Returns
    -------
    dict
        ``second_moment`` (read-only), ``components`` (the true basis Vᵀ, shape (k, p): one
        direction per row), ``covariance``, ``eigenvalues``, ``support``, ``method``.
    """
    n = check_int(n_samples, "n_samples", low=1)
    p = check_int(n_features, "n_features", low=2)
    k = check_int(n_components, "n_components", low=1, high=p - 1)
    gap = check_positive(gap, "gap")
    s = None if support_size is None else check_int(support_size, "support_size", low=k, high=p)
    seed = check_int(random_state, "random_state", low=0)
    check_option(method, "method", _METHODS)
    S, used = _second_moment_cached(n, p, k, float(gap), s, seed, method)
    V, Sigma, eigenvalues, support = _model(p, k, float(gap), s, seed)
    return dict(second_moment=S, components=V.T, covariance=Sigma, eigenvalues=eigenvalues, support=support,
                method=used)


# ---------------------------------------------------------------------------------------------
# Running the estimators on a cached S
# ---------------------------------------------------------------------------------------------
class _Notes:
    """Collect warnings raised while computing, so results carry them instead of stderr."""

    def __init__(self):
        self.messages = []

    def __enter__(self):
        self._cm = warnings.catch_warnings(record=True)
        self._caught = self._cm.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)
        for w in self._caught:
            msg = _short_note(str(w.message))
            if msg not in self.messages:
                self.messages.append(msg)
        return False


def _short_note(message):
    """One short line per kind of warning (the figures print at most three)."""
    import re

    exact = re.search(r"exact \(analytic\) δ of this σ₁ at ε = ([^ ]+) is ([^ ]+) >", message)
    if message.startswith("not differentially private") and "calibration='paper'" in message:
        return "calibration='paper': σ₁ is √2 too small for its proof" + (
            f" — NOT (ε, δ)-DP at ε = {exact.group(1)} (exact δ = {exact.group(2)})" if exact else "")
    if message.startswith("not differentially private") and exact:
        return (f"ε = {exact.group(1)}: the classic constant is no longer (ε, δ)-DP (exact δ = {exact.group(2)}); "
                "use calibration='analytic'")
    if "calibration='paper'" in message:
        return "calibration='paper': σ₁ is √2 too small for its proof (still DP here by the exact condition)"
    if "proved only for epsilon < 1" in message:
        # not a verdict: every fit also checks the exact Gaussian condition and adds its own
        # "no longer (ε, δ)-DP" note when that fails
        return ("ε ≥ 1: the classic constant's own proof needs ε < 1; the exact Gaussian condition "
                "is checked instead (a note says if it fails)")
    return message


def _ldp_estimator(algorithm, k, epsilon, delta, calibration, seed, solver):
    if algorithm == "dense":
        return LocalGaussianPCA(k, epsilon=epsilon, delta=delta, calibration=calibration, random_state=seed)
    return LocalSparsePCA(k, epsilon=epsilon, delta=delta, calibration=calibration, random_state=seed, **solver)


def _ldp_errors(S, n, V, algorithm, epsilon, delta, calibration, n_repeats, seed, solver):
    k = V.shape[1]
    errors, iters = [], []
    for r in range(n_repeats):  # seed: an int (one stream per repeat) or a Generator (used in turn)
        rng = seed if isinstance(seed, np.random.Generator) else _stream(seed, "ldp", algorithm, r)
        est = _ldp_estimator(algorithm, k, epsilon, delta, calibration, rng, solver)
        est.fit_second_moment(S, n)
        errors.append(subspace_distance(est.components_, V, kind="projection"))
        iters.append(getattr(est, "n_iter_", 0))
    return np.array(errors), np.array(iters)


def _central_errors(S, n, V, epsilon, delta, calibration, n_repeats, seed):
    """Analyze Gauss on the same S: its own calibration methods, noise drawn as its fit does."""
    p, k = V.shape
    ag = AnalyzeGauss(k, epsilon=epsilon, delta=delta, calibration=calibration)
    sigma = analyze_gauss_noise_scale(n, check_epsilon(epsilon), delta, 1.0, calibration)
    errors = []
    for r in range(n_repeats):
        E = symmetric_noise(p, sigma, convention=ag.noise_convention, random_state=_stream(seed, "central", r))
        _, basis = top_eigenvectors(S + E, k)
        errors.append(subspace_distance(basis, V, kind="projection"))
    return np.array(errors)


def _pca_error(S, V):
    _, basis = top_eigenvectors(S, V.shape[1])
    return subspace_distance(basis, V, kind="projection")


def _progress(progress, total):
    """Return a callback ``step()`` for the progress option (None, True, or a callable)."""
    if progress is None or progress is False:
        return lambda: None
    if callable(progress):
        state = {"done": 0}

        def step():
            state["done"] += 1
            progress(state["done"], total)

        return step
    try:  # tqdm only if it is already installed: it is not a dependency
        from tqdm.auto import tqdm

        bar = tqdm(total=total)
        return lambda: bar.update(1)
    except ImportError:
        state = {"done": 0, "shown": -1}

        def step():
            state["done"] += 1
            pct = int(100 * state["done"] / total) // 10 * 10
            if pct != state["shown"]:
                state["shown"] = pct
                print(f"{pct:3d}% ({state['done']}/{total})", flush=True)

        return step


def _merge_notes(messages, new):
    for m in new:
        if m not in messages:
            messages.append(m)
    return messages

