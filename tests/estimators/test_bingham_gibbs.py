"""Hoff's Gibbs sampler: the θ draws, the one-sweep kernel against the original implementation
(for both ways of computing the compressed eigenbasis), the rank-one compression steps, bounded
cost at any concentration, and the up-front cost warning."""

import math
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from scipy import linalg, stats

from privpca_edu import PCA, PPCA, subspace_distance
from privpca_edu.estimators import _bingham, _compression
from privpca_edu.estimators._bingham import (
    _compressions_per_sweep,
    _Draws,
    _theta_regime,
    bingham_gibbs,
    draw_theta,
    gibbs_cost_seconds,
    rstiefel_envelope,
)

needs_dlaed9 = pytest.mark.skipif(_compression.DLAED9 is None, reason="LAPACK dlaed9 not reachable through SciPy")


@pytest.fixture(params=["dense", "compressed"])
def gibbs_path(request, monkeypatch):
    """Run the k ≥ 2 sweeps through one path at every d: a d×d eigendecomposition per column,
    or the rank-one compression steps."""
    if request.param == "compressed":
        if _compression.DLAED9 is None:
            pytest.skip("LAPACK dlaed9 not reachable through SciPy")
        monkeypatch.setattr(_bingham, "GIBBS_PATH", "compressed")
    else:
        monkeypatch.setattr(_bingham, "GIBBS_PATH", "dense")
    return request.param

# ---------------------------------------------------------------------------------------------
# The θ draws: θ ∈ (0, 1) with density ∝ θ^{-1/2}(1 − θ)^{κ−1} e^{aθ}
# ---------------------------------------------------------------------------------------------


def theta_cdf(a, kappa, n_grid=400_001):
    """Exact CDF of θ on a fine grid, in t = √θ (density ∝ (1 − t²)^{κ−1} e^{a t²}, smooth for κ ≥ 1)."""
    t = np.linspace(0.0, 1.0, n_grid)
    logp = a * t * t
    if kappa != 1.0:
        with np.errstate(divide="ignore"):
            logp += (kappa - 1.0) * np.log1p(-t * t)
    logp -= logp[np.isfinite(logp)].max()
    p = np.exp(logp)
    cum = np.concatenate([[0.0], np.cumsum((p[1:] + p[:-1]) / 2)])
    cum /= cum[-1]
    return lambda theta: np.interp(np.sqrt(theta), t, cum)


def theta_draws(a, kappa, n, seed):
    draws = _Draws(np.random.default_rng(seed), kappa)
    out = np.array([draw_theta(a, kappa, draws) for _ in range(n)])
    return out, draws.proposals / n


# (a, κ) covering the three regimes of draw_theta and their boundaries; κ = 1 is the smallest
# κ ≥ 1 (m = 3), κ = 98 is d = 200, k = 5.  The grid CDF is accurate to ~1e-6 here.
CASES = [(-300.0, 1.0), (-2.0, 1.0), (1.0, 1.0), (6.0, 1.0), (50.0, 1.0),
         (-40.0, 10.0), (5.0, 10.0), (15.0, 10.0), (40.0, 10.0),
         (-100.0, 98.0), (90.0, 98.0), (150.0, 98.0), (300.0, 98.0)]


def test_theta_cases_cover_every_regime():
    assert {_theta_regime(a, k) for a, k in CASES} == {"low", "middle", "high"}


@pytest.mark.parametrize("a, kappa", CASES)
def test_theta_draws_follow_the_tilted_beta(a, kappa):
    # One-sample KS against the exact CDF: 4000 draws, α = 1e-4 per case (13 cases: a false
    # alarm has probability ≤ 1.3e-3 under the null).  Power: a law at a + 3 is rejected below.
    theta, _ = theta_draws(a, kappa, 4000, seed=11)
    assert np.all((theta[:, 0] >= 0) & (theta[:, 0] <= 1))
    np.testing.assert_allclose(theta[:, 0] + theta[:, 1], 1.0, atol=1e-15)
    assert stats.kstest(theta[:, 0], theta_cdf(a, kappa)).pvalue > 1e-4


def test_theta_ks_check_detects_a_wrong_law():
    theta, _ = theta_draws(18.0, 10.0, 4000, seed=11)
    assert stats.kstest(theta[:, 0], theta_cdf(15.0, 10.0)).pvalue < 1e-4


def test_theta_half_kappa_reflection_and_old_envelope_agree():
    # κ = 1/2 (m = 2): the law at a < 0 is that of 1 − θ at −a; compare with plain rejection from
    # rstiefel's Beta(1/2, 1/2) envelope (acceptance e^{aθ}: slow at a = −6, but exact).
    rng = np.random.default_rng(3)
    theta, _ = theta_draws(-6.0, 0.5, 4000, seed=4)
    prop = rng.beta(0.5, 0.5, size=400_000)
    ref = prop[np.log(rng.uniform(size=prop.size)) <= -6.0 * prop][:4000]
    assert ref.size == 4000
    assert stats.ks_2samp(theta[:, 0], ref).pvalue > 1e-4


@pytest.mark.parametrize("kappa", [0.5, 1.0, 5.0, 98.0, 1000.0])
@pytest.mark.parametrize("a", [-1e12, -1e6, 1e6, 1e12])
def test_theta_cost_is_bounded_at_any_concentration(a, kappa):
    # With |a| ≫ κ both tail envelopes accept with probability 1 − O(κ/|a|): ≤ 1.05 proposals per
    # draw on average (rstiefel's envelope alone needs ~√|a| at a → −∞: ~1e6 per draw here).
    theta, per_draw = theta_draws(a, kappa, 2000, seed=5)
    assert per_draw <= 1.05
    # and the draws have the limit laws: |a|θ → Gamma(1/2) as a → −∞, a(1 − θ) → Gamma(κ) as a → ∞
    # (relative corrections O(κ/|a|) ≤ 1e-3, far below what 2000 draws can see)
    scaled = abs(a) * (theta[:, 0] if a < 0 else theta[:, 1])
    shape = 0.5 if a < 0 else kappa
    assert stats.kstest(scaled, stats.gamma(shape).cdf).pvalue > 1e-4


def test_theta_middle_range_is_bounded():
    # The middle regime is a bounded interval of a; its rstiefel envelope accepts a fraction
    # bounded below there (≈ 1/18 at worst for κ = 98, a ≈ 1.5κ).
    for a in np.linspace(90.0, 230.0, 8):
        _, per_draw = theta_draws(float(a), 98.0, 300, seed=6)
        assert per_draw < 40, (a, per_draw)


# ---------------------------------------------------------------------------------------------
# The one-sweep kernel is the one of the original implementation (rstiefel's algorithm as first
# written here: QR basis of the complement, eigh of NᵀAN, rejection from Beta(1/2, g) only).
# ---------------------------------------------------------------------------------------------


def _reference_theta(a, kappa, rng):
    g, lmax = rstiefel_envelope(a, kappa)
    while True:
        theta = rng.beta(0.5, g)
        log_acc = a * theta - lmax + ((kappa - g) * math.log1p(-theta) if kappa != g else 0.0)
        if theta < 1.0 and math.log(rng.uniform()) <= log_acc:
            return theta


def _reference_scan(x, A, rng):
    lam, E = linalg.eigh(A)
    y = E.T @ x
    y /= np.linalg.norm(y)
    kappa = (lam.size - 1) / 2.0
    for i in range(lam.size):
        rest = 1.0 - y[i] ** 2
        a = lam[i] - (np.dot(lam, y * y) - lam[i] * y[i] ** 2) / rest
        theta = _reference_theta(a, kappa, rng)
        y *= math.sqrt((1.0 - theta) / rest)
        y[i] = math.sqrt(theta) * (1.0 if rng.uniform() < 0.5 else -1.0)
    z = E @ y
    return z / np.linalg.norm(z)


def _reference_sweep(A, V, rng):
    V = V.copy()
    k = V.shape[1]
    for r in rng.permutation(k):
        Qf, _ = linalg.qr(np.delete(V, r, axis=1), mode="full")
        N = Qf[:, k - 1 :]
        V[:, r] = N @ _reference_scan(N.T @ V[:, r], N.T @ A @ N, rng)
    return V


# d = 6, k = 2 (m = 5, κ = 2): the spectrum spreads a over all three θ regimes
SPECTRUM = np.array([0.0, 1.5, 4.0, 7.0, 12.0, 25.0])
Q6 = np.linalg.qr(np.random.default_rng(8).standard_normal((6, 6)))[0]
A6 = (Q6 * SPECTRUM) @ Q6.T
V0 = np.linalg.qr(np.random.default_rng(9).standard_normal((6, 2)))[0]


def _one_sweep_statistics(sampler, A, n, seed):
    """Statistics of the state after one sweep from V0: squared loadings on three eigenvectors
    and a signed cross term (sensitive to the sign draws)."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, 4))
    for t in range(n):
        V = sampler(A, rng)
        P = V @ V.T
        out[t] = [Q6[:, 5] @ P @ Q6[:, 5], Q6[:, 3] @ P @ Q6[:, 3], Q6[:, 0] @ P @ Q6[:, 0], V[0, 0] * V[1, 1]]
    return out


def test_one_sweep_kernel_matches_the_original_implementation(gibbs_path):
    n = 1500

    def new(A, rng):
        return bingham_gibbs(A, 2, 1, rng, V0=V0)

    def old(A, rng):
        return _reference_sweep(A, V0, rng)

    ref = _one_sweep_statistics(old, A6, n, seed=1)
    ours = _one_sweep_statistics(new, A6, n, seed=2)
    # two-sample KS per statistic, α = 1e-4 each (4 statistics: family false alarm ≤ 4e-4)
    pvalues = [stats.ks_2samp(ref[:, j], ours[:, j]).pvalue for j in range(4)]
    assert min(pvalues) > 1e-4, pvalues
    # the same comparison notices a kernel for a different law (A → 1.5A)
    other = _one_sweep_statistics(new, 1.5 * A6, n, seed=3)
    assert min(stats.ks_2samp(ref[:, j], other[:, j]).pvalue for j in range(4)) < 1e-4


def _chain(A, k, sweeps, seed, path, monkeypatch):
    monkeypatch.setattr(_bingham, "GIBBS_PATH", path)
    states = []
    bingham_gibbs(A, k, sweeps, random_state=seed, callback=lambda s, V: states.append(V.copy()))
    return np.array(states)


@needs_dlaed9
@pytest.mark.parametrize("d, k", [(7, 3), (40, 5), (60, 2)])
def test_dense_and_compressed_paths_give_the_same_draws(d, k, monkeypatch):
    # The same kernel and the same random numbers: for one seed the two paths agree up to
    # rounding (eigenvector signs do not matter: each is used with the sign that makes the
    # column's coordinate ≥ 0).  Chains amplify rounding differences slowly, so 3 sweeps.
    Y = np.random.default_rng(d).standard_normal((3 * d, d)) * np.linspace(2.0, 0.2, d)
    A = 3.0 * Y.T @ Y / d
    dense = _chain(A, k, 3, 11, "dense", monkeypatch)
    compressed = _chain(A, k, 3, 11, "compressed", monkeypatch)
    np.testing.assert_allclose(compressed, dense, atol=1e-8)
    # not a trivial agreement: another seed gives another chain
    assert np.abs(_chain(A, k, 3, 12, "compressed", monkeypatch) - dense).max() > 0.1


def test_repeated_and_vanishing_eigenvalues(gibbs_path):
    # Repeated eigenvalues of A (a compression step that meets them hands its columns to the
    # dense update) and a rank-one A = 40uuᵀ in d = 42 (41 eigenvalues ≈ 0, separated only by
    # rounding).  For the rank-one A, t = ‖Vᵀu‖² is Beta(k/2, (d − k)/2) under the uniform law,
    # tilted by e^{40t}: E t = 0.50010 (sd 0.112) for k = 2, by quadrature.
    tied = np.diag(np.repeat([0.0, 1.0, 40.0], [20, 20, 2]))
    u = (np.arange(42) % 3 == 0) / math.sqrt(14.0)
    for A in (tied, 40.0 * np.outer(u, u)):
        chain_means = []
        for seed in range(4):
            states = []
            bingham_gibbs(A, 2, 200, random_state=seed, callback=lambda s, V: states.append(V.copy()))
            for V in states:
                assert np.abs(V.T @ V - np.eye(2)).max() < 1e-12
            chain_means.append(np.mean([np.sum((u @ V) ** 2) for V in states[20:]]))
        if A is not tied:
            se = np.std(chain_means, ddof=1) / 2.0
            assert se < 0.02
            assert abs(np.mean(chain_means) - 0.50010) < max(5 * se, 0.01), (chain_means, se)


def test_compressions_per_sweep():
    assert [_compressions_per_sweep(k) for k in range(1, 9)] == [0, 2, 5, 8, 12, 16, 20, 24]
    assert all(_compressions_per_sweep(k) <= k * (k - 1) for k in range(2, 30))


# ---------------------------------------------------------------------------------------------
# Large ε: bounded cost (the original sampler's rejection loop grew like √ε and never returned)
# ---------------------------------------------------------------------------------------------


def test_ppca_gibbs_at_huge_epsilon_returns_the_top_subspace():
    code = textwrap.dedent("""
        import numpy as np
        from privpca_edu import PCA, PPCA, subspace_distance
        X = np.random.default_rng(0).standard_normal((300, 12)) * np.linspace(2.0, 0.2, 12)
        X /= np.linalg.norm(X, axis=1).max()
        est = PPCA(2, epsilon=1e12, n_iter=50, random_state=0).fit(X)
        print(subspace_distance(est.components_, PCA(2, center=False).fit(X).components_))
    """)
    # the original sampler did not finish this in hours; the bounded one needs well under a second
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # concentration 5e11 × eigen-gaps of order 1: the law sits within ~1e-5 of the top subspace
    assert float(proc.stdout.strip()) < 1e-3


@needs_dlaed9
def test_compressed_path_at_huge_epsilon(monkeypatch):
    # At large ε the columns sit within ~1/√ε of eigenvectors of A: most coordinates of the
    # compression vectors fall below the deflation tolerance, and the steps stay exact.
    monkeypatch.setattr(_bingham, "GIBBS_PATH", "compressed")
    X = np.random.default_rng(0).standard_normal((300, 60)) * np.linspace(2.0, 0.2, 60)
    X /= np.linalg.norm(X, axis=1).max()
    pca = PCA(2, center=False).fit(X)  # the Bingham law is built on XᵀX
    for epsilon, bound in ((1e6, 1e-2), (1e12, 1e-5), (1e15, 1e-6)):
        est = PPCA(2, epsilon=epsilon, n_iter=50, random_state=0).fit(X)
        assert subspace_distance(est.components_, pca.components_) < bound


# ---------------------------------------------------------------------------------------------
# Up-front cost estimate and warning
# ---------------------------------------------------------------------------------------------


def test_cost_estimate_orders_of_magnitude(monkeypatch):
    assert gibbs_cost_seconds(200, 5, 100) < 2          # measured ≈ 0.7 s on one core
    assert gibbs_cost_seconds(2000, 1, 1000) < 60       # k = 1: one eigendecomposition in all
    if _compression.DLAED9 is not None:
        assert 60 < gibbs_cost_seconds(2000, 2, 1000) < 600  # the d = 2000 defaults: minutes
    monkeypatch.setattr(_bingham, "GIBBS_PATH", "dense")
    assert gibbs_cost_seconds(2000, 2, 1000) > 600      # a d×d eigendecomposition per column: an hour


def test_gibbs_warns_before_a_long_run():
    X = np.random.default_rng(0).standard_normal((3, 2000)) / 50.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the warning comes before any sweep: the error stops the fit
        with pytest.raises(UserWarning, match=r"Gibbs sampler with 1000 sweeps at d=2000.*fewer sweeps"):
            PPCA(2).fit(X)
    A = np.eye(10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bingham_gibbs(A, 2, 5, random_state=0)  # a small run does not warn
