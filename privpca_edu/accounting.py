r"""A privacy budget that many releases draw on: :class:`BudgetAccountant`.

Every release from the same data spends part of one budget (ε, δ).  An accountant keeps the
running total of a session's releases under a composition theorem and refuses, *before any
noise is drawn*, a fit that would take the total past the budget::

    from privpca_edu import AnalyzeGauss
    from privpca_edu.accounting import BudgetAccountant

    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    AnalyzeGauss(2, epsilon=0.5, accountant=acc).fit(X)   # spends its privacy_ record
    acc.total(), acc.remaining(), acc.history

Every private estimator takes ``accountant=``: before noise is drawn its ``fit`` asks the
accountant whether the release it was asked for (its ``epsilon`` and ``delta``) still fits
(:class:`BudgetExceededError` otherwise); after the fit the accountant is charged the record
``privacy_`` actually proves.  Neighbouring relation: replace one record, as everywhere in the
package; all releases are assumed to be computed from the same data set (or overlapping ones).

Compositions (``composition=``)
-------------------------------
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
.. [KOV15] P. Kairouz, S. Oh and P. Viswanath, "The composition theorem for differential
   privacy", ICML 2015.
.. [DRS19] J. Dong, A. Roth and W. Su, "Gaussian differential privacy", 2019.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import optimize

from ._validation import check_delta, check_epsilon, check_option, check_positive
from .privacy import gdp_delta, gdp_epsilon

__all__ = ["BudgetAccountant", "BudgetExceededError", "Spend", "COMPOSITIONS", "gaussian_mu_bound"]

#: The composition theorems a :class:`BudgetAccountant` can use.
COMPOSITIONS = ("basic", "advanced", "gdp", "pld")

#: Relative slack for floating-point rounding when a total is compared with the budget.
_RTOL = 1e-9


class BudgetExceededError(RuntimeError):
    """A release would take the privacy spend past the accountant's budget (nothing was released)."""


@dataclass(frozen=True)
class Spend:
    """One entry of :attr:`BudgetAccountant.history`.

    ``epsilon``, ``delta``: the guarantee of this release on its own; ``mu``: its Gaussian-DP
    parameter when all its noise is Gaussian (None otherwise); ``label``: what was released;
    ``record``: the estimator's :class:`~privpca_edu.PrivacyRecord` (None for a manual spend).
    """

    label: str
    epsilon: float
    delta: float
    mu: float | None = None
    record: object = None


def gaussian_mu_bound(epsilon, delta):
    r"""The largest μ for which μ-GDP is (ε, δ)-DP: every Gaussian release that is (ε, δ)-DP has μ ≤ this.

    :func:`~privpca_edu.privacy.gdp_delta` (μ, ε) increases with μ, so the bound is the root of
    gdp_delta(μ, ε) = δ.  An accountant uses it to price a Gaussian fit before its noise is drawn.

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


def _record_mu(record):
    """μ of a record's Gaussian releases, μ² = Σ count·(Δ/σ)² (None without any)."""
    releases = getattr(record, "releases", ())
    if not releases:
        return None
    total = 0.0
    for sens, sigma, count in releases:
        if sens == 0 or count == 0 or math.isinf(sigma):
            continue
        if sigma == 0:
            return math.inf
        total += count * (sens / sigma) ** 2
    return math.sqrt(total)


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
        mu = math.sqrt(math.fsum(s.mu**2 for s in gauss))
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
            mu = math.sqrt(math.fsum(s.mu**2 for s in gauss)) if gauss else 0.0
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
        """(ε, δ) still unspent: the budget minus :meth:`total` (never below 0)."""
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
        """Raise :class:`BudgetExceededError` if a release of (ε, δ) [μ-GDP] would exceed the budget."""
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
        """Refuse (before any noise) a fit of ``estimator`` that would exceed the budget."""
        epsilon, delta, mu = self._planned(estimator)
        label = type(estimator).__name__
        if math.isinf(epsilon):
            raise BudgetExceededError(f"{label}: epsilon=inf releases without noise, which no finite budget allows; "
                                      "nothing was released")
        self.check(epsilon, delta, mu=mu, label=label)

    def spend_record(self, record, label=""):
        """Charge a fitted estimator's :class:`~privpca_edu.PrivacyRecord` (what ``fit`` calls).

        A private record is charged its (ε, δ), and its μ when it lists Gaussian releases.  A
        record that is *not* private is charged what its noise really gives: ε with its exact δ
        (``exact_delta``), or ε = ∞ when nothing bounds it.  This charge is recorded even when it
        exceeds the budget (the release has happened): later fits are then refused.
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
    """ε at δ of Gaussian releases μ₁, μ₂, … composed by ``dp_accounting``'s PLD accountant.

    A μ-GDP release is a Gaussian mechanism of sensitivity 1 and noise multiplier 1/μ.
    """
    _require_dp_accounting()
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    for mu in mus:
        if mu > 0:
            acc.compose(dp_accounting.GaussianDpEvent(noise_multiplier=1.0 / mu))
    return float(acc.get_epsilon(delta))
