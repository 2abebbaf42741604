"""Deliberately broken mechanisms: the audit recipes must flag those that break their claim.

They exist for the test suite ("a test that cannot fail is a defect") and for the auditing
chapter's *catch the cheater* exercise.  Never use them for anything else.  Every class marked
**NOT PRIVATE** violates the (ε, δ) it claims (the tests check it, for the noise it really
uses); ``HalfSigmaModSuLQ`` is the exception and says so: it breaks its documentation, not its
claim.

=============================  =====================================================
``HalfSigmaAnalyzeGauss``      Analyze Gauss with σ/2 (claims the same ε, δ)
``HalfSigmaModSuLQ``           MOD-SuLQ with β/2 — still (ε, δ)-DP for d ≥ 3: only
                               a white-box audit against the documented β flags it
``DoubleExponentPPCA``         exponential mechanism with exponent ε/B² instead of ε/(2B²)
``AlwaysAcceptPPCA``           exact sampler whose rejection step accepts every proposal
                               (it then samples the angular central Gaussian envelope)
``DividedRatioPPCA``           exact sampler with the acceptance ratio *divided* by
                               (xᵀΩx)^{d/2}: the defect measured in diffprivlib 0.6.6 and
                               OpenDP 0.16
=============================  =====================================================
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..estimators import PPCA, AnalyzeGauss, ModSuLQ
from ..privacy import check_gaussian_guarantee

__all__ = [
    "HalfSigmaAnalyzeGauss",
    "HalfSigmaModSuLQ",
    "DoubleExponentPPCA",
    "AlwaysAcceptPPCA",
    "DividedRatioPPCA",
    "always_accept_log_ratio",
    "divided_log_ratio",
]


def always_accept_log_ratio(x, psi, omega, log_M):
    """Broken: log u < 0 always holds, so every proposal is accepted."""
    return np.zeros(x.shape[0])


def divided_log_ratio(x, psi, omega, log_M):
    """Broken: divides by (xᵀΩx)^{d/2} where Kent, Ganeiber & Mardia multiply."""
    d = x.shape[1]
    x2 = x * x
    return -(x2 @ psi) - (d / 2) * np.log(x2 @ omega) - log_M


class _GaussianMutant:
    """Where a σ-scaled mutant breaks its (ε, δ) claim, computed exactly (not just asserted).

    The claim is broken at (ε, δ) iff the noise the mutant really adds fails
    :func:`privpca_edu.privacy.check_gaussian_guarantee` for the true replace-one sensitivity
    (:meth:`_true_sensitivity`).  With the classic σ, whose proof has slack at small ε, halving σ
    can still leave an (ε, δ)-DP mechanism there: :meth:`private_up_to` gives the largest such ε
    and :meth:`label` says it in words.
    """

    _N = 100  # μ = Δ/σ does not depend on n (both are ∝ 1/n)

    def _true_sensitivity(self, n):  # pragma: no cover - each mutant defines it
        raise NotImplementedError

    def _mutant_mu(self, epsilon, delta):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = self.__class__(**{**self.get_params(), "epsilon": epsilon, "delta": delta})
            n, d = self._N, 4
            sigma = est._noise_scale(est._calibrated_sensitivity(n, d),
                                     n, d, epsilon, delta, est._bound())
        return self._true_sensitivity(n), sigma

    def breaks_claim(self, epsilon=None, delta=None):
        """True iff the noise this mutant adds is NOT (ε, δ)-DP (defaults: its own ε, δ)."""
        epsilon = self.epsilon if epsilon is None else epsilon
        delta = self.delta if delta is None else delta
        sens, sigma = self._mutant_mu(epsilon, delta)
        return not check_gaussian_guarantee(epsilon, delta, [(sens, sigma)]).holds

    def private_up_to(self, delta=None):
        """The largest ε (to 3 digits) at which the mutant still meets its claim at δ; 0 if none.

        Found by bisection on log ε: the halved σ is ∝ 1/ε, so μ grows with ε and the claim, once
        broken, stays broken.
        """
        delta = self.delta if delta is None else delta
        lo, hi = 1e-6, 1e4
        if self.breaks_claim(lo, delta):
            return 0.0
        if not self.breaks_claim(hi, delta):
            return math.inf
        for _ in range(60):
            mid = math.sqrt(lo * hi)
            if self.breaks_claim(mid, delta):
                hi = mid
            else:
                lo = mid
        return lo

    def label(self):
        """'NOT PRIVATE …' with the computed range where the mutant breaks its claim, at its own δ."""
        top = self.private_up_to()
        name = type(self).__name__
        if top == 0.0:
            return f"{name}: NOT PRIVATE at every ε for δ = {self.delta:g} (its σ is calibrated exactly, so σ/2 never suffices)"
        state = "breaks its claim here" if self.breaks_claim() else "does NOT break its claim here"
        return (f"{name}: NOT PRIVATE for ε > {top:.3g} at δ = {self.delta:g} (computed exactly; for ε ≤ {top:.3g} the "
                f"halved σ still gives (ε, δ)-DP, as the classic σ has slack there); at ε = {self.epsilon:g} it {state}")


class HalfSigmaAnalyzeGauss(_GaussianMutant, AnalyzeGauss):
    """Analyze Gauss with half the documented noise: NOT PRIVATE, in the range :meth:`label` computes.

    With ``calibration="analytic"`` (exact σ) it breaks its claim at every (ε, δ).  With the
    classic σ (the default) it breaks it only above ε*(δ), where the classic proof's slack runs out:
    ε* = 0.00948 at δ = 1e-5, 0.154 at δ = 1e-3, 0.477 at δ = 1e-2 (so it is (0.1, 1e-3)-DP; at the
    book's ε = 1, δ = 1e-5 it breaks its claim).
    """

    def _noise_scale(self, *args):
        return super()._noise_scale(*args) / 2

    def _true_sensitivity(self, n):
        return math.sqrt(2.0) * float(self.data_norm) ** 2 / n  # upper-triangle vector of XᵀX/n

    def _calibrated_sensitivity(self, n, d):
        return self._sensitivity(n, d, float(self.data_norm))

    def _bound(self):
        return float(self.data_norm)


class HalfSigmaModSuLQ(ModSuLQ):
    """Less noise than documented, but still private: MOD-SuLQ with β/2.

    MOD-SuLQ's β is about (d+1)/√2 times the σ the Gaussian mechanism needs for the
    upper-triangle sensitivity √2B²/n, so β/2 still meets the (ε, δ) claim (checked exactly
    with :func:`privpca_edu.privacy.check_gaussian_guarantee` for d ≥ 3 over ε ∈ [0.1, 50],
    δ ∈ [1e-10, 0.1]; at d ≤ 2 it fails only at ε = 50, δ = 0.1).  What it breaks is the
    *documentation*, μ_doc = Δ/β: a black-box audit of the (ε, δ) claim cannot flag it, a
    white-box audit against μ_doc does (chapter 5, Exercise 5.4).
    """

    def _noise_scale(self, *args):
        return super()._noise_scale(*args) / 2


class DoubleExponentPPCA(PPCA):
    """NOT PRIVATE as claimed: the exponent is doubled (spends up to 2ε)."""

    def bingham_concentration(self, epsilon, data_norm):
        return 2 * super().bingham_concentration(epsilon, data_norm)


class AlwaysAcceptPPCA(PPCA):
    """The exact sampler never rejects: it samples Kent's angular central Gaussian (ACG) envelope.

    NOT the law the ε-DP proof is about, so the claim is unproved; whether it is *broken* depends
    on d and the data.  :meth:`privacy_loss` computes (a lower bound on) the ε it really spends
    on a pair of neighbours: on the audit's worst-case pairs (:func:`privpca_edu.audit.worst_case_pair`)
    at ε = 1 it is 0.53–0.72 for d ≤ 10 (n ≤ 100: within the claim there) and 1.13 > ε at d = 20,
    n = 20, where it breaks its claim (the tests check both).  The audits also flag it by its
    *law* (recipe E, exact-density test) at any d.
    """

    _log_ratio = staticmethod(always_accept_log_ratio)

    def privacy_loss(self, X, X_prime, n_directions=20_000, random_state=0):
        """max over directions v of |log g_D(v) − log g_D′(v)|, g the ACG density actually sampled.

        Evaluated on ``n_directions`` uniform unit vectors plus the coordinate axes, so it is a
        lower bound on the mutant's privacy loss for this pair (ε-DP needs it ≤ ε).
        """
        from ..estimators.ppca import kgm_envelope

        A, A_prime = self.bingham_parameter(X), self.bingham_parameter(X_prime)
        d = A.shape[0]
        rng = np.random.default_rng(random_state)
        V = rng.standard_normal((n_directions, d))
        V = np.vstack([V / np.linalg.norm(V, axis=1, keepdims=True), np.eye(d)])

        def log_density(M):
            lam, W = np.linalg.eigh(M)
            _, omega, _ = kgm_envelope(lam[-1] - lam)
            y = V @ W
            return 0.5 * np.sum(np.log(omega)) - (d / 2) * np.log((y * y) @ omega)

        return float(np.max(np.abs(log_density(A) - log_density(A_prime))))


class DividedRatioPPCA(PPCA):
    """NOT PRIVATE as claimed: the diffprivlib / OpenDP acceptance-ratio defect."""

    _log_ratio = staticmethod(divided_log_ratio)


# ---------------------------------------------------------------------------------------------
# g-DPPCA (Kim & Jung 2025): issue 5
# ---------------------------------------------------------------------------------------------
from ..estimators.robust import KendallDPPCA as _KendallDPPCA  # noqa: E402  (appended section)
from ..privacy import kendall_sensitivity as _kendall_sensitivity  # noqa: E402
from ..privacy import resolve_radius as _resolve_radius  # noqa: E402
from ..privacy import resolve_transform as _resolve_transform  # noqa: E402

__all__ += ["HalfSigmaKendallDPPCA"]


class HalfSigmaKendallDPPCA(_GaussianMutant, _KendallDPPCA):
    """g-DPPCA with half the documented noise (the R ``dppca`` defect before its fix).

    NOT PRIVATE above the ε that :meth:`label` computes: with the paper's Δ = 4‖g‖²/n and the
    classic σ (the defaults), σ/2 is still (ε, 1e-5)-DP for ε ≤ 0.365 (the true sensitivity is
    2√2‖g‖²/n), so the book runs it at ε = 0.5, where it breaks its claim.
    """

    def _noise_scale(self, *args):
        return super()._noise_scale(*args) / 2

    def _g_sup(self):
        kind = _resolve_transform(self.transform_kind)
        return _resolve_radius(self.radius, 4, kind)

    def _true_sensitivity(self, n):
        return 2.0 * math.sqrt(2.0) * self._g_sup() ** 2 / n  # the attained replace-one value

    def _calibrated_sensitivity(self, n, d):
        return _kendall_sensitivity(n, self.transform_kind, self._g_sup(), d, self.sensitivity)

    def _bound(self):
        return self._g_sup()
