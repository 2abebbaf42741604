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

import numpy as np

from ..estimators import PPCA, AnalyzeGauss, ModSuLQ

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


class HalfSigmaAnalyzeGauss(AnalyzeGauss):
    """NOT PRIVATE: Analyze Gauss with half the documented noise."""

    def _noise_scale(self, *args):
        return super()._noise_scale(*args) / 2


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

    def _concentration(self, epsilon, data_norm):
        return 2 * super()._concentration(epsilon, data_norm)


class AlwaysAcceptPPCA(PPCA):
    """NOT PRIVATE as claimed: the exact sampler never rejects."""

    _log_ratio = staticmethod(always_accept_log_ratio)


class DividedRatioPPCA(PPCA):
    """NOT PRIVATE as claimed: the diffprivlib / OpenDP acceptance-ratio defect."""

    _log_ratio = staticmethod(divided_log_ratio)


# ---------------------------------------------------------------------------------------------
# g-DPPCA (Kim & Jung 2025): issue 5
# ---------------------------------------------------------------------------------------------
from ..estimators.robust import KendallDPPCA as _KendallDPPCA  # noqa: E402  (appended section)

__all__ += ["HalfSigmaKendallDPPCA"]


class HalfSigmaKendallDPPCA(_KendallDPPCA):
    """NOT PRIVATE: g-DPPCA with half the documented noise (the R ``dppca`` defect before its fix)."""

    def _noise_scale(self, *args):
        return super()._noise_scale(*args) / 2
