r"""The Gaussian mechanism: σ calibration, the exact (ε, δ) condition, Gaussian DP, symmetric noise.

Conventions
-----------
* A *Gaussian mechanism* releases :math:`f(D) + N(0, \sigma^2 I)` where
  :math:`\Delta = \sup_{D \sim D'} \lVert f(D) - f(D')\rVert_2` is the ℓ2 sensitivity in the
  coordinates the noise is added in.
* Neighbouring datasets differ by **replacing one record** unless a docstring says otherwise.
* ``epsilon = numpy.inf`` means "no privacy": every σ is 0, so the non-private limit of every
  mechanism runs through the same code path.

:func:`check_gaussian_guarantee` is the one place a claimed (ε, δ) is checked against the noise
actually used (every :class:`~privpca_edu.privacy.PrivacyRecord` goes through it).

References
----------
.. [DR14] C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, 2014,
   Theorem A.1 (classic Gaussian mechanism, ε < 1).
.. [BW18] B. Balle and Y.-X. Wang, "Improving the Gaussian mechanism for differential privacy:
   analytical calibration and optimal denoising", ICML 2018, Theorem 8.
.. [DRS19] J. Dong, A. Roth and W. Su, "Gaussian differential privacy", 2019.
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from .._validation import (
    PrivacyWarning,
    as_generator,
    caller_stacklevel,
    check_delta,
    check_epsilon,
    check_int,
    check_option,
    check_positive,
)

__all__ = [
    "gaussian_sigma",
    "analytic_gaussian_delta",
    "GaussianGuarantee",
    "check_gaussian_guarantee",
    "gdp_delta",
    "gdp_epsilon",
    "gaussian_mu_bound",
    "symmetric_noise",
    "symmetric_to_vector",
    "SYMMETRIC_CONVENTIONS",
    "EXACT_DELTA_RTOL",
    "MU_RESOLVABLE",
]


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

    Parameters
    ----------
    sigma : float
        Noise standard deviation σ > 0 (``inf``: δ = 0).
    sensitivity : float
        The ℓ2 sensitivity Δ > 0 in the coordinates the noise is added in.
    epsilon : float
        The privacy parameter ε ≥ 0.

    Returns
    -------
    float
        The smallest δ for which the mechanism is (ε, δ)-DP.
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

    A :class:`~privpca_edu.privacy.PrivacyRecord` is built from it (``is_private``, ``exact_delta``,
    ``note``); the fields below are also its attributes.

    Parameters
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


def _releases_mu(releases):
    """μ = √(Σ count·(Δ/σ)²) of (Δ, σ, count) Gaussian releases (exact GDP composition); ∞ if some σ = 0.

    Accumulated with hypot: (Δ/σ)² overflows (OverflowError) for ε ≈ 1e300.  Shared by
    :func:`check_gaussian_guarantee` and the budget accountant.
    """
    total = 0.0
    for sens, sigma, count in releases:
        if sens == 0 or count == 0 or math.isinf(sigma):
            continue
        if sigma == 0:
            return math.inf
        total = math.hypot(total, math.sqrt(count) * (sens / sigma))
    return total


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
        The verdict: ``holds``, ``mu``, ``exact_delta`` and a ``note`` when it fails.

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
    releases = list(releases)  # (an iterator is read once)
    try:  # the same arguments (by type and value) as an earlier call that passed: its verdict
        key = (type(epsilon), epsilon, type(delta), delta,
               tuple((len(item),) + tuple((type(x), x) for x in item) for item in releases))
        verdict = _VERDICTS.get(key)
    except TypeError:  # unhashable (an array) or unsized: checked below, not remembered
        key = verdict = None
    if verdict is None:
        verdict = _check_gaussian_guarantee(epsilon, delta, releases)
        if key is not None:
            if len(_VERDICTS) >= 4096:
                _VERDICTS.clear()
            _VERDICTS[key] = verdict
    return verdict


#: Verdicts of check_gaussian_guarantee by its arguments (type and value of each): a pure function
#: of public parameters, called on every private fit (a dashboard's slider move repeats them).
#: NaN never equals itself, so an invalid argument is never found here and is refused as before.
_VERDICTS = {}


def _check_gaussian_guarantee(epsilon, delta, releases):
    epsilon = check_epsilon(epsilon)
    delta = check_positive(delta, "delta", allow_zero=True)
    checked = []
    for item in releases:
        if len(item) == 2:
            sens, sigma = item
            count = 1
        elif len(item) == 3:
            sens, sigma, count = item
        else:
            raise ValueError(f"releases must hold (sensitivity, sigma[, count]) tuples, got {item!r}")
        checked.append((check_positive(sens, "sensitivity", allow_zero=True),
                        check_positive(sigma, "sigma", allow_zero=True, allow_inf=True),
                        check_int(count, "count", low=0)))
    mu = _releases_mu(checked)
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
        The ℓ2 sensitivity Δ > 0 of the released statistic, in the coordinates the noise is
        added in.
    epsilon : float
        The privacy parameter ε > 0; ``numpy.inf`` returns 0.
    delta : float
        The privacy parameter δ in (0, 1).
    method : {"classic", "analytic"}
        ``"classic"``: :math:`\sigma = \Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon` [DR14]_.  The
        proof needs ε < 1; for ε ≥ 1 a :class:`PrivacyWarning` is issued (the value is still
        returned, as the papers we reproduce use it there).  ``"analytic"``: the smallest σ
        meeting Balle & Wang's exact condition (:func:`analytic_gaussian_delta` ≤ δ), found by
        bisection on log σ; valid for every ε and never larger than the classic value.

    Returns
    -------
    float
        The noise standard deviation σ (0 for ε = ∞).

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
    r"""The privacy curve δ(ε) of a μ-GDP mechanism [DRS19]_: :math:`\Phi(-\varepsilon/\mu + \mu/2) - e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)`.

    A Gaussian mechanism with sensitivity Δ and noise σ is exactly μ-GDP with μ = Δ/σ; this is
    the same curve as :func:`analytic_gaussian_delta`.

    Parameters
    ----------
    mu : float
        The Gaussian-DP parameter μ ≥ 0.
    epsilon : float
        The privacy parameter ε ≥ 0.

    Returns
    -------
    float
        The exact δ(ε) of μ-GDP.
    """
    mu = check_positive(mu, "mu", allow_zero=True)
    epsilon = check_positive(epsilon, "epsilon", allow_zero=True)
    if mu == 0:
        return 0.0
    return analytic_gaussian_delta(1.0 / mu, 1.0, epsilon)


def gdp_epsilon(mu, delta):
    """The smallest ε ≥ 0 with ``gdp_delta(mu, ε) <= delta`` (μ-GDP expressed as (ε, δ)-DP).

    Parameters
    ----------
    mu : float
        The Gaussian-DP parameter μ ≥ 0.
    delta : float
        The privacy parameter δ in (0, 1).

    Returns
    -------
    float
        The smallest ε (``inf`` when no finite ε gives this δ).
    """
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


def gaussian_mu_bound(epsilon, delta):
    r"""The largest μ for which μ-GDP is (ε, δ)-DP: every Gaussian release that is (ε, δ)-DP has μ ≤ this.

    :func:`~privpca_edu.privacy.gdp_delta` (μ, ε) increases with μ, so the bound is the root of
    gdp_delta(μ, ε) = δ.  An accountant uses it to price a Gaussian fit before its noise is drawn.

    Parameters
    ----------
    epsilon : float
        The privacy parameter ε > 0 (``numpy.inf``: no bound).
    delta : float
        The privacy parameter δ in (0, 1).

    Returns
    -------
    float
        The largest μ with ``gdp_delta(μ, ε) <= δ``.

    Examples
    --------
    >>> round(gaussian_mu_bound(1.0, 1e-5), 4)
    0.2681
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if math.isinf(epsilon):
        return math.inf
    hi = 1.0
    while gdp_delta(hi, epsilon) <= delta:
        hi *= 2.0
        if hi > 1e6:  # pragma: no cover - ε beyond any practical range
            return hi
    lo = 0.0
    mu = optimize.brentq(lambda m: gdp_delta(m, epsilon) - delta, lo, hi, xtol=1e-14, rtol=1e-12)
    while mu > 0 and gdp_delta(mu, epsilon) > delta:  # stay on the private side of the root
        mu = math.nextafter(mu, 0.0)
    return mu


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
        Source of randomness (see :func:`privpca_edu._validation.as_generator`).

    Returns
    -------
    ndarray, shape (*size, dim, dim)
        E, exactly symmetric.
    """
    dim = check_int(dim, "dim", low=1)
    sigma = check_positive(sigma, "sigma", allow_zero=True)
    if convention == "vecd":
        convention = "frobenius"
    check_option(convention, "convention", tuple(SYMMETRIC_CONVENTIONS))
    rng = as_generator(random_state)
    batch = () if size is None else ((size,) if np.isscalar(size) else tuple(size))
    G = rng.standard_normal(batch + (dim, dim))
    # on and above the diagonal as drawn, below it the mirror image of the strict upper triangle
    E = np.where(_upper_triangle_mask(dim), G, np.swapaxes(G, -1, -2))
    if convention == "frobenius":
        E *= 1 / math.sqrt(2)
        idx = np.arange(dim)
        E[..., idx, idx] = G[..., idx, idx]
    E *= sigma
    return E


def _upper_triangle_mask(dim):
    """The (dim, dim) boolean mask of the diagonal and the upper triangle (read-only).

    Cached up to dim = 256 (at most 64 masks of ≤ 64 KB); a larger one is built each time, so a
    sweep over large d holds no memory.
    """
    return _cached_upper_triangle_mask(dim) if dim <= 256 else np.triu(np.ones((dim, dim), dtype=bool))


@functools.lru_cache(maxsize=64)
def _cached_upper_triangle_mask(dim):
    mask = np.triu(np.ones((dim, dim), dtype=bool))
    mask.flags.writeable = False
    return mask


def symmetric_to_vector(A, convention="upper_iid"):
    r"""Return the coordinates in which :func:`symmetric_noise` is i.i.d. N(0, σ²).

    ``"upper_iid"``: the diagonal and strict upper triangle of A, each once.
    ``"frobenius"``: vecd(A) = (diag A, √2 · strict upper triangle), an isometry
    (‖vecd A‖₂ = ‖A‖_F).  The ℓ2 sensitivity that goes into :func:`gaussian_sigma` is measured
    in these coordinates (audit recipe A).  Works on the last two axes of a batch.

    Parameters
    ----------
    A : array_like, shape (..., d, d)
        A square matrix or a batch of them.
    convention : {"upper_iid", "frobenius"}, default "upper_iid"
        As in :func:`symmetric_noise` (``"vecd"`` is an alias of ``"frobenius"``).

    Returns
    -------
    ndarray, shape (..., d(d+1)/2)
        The diagonal first, then the strict upper triangle (scaled by √2 for ``"frobenius"``).
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
