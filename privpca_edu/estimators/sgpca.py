r"""SGPCA (Cai, Xia & Zha 2024): Gaussian noise on the spectral projector of the sample covariance.

A competitor in Kim & Jung's experiments (their Appendix C.2), calibrated under the spiked model;
its sensitivity is :func:`privpca_edu.privacy.sgpca_sensitivity`.

References
----------
.. [CXZ24] T. T. Cai, D. Xia and M. Zha, "Optimal differentially private PCA and estimation for
   spiked covariance matrices", arXiv:2401.03820 (2024).
.. [KJ25] M. Kim and S. Jung, "Robust and differentially private PCA for non-Gaussian data",
   arXiv:2507.15232 (2025); Statistical Analysis and Data Mining 18(6), 2025.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import (
    check_delta,
    check_epsilon,
    check_n_components,
)
from ..privacy import (
    gaussian_sigma,
    sgpca_sensitivity,
)
from ..subspace import top_eigenvectors
from ._base import (
    ACCOUNTANT,
    DELTA,
    EPSILON,
    N_COMPONENTS,
    POSITIVE,
    RANDOM_STATE,
    StrOptions,
)
from .covariance import NoisyMatrixMechanism

__all__ = [
    "SGPCA",
]


# =============================================================================================
# SGPCA (Cai, Xia & Zha 2024)
# =============================================================================================


class SGPCA(NoisyMatrixMechanism):
    r"""Cai, Xia & Zha (2024): Gaussian noise on the empirical spectral projector (spiked model).

    Algorithm (Kim & Jung's Appendix C.2 / Cai et al.'s Algorithm 1):

    1. :math:`\hat\Sigma = X^\top X/n` (no centring: the model is mean-zero);
    2. :math:`\hat P = \hat U\hat U^\top`, Û the top-k eigenvectors of Σ̂;
    3. :math:`\bar P = \hat P + E`, E symmetric Gaussian with scale σ = Δ√(2 log(1.25/δ))/ε;
    4. output the top-k eigenvectors of :math:`\bar P`.

    Eigenvalues are privatized separately in the source; only eigenvectors are scored here, so
    that step is skipped.  As in Kim & Jung's comparison, the **true** spikes λ_j and noise level
    σ₀² are passed in (``spikes``, ``noise_variance``) — which favours SGPCA.

    Parameters
    ----------
    n_components : int, default=2
        Number of components: the rank r, which must equal ``len(spikes)``.
    epsilon, delta : float, default=1.0 and 1e-5
        Privacy parameters ε > 0 and δ in (0, 1) the Gaussian noise is calibrated to.
    spikes : sequence of float
        Spikes λ_1 ≥ … ≥ λ_r > 0, the spikes **above** the noise level (Σ = UΛUᵀ + σ₀²I).  Required.
    noise_variance : float, default=1.0
        The noise level σ₀².
    sensitivity : {"surrogate", "hp_bound"}, default="surrogate"
        The model-based sensitivity: see :func:`~privpca_edu.privacy.sgpca_sensitivity`.
    sensitivity_constant : float, default=1.0
        The constant C_Δ of that sensitivity (not recovered from the source).
    noise_convention : {"frobenius", "upper_iid"}, default "frobenius"
        vecd noise (diagonal σ², off-diagonal σ²/2: calibrated to the Frobenius sensitivity) or
        i.i.d. upper triangle (also valid, √2 more noise off the diagonal).
    calibration : {"classic", "analytic"}, default="classic"
        The Gaussian calibration of σ (as :class:`~privpca_edu.AnalyzeGauss`).
    random_state : None, int or Generator
        Seed or generator of the randomness (``None``: fresh OS entropy).
    accountant : BudgetAccountant or None, default=None
        A :class:`~privpca_edu.privacy.BudgetAccountant` that is asked before ``fit`` (a fit
        that would exceed its budget is refused) and charged the record ``privacy_`` after it.

    Notes
    -----
    **Not worst-case differentially private.**  Δ bounds the change of P̂ only with high
    probability under the spiked Gaussian model (and the default surrogate not even that).  A
    single record placed far along a direction orthogonal to the spikes rotates P̂ by up to the
    projector diameter √(2r): replacing one row by 100u (u ⊥ spikes) changes P̂ by √2 in Frobenius
    norm against Δ ≈ 10⁻².  ``privacy_.is_private`` is therefore False, and the audit
    (recipe C on that pair) flags it.  For t₁ or contaminated data the model-based Δ has no
    meaning at all: privacy there is nominal.

    The source's exact Δ constant and log factors are **not reproduced**: see
    :func:`sgpca_sensitivity`.
    """

    mechanism_name = "Gaussian mechanism on the spectral projector of X^T X / n (SGPCA)"
    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS, "epsilon": EPSILON, "delta": DELTA, "spikes": ["array-like", None],
        "noise_variance": POSITIVE, "sensitivity": [StrOptions({"surrogate", "hp_bound"})],
        "sensitivity_constant": POSITIVE, "noise_convention": [StrOptions({"frobenius", "upper_iid"})],
        "calibration": [StrOptions({"classic", "analytic"})], "random_state": RANDOM_STATE,
        "accountant": ACCOUNTANT,
    }

    def __init__(self, n_components=2, *, epsilon=1.0, delta=1e-5, spikes=None, noise_variance=1.0,
                 sensitivity="surrogate", sensitivity_constant=1.0, noise_convention="frobenius",
                 calibration="classic", random_state=None, accountant=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.spikes = spikes
        self.noise_variance = noise_variance
        self.sensitivity = sensitivity
        self.sensitivity_constant = sensitivity_constant
        self.noise_convention = noise_convention
        self.calibration = calibration
        self.random_state = random_state
        self.accountant = accountant

    def _prepare(self, X, *, fitting=False, min_samples=2):
        # c: the projector does not depend on the scale of X, so work on X/c and keep XᵀX finite
        X, c = self._validate_fit_input(X, min_samples=2, fitting=fitting, return_scale=True)
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        k = check_n_components(self.n_components, X.shape[1])
        if c != 1.0:
            X /= c  # not X *= 1/c: 1/c overflows for subnormal data
        if self.spikes is None:
            raise ValueError("spikes must be given: SGPCA is calibrated with the true spiked eigenvalues "
                             "(as in Kim & Jung's comparison), e.g. spikes=(9, 4) for Σ eigenvalues (10, 5, 1, …)")
        spikes = np.asarray(self.spikes, dtype=np.float64).ravel()
        if spikes.size != k:
            raise ValueError(f"spikes must have n_components = {k} entries, got {spikes.size}")
        self.n_samples_ = X.shape[0]
        self._spikes = spikes
        return X, k, epsilon, delta, None

    def _statistic(self, X):
        n = X.shape[0]
        _, U = top_eigenvectors(X.T @ X / n, len(self._spikes))
        return U @ U.T

    def _sensitivity(self, n, d, _):
        return sgpca_sensitivity(n, d, self._spikes, self.noise_variance, sensitivity=self.sensitivity,
                                 sensitivity_constant=self.sensitivity_constant)

    def _noise_scale(self, sensitivity, n, d, epsilon, delta, _):
        return gaussian_sigma(sensitivity, epsilon, delta, method=self.calibration)

    def _calibration_name(self):
        return f"{self.calibration} (sensitivity={self.sensitivity}, C={self.sensitivity_constant:g})"

    def fit(self, X, y=None):
        """Fit the noisy spectral projector and record that it is not worst-case private.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data (n ≥ 2).
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        SGPCA
            This estimator, fitted.
        """
        super().fit(X)
        if not math.isinf(self.privacy_.epsilon):
            rec = self.privacy_.as_dict()
            rec.update(is_private=False, note=(
                "not worst-case differentially private: Δ is a model-based (high-probability) "
                "sensitivity of the spectral projector; one outlier can move it by up to √(2k)"))
            self._record(**rec)
        return self
