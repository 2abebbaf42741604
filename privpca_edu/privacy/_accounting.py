r"""Composition and accounting: many releases from the same data, one budget.

* The composition theorems: :func:`compose_basic`, :func:`compose_advanced` [DRV10]_, zero-
  concentrated DP (:func:`zcdp_rho`, :func:`zcdp_to_dp`) [BS16]_; the exact composition of
  Gaussian releases is Gaussian DP (:func:`~privpca_edu.privacy.check_gaussian_guarantee`).
* The per-step σ of T adaptive Gaussian steps: :func:`iterative_gaussian_sigma` and its methods
  :data:`ITERATIVE_CALIBRATIONS`.
* A privacy budget that many releases draw on: :class:`BudgetAccountant`.

Every release from the same data spends part of one budget (ε, δ).  An accountant keeps the
running total of a session's releases under a composition theorem and refuses, *before any
noise is drawn*, a fit that would take the total past the budget::

    from privpca_edu import AnalyzeGauss
    from privpca_edu.privacy import BudgetAccountant

    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    AnalyzeGauss(2, epsilon=0.5, accountant=acc).fit(X)   # spends its privacy_ record
    acc.total(), acc.remaining(), acc.history

Every private estimator takes ``accountant=``: before noise is drawn its ``fit`` asks the
accountant whether the release it was asked for (its ``epsilon`` and ``delta``) still fits
(:class:`BudgetExceededError` otherwise); after the fit the accountant is charged the record
``privacy_`` actually proves.  Neighbouring relation: replace one record, as everywhere in the
package; all releases are assumed to be computed from the same data set (or overlapping ones).

Compositions of a :class:`BudgetAccountant` (``composition=``)
--------------------------------------------------------------
``"basic"``
    (Σεᵢ, Σδᵢ) [DR14]_ Theorem 3.16.
``"advanced"``
    The smaller of basic composition and the heterogeneous advanced composition
    :math:`\varepsilon' = \sqrt{2\ln(1/\delta')\sum\varepsilon_i^2} + \sum\varepsilon_i(e^{\varepsilon_i}-1)`,
    δ = Σδᵢ + δ′ [DRV10]_ [KOV15]_ (Theorem 3.5 there has the smaller term
    εᵢ(e^{εᵢ} − 1)/(e^{εᵢ} + 1)); the slack δ′ is what the budget's δ leaves.
``"gdp"`` (default)
    Exact for Gaussian noise: a release whose record lists its Gaussian releases (Δⱼ, σⱼ) is
    μ-Gaussian-DP with μ² = Σ(Δⱼ/σⱼ)², and μᵢ-GDP mechanisms compose to exactly
    √(Σμᵢ²)-GDP [DRS19]_ (Corollary 3.3), whose (ε, δ) curve is
    :func:`privpca_edu.privacy.gdp_delta`.  Releases without Gaussian noise (PPCA's sampler,
    ε-DP) are added by basic composition on top of the Gaussian block.
``"pld"``
    The same, with the Gaussian block accounted by Google's ``dp-accounting`` privacy-loss
    distributions (``pip install privpca_edu[accounting]``): a cross-check of ``"gdp"``, which
    it matches to the discretisation of the PLD (the tests compare them).

References
----------
.. [DR14] C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, 2014.
.. [DRV10] C. Dwork, G. Rothblum and S. Vadhan, "Boosting and differential privacy", FOCS 2010.
.. [BS16] M. Bun and T. Steinke, "Concentrated differential privacy", TCC 2016.
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath, "The composition theorem for differential
   privacy", ICML 2015.
.. [DRS19] J. Dong, A. Roth and W. Su, "Gaussian differential privacy", 2019.
.. [GWWL18] J. Ge, Z. Wang, M. Wang and H. Liu, "Minimax-optimal privacy-preserving sparse PCA
   in distributed systems", AISTATS 2018 (DPS-PCA).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .._validation import (
    PrivacyWarning,
    caller_stacklevel,
    check_delta,
    check_epsilon,
    check_int,
    check_option,
    check_positive,
)
from ._gaussian import _analytic_sigma, _finite_sigma, _releases_mu, gaussian_mu_bound, gdp_delta, gdp_epsilon

__all__ = [
    "compose_basic",
    "compose_advanced",
    "zcdp_rho",
    "zcdp_to_dp",
    "iterative_gaussian_sigma",
    "ITERATIVE_CALIBRATIONS",
    "BudgetAccountant",
    "BudgetExceededError",
    "Spend",
    "COMPOSITIONS",
    "pld_epsilon",
]


# ---------------------------------------------------------------------------------------------
# Composition
# ---------------------------------------------------------------------------------------------
def compose_basic(epsilon_step, delta_step, n_steps):
    """Basic composition: T mechanisms that are each (ε₀, δ₀)-DP are (Tε₀, Tδ₀)-DP.

    δ₀ must lie in [0, 1).  The total δ is capped at 1: every mechanism is (ε, 1)-DP, so a
    total Tδ₀ ≥ 1 is returned as 1.0 (a vacuous guarantee, never a "probability" above 1).

    Parameters
    ----------
    epsilon_step : float
        The privacy parameter ε₀ > 0 of each mechanism.
    delta_step : float
        The privacy parameter δ₀ in [0, 1) of each mechanism.
    n_steps : int
        T ≥ 1.

    Returns
    -------
    tuple of float
        (Tε₀, min(1, Tδ₀)).

    Examples
    --------
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

    Parameters
    ----------
    epsilon_step : float
        The privacy parameter ε₀ > 0 of each mechanism.
    delta_step : float
        The privacy parameter δ₀ in [0, 1) of each mechanism.
    n_steps : int
        T ≥ 1.
    delta_slack : float
        The slack δ′ in (0, 1).

    Returns
    -------
    tuple of float
        (ε′, min(1, Tδ₀ + δ′)).
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
    """The ρ of T Gaussian mechanisms under zero-concentrated DP [BS16]_: ρ = TΔ²/(2σ²).

    Parameters
    ----------
    sensitivity : float
        The ℓ2 sensitivity Δ > 0 of each step.
    sigma : float
        Noise standard deviation σ > 0 of each step.
    n_steps : int, default 1
        T ≥ 1.

    Returns
    -------
    float
        The zCDP parameter ρ = TΔ²/(2σ²).
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    sigma = check_positive(sigma, "sigma", allow_inf=True)
    n_steps = check_int(n_steps, "n_steps", low=1)
    return n_steps * sensitivity**2 / (2 * sigma**2)


def zcdp_to_dp(rho, delta):
    r"""Convert ρ-zCDP to (ε, δ)-DP: :math:`\varepsilon = \rho + 2\sqrt{\rho\ln(1/\delta)}` [BS16]_.

    Parameters
    ----------
    rho : float
        The zCDP parameter ρ ≥ 0.
    delta : float
        The target δ in (0, 1).

    Returns
    -------
    float
        The ε of the (ε, δ)-DP guarantee.
    """
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

    Parameters
    ----------
    sensitivity : float
        The ℓ2 sensitivity Δ > 0 of each step.
    epsilon : float
        The total ε > 0 (``numpy.inf``: σ = 0).
    delta : float
        The total δ in (0, 1).
    n_steps : int
        T ≥ 1 adaptive steps.
    method : str, default "paper"
        One of :data:`ITERATIVE_CALIBRATIONS` (table above).

    Returns
    -------
    float
        The per-step σ.

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


#: The composition theorems a :class:`BudgetAccountant` can use.
COMPOSITIONS = ("basic", "advanced", "gdp", "pld")

#: Relative slack for floating-point rounding when a total is compared with the budget.
_RTOL = 1e-9


class BudgetExceededError(RuntimeError):
    """A release would take the privacy spend past the accountant's budget (nothing was released)."""


@dataclass(frozen=True)
class Spend:
    """One entry of :attr:`BudgetAccountant.history` (the fields are also its attributes).

    Parameters
    ----------
    label : str
        What was released.
    epsilon, delta : float
        The guarantee of this release on its own.
    mu : float or None, default None
        Its Gaussian-DP parameter when all its noise is Gaussian (None otherwise).
    record : PrivacyRecord or None, default None
        The estimator's :class:`~privpca_edu.privacy.PrivacyRecord` (None for a manual spend).
    """

    label: str
    epsilon: float
    delta: float
    mu: float | None = None
    record: object = None


def _record_mu(record):
    """μ of a record's Gaussian releases, μ² = Σ count·(Δ/σ)² (None without any)."""
    releases = getattr(record, "releases", ())
    return _releases_mu(releases) if releases else None


class BudgetAccountant:
    """A privacy budget (ε, δ) for a sequence of releases from the same data.

    Parameters
    ----------
    epsilon : float
        The total ε > 0 (``numpy.inf``: no limit on ε).
    delta : float, default 0.0
        The total δ in [0, 1).
    composition : {"gdp", "basic", "advanced", "pld"}, default "gdp"
        How spends add up (see the module docstring); ``"pld"`` needs ``dp-accounting``.

    Attributes
    ----------
    history : list of :class:`Spend`
        Every release charged, in order.

    Examples
    --------
    >>> acc = BudgetAccountant(1.0, 1e-5, composition="basic")
    >>> acc.spend(0.4, 1e-6, label="a count")
    >>> acc.remaining()
    (0.6, 9e-06)
    >>> try:
    ...     acc.spend(0.7, 0.0)
    ... except BudgetExceededError as err:
    ...     print("refused")
    refused
    """

    def __init__(self, epsilon, delta=0.0, *, composition="gdp"):
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=True)
        self.composition = check_option(composition, "composition", COMPOSITIONS)
        if self.composition == "pld":
            _require_dp_accounting()
        self.history = []

    # One ledger per budget: scikit-learn's clone (GridSearchCV, cross_validate) deep-copies an
    # estimator's parameters, and a copied accountant would let every clone spend the full budget.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self):
        eps, dlt = self.total()
        return (f"BudgetAccountant(epsilon={self.epsilon:g}, delta={self.delta:g}, composition={self.composition!r}; "
                f"spent epsilon={eps:.4g}, delta={dlt:.3g} in {len(self.history)} release(s))")

    # ------------------------------------------------------------------ totals
    def total(self, spends=None):
        """(ε, δ) of all releases so far composed (or of ``spends``): they are together (ε, δ)-DP.

        Under ``"gdp"`` and ``"pld"`` the Gaussian releases are stated at the δ the budget leaves
        them (δ − Σδ of the others), so δ is the budget's δ once any Gaussian release is made.

        Parameters
        ----------
        spends : list of Spend, optional
            The spends to compose (default: :attr:`history`).

        Returns
        -------
        tuple of float
            (ε, δ).
        """
        spends = self.history if spends is None else spends
        eps_all = math.fsum(s.epsilon for s in spends)
        dlt_all = math.fsum(s.delta for s in spends)
        if not spends:
            return 0.0, 0.0
        if self.composition == "basic":
            return eps_all, dlt_all
        if self.composition == "advanced":
            slack = self.delta - dlt_all
            if slack <= 0 or any(math.isinf(s.epsilon) for s in spends):
                return eps_all, dlt_all
            sq = math.fsum(s.epsilon**2 for s in spends)
            with_exp = math.fsum(s.epsilon * math.expm1(min(s.epsilon, 700.0)) for s in spends)
            eps_adv = math.sqrt(2 * math.log(1 / slack) * sq) + with_exp
            return (eps_adv, self.delta) if eps_adv < eps_all else (eps_all, dlt_all)
        gauss = [s for s in spends if s.mu is not None]
        other = [s for s in spends if s.mu is None]
        eps_o = math.fsum(s.epsilon for s in other)
        dlt_o = math.fsum(s.delta for s in other)
        if not gauss:
            return eps_o, dlt_o
        mu = math.hypot(*(s.mu for s in gauss))
        left = self.delta - dlt_o
        if mu == 0:
            return eps_o, dlt_o
        if left <= 0 or math.isinf(mu):
            return math.inf, max(self.delta, dlt_o)
        return eps_o + self._gaussian_epsilon(gauss, mu, left), self.delta

    def _gaussian_epsilon(self, gauss, mu, delta):
        if self.composition == "gdp":
            return gdp_epsilon(mu, delta)
        return pld_epsilon([s.mu for s in gauss], delta)

    def _within(self, spends):
        if self.composition in ("gdp", "pld"):
            gauss = [s for s in spends if s.mu is not None]
            other = [s for s in spends if s.mu is None]
            eps_o = math.fsum(s.epsilon for s in other)
            dlt_o = math.fsum(s.delta for s in other)
            if eps_o > self.epsilon * (1 + _RTOL) or dlt_o > self.delta * (1 + _RTOL):
                return False
            mu = math.hypot(*(s.mu for s in gauss)) if gauss else 0.0
            if mu == 0:
                return True
            if math.isinf(mu) or self.delta - dlt_o <= 0:
                return False
            left = max(self.epsilon - eps_o, 0.0)
            if math.isinf(left):
                return True
            if self.composition == "gdp":  # exact: compare δ(ε) directly, no root finding
                return gdp_delta(mu, left) <= (self.delta - dlt_o) * (1 + _RTOL)
            return pld_epsilon([s.mu for s in gauss], self.delta - dlt_o) <= left * (1 + _RTOL)
        eps, dlt = self.total(spends)
        return eps <= self.epsilon * (1 + _RTOL) and dlt <= self.delta * (1 + _RTOL)

    def remaining(self):
        """(ε, δ) still unspent: the budget minus :meth:`total` (never below 0).

        Returns
        -------
        tuple of float
            (ε, δ) left.
        """
        eps, dlt = self.total()
        return max(self.epsilon - eps, 0.0), max(self.delta - dlt, 0.0)

    # ------------------------------------------------------------------ spending
    def _entry(self, epsilon, delta=0.0, *, mu=None, label="", record=None):
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta, allow_zero=True) if delta < 1 else float(delta)
        if mu is not None:
            mu = check_positive(mu, "mu", allow_zero=True, allow_inf=True)
        return Spend(str(label), epsilon, delta, mu, record)

    def check(self, epsilon, delta=0.0, *, mu=None, label=""):
        """Raise :class:`BudgetExceededError` if a release of (ε, δ) [μ-GDP] would exceed the budget.

        Parameters
        ----------
        epsilon : float
            The ε of the release.
        delta : float, default 0.0
            The δ of the release.
        mu : float, optional
            Its Gaussian-DP parameter, if all its noise is Gaussian.
        label : str, default ""
            What is released (for the history and the error message).

        Returns
        -------
        Spend
            The entry :meth:`spend` would record.
        """
        entry = self._entry(epsilon, delta, mu=mu, label=label)
        if not self._within(self.history + [entry]):
            eps, dlt = self.total()
            what = f"{label}: " if label else ""
            cost = f"({entry.epsilon:g}, {entry.delta:g})" + (f", {entry.mu:.4g}-GDP" if entry.mu is not None and self.composition in ("gdp", "pld") else "")
            raise BudgetExceededError(
                f"{what}a release of {cost} would exceed the privacy budget (epsilon={self.epsilon:g}, "
                f"delta={self.delta:g}; {self.composition} composition): {len(self.history)} release(s) already spent "
                f"epsilon={eps:.4g}, delta={dlt:.3g}. Nothing was released.")
        return entry

    def spend(self, epsilon, delta=0.0, *, mu=None, label=""):
        """Charge a release of (ε, δ) (μ: its Gaussian-DP parameter, if all its noise is Gaussian).

        Refuses with :class:`BudgetExceededError`, charging nothing, when it does not fit.

        Parameters
        ----------
        epsilon : float
            The ε of the release.
        delta : float, default 0.0
            The δ of the release.
        mu : float, optional
            Its Gaussian-DP parameter, if all its noise is Gaussian.
        label : str, default ""
            What is released.
        """
        self.history.append(self.check(epsilon, delta, mu=mu, label=label))

    # ------------------------------------------------------------------ estimators
    def _planned(self, estimator):
        """The spend a fit of ``estimator`` asks for, priced from its parameters before any noise is drawn."""
        epsilon = check_epsilon(estimator.epsilon)
        requires_delta = getattr(estimator, "requires_delta", True)
        delta = float(getattr(estimator, "delta", 0.0)) if requires_delta else 0.0
        mu = None
        if getattr(estimator, "gaussian_noise", False) and delta > 0 and not math.isinf(epsilon):
            mu = gaussian_mu_bound(epsilon, delta)  # any Gaussian (ε, δ)-DP release has μ ≤ this
        return epsilon, delta, mu

    def check_estimator(self, estimator):
        """Refuse (before any noise) a fit of ``estimator`` that would exceed the budget.

        Parameters
        ----------
        estimator : PrivateEstimator
            An unfitted or fitted private estimator; its ``epsilon`` and ``delta`` are priced.
        """
        epsilon, delta, mu = self._planned(estimator)
        label = type(estimator).__name__
        if math.isinf(epsilon):
            raise BudgetExceededError(f"{label}: epsilon=inf releases without noise, which no finite budget allows; "
                                      "nothing was released")
        self.check(epsilon, delta, mu=mu, label=label)

    def spend_record(self, record, label=""):
        """Charge a fitted estimator's :class:`~privpca_edu.privacy.PrivacyRecord` (what ``fit`` calls).

        A private record is charged its (ε, δ), and its μ when it lists Gaussian releases.  A
        record that is *not* private is charged what its noise really gives: ε with its exact δ
        (``exact_delta``), or ε = ∞ when nothing bounds it.  This charge is recorded even when it
        exceeds the budget (the release has happened): later fits are then refused.

        Parameters
        ----------
        record : PrivacyRecord
            The fitted estimator's ``privacy_``.
        label : str, default ""
            What was released.

        Returns
        -------
        Spend
            The entry recorded.
        """
        mu = _record_mu(record)
        if record.is_private:
            entry = self._entry(record.epsilon, record.delta, mu=mu, label=label, record=record)
        elif mu is not None and record.exact_delta is not None and not math.isinf(record.epsilon):
            entry = self._entry(record.epsilon, min(record.exact_delta, 1.0), mu=mu, label=label, record=record)
        else:
            entry = Spend(str(label), math.inf, 1.0, None, record)
        self.history.append(entry)
        return entry


def _require_dp_accounting():
    try:
        import dp_accounting  # noqa: F401
    except ImportError:
        raise ImportError("composition='pld' needs Google's dp-accounting: pip install 'privpca_edu[accounting]'") \
            from None


def pld_epsilon(mus, delta):
    """The ε at δ of Gaussian releases μ₁, μ₂, … composed by ``dp_accounting``'s PLD accountant.

    A μ-GDP release is a Gaussian mechanism of sensitivity 1 and noise multiplier 1/μ.

    Parameters
    ----------
    mus : iterable of float
        The μ of each Gaussian release (μ = Δ/σ).
    delta : float
        The target δ in (0, 1).

    Returns
    -------
    float
        The ε of all releases together at this δ.
    """
    _require_dp_accounting()
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    for mu in mus:
        if mu > 0:
            acc.compose(dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / mu))
    return float(acc.get_epsilon(delta))
