r"""Analyze Gauss as Kim & Jung ran it (their Appendix C.1) — **not private**, for reproducing their figures.

References
----------
.. [KJ25] M. Kim and S. Jung, "Robust and differentially private PCA for non-Gaussian data",
   arXiv:2507.15232 (2025); Statistical Analysis and Data Mining 18(6), 2025.
"""

from __future__ import annotations

import math
import warnings

from .._validation import (
    caller_stacklevel,
    PrivacyWarning,
    check_delta,
    check_epsilon,
    check_n_components,
)
from ._base import (
    ACCOUNTANT,
    DELTA,
    EPSILON,
    N_COMPONENTS,
    RANDOM_STATE,
    StrOptions,
)
from .covariance import AnalyzeGauss
from .nsggd import _largest_row_norm

__all__ = [
    "NonPrivateAnalyzeGaussReplication",
]


# =============================================================================================
# Analyze Gauss with the paper's normalisation (NOT private)
# =============================================================================================
class NonPrivateAnalyzeGaussReplication(AnalyzeGauss):
    r"""**NOT PRIVATE.**  Analyze Gauss as Kim & Jung ran it (Appendix C.1), for reproducing their figures.

    1. centre at the sample mean x̄; 2. divide by :math:`\max_j\lVert x_j-\bar x\rVert` (so rows have
    norm ≤ 1); 3. :math:`\hat\Sigma` = sample covariance (divisor n − 1); 4. add vecd-symmetric
    Gaussian noise with σ = Δ√(2 log(1.25/δ))/ε, Δ = 8/n; 5. top-k eigenvectors.

    Steps 1–2 read the private data (its mean and its largest norm), so the pipeline as a whole is
    **not** (ε, δ)-DP — the paper's corollary treats the normalised data as the input.  This class
    warns on every fit and records ``privacy_.is_private = False``.  The private estimator is
    :class:`privpca_edu.AnalyzeGauss` (public ``data_norm``, rows clipped, no data-dependent scaling).

    **Sensitivity (our derivation).**  Δ_AG = 8/n: with the U-statistic form
    :math:`\hat\Sigma = \frac{1}{n(n-1)}\sum_{i<j}(y_i-y_j)(y_i-y_j)^\top` and ‖y_i − y_j‖ ≤ 2, each of
    the n − 1 changed terms moves by at most 2·4 in Frobenius norm — the argument of the paper's
    Prop. 2.1 (Kim & Jung's Appendix C.1 does not state a constant).  ``sensitivity="tight"`` uses the exact 4√2/n.
    Noise: vecd (``"frobenius"``), as for g-DPPCA (assumed).

    Parameters
    ----------
    n_components : int, default=2
        As :class:`~privpca_edu.AnalyzeGauss`.
    epsilon : float, default=1.0
        As :class:`~privpca_edu.AnalyzeGauss`.
    delta : float, default=1e-5
        As :class:`~privpca_edu.AnalyzeGauss`.
    calibration : {"classic", "analytic"}, default="classic"
        As :class:`~privpca_edu.AnalyzeGauss`.
    sensitivity : {"paper", "tight"}, default="paper"
        Δ = 8/n (the paper's) or 4√2/n.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        As :class:`~privpca_edu.AnalyzeGauss`.
    accountant : BudgetAccountant or None, default=None
        As :class:`~privpca_edu.AnalyzeGauss`.
    """

    noise_convention = "frobenius"
    mechanism_name = "Analyze Gauss on the mean-centred, max-norm-scaled sample covariance (Kim & Jung App. C.1)"
    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS, "epsilon": EPSILON, "delta": DELTA,
        "calibration": [StrOptions({"classic", "analytic"})], "sensitivity": [StrOptions({"paper", "tight"})],
        "random_state": RANDOM_STATE, "accountant": ACCOUNTANT,
    }

    def __init__(self, n_components=2, *, epsilon=1.0, delta=1e-5, calibration="classic", sensitivity="paper",
                 random_state=None, accountant=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.calibration = calibration
        self.sensitivity = sensitivity
        self.random_state = random_state
        self.accountant = accountant

    @property
    def data_norm(self):  # AnalyzeGauss machinery reads it; the paper scales to norm ≤ 1
        """The norm the paper scales the largest row to (always 1.0)."""
        return 1.0

    def _prepare(self, X, *, fitting=False, min_samples=2):
        X = self._validate_fit_input(X, min_samples=2, fitting=fitting)
        epsilon = check_epsilon(self.epsilon)
        delta = check_delta(self.delta)
        k = check_n_components(self.n_components, X.shape[1])
        X -= X.mean(axis=0)
        top = _largest_row_norm(X)
        if top > 0:
            X /= top
        self.n_samples_ = X.shape[0]
        return X, k, epsilon, delta, 1.0

    def _statistic(self, X):
        Y = X - X.mean(axis=0)
        return Y.T @ Y / (X.shape[0] - 1)

    def _sensitivity(self, n, d, data_norm):
        return (8.0 if self.sensitivity == "paper" else 4.0 * math.sqrt(2.0)) / n

    def fit(self, X, y=None):
        """Fit as the paper does, centring and scaling by the data (**not private**: warns).

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data (n ≥ 2), centred at its mean and scaled by its largest row norm.
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        NonPrivateAnalyzeGaussReplication
            This estimator, fitted.
        """
        warnings.warn(
            "NonPrivateAnalyzeGaussReplication centres at the sample mean and scales by the largest row norm "
            "(Kim & Jung's Appendix C.1): both read the private data, so the result is NOT differentially "
            "private; use privpca_edu.AnalyzeGauss for a private release",
            PrivacyWarning,
            stacklevel=caller_stacklevel(),
        )
        super().fit(X)
        rec = self.privacy_.as_dict()
        rec.update(is_private=False, note="not differentially private: centring and scaling computed from the data "
                                           "(replication of the paper's AG only)")
        self._record(**rec)
        return self
