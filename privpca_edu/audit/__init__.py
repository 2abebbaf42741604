r"""Empirical privacy audits: testing a mechanism's privacy claim from the outside.

Five audit recipes (A–E: sensitivity, noise shape, Gaussian-DP, output-level ε, exact density); each returns an :class:`AuditResult` whose
``passed`` says whether the mechanism is consistent with its claim.  Every recipe is shown, in
the test suite, to *fail* on a deliberately broken mechanism from
:mod:`privpca_edu.audit.mutants` (σ halved, exponent doubled, rejection step always accepting).

=====  ===========================================  ==========================================
 A     :func:`audit_sensitivity`                     white box: ‖f(D) − f(D′)‖ ≤ documented Δ,
       :func:`gaussian_condition_holds`              and σ meets the Gaussian-mechanism condition
 B     :func:`audit_noise_shape`                     noise symmetric with the documented variances
 C     :func:`audit_gaussian_dp`                     black box on the released matrix: μ̂-GDP
       :func:`audit_release_gdp`                     along the worst direction, μ̂ ≤ μ + 4 SE
 D     :func:`audit_output_epsilon`                  black box on any output: Clopper–Pearson
                                                     lower bound on ε from a threshold event
 E     :func:`audit_bingham_2d`,                     exact-density tests for Bingham samplers
       :func:`audit_bingham_moments`,
       :func:`exponential_mechanism_log_ratio_2d`
=====  ===========================================  ==========================================

Neighbouring datasets are "replace one record" throughout; :func:`worst_case_pair` builds the
pair the sensitivity arguments say is worst (n − 1 identical rows at the norm bound, one row
swapped for an orthogonal one).

References
----------
Dong, Roth & Su (2019), Gaussian differential privacy.  Jagielski, Ullman & Oprea (2020),
Auditing differentially private machine learning.  Kent, Ganeiber & Mardia (2018).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import integrate, stats

from .._validation import check_delta, check_epsilon, check_int, check_positive, as_generator
from ..privacy import check_gaussian_guarantee, gaussian_sigma, gdp_delta, symmetric_to_vector

__all__ = [
    "AuditResult",
    "worst_case_pair",
    "audit_sensitivity",
    "gaussian_condition_holds",
    "audit_noise_shape",
    "max_gdp_mu",
    "audit_gaussian_dp",
    "audit_release_gdp",
    "clopper_pearson",
    "audit_output_epsilon",
    "bingham_density_2d",
    "audit_bingham_2d",
    "bingham_reference_moments",
    "audit_bingham_moments",
    "exponential_mechanism_log_ratio_2d",
]


@dataclass
class AuditResult:
    """Outcome of one audit recipe.

    Parameters
    ----------
    recipe : str
        "A" … "E" and a short name.
    passed : bool
        True when the evidence is consistent with the claim.
    summary : str
        One line a student can read.
    values : dict, optional
        The numbers behind the verdict.

    Attributes
    ----------
    recipe : str        "A" … "E" and a short name
    passed : bool       True when the evidence is consistent with the claim
    summary : str       one line a student can read
    values : dict       the numbers behind the verdict
    """

    recipe: str
    passed: bool
    summary: str
    values: dict = field(default_factory=dict)

    def __repr__(self):
        verdict = "PASS" if self.passed else "FLAGGED"
        return f"AuditResult({self.recipe}: {verdict} — {self.summary})"


# ---------------------------------------------------------------------------------------------
# Neighbouring pair
# ---------------------------------------------------------------------------------------------
def worst_case_pair(n_samples, n_features, data_norm=1.0):
    """Build replace-one neighbours X, X′: n − 1 rows B·e₁, last row B·e₁ in X and B·e₂ in X′.

    For :math:`X^\\top X` this attains the replace-one sensitivity √2B² (the change is
    B²·diag(1, −1, 0, …)), and it is the pair the exponential-mechanism audits use.

    Parameters
    ----------
    n_samples : int
        Number of rows n, >= 1.
    n_features : int
        Dimension d, >= 2.
    data_norm : float, default=1.0
        The row norm B.

    Returns
    -------
    X : ndarray, shape (n_samples, n_features)
        The first data set.
    X_prime : ndarray, shape (n_samples, n_features)
        Its neighbour.
    """
    n = check_int(n_samples, "n_samples", low=1)
    d = check_int(n_features, "n_features", low=2)
    B = check_positive(data_norm, "data_norm")
    X = np.zeros((n, d))
    X[:, 0] = B
    X_prime = X.copy()
    X_prime[-1] = 0.0
    X_prime[-1, 1] = B
    return X, X_prime


# ---------------------------------------------------------------------------------------------
# Recipe A: sensitivity and the Gaussian condition
# ---------------------------------------------------------------------------------------------
def _coordinates(value, convention):
    value = np.asarray(value, dtype=np.float64)
    if convention in ("upper_iid", "frobenius", "vecd"):
        return symmetric_to_vector(value, convention)
    if convention == "flat":
        return value.reshape(-1)
    raise ValueError(f"convention must be 'upper_iid', 'frobenius' or 'flat', got {convention!r}")


def audit_sensitivity(statistic, X, X_prime, sensitivity, *, convention="upper_iid", tight_fraction=None,
                      rtol=1e-9):
    """Recipe A: measured ‖f(X) − f(X′)‖ against the documented sensitivity Δ.

    Parameters
    ----------
    statistic : callable(X) -> array
        The quantity the noise is added to (e.g. ``lambda X: X.T @ X / len(X)``).
    X, X_prime : array_like, shape (n_samples, n_features)
        Neighbouring data sets (e.g. :func:`worst_case_pair`).
    sensitivity : float
        The documented Δ, in the coordinates the noise is added in.
    convention : {"upper_iid", "frobenius", "flat"}
        How to vectorise the difference: the upper triangle once (``"upper_iid"``), vecd
        (``"frobenius"``), or every entry (``"flat"``, for non-symmetric releases like ΣQ).
    tight_fraction : float, optional
        If given, also require measured ≥ tight_fraction · Δ (the docstring claims tightness).
    rtol : float, default=1e-9
        Relative slack of the check measured ≤ Δ (rounding error).

    Returns
    -------
    AuditResult
        The verdict, its summary line and the numbers behind it.
    """
    diff = _coordinates(statistic(X), convention) - _coordinates(statistic(X_prime), convention)
    measured = float(np.linalg.norm(diff))
    ok = measured <= sensitivity * (1 + rtol)
    if tight_fraction is not None:
        ok = ok and measured >= tight_fraction * sensitivity
    return AuditResult(
        "A: sensitivity",
        bool(ok),
        f"measured ‖f(D) − f(D′)‖ = {measured:.6g}, documented Δ = {sensitivity:.6g} "
        f"(ratio {measured / sensitivity:.4f})",
        dict(measured=measured, documented=float(sensitivity), ratio=measured / sensitivity,
             tight_fraction=tight_fraction),
    )


def gaussian_condition_holds(sigma, sensitivity, epsilon, delta, method="analytic"):
    """Check whether N(0, σ²) noise on sensitivity Δ gives (ε, δ)-DP.

    ``"classic"``: ε < 1 and σ ≥ Δ√(2 ln(1.25/δ))/ε (Dwork & Roth Thm A.1; a sufficient
    condition).  ``"analytic"``: Balle & Wang's exact condition δ(σ) ≤ δ (necessary and
    sufficient).  A σ that passes "classic" always passes "analytic".

    Parameters
    ----------
    sigma : float
        Standard deviation σ of the noise.
    sensitivity : float
        The ℓ2 sensitivity Δ.
    epsilon : float
        Privacy parameter ε > 0.
    delta : float
        Privacy parameter δ in (0, 1).
    method : {"analytic", "classic"}, default="analytic"
        Which condition to check.

    Returns
    -------
    bool
        Whether the condition holds.
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if math.isinf(epsilon):
        return True
    if sigma <= 0:
        return False
    if method == "classic":
        return epsilon < 1 and sigma >= sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon * (1 - 1e-12)
    return check_gaussian_guarantee(epsilon, delta, [(sensitivity, sigma)]).holds


# ---------------------------------------------------------------------------------------------
# Recipe B: noise shape
# ---------------------------------------------------------------------------------------------
def audit_noise_shape(noise, sigma, convention="upper_iid", alpha=1e-3):
    r"""Check Recipe B: symmetric noise matrices have the documented variances.

    ``noise`` is a batch (N, d, d) of noise matrices (release minus statistic).  Checks exact
    symmetry, then a two-sided χ² variance test for the diagonal and for the strict upper
    triangle separately: :math:`\sum E_{ij}^2/\sigma_{ij}^2 \sim \chi^2_\nu` under the claim
    (ν = number of entries).  Level α overall (α/2 per test).  A factor-2 variance error gives
    z = (S/σ² − ν)/√(2ν) of order √(ν/2) ≫ 30 for N·d ≥ 2000, so it cannot pass by accident.

    Parameters
    ----------
    noise : ndarray, shape (N, d, d)
        Noise matrices (release minus statistic).
    sigma : float
        The documented standard deviation σ.
    convention : {"upper_iid", "frobenius"}, default="upper_iid"
        The documented layout: σ² on and above the diagonal, or σ² on it and σ²/2 off it.
    alpha : float, default=0.001
        Overall level of the tests.

    Returns
    -------
    AuditResult
        The verdict, its summary line and the numbers behind it.
    """
    E = np.asarray(noise, dtype=np.float64)
    if E.ndim != 3 or E.shape[1] != E.shape[2]:
        raise ValueError(f"noise must have shape (N, d, d), got {E.shape}")
    N, d, _ = E.shape
    asym = float(np.max(np.abs(E - np.swapaxes(E, 1, 2))))
    var_off = sigma**2 if convention == "upper_iid" else sigma**2 / 2
    iu = np.triu_indices(d, 1)
    parts = {"diagonal": (E[:, np.arange(d), np.arange(d)], sigma**2)}
    if d > 1:
        parts["off-diagonal"] = (E[:, iu[0], iu[1]], var_off)
    values = dict(asymmetry=asym, n_draws=N)
    ok = asym == 0.0
    for name, (entries, var) in parts.items():
        nu = entries.size
        S = float(np.sum(entries**2) / var)
        p = 2 * min(stats.chi2.cdf(S, nu), stats.chi2.sf(S, nu))
        values[name] = dict(variance_ratio=S / nu, z=(S - nu) / math.sqrt(2 * nu), p_value=p, dof=nu)
        ok = ok and p > alpha / len(parts)
    summary = f"asymmetry {asym:.1e}; " + "; ".join(
        f"{k} variance ratio {values[k]['variance_ratio']:.4f} (z = {values[k]['z']:.1f})" for k in parts
    )
    return AuditResult("B: noise shape", bool(ok), summary, values)


# ---------------------------------------------------------------------------------------------
# Recipe C: Gaussian-DP along the worst direction
# ---------------------------------------------------------------------------------------------
def max_gdp_mu(epsilon, delta):
    """Compute the largest μ such that μ-GDP implies (ε, δ)-DP (= Δ / analytic σ).

    The most generous black-box reading of an (ε, δ) claim for a Gaussian mechanism.

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε > 0.
    delta : float
        Privacy parameter δ in (0, 1).

    Returns
    -------
    float
        The largest μ.
    """
    return 1.0 / gaussian_sigma(1.0, epsilon, delta, method="analytic")


def audit_gaussian_dp(releases, releases_prime, reference, reference_prime, mu, *, n_sigma=4.0):
    r"""Check Recipe C: estimate μ along u = (f(D′) − f(D))/‖·‖ and compare with the claim.

    ``releases`` / ``releases_prime``: (N, p) vectors of N releases on D and D′, in the
    coordinates where the noise is i.i.d.; ``reference`` / ``reference_prime``: f(D), f(D′)
    in the same coordinates.  With T = ⟨M − f(D), u⟩,

    .. math:: \hat\mu = (\bar T' - \bar T)/s_{pooled}, \qquad
              SE \approx \sqrt{2/N + \hat\mu^2/(4N)}

    (difference of two means of unit-variance samples, plus the error of the pooled s).
    Passes when μ̂ ≤ μ + n_sigma·SE.  Also reports the implied (ε, δ) curve
    (Dong, Roth & Su 2019: δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)).

    Parameters
    ----------
    releases, releases_prime : ndarray, shape (N, p)
        N releases on D and on D′, vectorised in the coordinates where the noise is i.i.d.
    reference, reference_prime : ndarray, shape (p,)
        The values f(D) and f(D′) in the same coordinates.
    mu : float
        The claimed μ.
    n_sigma : float, default=4.0
        Passes when μ̂ ≤ μ + n_sigma·SE.

    Returns
    -------
    AuditResult
        The verdict, its summary line and the numbers behind it.
    """
    R = np.asarray(releases, dtype=np.float64)
    Rp = np.asarray(releases_prime, dtype=np.float64)
    f0 = np.asarray(reference, dtype=np.float64)
    f1 = np.asarray(reference_prime, dtype=np.float64)
    shift = f1 - f0
    norm = np.linalg.norm(shift)
    if norm == 0:
        raise ValueError("f(D) and f(D') coincide: the pair does not separate the data sets")
    u = shift / norm
    T = (R - f0) @ u
    Tp = (Rp - f0) @ u
    N = min(len(T), len(Tp))
    pooled = math.sqrt((np.var(T, ddof=1) + np.var(Tp, ddof=1)) / 2)
    mu_hat = float((Tp.mean() - T.mean()) / pooled)
    se = math.sqrt(2 / N + mu_hat**2 / (4 * N))
    ok = mu_hat <= mu + n_sigma * se
    eps_grid = np.linspace(0, 4, 41)
    curve_hat = np.array([gdp_delta(max(mu_hat, 0.0), e) for e in eps_grid])
    curve_claim = np.array([gdp_delta(mu, e) for e in eps_grid])
    return AuditResult(
        "C: Gaussian DP",
        bool(ok),
        f"μ̂ = {mu_hat:.4f} ± {se:.4f} (claimed μ = {mu:.4f}; flagged above {mu + n_sigma * se:.4f})",
        dict(mu_hat=mu_hat, se=se, mu_claimed=float(mu), threshold=mu + n_sigma * se,
             sensitivity_along_u=float(norm), noise_sd_along_u=pooled,
             epsilon_grid=eps_grid, delta_hat=curve_hat, delta_claimed=curve_claim),
    )


def audit_release_gdp(mechanism, X, X_prime, mu=None, *, epsilon=None, delta=None, n_draws=20_000,
                      random_state=None):
    """Run Recipe C on a noisy-matrix estimator (``AnalyzeGauss``, ``ModSuLQ``, …).

    Draws ``n_draws`` releases on each data set with ``mechanism.sample_releases`` (the same
    noise ``fit`` adds), vectorises them in the noise coordinates and runs
    :func:`audit_gaussian_dp`.  The claim is ``mu`` if given (e.g. documented Δ/σ), else the
    black-box reading ``max_gdp_mu(epsilon, delta)`` of the advertised (ε, δ) (defaults: the
    mechanism's own ``epsilon``/``delta``).  The claim is never read from the mechanism's σ, so a
    mechanism that quietly uses less noise cannot vouch for itself.

    Parameters
    ----------
    mechanism : estimator
        A noisy-matrix estimator with ``sample_releases(X, n_draws, random_state)``.
    X, X_prime : array_like, shape (n_samples, n_features)
        Neighbouring data sets (e.g. :func:`worst_case_pair`).
    mu : float or None, default=None
        The claimed μ (``None``: ``max_gdp_mu(epsilon, delta)``).
    epsilon, delta : float or None, default=None
        The advertised (ε, δ) (``None``: the mechanism's own).
    n_draws : int, default=20000
        Releases per data set.
    random_state : None, int or numpy.random.Generator, default=None
        Seed or generator of the draws.

    Returns
    -------
    AuditResult
        The verdict, its summary line and the numbers behind it.
    """
    rng = as_generator(random_state)
    n_draws = check_int(n_draws, "n_draws", low=100)
    if mu is None:
        epsilon = mechanism.epsilon if epsilon is None else epsilon
        delta = mechanism.delta if delta is None else delta
        mu = max_gdp_mu(epsilon, delta)
    parts = mechanism.release_parts(X)
    parts_prime = mechanism.release_parts(X_prime)
    conv = parts.convention
    R = symmetric_to_vector(mechanism.sample_releases(X, n_draws, random_state=rng), conv)
    Rp = symmetric_to_vector(mechanism.sample_releases(X_prime, n_draws, random_state=rng), conv)
    return audit_gaussian_dp(R, Rp, symmetric_to_vector(parts.statistic, conv),
                             symmetric_to_vector(parts_prime.statistic, conv), mu)


# ---------------------------------------------------------------------------------------------
# Recipe D: output-level ε lower bound
# ---------------------------------------------------------------------------------------------
def clopper_pearson(successes, trials, alpha):
    """Compute the exact two-sided (1 − α) Clopper–Pearson interval for a binomial proportion.

    ``trials`` n ≥ 1, ``successes`` k in [0, n] (integers), ``alpha`` in (0, 1).

    Parameters
    ----------
    successes : int
        Successes k in [0, n].
    trials : int
        Trials n >= 1.
    alpha : float
        Level α in (0, 1).

    Returns
    -------
    lo : float
        The lower end.
    hi : float
        The upper end.
    """
    n = check_int(trials, "trials", low=1)
    k = check_int(successes, "successes", low=0, high=n)
    alpha = check_delta(alpha, "alpha")
    lo = 0.0 if k == 0 else stats.beta.ppf(alpha / 2, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta.ppf(1 - alpha / 2, k + 1, n - k)
    return float(lo), float(hi)


def _empirical_eps(p, q, delta):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((p - delta > 0) & (q > 0), np.log(np.maximum(p - delta, 1e-300) / np.maximum(q, 1e-300)),
                        np.where(p - delta > 0, np.inf, -np.inf))


def audit_output_epsilon(statistic_D, statistic_D_prime, epsilon, delta, *, alpha=1e-3, n_thresholds=200):
    r"""Check Recipe D: a statistically valid lower bound on the ε a mechanism spends.

    ``statistic_D``/``statistic_D_prime``: a 1-D statistic of N independent outputs on D and
    on D′ (e.g. |⟨v̂₁, e₁⟩|).  The first half of each sample chooses the event
    S = {s > t} or {s ≤ t} (and which data set plays D) that maximises the empirical
    ln((P_D(S) − δ)/P_D′(S)); the second half, untouched by that choice, gives Clopper–Pearson
    bounds, so that with probability ≥ 1 − α

    .. math:: \varepsilon_{lb} = \ln\frac{p_{lo}(D) - \delta}{p_{hi}(D')} \le \varepsilon_{true}.

    Passes when ε_lb ≤ ε.  (A pass is no proof of privacy: the event may be poor.)

    Parameters
    ----------
    statistic_D, statistic_D_prime : array_like, shape (N,)
        A 1-D statistic of N independent outputs on D and on D′ (e.g. |⟨v̂₁, e₁⟩|).
    epsilon : float
        The claimed ε.
    delta : float
        The claimed δ.
    alpha : float, default=0.001
        The lower bound holds with probability ≥ 1 − α.
    n_thresholds : int, default=200
        Candidate thresholds t tried on the first half.

    Returns
    -------
    AuditResult
        The verdict, its summary line and the numbers behind it.
    """
    s0 = np.asarray(statistic_D, dtype=np.float64).ravel()
    s1 = np.asarray(statistic_D_prime, dtype=np.float64).ravel()
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=True)
    h0, h1 = len(s0) // 2, len(s1) // 2
    a0, b0, a1, b1 = s0[:h0], s0[h0:], s1[:h1], s1[h1:]
    pooled = np.concatenate([a0, a1])
    thresholds = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, n_thresholds + 1)[1:-1]))
    best = (-np.inf, None)
    for swap in (False, True):
        x, y = (a1, a0) if swap else (a0, a1)
        for upper in (True, False):
            px = np.mean(x[:, None] > thresholds, axis=0) if upper else np.mean(x[:, None] <= thresholds, axis=0)
            py = np.mean(y[:, None] > thresholds, axis=0) if upper else np.mean(y[:, None] <= thresholds, axis=0)
            # Shrink the selection criterion towards what the held-out half can certify.
            e = _empirical_eps(px - 2 * np.sqrt(px / len(x) + 1e-12), py + 2 * np.sqrt(py / len(y) + 1e-12), delta)
            i = int(np.argmax(e))
            if e[i] > best[0]:
                best = (float(e[i]), (swap, upper, float(thresholds[i])))
    if best[1] is None:
        return AuditResult("D: output epsilon", True, "no event separates the outputs", dict(epsilon_lb=-np.inf))
    swap, upper, t = best[1]
    x, y = (b1, b0) if swap else (b0, b1)
    kx = int(np.sum(x > t)) if upper else int(np.sum(x <= t))
    ky = int(np.sum(y > t)) if upper else int(np.sum(y <= t))
    p_lo, _ = clopper_pearson(kx, len(x), alpha)
    _, q_hi = clopper_pearson(ky, len(y), alpha)
    eps_lb = float(_empirical_eps(np.array(p_lo), np.array(q_hi), delta))
    ok = eps_lb <= epsilon
    event = f"s {'>' if upper else '≤'} {t:.4g} on {'D′' if swap else 'D'}"
    return AuditResult(
        "D: output epsilon",
        bool(ok),
        f"ε lower bound {eps_lb:.3f} at confidence {1 - alpha:g} (claimed ε = {epsilon:g}; event {event})",
        dict(epsilon_lb=eps_lb, epsilon=epsilon, delta=delta, event=event, p_lo=p_lo, q_hi=q_hi,
             n_holdout=(len(x), len(y))),
    )


# ---------------------------------------------------------------------------------------------
# Recipe E: exact-density tests for Bingham samplers
# ---------------------------------------------------------------------------------------------
def _axial_angle(samples):
    v = np.asarray(samples, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] != 2:
        raise ValueError(f"samples must have shape (N, 2), got {v.shape}")
    return np.mod(np.arctan2(v[:, 1], v[:, 0]), np.pi)


def bingham_density_2d(theta, A):
    """Compute the exact density on [0, π) of the axial angle θ of v = (cos θ, sin θ), p(v) ∝ exp(vᵀAv).

    Parameters
    ----------
    theta : float or array_like
        Angles in [0, π).
    A : ndarray, shape (2, 2)
        The Bingham parameter.

    Returns
    -------
    float or ndarray
        The density at ``theta``.
    """
    A = np.asarray(A, dtype=np.float64)

    def q(t):
        c, s = np.cos(t), np.sin(t)
        return A[0, 0] * c * c + (A[0, 1] + A[1, 0]) * c * s + A[1, 1] * s * s

    shift = float(np.max(np.linalg.eigvalsh((A + A.T) / 2)))
    Z, _ = integrate.quad(lambda t: np.exp(q(t) - shift), 0.0, np.pi, limit=200)
    return np.exp(q(np.asarray(theta)) - shift) / Z


def _merge_sparse_bins(observed, expected, min_expected=5.0):
    """Merge adjacent bins until each expects ≥ ``min_expected`` counts (the usual χ² rule).

    A concentrated law puts ~0 mass in many bins; without merging, χ² would divide by ~0.
    """
    obs_out, exp_out = [], []
    o_acc = e_acc = 0.0
    for o, e in zip(observed, expected):
        o_acc += o
        e_acc += e
        if e_acc >= min_expected:
            obs_out.append(o_acc)
            exp_out.append(e_acc)
            o_acc = e_acc = 0.0
    if e_acc > 0 or o_acc > 0:  # fold the remainder into the last bin
        if exp_out:
            obs_out[-1] += o_acc
            exp_out[-1] += e_acc
        else:
            obs_out.append(o_acc)
            exp_out.append(e_acc)
    return np.asarray(obs_out, dtype=float), np.asarray(exp_out, dtype=float)


def audit_bingham_2d(samples, A, *, n_bins=60, alpha=1e-3):
    """Check Recipe E (d = 2): χ² goodness of fit of the axial angle against the exact density.

    Bin probabilities are integrated numerically from :func:`bingham_density_2d`; adjacent bins
    expecting fewer than 5 counts are merged (so concentrated laws stay testable).  Catches a
    missing comparison with the uniform draw (always-accept) and doubled exponents.

    Parameters
    ----------
    samples : ndarray, shape (N, 2)
        Sampled unit vectors.
    A : ndarray, shape (2, 2)
        The Bingham parameter the sampler claims.
    n_bins : int, default=60
        Bins of the angle (before merging).
    alpha : float, default=0.001
        Level of the test.

    Returns
    -------
    AuditResult
        The verdict, its summary line and the numbers behind it.
    """
    theta = _axial_angle(samples)
    N = len(theta)
    edges = np.linspace(0.0, np.pi, n_bins + 1)
    observed = np.histogram(theta, bins=edges)[0]
    fine = np.linspace(0.0, np.pi, 40 * n_bins + 1)
    dens = bingham_density_2d(fine, A)
    cum = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(fine))])
    probs = np.diff(np.interp(edges, fine, cum))
    probs /= probs.sum()
    observed, expected = _merge_sparse_bins(observed, N * probs)
    chi2 = float(np.sum((observed - expected) ** 2 / expected))
    dof = len(expected) - 1
    p = float(stats.chi2.sf(chi2, dof))
    return AuditResult(
        "E: Bingham density (d = 2)",
        bool(p > alpha),
        f"χ² = {chi2:.1f} on {dof} degrees of freedom (p = {p:.3g}; flagged below {alpha:g})",
        dict(chi2=chi2, dof=dof, p_value=p, observed=observed, expected=expected, edges=edges),
    )


def bingham_reference_moments(A, n_samples=400_000, random_state=0, batch=200_000):
    """Estimate E[(vᵀuᵢ)²] in A's eigenbasis by exact rejection from the uniform sphere.

    Accept a uniform v with probability exp(vᵀAv − λ_max(A)): exact, and independent of any
    sampler under test.  Returns (means, standard errors, eigenvectors).

    Parameters
    ----------
    A : ndarray, shape (d, d)
        The Bingham parameter (symmetric).
    n_samples : int, default=400000
        Accepted draws.
    random_state : None, int or numpy.random.Generator, default=0
        Seed or generator.
    batch : int, default=200000
        Proposals drawn at a time.

    Returns
    -------
    means : ndarray, shape (d,)
        E[(vᵀuᵢ)²] estimates.
    ses : ndarray, shape (d,)
        Their standard errors.
    eigenvectors : ndarray, shape (d, d)
        A's eigenvectors uᵢ (columns, descending eigenvalues).
    """
    A = (np.asarray(A, dtype=np.float64) + np.asarray(A, dtype=np.float64).T) / 2
    lam, U = np.linalg.eigh(A)
    lam, U = lam[::-1], U[:, ::-1]
    rng = as_generator(random_state)
    d = len(lam)
    acc = []
    total = 0
    while total < n_samples:
        z = rng.standard_normal((batch, d))
        y = z / np.linalg.norm(z, axis=1, keepdims=True)  # uniform, already in the eigenbasis
        keep = np.log(rng.uniform(size=batch)) < (y * y) @ lam - lam[0]
        acc.append(y[keep] ** 2)
        total += int(keep.sum())
    Y2 = np.concatenate(acc)[:n_samples]
    return Y2.mean(axis=0), Y2.std(axis=0, ddof=1) / math.sqrt(len(Y2)), U


def audit_bingham_moments(samples, A, *, reference=None, alpha=1e-3, random_state=0):
    """Check Recipe E (any d): E[(vᵀuᵢ)²] of the samples against exact reference moments.

    z-test per coordinate with both standard errors; Bonferroni over the d coordinates at
    overall level α.  ``reference`` = (means, ses) if precomputed (e.g. published values with
    se 0), else :func:`bingham_reference_moments`.

    Parameters
    ----------
    samples : ndarray, shape (N, d)
        Sampled unit vectors.
    A : ndarray, shape (d, d)
        The Bingham parameter the sampler claims.
    reference : tuple of ndarray or None, default=None
        (means, ses) if precomputed (``None``: :func:`bingham_reference_moments`).
    alpha : float, default=0.001
        Overall level.
    random_state : None, int or numpy.random.Generator, default=0
        Seed of the reference draws.

    Returns
    -------
    AuditResult
        The verdict, its summary line and the numbers behind it.
    """
    v = np.asarray(samples, dtype=np.float64)
    if reference is None:
        ref, ref_se, U = bingham_reference_moments(A, random_state=random_state)
    else:
        ref, ref_se = (np.asarray(r, dtype=np.float64) for r in reference)
        _, U = np.linalg.eigh((np.asarray(A) + np.asarray(A).T) / 2)
        U = U[:, ::-1]
    Y2 = (v @ U) ** 2
    m = Y2.mean(axis=0)
    se = Y2.std(axis=0, ddof=1) / math.sqrt(len(Y2))
    z = (m - ref) / np.sqrt(se**2 + ref_se**2)
    z_crit = stats.norm.isf(alpha / (2 * len(m)))
    ok = bool(np.all(np.abs(z) <= z_crit))
    return AuditResult(
        "E: Bingham moments",
        ok,
        f"E[y²] = {np.round(m, 4).tolist()} vs exact {np.round(ref, 4).tolist()} "
        f"(max |z| = {np.max(np.abs(z)):.1f}, flagged above {z_crit:.2f})",
        dict(moments=m, reference=ref, z=z, z_crit=z_crit),
    )


def exponential_mechanism_log_ratio_2d(A, A_prime, n_grid=20_001):
    """Compute the exact privacy loss of a d = 2 exponential-mechanism sampler on one pair.

    max_θ |log p_A(θ) − log p_A′(θ)| for the d = 2 laws p ∝ exp(vᵀAv): the ε a sampler of
    this exponent actually spends on the pair (white-box, exact up to quadrature error).

    Parameters
    ----------
    A, A_prime : ndarray, shape (2, 2)
        The exponents on the two neighbouring data sets.
    n_grid : int, default=20001
        Quadrature points on [0, π).

    Returns
    -------
    float
        The maximum over θ of |log p_A(θ) − log p_A′(θ)|.
    """
    theta = np.linspace(0.0, np.pi, n_grid)
    return float(np.max(np.abs(np.log(bingham_density_2d(theta, A)) - np.log(bingham_density_2d(theta, A_prime)))))
