r"""Noise calibration, composition and the symmetric-noise sampler.

This is the one place where a noise scale is computed: every estimator asks this module.

Conventions
-----------
* A *Gaussian mechanism* releases :math:`f(D) + N(0, \sigma^2 I)` where
  :math:`\Delta = \sup_{D \sim D'} \lVert f(D) - f(D')\rVert_2` is the ℓ2 sensitivity in the
  coordinates the noise is added in.
* Neighbouring datasets differ by **replacing one record** unless a docstring says otherwise.
* ``epsilon = numpy.inf`` means "no privacy": every σ is 0, so the non-private limit of every
  mechanism runs through the same code path.

References
----------
.. [DR14] C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, 2014,
   Theorem A.1 (classic Gaussian mechanism, ε < 1).
.. [BW18] B. Balle and Y.-X. Wang, "Improving the Gaussian mechanism for differential privacy:
   analytical calibration and optimal denoising", ICML 2018, Theorem 8.
.. [DRV10] C. Dwork, G. Rothblum and S. Vadhan, "Boosting and differential privacy", FOCS 2010.
.. [BS16] M. Bun and T. Steinke, "Concentrated differential privacy", TCC 2016.
.. [DRS19] J. Dong, A. Roth and W. Su, "Gaussian differential privacy", 2019.
.. [CSS13] K. Chaudhuri, A. Sarwate and K. Sinha, "A near-optimal algorithm for differentially
   private principal components", JMLR 2013 (MOD-SuLQ).
.. [GWWL18] J. Ge, Z. Wang, M. Wang and H. Liu, "Minimax-optimal privacy-preserving sparse PCA
   in distributed systems", AISTATS 2018 (DPS-PCA).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from ._validation import (
    PrivacyWarning,
    check_data_norm,
    check_delta,
    check_epsilon,
    check_int,
    check_option,
    check_positive,
    as_generator,
    diagnostics,
    diagnostics_enabled,
    caller_stacklevel,
)

__all__ = [
    "gaussian_sigma",
    "analytic_gaussian_delta",
    "GaussianGuarantee",
    "check_gaussian_guarantee",
    "gdp_delta",
    "gdp_epsilon",
    "compose_basic",
    "compose_advanced",
    "zcdp_rho",
    "zcdp_to_dp",
    "iterative_gaussian_sigma",
    "ITERATIVE_CALIBRATIONS",
    "dps_pca_sigma",
    "mod_sulq_noise_scale",
    "analyze_gauss_sensitivity",
    "analyze_gauss_noise_scale",
    "private_local_sensitivity",
    "private_local_noise_scale",
    "KENDALL_SENSITIVITIES",
    "TRANSFORM_KINDS",
    "resolve_transform",
    "resolve_radius",
    "kendall_sensitivity",
    "kendall_noise_scale",
    "sgpca_sensitivity",
    "nsggd_noise_scale",
    "LOCAL_CALIBRATIONS",
    "local_noise_scale",
    "DPDPCA_CALIBRATIONS",
    "dpdpca_sensitivity",
    "mask_sensitivity",
    "dpdpca_noise_scale",
    "symmetric_noise",
    "symmetric_to_vector",
    "SYMMETRIC_CONVENTIONS",
    "diagnostics",
    "diagnostics_enabled",
]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


# ---------------------------------------------------------------------------------------------
# Single Gaussian mechanism
# ---------------------------------------------------------------------------------------------
def _log_analytic_delta(log_sigma, sensitivity, epsilon):
    """log of the Balle–Wang δ(σ); computed in log space so tiny δ do not underflow."""
    sigma = math.exp(log_sigma)
    a = sensitivity / (2 * sigma) - epsilon * sigma / sensitivity
    b = -sensitivity / (2 * sigma) - epsilon * sigma / sensitivity
    log_pa = special.log_ndtr(a)
    if math.isinf(log_pa):  # Φ(a) = 0 (a = −inf: ε σ/Δ beyond the floats): δ ≤ Φ(a) = 0
        return -math.inf
    x = epsilon + special.log_ndtr(b) - log_pa  # < 0 always (δ > 0)
    return log_pa + math.log(-math.expm1(min(x, -1e-300)))


def analytic_gaussian_delta(sigma, sensitivity, epsilon):
    r"""The exact δ of the Gaussian mechanism at a given ε (Balle & Wang 2018, Thm 8).

    .. math:: \delta(\varepsilon) = \Phi\Big(\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Big)
              - e^{\varepsilon}\,\Phi\Big(-\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Big)

    ``N(0, σ²)`` noise on a statistic of ℓ2 sensitivity Δ is (ε, δ)-DP **iff** δ is at least
    this value.
    """
    sigma = check_positive(sigma, "sigma", allow_inf=True)
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
    if math.isinf(sigma):
        return 0.0
    with np.errstate(over="ignore"):  # εσ/Δ beyond the floats means Φ(a) = 0, handled in log space
        return math.exp(_log_analytic_delta(math.log(sigma), sensitivity, epsilon))


@dataclass(frozen=True)
class GaussianGuarantee:
    """The verdict of :func:`check_gaussian_guarantee` (computed from public parameters only).

    Attributes
    ----------
    holds : bool
        True iff the releases are (ε, δ)-DP: ``exact_delta <= delta`` (up to a relative 1e-9
        for floating-point rounding in the Φ evaluations).
    mu : float
        The Gaussian-DP parameter of all releases together, μ = √(Σ (Δᵢ/σᵢ)²).
    exact_delta : float
        The smallest δ for which they are (ε, δ)-DP (Balle & Wang's exact curve at μ).
    note : str
        Empty when ``holds``; otherwise a sentence saying by how much the claim fails.
    """

    holds: bool
    mu: float
    exact_delta: float
    note: str = ""


#: Relative slack for floating-point rounding in the exact-δ comparison (Φ is evaluated in log
#: space; a σ calibrated exactly to δ can come out a few ulp either side).
EXACT_DELTA_RTOL = 1e-9

#: Largest μ = Δ/σ at which the exact δ(ε) can be evaluated in float64: the curve depends on
#: a = μ/2 − ε/μ, and a relative rounding of μ (2⁻⁵³) moves a by about μ·2⁻⁵³, which must stay
#: far below 1.  Beyond it (ε ≳ 1e29) nothing is claimed: the check says "cannot be verified"
#: and the analytic calibration refuses.
MU_RESOLVABLE = 2.0**40


def check_gaussian_guarantee(epsilon, delta, releases):
    r"""Do these Gaussian releases really give (ε, δ)-DP?  The one place every record is checked.

    Parameters
    ----------
    epsilon, delta : float
        The guarantee to be recorded.
    releases : iterable of (sensitivity, sigma) or (sensitivity, sigma, count)
        Every Gaussian release computed from the private data: ℓ2 sensitivity Δᵢ (in the
        coordinates the i.i.d. noise is added in) and noise standard deviation σᵢ, repeated
        ``count`` times (e.g. the T adaptive steps of an iterative method).

    Returns
    -------
    GaussianGuarantee

    Notes
    -----
    A Gaussian mechanism with sensitivity Δ and noise σ is exactly μ-Gaussian-DP with
    μ = Δ/σ, and adaptive composition of μᵢ-GDP mechanisms is exactly √(Σμᵢ²)-GDP [DRS19]_
    (Corollary 3.3; tight for Gaussian mechanisms).  μ-GDP is (ε, δ)-DP iff
    δ ≥ Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (:func:`gdp_delta`, the same curve as Balle &
    Wang's Theorem 8).  So the check is exact: it accepts every σ that is private and no σ that
    is not, whatever calibration produced it.  A σ of 0 (with finite ε) gives μ = ∞, δ = 1.

    Examples
    --------
    The classic σ at ε = 10, δ = 1e-5 is not (10, 1e-5)-DP:

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     s = gaussian_sigma(1.0, 10.0, 1e-5)
    >>> g = check_gaussian_guarantee(10.0, 1e-5, [(1.0, s)])
    >>> g.holds, f"{g.exact_delta:.3g}"
    (False, '2.27e-05')
    """
    epsilon = check_epsilon(epsilon)
    delta = check_positive(delta, "delta", allow_zero=True)
    total = 0.0
    for item in releases:
        if len(item) == 2:
            sens, sigma = item
            count = 1
        elif len(item) == 3:
            sens, sigma, count = item
        else:
            raise ValueError(f"releases must hold (sensitivity, sigma[, count]) tuples, got {item!r}")
        sens = check_positive(sens, "sensitivity", allow_zero=True)
        sigma = check_positive(sigma, "sigma", allow_zero=True, allow_inf=True)
        count = check_int(count, "count", low=0)
        if sens == 0 or count == 0 or math.isinf(sigma):
            continue
        if sigma == 0:
            total = math.inf
            break
        # √(Σ count·(Δ/σ)²) accumulated with hypot: (Δ/σ)² overflows (OverflowError) for ε ≈ 1e300
        total = math.hypot(total, math.sqrt(count) * (sens / sigma))
    mu = total
    unresolved = not math.isinf(epsilon) and mu > MU_RESOLVABLE
    if math.isinf(epsilon):
        exact = 0.0 if mu == 0 else 1.0
    elif math.isinf(mu) or unresolved:
        exact = 1.0  # (unresolved: the only bound float64 can vouch for)
    else:
        exact = gdp_delta(mu, epsilon) if mu > 0 else 0.0
    holds = exact <= delta * (1 + EXACT_DELTA_RTOL) and not (math.isinf(epsilon) and mu > 0)
    note = ""
    if unresolved and not math.isinf(mu):
        note = (f"not verified as ({epsilon:g}, {delta:g})-DP: the noise is {mu:.4g}-Gaussian-DP, beyond the "
                f"μ ≤ {MU_RESOLVABLE:.3g} at which float64 resolves the exact δ(ε) curve")
    elif not holds:
        note = (f"not ({epsilon:g}, {delta:g})-DP: the noise actually used is {mu:.4g}-Gaussian-DP, "
                f"whose exact δ at ε = {epsilon:g} is {exact:.3g} > δ = {delta:g}")
    return GaussianGuarantee(bool(holds), mu, float(exact), note)


def gaussian_sigma(sensitivity, epsilon, delta, method="classic"):
    r"""Noise standard deviation σ for the Gaussian mechanism.

    Parameters
    ----------
    sensitivity : float
        ℓ2 sensitivity Δ > 0 of the released statistic, in the coordinates the noise is
        added in.
    epsilon : float
        ε > 0; ``numpy.inf`` returns 0.
    delta : float
        δ in (0, 1).
    method : {"classic", "analytic"}
        ``"classic"``: :math:`\sigma = \Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon` [DR14]_.  The
        proof needs ε < 1; for ε ≥ 1 a :class:`PrivacyWarning` is issued (the value is still
        returned, as the papers we reproduce use it there).  ``"analytic"``: the smallest σ
        meeting Balle & Wang's exact condition (:func:`analytic_gaussian_delta` ≤ δ), found by
        bisection on log σ; valid for every ε and never larger than the classic value.

    Returns
    -------
    sigma : float

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 0.5, 1e-5), 4)
    9.6896
    >>> round(gaussian_sigma(1.0, 1.0, 1e-5, method="analytic"), 4)
    3.7306
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    check_option(method, "method", ("classic", "analytic"))
    if math.isinf(epsilon):
        return 0.0
    if method == "classic":
        if epsilon >= 1:
            warnings.warn(
                f"the classic Gaussian mechanism is proved only for epsilon < 1 (got {epsilon:g}); "
                "pass calibration='analytic' (method='analytic' in privacy.gaussian_sigma) for a guarantee "
                "at this epsilon",
                PrivacyWarning,
                stacklevel=caller_stacklevel(),
            )
        return _finite_sigma(sensitivity * math.sqrt(2 * (math.log(1.25) - math.log(delta))) / epsilon, sensitivity,
                           epsilon)
    return _analytic_sigma(sensitivity, epsilon, delta)


def _finite_sigma(sigma, sensitivity, epsilon):
    """σ as computed, or a ValueError when it is beyond the largest float (ε tiny for this Δ)."""
    if not math.isfinite(sigma):
        raise ValueError(f"epsilon={epsilon:g} is too small for sensitivity {sensitivity:g}: the noise σ would exceed "
                         "the largest float64 (the release would carry no information); use a larger epsilon")
    return sigma


def _analytic_sigma(sensitivity, epsilon, delta):
    if not delta > 0.0:  # δ/T of a subnormal δ underflowed (was "math domain error")
        raise ValueError("delta is too small: a per-step share of it underflows to 0; use a larger delta")
    log_target = math.log(delta)

    def too_small(log_sigma):  # True when σ does not yet satisfy the condition
        return _log_analytic_delta(log_sigma, sensitivity, epsilon) > log_target

    lo = math.log(sensitivity) - 10.0
    hi = math.log(sensitivity) + 1.0
    while not too_small(lo):
        lo -= 10.0
    while too_small(hi):
        hi += 5.0
        if hi > 709.0:  # σ beyond the largest float
            _finite_sigma(math.inf, sensitivity, epsilon)
    # Bisection keeps ``hi`` feasible throughout, so the returned σ always satisfies the
    # condition (the audit checks this).  50 halvings of a ≥ 11-wide log bracket: ~1e-14 relative.
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if too_small(mid):
            lo = mid
        else:
            hi = mid
    # exp(hi) and the public check's log/exp round trip can land a few ulp on the wrong side:
    # step up to the first float σ that passes the check exactly as analytic_gaussian_delta does.
    sigma = math.exp(hi)
    if sensitivity / sigma > MU_RESOLVABLE:
        raise ValueError(f"epsilon={epsilon:g} is too large for the exact (analytic) calibration in float64: the "
                         f"noise would be {sensitivity / sigma:.3g}-Gaussian-DP, beyond the μ ≤ {MU_RESOLVABLE:.3g} "
                         "at which the δ(ε) curve can be evaluated; use epsilon=numpy.inf (no noise) or a smaller "
                         "epsilon")
    while math.exp(_log_analytic_delta(math.log(sigma), sensitivity, epsilon)) > delta:
        sigma = math.nextafter(sigma, math.inf)
    return sigma


# ---------------------------------------------------------------------------------------------
# Gaussian differential privacy
# ---------------------------------------------------------------------------------------------
def gdp_delta(mu, epsilon):
    r"""δ(ε) of a μ-GDP mechanism [DRS19]_: :math:`\Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)`.

    A Gaussian mechanism with sensitivity Δ and noise σ is exactly μ-GDP with μ = Δ/σ; this is
    the same curve as :func:`analytic_gaussian_delta`.
    """
    mu = check_positive(mu, "mu", allow_zero=True)
    epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
    if mu == 0:
        return 0.0
    return analytic_gaussian_delta(1.0 / mu, 1.0, epsilon)


def gdp_epsilon(mu, delta):
    """The smallest ε ≥ 0 with ``gdp_delta(mu, ε) <= delta`` (μ-GDP expressed as (ε, δ)-DP)."""
    mu = check_positive(mu, "mu", allow_zero=True)
    delta = check_delta(delta)
    if mu == 0 or gdp_delta(mu, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(mu, hi) > delta:
        hi *= 2
        if hi > 1e300:  # ε ≈ μ²/2 is beyond the floats: no finite ε gives this δ
            return math.inf
    return optimize.brentq(lambda e: gdp_delta(mu, e) - delta, 0.0, hi, xtol=1e-12)


# ---------------------------------------------------------------------------------------------
# Composition
# ---------------------------------------------------------------------------------------------
def compose_basic(epsilon_step, delta_step, n_steps):
    """Basic composition: T mechanisms that are each (ε₀, δ₀)-DP are (Tε₀, Tδ₀)-DP.

    δ₀ must lie in [0, 1).  The total δ is capped at 1: every mechanism is (ε, 1)-DP, so a
    total Tδ₀ ≥ 1 is returned as 1.0 (a vacuous guarantee, never a "probability" above 1).

    >>> compose_basic(0.1, 0.5, 3)
    (0.30000000000000004, 1.0)
    """
    epsilon_step = check_epsilon(epsilon_step, "epsilon_step")
    delta_step = check_delta(delta_step, "delta_step", allow_zero=True)
    n_steps = check_int(n_steps, "n_steps", low=1)
    return n_steps * epsilon_step, min(1.0, n_steps * delta_step)


def compose_advanced(epsilon_step, delta_step, n_steps, delta_slack):
    r"""Advanced composition [DRV10]_.

    T adaptive (ε₀, δ₀)-DP mechanisms are (ε′, Tδ₀ + δ′)-DP for every δ′ > 0, with
    :math:`\varepsilon' = \varepsilon_0\sqrt{2T\ln(1/\delta')} + T\varepsilon_0(e^{\varepsilon_0} - 1)`.
    When ε′ is beyond the largest float (ε₀ ≳ 700) it is returned as ``inf`` (a vacuous bound:
    basic composition, :func:`compose_basic`, is then the useful one).  The total δ is capped at
    1 (vacuous), as in :func:`compose_basic`.
    """
    epsilon_step = check_epsilon(epsilon_step, "epsilon_step")
    delta_step = check_delta(delta_step, "delta_step", allow_zero=True)
    n_steps = check_int(n_steps, "n_steps", low=1)
    delta_slack = check_delta(delta_slack, "delta_slack")
    return _advanced_epsilon(epsilon_step, n_steps, delta_slack), min(1.0, n_steps * delta_step + delta_slack)


def _advanced_epsilon(e0, T, delta_slack):
    """ε′ of advanced composition, inf when it is beyond the floats (no OverflowError)."""
    if e0 > 700.0:
        return math.inf
    with np.errstate(over="ignore"):
        return float(e0 * math.sqrt(2 * T * -math.log(delta_slack)) + np.float64(T) * e0 * math.expm1(e0))


def zcdp_rho(sensitivity, sigma, n_steps=1):
    """ρ of T Gaussian mechanisms under zero-concentrated DP [BS16]_: ρ = TΔ²/(2σ²)."""
    sensitivity = check_positive(sensitivity, "sensitivity")
    sigma = check_positive(sigma, "sigma", allow_inf=True)
    n_steps = check_int(n_steps, "n_steps", low=1)
    return n_steps * sensitivity**2 / (2 * sigma**2)


def zcdp_to_dp(rho, delta):
    r"""Convert ρ-zCDP to (ε, δ)-DP: :math:`\varepsilon = \rho + 2\sqrt{\rho\ln(1/\delta)}` [BS16]_."""
    rho = check_positive(rho, "rho", allow_zero=True)
    delta = check_delta(delta)
    return rho + 2 * math.sqrt(rho * -math.log(delta))


#: Calibrations of T adaptive Gaussian steps offered by :func:`iterative_gaussian_sigma`, with a
#: one-line description each (the book prints this table).
ITERATIVE_CALIBRATIONS = {
    "paper": "DPS-PCA's σ = ΔT√(2 log(2T/δ))/ε: basic composition of ε/T, δ/T steps with a log(2/δ′) Gaussian mechanism",
    "classic": "basic composition of ε/T, δ/T steps, classic σ = Δ√(2 log(1.25T/δ))·T/ε",
    "analytic_basic": "basic composition of ε/T, δ/T steps, each step calibrated by the analytic Gaussian mechanism",
    "advanced": "advanced composition (δ/2 slack), each step calibrated by the analytic Gaussian mechanism",
    "zcdp": "zero-concentrated DP: ρ adds up over steps, converted once to (ε, δ)",
    "analytic_exact": "exact: T Gaussian steps equal one Gaussian mechanism with sensitivity Δ√T (Gaussian DP)",
}


def iterative_gaussian_sigma(sensitivity, epsilon, delta, n_steps, method="paper"):
    r"""Per-step σ so that T adaptive Gaussian steps are (ε, δ)-DP *in total*.

    Each step releases a statistic of ℓ2 sensitivity Δ plus ``N(0, σ²)`` noise; the next step
    may depend on earlier releases.  The methods (``ITERATIVE_CALIBRATIONS``) are all valid
    and differ in how tightly they account:

    ================  ================================================================
    ``"paper"``       :math:`\Delta T\sqrt{2\log(2T/\delta)}/\varepsilon` [GWWL18]_, line 3
    ``"classic"``     :math:`\Delta T\sqrt{2\log(1.25T/\delta)}/\varepsilon`
    ``"analytic_basic"`` analytic σ at (ε/T, δ/T), times Δ
    ``"advanced"``    advanced composition with δ′ = δ/2 and δ₀ = δ/(2T); ε₀ solved numerically
    ``"zcdp"``        :math:`\sigma = \Delta\sqrt{T/(2\rho^*)}`, :math:`\sqrt{\rho^*} = \sqrt{\log(1/\delta)+\varepsilon} - \sqrt{\log(1/\delta)}`
    ``"analytic_exact"`` analytic σ for sensitivity :math:`\Delta\sqrt T` (exact for Gaussians)
    ================  ================================================================

    ``"paper"`` and ``"classic"`` need the per-step ε/T < 1 (classic proof); a
    :class:`PrivacyWarning` is issued otherwise.

    Examples
    --------
    >>> round(iterative_gaussian_sigma(2.0, 1.0, 0.3, 10), 3)
    57.963
    >>> round(iterative_gaussian_sigma(2.0, 1.0, 0.3, 10, method="analytic_exact"), 2)
    4.37
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    n_steps = check_int(n_steps, "n_steps", low=1)
    check_option(method, "method", tuple(ITERATIVE_CALIBRATIONS))
    if math.isinf(epsilon):
        return 0.0
    T = n_steps
    if method in ("paper", "classic"):
        if epsilon / T >= 1:
            warnings.warn(
                f"per-step epsilon/T = {epsilon / T:g} >= 1: the classic Gaussian-mechanism proof "
                "behind this calibration does not hold; use calibration='analytic_exact'",
                PrivacyWarning,
                stacklevel=caller_stacklevel(),
            )
        const = 2.0 if method == "paper" else 1.25
        return _finite_sigma(sensitivity * T * math.sqrt(2 * (math.log(const * T) - math.log(delta))) / epsilon, sensitivity,
                             epsilon)
    if method == "analytic_basic":
        return _analytic_sigma(sensitivity, epsilon / T, delta / T)
    if method == "analytic_exact":
        return _analytic_sigma(sensitivity * math.sqrt(T), epsilon, delta)
    if method == "zcdp":
        L = -math.log(delta)  # not log(1/δ): 1/δ overflows for a subnormal δ
        # √ρ = √(L + ε) − √L, written without cancellation (tiny ε would give ρ = 0)
        sqrt_rho = epsilon / (math.sqrt(L + epsilon) + math.sqrt(L))
        if sqrt_rho == 0.0:  # ε = 5e-324: ρ underflows (was a ZeroDivisionError)
            return _finite_sigma(math.inf, sensitivity, epsilon)
        return _finite_sigma(sensitivity * math.sqrt(T / 2) / sqrt_rho, sensitivity, epsilon)
    # advanced: split δ into δ' = δ/2 (slack) and T·δ₀ = δ/2; find ε₀ with ε'(ε₀) = ε.
    delta_slack, delta_step = delta / 2, delta / (2 * T)
    if delta_step == 0.0:  # a subnormal δ: δ/(2T) underflows (was a bare "math domain error")
        raise ValueError(f"delta={delta:g} is too small to split over {T} steps for advanced composition; use "
                         "method='analytic_exact'")

    def excess(e0):
        return _advanced_epsilon(e0, T, delta_slack) - epsilon

    # ε′(ε₀) ≥ ε₀ (2T ln(1/δ′) > 1), so the root lies in (0, min(ε, 700)]; solving for
    # u = ε₀/hi ∈ (0, 1] keeps the tolerance relative, for tiny and huge ε alike.
    hi = min(epsilon, 700.0)
    if excess(hi) < 0:
        raise ValueError(f"epsilon={epsilon:g} is beyond what advanced composition of {T} steps can express; "
                         "use method='analytic_exact'")
    e0 = hi * optimize.brentq(lambda u: excess(u * hi), 0.0, 1.0, xtol=1e-16, rtol=1e-14)
    return _analytic_sigma(sensitivity, e0, delta_step)


def dps_pca_sigma(epsilon, delta, n_iter, data_norm=1.0, method="paper"):
    r"""Per-iteration noise σ of DPS-PCA (Ge et al. 2018, Algorithm 1 line 3).

    Sensitivity: replacing one record x → x′ (‖x‖, ‖x′‖ ≤ B) in a provider's data changes
    :math:`\sum_{x} x x^\top Q` by at most
    :math:`\lVert x\rVert\,\lVert Q^\top x\rVert + \lVert x'\rVert\,\lVert Q^\top x'\rVert \le 2B^2`
    in Frobenius norm (Q has orthonormal columns), so Δ = 2B².  The T releases compose
    adaptively; see :func:`iterative_gaussian_sigma` for the methods.

    Examples
    --------
    >>> round(dps_pca_sigma(1.0, 0.01, 10), 3)
    77.979
    """
    data_norm = check_data_norm(data_norm)
    n_iter = check_int(n_iter, "n_iter", low=1)  # named as the caller knows it (not "n_steps")
    return iterative_gaussian_sigma(2.0 * data_norm**2, epsilon, delta, n_iter, method=method)


def mod_sulq_noise_scale(n_features, n_samples, epsilon, delta, data_norm=1.0):
    r"""MOD-SuLQ noise standard deviation β (Chaudhuri, Sarwate & Sinha 2013, Algorithm 1).

    .. math:: \beta = \frac{d+1}{n\varepsilon}\sqrt{2\log\frac{d^2+d}{2\sqrt{2\pi}\,\delta}}
              + \frac{1}{n\sqrt{\varepsilon}}

    times B² for rows of norm ≤ B.  β is a *standard deviation*, added i.i.d. to each entry on
    and above the diagonal of :math:`A = X^\top X/n`.  The constant comes from the paper's own
    density-ratio argument over the d(d+1)/2 noisy entries (replace-one neighbours).  For
    comparison, the ℓ2 sensitivity of the upper-triangle vector of A is only √2·B²/n, so β is
    about (d+1)/√2 times the classic Gaussian-mechanism σ: valid, but very conservative in
    high dimension, which is why MOD-SuLQ fails at d = 1000 (an exercise in the book).

    Examples
    --------
    >>> round(mod_sulq_noise_scale(1000, 100_000, 1.0, 0.3), 6)
    0.051847
    """
    d = check_int(n_features, "n_features", low=1)
    n = check_int(n_samples, "n_samples", low=1)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    data_norm = check_data_norm(data_norm)
    if math.isinf(epsilon):
        return 0.0
    log_term = math.log((d * d + d) / (2 * math.sqrt(2 * math.pi) * delta))
    beta = (d + 1) / (n * epsilon) * math.sqrt(2 * log_term) + 1 / (n * math.sqrt(epsilon))
    return beta * data_norm**2


# ---------------------------------------------------------------------------------------------
# The calibrations of the methods: every sensitivity and σ an estimator or experiment uses
# ---------------------------------------------------------------------------------------------
def analyze_gauss_sensitivity(n_samples, data_norm=1.0):
    r"""Replace-one ℓ2 sensitivity of :math:`X^\top X/n` in the ``"upper_iid"`` coordinates: √2·B²/n.

    Replacing x by x′ (‖x‖, ‖x′‖ ≤ B) changes :math:`X^\top X/n` by :math:`(xx^\top - x'x'^\top)/n`,
    and :math:`\lVert xx^\top - x'x'^\top\rVert_F^2 = \lVert x\rVert^4 + \lVert x'\rVert^4 - 2(x^\top x')^2
    \le 2B^4`, attained by orthogonal x, x′ of norm B; the difference is then diagonal, so the
    vector of entries on and above the diagonal has the same norm (Dwork, Talwar, Thakurta & Zhang,
    STOC 2014, Algorithm 1, with the replace-one constant).  Also the Δ of MOD-SuLQ's audits and of
    the per-site releases of PrivateLocalPCA (with n = 1, :func:`private_local_sensitivity`).

    >>> round(analyze_gauss_sensitivity(1000), 8)
    0.00141421
    """
    n = check_int(n_samples, "n_samples", low=1)
    data_norm = check_data_norm(data_norm)
    return math.sqrt(2.0) * data_norm**2 / n


def analyze_gauss_noise_scale(n_samples, epsilon, delta, data_norm=1.0, calibration="classic"):
    r"""σ of each noise entry of Analyze Gauss's release :math:`X^\top X/n + E`.

    Δ from :func:`analyze_gauss_sensitivity`; ``"classic"`` (the paper):
    :math:`\sigma = \Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon` [DR14]_ Theorem A.1, proved for
    ε < 1 (warns otherwise); ``"analytic"``: Balle & Wang's exact σ [BW18]_, valid for every ε.

    >>> round(analyze_gauss_noise_scale(5000, 0.5, 1e-5) * 5000, 3)
    13.703
    """
    check_option(calibration, "calibration", ("classic", "analytic"))
    return gaussian_sigma(analyze_gauss_sensitivity(n_samples, data_norm), epsilon, delta, method=calibration)


def private_local_sensitivity(data_norm=1.0):
    r"""Δ of one site's local covariance release in PrivateLocalPCA: √2·B².

    Each site releases the upper triangle of its own scatter :math:`\sum_{x} xx^\top` plus noise;
    replacing one of its records moves it by :math:`xx^\top - x'x'^\top`, of Frobenius norm at
    most √2·B² (see :func:`analyze_gauss_sensitivity`, here unnormalised: n = 1).
    """
    data_norm = check_data_norm(data_norm)
    return math.sqrt(2.0) * data_norm**2


def private_local_noise_scale(epsilon, delta, data_norm=1.0, calibration="classic"):
    r"""σ of each entry of a site's Gaussian noise :math:`E_l` in PrivateLocalPCA.

    :func:`gaussian_sigma` of :func:`private_local_sensitivity` (√2·B²), ``"classic"`` or
    ``"analytic"``; each site's release is then (ε, δ)-DP for its own records.  (The DPDPCA paper's
    Wishart noise of scale 1/ε has no stated sensitivity argument and is recorded as not private.)
    """
    return gaussian_sigma(private_local_sensitivity(data_norm), epsilon, delta, method=calibration)


#: Replace-one Frobenius sensitivity of K̂_g, in units of ‖g‖∞²/n.
KENDALL_SENSITIVITIES = {
    "paper": 4.0,  # Kim & Jung, Prop. 2.1(3) / eq. (2.5): the default, so the paper's figures reproduce
    "tight": 2.0 * math.sqrt(2.0),  # the exact worst case (attained; audit recipe A)
    "legacy": 2.0,  # NOT PRIVATE: half the paper's σ, what the R package shipped before its 2026 fix
}


#: Accepted names of the two bounded transforms (aliases: the short names of Kim & Jung's figures).
TRANSFORM_KINDS = {"spherical": "spherical", "sph": "spherical", "winsorized": "winsorized", "wins": "winsorized"}


def resolve_transform(transform_kind):
    """Canonical transform name (``"spherical"`` or ``"winsorized"``) or ``ValueError``."""
    if not isinstance(transform_kind, str) or transform_kind not in TRANSFORM_KINDS:
        raise ValueError(
            f"transform_kind must be one of 'spherical', 'winsorized' (or 'sph', 'wins'), got {transform_kind!r}"
        )
    return TRANSFORM_KINDS[transform_kind]


def resolve_radius(radius, n_features, transform_kind):
    r"""The winsorization radius actually used: ``radius``, or :math:`\sqrt d` when ``None``.

    **Our reading** of Kim & Jung, Section 3.2 (eq. (3.2), condition (3.3)): the paper fixes one radius for all its experiments "assuming" a
    common normalisation; our reading is :math:`r = \sqrt d`, which suits variables on unit
    scale (λ_d(Σ) ≈ 1, tr Σ ≈ d) and meets the paper's condition (3.3) for the spiked-plus-identity
    model with θ = 1/2.  It depends only on the public dimension: a radius computed from the
    data would break the sensitivity argument, so none is offered.  For ``"spherical"`` the radius
    is irrelevant and 1.0 (= ‖g‖∞) is returned.
    """
    if resolve_transform(transform_kind) == "spherical":
        return 1.0
    if radius is None:
        return math.sqrt(n_features)
    return check_positive(radius, "radius")


def kendall_sensitivity(n_samples, transform_kind="spherical", radius=None, n_features=None, sensitivity="paper"):
    r"""Replace-one Frobenius sensitivity of :math:`\hat K_g`: c·‖g‖∞²/n.

    ``"paper"`` (c = 4, Kim & Jung Prop. 2.1(3)): the n − 1 pair terms that contain the replaced
    record each change by at most ‖g‖² + ‖g′‖² ≤ 2‖g‖∞², and there are n − 1 of them with weight
    2/(n(n−1)).  ``"tight"`` (c = 2√2): :math:`\lVert aa^\top-bb^\top\rVert_F^2 = \lVert a\rVert^4
    + \lVert b\rVert^4 - 2(a^\top b)^2 \le 2s^4`, attained by moving a far point from the e₁ axis to
    the e₂ axis.  ``"legacy"`` (c = 2): **not a valid bound** (see :class:`KendallDPPCA`).
    ``radius``/``n_features`` resolve ‖g‖∞ for "winsorized" (r, default √d).
    """
    n = check_int(n_samples, "n_samples", low=2)
    check_option(sensitivity, "sensitivity", tuple(KENDALL_SENSITIVITIES))
    kind = resolve_transform(transform_kind)
    if n_features is not None:
        n_features = check_int(n_features, "n_features", low=1)
    if kind == "winsorized" and radius is None and n_features is None:
        raise ValueError("radius=None means √d: pass n_features to resolve it")
    r = resolve_radius(radius, n_features, kind)
    return KENDALL_SENSITIVITIES[sensitivity] * r * r / n


def kendall_noise_scale(n_samples, epsilon, delta, transform_kind="spherical", radius=None, n_features=None,
                        sensitivity="paper", calibration="classic"):
    r"""(Δ, σ) of g-DPPCA: Δ from :func:`kendall_sensitivity`, σ from :func:`privacy.gaussian_sigma`.

    With the defaults this is eq. (2.5) of Kim & Jung,
    :math:`\sigma = 4\lVert g\rVert_\infty^2\sqrt{2\log(1.25/\delta)}/(n\varepsilon)`; e.g. spherical,
    n = 1387, ε = 1, δ = 1e-5 gives σ = 0.0139720.
    """
    check_option(calibration, "calibration", ("classic", "analytic"))
    sens = kendall_sensitivity(n_samples, transform_kind, radius, n_features, sensitivity)
    return sens, gaussian_sigma(sens, epsilon, delta, method=calibration)


def sgpca_sensitivity(n_samples, n_features, spikes, noise_variance=1.0, *, sensitivity="surrogate",
                      sensitivity_constant=1.0):
    r"""Δ of the spectral projector :math:`\hat U\hat U^\top` under the spiked model (model-based).

    Cai, Xia & Zha (arXiv:2401.03820, Algorithm 1, as run in Kim & Jung's Appendix C.2) calibrate
    the noise on the spectral projector by a high-probability sensitivity under the spiked model;
    this package does not reproduce their exact constant and log factors.  Two forms are
    offered, with σ₀² = ``noise_variance``, λ_j = ``spikes`` (the eigenvalues of Σ are
    λ_j + σ₀²), r = len(spikes):

    ``"surrogate"`` (default, **our choice**)
        :math:`\Delta = C_\Delta\,\sqrt2\,\sigma_0\sqrt d\,\sqrt{\sum_j(\lambda_j+\sigma_0^2)}\,
        \sqrt{\log n}/(n\lambda_r)`, C_Δ = ``sensitivity_constant``.  It is about the largest
        change seen over random in-model replacements, so it does **not** bound the
        high-probability sensitivity; it reproduces the ordering of Kim & Jung's Figure 2.
        (1000, 10, spikes (9, 4), σ₀² = 1): 1.13807e-2.
    ``"hp_bound"`` (**our analysis**)
        :math:`\Delta_{hp} = \frac{2\sqrt2}{n}\sigma_0(\sqrt{d-r}+\sqrt{2\log n})\sqrt{2\log(2rn)}
        \sqrt{\sum_j(\lambda_j+\sigma_0^2)/\lambda_j^2}`: the first-order change of P̂ from two
        records with Gaussian tail factors; it covered every sampled replacement in our checks,
        but is still first-order and model-based.  (1000, 10): 4.97849e-2.
    """
    n = check_int(n_samples, "n_samples", low=2)
    d = check_int(n_features, "n_features", low=1)
    spikes = np.asarray(spikes, dtype=np.float64).ravel()
    if spikes.size < 1 or not np.all(np.isfinite(spikes)) or np.any(spikes <= 0):
        raise ValueError(f"spikes must be positive finite numbers, got {spikes.tolist()}")
    s0sq = check_positive(noise_variance, "noise_variance")
    check_option(sensitivity, "sensitivity", ("surrogate", "hp_bound"))
    C = check_positive(sensitivity_constant, "sensitivity_constant")
    s0 = math.sqrt(s0sq)
    r = spikes.size
    if sensitivity == "surrogate":
        return C * math.sqrt(2.0) * s0 * math.sqrt(d) * math.sqrt(float(np.sum(spikes + s0sq))) * math.sqrt(
            math.log(n)) / (n * float(np.min(spikes)))
    return C * (2 * math.sqrt(2.0) / n) * s0 * (math.sqrt(max(d - r, 0)) + math.sqrt(2 * math.log(n))) * math.sqrt(
        2 * math.log(2 * r * n)) * math.sqrt(float(np.sum((spikes + s0sq) / spikes**2)))


def nsggd_noise_scale(batch_size, epsilon, delta, n_iter, data_norm=1.0):
    r"""Per-step σ of NSGGD: T Gaussian steps of sensitivity 2B/b, composed exactly in zCDP.

    Each step releases the batch-mean gradient.  One record's term has Frobenius norm
    ‖Vᵀx‖ ≤ ‖x‖ ≤ B (``data_norm``; the term is linear in x), so replacing one record moves the
    mean by at most 2B/b: each step is ρ₁ = (2B/b)²/(2σ²)-zCDP, T steps give ρ = Tρ₁, and
    :math:`\varepsilon = \rho + 2\sqrt{\rho\log(1/\delta)}`, i.e.
    :math:`\sigma = \frac{2B}{b}\sqrt{T/(2\rho)}`,
    :math:`\sqrt\rho = \sqrt{\log(1/\delta)+\varepsilon}-\sqrt{\log(1/\delta)}`
    (``privacy.iterative_gaussian_sigma(..., method="zcdp")``).  Valid for b < n too (the record is
    treated as present in every batch; no subsampling amplification).  **Our choice** of noise rule and accountant for
    Maunu, Yu & Lerman's NSGGD (MSML 2022, as run in Kim & Jung's Appendix C.3).

    n = b = 1000, T = 50, ε = 1, δ = 1e-5: σ = 6.930432e-2.
    """
    b = check_int(batch_size, "batch_size", low=1)
    T = check_int(n_iter, "n_iter", low=1)
    B = check_data_norm(data_norm)
    return iterative_gaussian_sigma(2.0 * B / b, epsilon, delta, T, method="zcdp")


#: Calibrations of the per-user σ₁ (the book prints this table).
LOCAL_CALIBRATIONS = {
    "replacement": "Δ = √2·B² (any two records x, x′ of one user), classic σ₁ = Δ√(2 ln(1.25/δ))/ε — the default",
    "paper": "Δ = B² as printed in Wang & Xu (the central add/remove constant): σ √2 too small for the proof — "
             "reproduction only (not DP at the paper's ε = 2, δ = 1e-4)",
    "analytic": "Δ = √2·B², Balle & Wang's exact (analytic) σ₁: valid for every ε, smaller than classic",
}


def local_noise_scale(epsilon, delta, data_norm=1.0, calibration="replacement", sensitivity=None):
    r"""Per-user noise σ₁ of the local Gaussian mechanism, and what it promises.

    Each user releases the d(d+1)/2 entries on and above the diagonal of :math:`xx^\top`
    plus i.i.d. N(0, σ₁²) noise.  In the local model the neighbouring inputs are *any two*
    records x, x′ of the domain ‖x‖ ≤ B (a replacement relation), and

    .. math:: \lVert xx^\top - x'x'^\top\rVert_F^2 = \lVert x\rVert^4 + \lVert x'\rVert^4
              - 2(x^\top x')^2 \le 2B^4,

    attained by orthogonal x, x′ of norm B (the difference is then diagonal, so the
    upper-triangle vector has the same norm): Δ = √2·B².  Wang & Xu's
    :math:`\sigma_1^2 = 2\ln(1.25/\delta)/\varepsilon^2` corresponds to Δ = 1 (the add/remove
    constant of the central model) and is too small by a factor 2 in variance (Wang & Xu, Algorithm 1 and
    Theorem 2, which use the central add/remove sensitivity).

    Parameters
    ----------
    epsilon : float
        ε > 0 (``numpy.inf``: σ₁ = 0).
    delta : float
        δ in (0, 1).
    data_norm : float
        Public row-norm bound B.
    calibration : {"replacement", "paper", "analytic"}
        See :data:`LOCAL_CALIBRATIONS`.  ``"replacement"`` and ``"paper"`` use the classic
        Gaussian mechanism (proved for ε < 1: :func:`privacy.gaussian_sigma` warns for ε ≥ 1).
    sensitivity : float, optional
        Override Δ (in the upper-triangle coordinates).  A value below √2·B² is recorded as
        not private.

    Returns
    -------
    dict
        ``noise_scale`` (σ₁), ``sensitivity`` (Δ used), ``true_sensitivity`` (√2·B²),
        ``exact_delta`` (Balle & Wang's exact δ of σ₁ at this ε for the *true* Δ),
        ``is_private`` (the verdict of record: ``exact_delta <= delta`` *and* Δ used ≥ √2·B² —
        an under-calibrated σ₁ is never recorded as private), ``under_calibrated``
        (Δ used < √2·B²), ``note``, ``calibration``, ``method`` ("classic"/"analytic").

    Notes
    -----
    The paper's σ₁ (√2 too small for the classic proof) is always recorded as not private.  The
    note adds the exact fact: the classic constant is loose, so at small ε that σ₁ happens to
    satisfy the exact condition (ε = 0.5, δ = 10⁻⁴: exact δ = 6.2·10⁻⁵) but not at the paper's
    ε = 2, δ = 10⁻⁴ (exact δ = 5.0·10⁻⁴), nor at ε = 0.5, δ = 10⁻⁵.  Conversely the *correct* classic constant
    stops being private for large ε (ε = 8, δ = 10⁻⁴: exact δ = 1.005·10⁻⁴), where only
    ``"analytic"`` is.

    Examples
    --------
    >>> round(local_noise_scale(0.5, 1e-4)["noise_scale"], 6)
    12.285591
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     r = local_noise_scale(0.5, 1e-4, calibration="paper")
    >>> round(r["noise_scale"], 6), r["is_private"], r["under_calibrated"]
    (8.687225, False, True)
    """
    data_norm = check_data_norm(data_norm)
    check_option(calibration, "calibration", tuple(LOCAL_CALIBRATIONS))
    true_sens = math.sqrt(2.0) * data_norm**2
    if sensitivity is None:
        sens = data_norm**2 if calibration == "paper" else true_sens
    else:
        sens = check_positive(sensitivity, "sensitivity")
    method = "analytic" if calibration == "analytic" else "classic"
    sigma = gaussian_sigma(sens, epsilon, delta, method=method)
    eps = float(epsilon)
    # The exact (Balle & Wang) δ this σ gives for the TRUE sensitivity: the verdict of record,
    # from the one shared check every privacy record goes through.
    if math.isinf(eps):
        exact_delta, exact_ok = 0.0, True
    else:
        verdict = check_gaussian_guarantee(eps, float(delta), [(true_sens, sigma)])
        exact_delta, exact_ok = verdict.exact_delta, verdict.holds
    short = sens < true_sens * (1 - 1e-12)
    # An under-calibrated σ₁ carries no valid proof, so it is never recorded as private, even
    # where the exact condition happens to hold (the paper's constant at small ε).
    is_private = exact_ok and not short
    if short:
        why = ("calibration='paper' uses Wang & Xu's Δ = B² (the central add/remove constant), "
               if calibration == "paper" and sensitivity is None
               else f"sensitivity={sens:g} was given, ")
        why += (f"but in the local model any two records x, x′ are neighbours and ‖xxᵀ − x′x′ᵀ‖_F reaches "
                f"√2·B² = {true_sens:.6g}: σ₁ is {true_sens / sens:.4g}× smaller than the classic proof needs")
    elif method == "classic" and eps >= 1 and not math.isinf(eps):
        why = f"the classic Gaussian-mechanism constant is proved only for epsilon < 1 (got {eps:g})"
    else:
        why = ""
    if short and exact_ok:
        note = (f"not differentially private as calibrated (reproduction only): {why}; the exact (analytic) "
                f"δ of this σ₁ at ε = {eps:g} happens to be {exact_delta:.3e} ≤ δ = {float(delta):g}, "
                "a fact of this setting, not a guarantee of the calibration")
    elif not is_private:
        note = (f"not differentially private: {why}; the exact (analytic) δ of this σ₁ at ε = {eps:g} is "
                f"{exact_delta:.3e} > δ = {float(delta):g}")
    elif why:
        note = (f"{why}; it is nevertheless ({eps:g}, {float(delta):g})-DP by the exact (analytic) Gaussian "
                f"condition: δ(ε) = {exact_delta:.3e} ≤ δ" + (" (for reproduction only)" if short else ""))
    else:
        note = ""
    return dict(noise_scale=sigma, sensitivity=sens, true_sensitivity=true_sens, is_private=is_private,
                note=note, calibration=calibration, method=method, exact_delta=exact_delta,
                under_calibrated=short)


#: σ calibrations of the protocol: name → description.
DPDPCA_CALIBRATIONS = {
    "classic": "Δ = 4B² (centred scatter, corrected), classic σ = Δ√(2 ln(1.25/δ))/ε (ε < 1)",
    "analytic": "Δ = 4B² (centred scatter, corrected), analytic Gaussian mechanism (Balle & Wang 2018), any ε",
    "paper": "Δ = B² (the paper's Δ = 1): NOT differentially private for the centred scatter; reproduction only",
}


def dpdpca_sensitivity(data_norm=1.0, calibration="classic"):
    """ℓ2 sensitivity of the centred scatter in the noise coordinates: 4B², or B² for "paper"."""
    data_norm = check_data_norm(data_norm)
    check_option(calibration, "calibration", tuple(DPDPCA_CALIBRATIONS))
    return (1.0 if calibration == "paper" else 4.0) * data_norm**2


def mask_sensitivity(data_norm=1.0):
    """ℓ2 sensitivity of the column sum v = Σ xᵢ under replace-one: ‖x − y‖ ≤ 2B.

    DPDPCA's data user also receives the masked sum :math:`v' = v + b`, b ~ N(0, β²I): a Gaussian
    release of v.  Replacing x by y changes v by x − y, of norm at most ‖x‖ + ‖y‖ ≤ 2B (attained by
    y = −x), so Δ_v = 2B and the mask is a (2B/β)-GDP release (see :func:`dpdpca_noise_scale`).
    """
    return 2.0 * check_data_norm(data_norm)


def dpdpca_noise_scale(epsilon, delta, data_norm=1.0, calibration="classic", *, mask_mu=0.0):
    r"""σ of each noise entry of G' (total over all parties), from :func:`privacy.gaussian_sigma`.

    ``"classic"`` and ``"paper"`` use the classic formula (which warns for ε ≥ 1); ``"analytic"``
    the exact one.  This function does not warn about ``"paper"``: the callers that release do.

    ``mask_mu``: the data user of the protocol also receives :math:`v' = v + b`, a second
    Gaussian release (of v, sensitivity 2B, noise β: :math:`\mu_b = 2B/\beta`).  With
    ``"analytic"`` the two together are calibrated *exactly*: μ-GDP mechanisms compose to
    :math:`\sqrt{\mu_S^2 + \mu_b^2}`-GDP (Dong, Roth & Su 2019, Cor. 3.3), so
    :math:`\sigma = \Delta/\sqrt{\mu_*^2 - \mu_b^2}` with :math:`\mu_* = 1/\sigma_{\mathrm{analytic}}(\Delta=1)`
    the largest μ that is (ε, δ)-DP (then stepped up to the first float passing
    :func:`~privpca_edu.privacy.check_gaussian_guarantee`).  A mask with :math:`\mu_b \ge \mu_*`
    alone spends more than (ε, δ): ``ValueError``.  ``"classic"`` keeps its formula (it has slack
    for ε < 1); the privacy record's exact check composes both releases either way.

    The value is computed in units of B² (Δ = 4, or 1 for "paper") and then scaled, so an
    extreme ``data_norm`` is refused by name instead of overflowing.

    Examples
    --------
    >>> round(dpdpca_noise_scale(1.0, 1e-5, calibration="analytic"), 4)
    14.9225
    >>> round(dpdpca_noise_scale(0.5, 1e-4, calibration="paper"), 6)   # Algorithm 2's τ(0.5, 1e-4)
    8.687225
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    data_norm = check_positive(data_norm, "data_norm")
    check_option(calibration, "calibration", tuple(DPDPCA_CALIBRATIONS))
    mask_mu = check_positive(mask_mu, "mask_mu", allow_zero=True)
    sens = 1.0 if calibration == "paper" else 4.0
    if calibration != "analytic" or mask_mu == 0.0 or math.isinf(epsilon):
        sigma = gaussian_sigma(sens, epsilon, delta, method="analytic" if calibration == "analytic" else "classic")
    else:
        mu_star = 1.0 / gaussian_sigma(1.0, epsilon, delta, method="analytic")
        if mask_mu >= mu_star:
            raise ValueError(
                f"mask_scale is too small for (epsilon={epsilon:g}, delta={delta:g}): the masked sum v' = v + b is "
                f"itself a Gaussian release of v with mu = 2B/mask_scale = {mask_mu:.3g} >= {mu_star:.3g}, all that "
                f"(epsilon, delta) allows; use mask_scale > {2.0 / mu_star:.3g} * data_norm"
            )
        sigma = sens / math.sqrt(mu_star**2 - mask_mu**2)
        while not check_gaussian_guarantee(epsilon, delta, [(sens, sigma), (2.0, 2.0 / mask_mu)]).holds:
            sigma = math.nextafter(sigma, math.inf)
    scale = data_norm * data_norm
    if not (math.isfinite(sigma * scale) and scale > 0.0 and (sigma == 0.0 or sigma * scale > 0.0)):
        raise ValueError(f"data_norm={data_norm:g} is outside the range float64 can hold for σ = {sigma:g}·data_norm²")
    return sigma * scale


# ---------------------------------------------------------------------------------------------
# Symmetric noise
# ---------------------------------------------------------------------------------------------
#: Conventions of :func:`symmetric_noise`: variance on the diagonal and off it.
SYMMETRIC_CONVENTIONS = {
    "upper_iid": "entries on and above the diagonal i.i.d. N(0, σ²), mirrored: Var = σ² on and off the diagonal",
    "frobenius": "E = vecd⁻¹(ζ), ζ ~ N(0, σ² I): Var = σ² on the diagonal, σ²/2 off it (Frobenius-isometric)",
}


def symmetric_noise(dim, sigma, *, convention="upper_iid", size=None, random_state=None):
    r"""Draw a symmetric Gaussian noise matrix (or a batch of them).

    Parameters
    ----------
    dim : int
        Matrix side d.
    sigma : float
        Noise scale σ ≥ 0 (``0`` returns zeros; the draw still advances the generator so that
        seeds stay aligned across ε).
    convention : {"upper_iid", "frobenius"}
        ``"upper_iid"`` (Dwork et al. 2014 "Analyze Gauss", MOD-SuLQ, local Gaussian PCA):
        the d(d+1)/2 entries on and above the diagonal are i.i.d. N(0, σ²) and mirrored,
        so every entry has variance σ²; calibrate σ to the ℓ2 sensitivity of the
        upper-triangle vector (≤ the Frobenius sensitivity).  ``"frobenius"`` (Kim & Jung's
        vecd): diagonal N(0, σ²), off-diagonal N(0, σ²/2); this is
        :math:`\mathrm{vecd}^{-1}(\zeta)` with ζ ~ N(0, σ² I), and vecd is an isometry, so σ is
        calibrated to the Frobenius sensitivity exactly.  ``"vecd"`` is accepted as an alias.
    size : int or tuple, optional
        Batch shape; the result has shape ``(*size, dim, dim)``.
    random_state : None, int or Generator

    Returns
    -------
    E : ndarray, exactly symmetric.
    """
    dim = check_int(dim, "dim", low=1)
    sigma = check_positive(sigma, "sigma", allow_zero=True)
    if convention == "vecd":
        convention = "frobenius"
    check_option(convention, "convention", tuple(SYMMETRIC_CONVENTIONS))
    rng = as_generator(random_state)
    batch = () if size is None else ((size,) if np.isscalar(size) else tuple(size))
    G = rng.standard_normal(batch + (dim, dim))
    upper = np.triu(G, 1)
    E = upper + np.swapaxes(upper, -1, -2)
    if convention == "frobenius":
        E *= 1 / math.sqrt(2)
    idx = np.arange(dim)
    E[..., idx, idx] = G[..., idx, idx]
    E *= sigma
    return E


def symmetric_to_vector(A, convention="upper_iid"):
    r"""Coordinates in which :func:`symmetric_noise` is i.i.d. N(0, σ²).

    ``"upper_iid"``: the diagonal and strict upper triangle of A, each once.
    ``"frobenius"``: vecd(A) = (diag A, √2 · strict upper triangle), an isometry
    (‖vecd A‖₂ = ‖A‖_F).  The ℓ2 sensitivity that goes into :func:`gaussian_sigma` is measured
    in these coordinates (audit recipe A).  Works on the last two axes of a batch.
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"A must be a square matrix (or batch of them), got shape {A.shape}")
    if convention == "vecd":
        convention = "frobenius"
    check_option(convention, "convention", tuple(SYMMETRIC_CONVENTIONS))
    d = A.shape[-1]
    iu = np.triu_indices(d, 1)
    diag = A[..., np.arange(d), np.arange(d)]
    off = A[..., iu[0], iu[1]]
    if convention == "frobenius":
        off = off * math.sqrt(2)
    return np.concatenate([diag, off], axis=-1)
