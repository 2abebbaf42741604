"""Central mechanisms that add symmetric Gaussian noise to the second-moment matrix.

Both release a noisy d×d matrix (``released_matrix_``); the principal components are
post-processing of it, so they inherit its (ε, δ) guarantee.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_int, check_option
from ..privacy import analyze_gauss_sensitivity, gaussian_sigma, mod_sulq_noise_scale, symmetric_noise
from ..subspace import top_eigenvectors
from ._base import PrivateEstimator, StrOptions


@dataclass(frozen=True)
class ReleaseParts:
    """The deterministic pieces of a noisy-matrix release (non-private: audits and teaching).

    Parameters
    ----------
    statistic : ndarray
        The noiseless statistic f(X) (for the noisy-matrix mechanisms a (d, d) matrix).
    sensitivity : float
        Its replace-one sensitivity Δ as the calibration used it (Frobenius/ℓ2).
    noise_scale : float
        The standard deviation σ of each noise entry.
    convention : str
        How the symmetric noise is laid out (``"upper_iid"`` or ``"frobenius"``, see
        :func:`privpca_edu.privacy.symmetric_noise`).
    """

    statistic: np.ndarray  # f(D), on the released scale
    sensitivity: float  # ℓ2 sensitivity of f in the noise coordinates
    noise_scale: float  # σ of each i.i.d. noise coordinate
    convention: str  # privacy.symmetric_noise convention


class NoisyMatrixMechanism(PrivateEstimator):
    """Base class: release ``f(X) + E`` with E symmetric Gaussian, then take top-k eigenvectors.

    Subclasses define :meth:`_statistic`, :meth:`_sensitivity` and :meth:`_noise_scale`.
    """

    noise_convention = "upper_iid"
    mechanism_name = ""
    _has_spectrum = True

    def _statistic(self, X):
        G = X.T @ X
        G /= X.shape[0]
        return G

    def _sensitivity(self, n, d, data_norm):  # replace-one, upper-triangle coordinates
        return analyze_gauss_sensitivity(n, data_norm)

    def _noise_scale(self, sensitivity, n, d, epsilon, delta, data_norm):  # pragma: no cover
        # Each subclass returns the σ of a public function of privpca_edu.privacy.  This method is
        # also the override point of the audit mutants (experiments.auditing.with_noise_multiplier,
        # audit.mutants), which scale the correct σ to build deliberately broken mechanisms.
        raise NotImplementedError

    def _calibration_name(self):
        return getattr(self, "calibration", "paper")

    def release_parts(self, X):
        """Compute f(X), Δ and σ for this X, without noise.

        **Not private** — this is what an auditor or a teacher inspects; the estimator itself
        never stores the noiseless statistic.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data (rows longer than ``data_norm`` are scaled down to it, as in ``fit``).

        Returns
        -------
        ReleaseParts
            The noiseless statistic, its sensitivity Δ and the noise scale σ (**not private**).
        """
        X, k, epsilon, delta, data_norm = self._prepare(X)
        n, d = X.shape
        sens = self._sensitivity(n, d, data_norm)
        sigma = self._noise_scale(sens, n, d, epsilon, delta, data_norm)
        return ReleaseParts(self._statistic(X), sens, sigma, self.noise_convention)

    def sample_releases(self, X, n_draws, random_state=None):
        """Draw ``n_draws`` independent releases for the same X: shape (n_draws, d, d).

        Exactly the noise ``fit`` adds, drawn in a batch: what the audit recipes call.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data (rows longer than ``data_norm`` are scaled down to it, as in ``fit``).
        n_draws : int
            Number of releases, >= 1.
        random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
            Seed or generator of the draws (``None``: fresh OS entropy).

        Returns
        -------
        ndarray, shape (n_draws, n_features, n_features)
            The noisy matrices.
        """
        n_draws = check_int(n_draws, "n_draws", low=1)
        parts = self.release_parts(X)
        d = parts.statistic.shape[0]
        E = symmetric_noise(d, parts.noise_scale, convention=parts.convention, size=n_draws,
                            random_state=random_state)
        return parts.statistic + E

    def fit(self, X, y=None):
        """Release the noisy matrix for X and keep its top-k eigenvectors.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data, one row per person; rows longer than ``data_norm`` are scaled down to it.
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        NoisyMatrixMechanism
            This estimator, fitted.
        """
        X, k, epsilon, delta, data_norm = self._prepare(X, fitting=True)
        n, d = X.shape
        sens = self._sensitivity(n, d, data_norm)
        sigma = self._noise_scale(sens, n, d, epsilon, delta, data_norm)
        released = self._statistic(X) + symmetric_noise(
            d, sigma, convention=self.noise_convention, random_state=self.random_state
        )
        self.released_matrix_ = released
        self.noise_scale_ = sigma
        self.sensitivity_ = sens
        values, basis = top_eigenvectors(released, k)
        self.explained_variance_ = values
        self._spectrum_from(released, values)  # explained_variance_ratio_, noise_variance_: post-processing
        self._unscale("released_matrix_", "explained_variance_", "noise_variance_")
        self._set_components(basis)
        self._record(
            epsilon=epsilon, delta=delta, data_norm=data_norm, mechanism=self.mechanism_name,
            calibration=self._calibration_name(), sensitivity=sens, noise_scale=sigma,
        )
        return self


class AnalyzeGauss(NoisyMatrixMechanism):
    r"""Analyze Gauss: symmetric Gaussian noise on the second-moment matrix.

    Dwork, Talwar, Thakurta & Zhang (STOC 2014).  Releases
    :math:`\tilde A = X^\top X/n + E/n`, E symmetric with i.i.d. N(0, σ²) entries on and above
    the diagonal (``"upper_iid"``), and returns the top-k eigenvectors of :math:`\tilde A`.

    Parameters
    ----------
    n_components : int
        Number of components k.
    epsilon : float, default 0.5
        Privacy parameter ε > 0 (``numpy.inf``: no noise).
        Default below 1, where the classic Gaussian calibration is proved (no warning).
    delta : float, default 1e-5
        Privacy parameter δ in (0, 1).
    data_norm : float, default 1.0
        Public bound B on row norms; larger rows are scaled down to B (a warning only inside ``privacy.diagnostics()``).
    calibration : {"classic", "analytic"}
        ``"classic"`` (the paper): σ = Δ√(2 ln(1.25/δ))/ε, proved for ε < 1 (warns otherwise);
        ``"analytic"``: Balle & Wang's exact σ, valid for every ε and smaller.
    random_state : None, int or Generator
        Seed or generator of the randomness (``None``: fresh OS entropy).
    accountant : BudgetAccountant or None, default=None
        A :class:`~privpca_edu.privacy.BudgetAccountant` that is asked before ``fit`` (a fit
        that would exceed its budget is refused) and charged the record ``privacy_`` after it.

    Attributes
    ----------
    released_matrix_ : (d, d)   the (ε, δ)-DP release
    noise_scale_ : float        σ/n, the standard deviation of each noise entry of it
    sensitivity_ : float        Δ/n = √2 B²/n
    components_, explained_variance_, privacy_

    Notes
    -----
    **Sensitivity (replace-one).**  Replacing x by x′ with ‖x‖, ‖x′‖ ≤ B changes
    :math:`X^\top X` by :math:`D = xx^\top - x'x'^\top`, with
    :math:`\lVert D\rVert_F^2 = \lVert x\rVert^4 + \lVert x'\rVert^4 - 2(x^\top x')^2 \le 2B^4`.
    The noise is i.i.d. on the upper-triangle vector, whose norm is at most ‖D‖_F, so
    Δ = √2 B² (attained by x = Be₁, x′ = Be₂, where D is diagonal).  DTTZ state Δ = 1 for
    **add/remove** neighbours (then D = xxᵀ, ‖D‖_F ≤ B²); we use replace-one throughout the
    package, hence the √2.  Dividing by the public n scales Δ and σ alike.

    Examples
    --------
    The row-norm bound must be public: here each row is scaled to norm 1 on its own (a per-record
    step that reads no one else's data), so ``data_norm=1`` holds by construction.  Dividing by
    the data's largest row norm instead would leak that norm.

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(5000, 4)) * [1.0, 0.3, 0.2, 0.1]
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True)
    >>> ag = AnalyzeGauss(n_components=1, epsilon=0.5, delta=1e-5, random_state=0).fit(X)
    >>> ag.released_matrix_.shape, round(ag.noise_scale_ * 5000, 3)
    ((4, 4), 13.703)
    """

    mechanism_name = "Gaussian mechanism on X^T X / n (Analyze Gauss)"
    _parameter_constraints: dict = {
        **PrivateEstimator._parameter_constraints, "calibration": [StrOptions({"classic", "analytic"})],
    }

    def __init__(self, n_components=2, *, epsilon=0.5, delta=1e-5, data_norm=1.0,
                 calibration="classic", random_state=None, accountant=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.calibration = calibration
        self.random_state = random_state
        self.accountant = accountant

    def _noise_scale(self, sensitivity, n, d, epsilon, delta, data_norm):
        check_option(self.calibration, "calibration", ("classic", "analytic"))
        return gaussian_sigma(sensitivity, epsilon, delta, method=self.calibration)


class ModSuLQ(NoisyMatrixMechanism):
    r"""MOD-SuLQ (Chaudhuri, Sarwate & Sinha, NIPS 2012 / JMLR 2013).

    Releases :math:`A + E` with :math:`A = X^\top X/n` and E symmetric, entries on and above the
    diagonal i.i.d. N(0, β²), where (``privacy.mod_sulq_noise_scale``)

    .. math:: \beta = \frac{d+1}{n\varepsilon}\sqrt{2\log\frac{d^2+d}{2\sqrt{2\pi}\delta}}
              + \frac{1}{n\sqrt\varepsilon}

    (times B² for rows of norm ≤ B), and returns the top-k eigenvectors.

    Parameters
    ----------
    n_components : int, default=2
        Number of components k, 1 <= k <= d.
    epsilon : float, default=1.0
        Privacy parameter ε > 0 (``numpy.inf``: no noise).
    delta : float, default=1e-5
        Privacy parameter δ in (0, 1).
    data_norm : float, default=1.0
        Public bound B on the rows' norms; longer rows are scaled down to B.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seed or generator of the noise (``None``: fresh OS entropy).
    accountant : BudgetAccountant or None, default=None
        A :class:`~privpca_edu.privacy.BudgetAccountant` that is asked before ``fit`` (a fit
        that would exceed its budget is refused) and charged the record ``privacy_`` after it.

    Notes
    -----
    **Privacy.** (ε, δ)-DP for replace-one neighbours with ‖x‖ ≤ B, by the paper's Theorem 5
    (a direct density-ratio bound over the d(d+1)/2 noisy entries).  β grows like d/(nε):
    the noise norm ‖E‖₂ ≈ 2√d β grows like d^{3/2}, so at d = 1000, n = 10⁵ the output is a
    random subspace (Ge et al. 2018, Section 5).  ``sensitivity_`` reports the upper-triangle
    ℓ2 sensitivity √2B²/n for audits: β is far above what the Gaussian mechanism would need
    for it, so the audit passes with a wide margin.
    """

    mechanism_name = "MOD-SuLQ: Gaussian noise on X^T X / n"

    def __init__(self, n_components=2, *, epsilon=1.0, delta=1e-5, data_norm=1.0, random_state=None, accountant=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.random_state = random_state
        self.accountant = accountant

    def _noise_scale(self, sensitivity, n, d, epsilon, delta, data_norm):
        return mod_sulq_noise_scale(d, n, epsilon, delta, data_norm=data_norm)

    def _calibration_name(self):
        return "paper"
