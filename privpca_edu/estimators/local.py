r"""PCA under non-interactive *local* differential privacy (Wang & Xu, IJCAI 2019).

In the local model nobody is trusted: every user randomises their own record before it leaves
their device, and the server only ever sees noisy reports.

* :class:`LocalGaussianPCA` (Algorithm 1, the *local Gaussian mechanism*): user i sends
  :math:`x_ix_i^\top + Z_i` with :math:`Z_i` a symmetric Gaussian matrix; the server averages the
  reports into :math:`\tilde S = S + \bar Z` and returns its top-k eigenvectors.
* :class:`LocalSparsePCA` (Algorithm 2): the same :math:`\tilde S`, then the Fantope relaxation
  of row-sparse PCA, :math:`\max_{X\in\mathcal F^k}\langle\tilde S, X\rangle - \lambda\lVert X\rVert_{1,1}`,
  solved by ADMM (:func:`fantope_admm`), and the top-k eigenvectors of the solution.

The per-user report is :func:`local_gaussian_report`: a function of *one* record and that user's
own random generator, so the privacy argument can be read off its signature.

References
----------
.. [WX19] D. Wang and J. Xu, "Principal component analysis in the local differential privacy
   model", IJCAI 2019, pp. 4795–4801 (Algorithms 1 and 2, Theorems 1–4); journal version in
   Theoretical Computer Science 809 (2020) 296–312.
.. [VCLR13] V. Q. Vu, J. Cho, J. Lei and K. Rohe, "Fantope projection and selection: a
   near-optimal convex relaxation of sparse PCA", NIPS 2013 (Lemma 4.1, ADMM); reference
   implementation: R package ``fps`` (``src/admm.h``), source of the ADMM defaults.
.. [DJW13] J. Duchi, M. Jordan and M. Wainwright, "Local privacy and statistical minimax rates",
   FOCS 2013 (non-interactive LDP).
.. [DR14] C. Dwork and A. Roth, *The Algorithmic Foundations of Differential Privacy*, 2014,
   Theorem A.1.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.optimize import OptimizeResult

from .._validation import (
    caller_stacklevel,
    PrivacyWarning,
    check_data,
    check_data_norm,
    check_int,
    check_option,
    check_positive,
    as_generator,
    check_symmetric,
    clip_rows,
    single_threaded_blas,
)
from ..privacy import LOCAL_CALIBRATIONS, local_noise_scale, symmetric_noise
from ..subspace import fantope_projection, top_eigenvectors
from ._admm import lockstep_fantope_admm
from ._base import BOOLEAN, NONNEGATIVE, POSITIVE, POSITIVE_INT, PrivateEstimator, StrOptions
from ._bingham import _fmt_seconds  # the duration wording of the Gibbs sampler's cost warning
from .covariance import ReleaseParts

__all__ = [
    "LocalGaussianPCA",
    "LocalSparsePCA",
    "local_gaussian_report",
    "fantope_admm",
    "fantope_admm_stack",
    "soft_threshold",
    "default_sparse_penalty",
    "ADMMResult",
    "ConvergenceWarning",
    "check_solver_params",
]


def check_solver_params(estimator):
    """Check a :class:`LocalSparsePCA`'s ADMM settings (``lam``, ``lam_scale``, ``rho``, ``adaptive_rho``,
    ``tol``, ``max_iter``): ``ValueError``/``TypeError`` naming the argument and its allowed range.

    ``fit`` calls it; experiments that run the same solver on many releases call it once first.
    """
    if estimator.lam is not None:
        check_positive(estimator.lam, "lam", allow_zero=True)
    check_positive(estimator.lam_scale, "lam_scale", allow_zero=True)
    if estimator.rho is not None:
        check_positive(estimator.rho, "rho")
    if not isinstance(estimator.adaptive_rho, (bool, np.bool_)):
        raise TypeError(f"adaptive_rho must be True or False, got {estimator.adaptive_rho!r}")
    check_positive(estimator.tol, "tol")
    check_int(estimator.max_iter, "max_iter", low=1)


class ConvergenceWarning(UserWarning):
    """An iterative solver stopped at its iteration cap before its stopping rule held."""


# ---------------------------------------------------------------------------------------------
# Calibration and the per-user report
# ---------------------------------------------------------------------------------------------


def local_gaussian_report(x, noise_scale, random_state=None):
    r"""One user's locally private report :math:`xx^\top + Z` (Wang & Xu, Algorithm 1, line 2).

    This is everything that leaves user i's device.  It takes **only** that user's record and
    that user's own generator: no other user's data can influence it.

    Parameters
    ----------
    x : array_like, shape (d,)
        The record, already within the public norm bound (the estimators clip first).
    noise_scale : float
        σ₁ ≥ 0: entries on and above the diagonal of Z are i.i.d. N(0, σ₁²) and mirrored
        (``privacy.symmetric_noise`` convention ``"upper_iid"``; diagonal and off-diagonal
        entries have the *same* variance).
    random_state : None, int or Generator
        The user's own randomness.
    accountant : BudgetAccountant or None, default=None
        A :class:`~privpca_edu.privacy.BudgetAccountant` that is asked before ``fit`` (a fit
        that would exceed its budget is refused) and charged the record ``privacy_`` after it.

    Returns
    -------
    ndarray, shape (d, d), exactly symmetric.

    Examples
    --------
    >>> import numpy as np
    >>> R = local_gaussian_report(np.array([0.5, 0.5]), 0.0)
    >>> R.tolist()
    [[0.25, 0.25], [0.25, 0.25]]
    >>> R = local_gaussian_report(np.array([0.5, 0.5]), 1.0, random_state=0)
    >>> bool(np.all(R == R.T))
    True
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"x must be a single record of shape (d,), got shape {x.shape}")
    return np.outer(x, x) + symmetric_noise(x.shape[0], noise_scale, convention="upper_iid",
                                            random_state=random_state)


# ---------------------------------------------------------------------------------------------
# Algorithm 1
# ---------------------------------------------------------------------------------------------
class LocalGaussianPCA(PrivateEstimator):
    r"""PCA under non-interactive (ε, δ)-local DP: the local Gaussian mechanism (Wang & Xu, Alg. 1).

    1. **User side.**  User i clips x_i to norm ≤ B and sends
       :math:`\widetilde{x_ix_i^\top} = x_ix_i^\top + Z_i`, :math:`Z_i` symmetric with the
       d(d+1)/2 entries on and above the diagonal i.i.d. N(0, σ₁²) (:func:`local_gaussian_report`).
    2. **Server.**  :math:`\tilde S = \frac1n\sum_i \widetilde{x_ix_i^\top} = S + \bar Z`,
       :math:`S = X^\top X/n` (not centred: the data are assumed mean-zero).
    3. **Output.**  The eigenvectors of the k *algebraically* largest eigenvalues of
       :math:`\tilde S` (which may be indefinite).

    Parameters
    ----------
    n_components : int
        Number of components k, 1 ≤ k ≤ d.
    epsilon : float, default 0.5
        Privacy parameter ε > 0 of each user's report (``numpy.inf``: no noise).
        Default below 1, where the classic Gaussian calibration is proved (no warning).
    delta : float, default 1e-5
        Privacy parameter δ in (0, 1) of each user's report.
    data_norm : float, default 1.0
        Public row-norm bound B; rows above it are scaled down to B on the user's side, silently
        (a :class:`PrivacyWarning`, never the count, only inside
        :func:`privpca_edu.privacy.diagnostics`, which records the fit as not private).
    calibration : {"replacement", "paper", "analytic"}, default "replacement"
        ``"replacement"``: Δ = √2·B², σ₁ = Δ√(2 ln(1.25/δ))/ε — the corrected constant.
        ``"paper"``: Wang & Xu's σ₁² = 2 ln(1.25/δ)/ε² (Δ = 1): **half the variance the
        classic proof needs**; for reproduction only.  It always warns (:class:`PrivacyWarning`),
        and ``privacy_.is_private`` records the exact verdict of :func:`local_noise_scale`:
        ``False`` ("not differentially private: …") at the paper's ε = 2, δ = 10⁻⁴ and at
        ε = 0.5, δ = 10⁻⁵; at ε = 0.5, δ = 10⁻⁴ the loose classic constant happens to leave
        enough noise and the note says so.  ``"analytic"``: Δ = √2·B² with Balle & Wang's exact
        σ₁, valid for every ε (the classic constants stop being private near ε = 8).
    sensitivity : float, optional
        Override Δ (see :func:`local_noise_scale`).
    per_user : bool, default False
        ``True``: the faithful path — every user's report is formed
        (:func:`local_gaussian_report`, each user with a generator spawned from
        ``random_state``) and the server averages them, O(nd²) time.  ``False``: the fast
        path — :math:`\bar Z` is one symmetric matrix with i.i.d. N(0, σ₁²/n) upper triangle,
        which has exactly the distribution of the average of n independent :math:`Z_i`.
        Both give the same law of ``released_matrix_`` (tested).
    random_state : None, int or Generator
        Seed or generator of the randomness (``None``: fresh OS entropy).
    accountant : BudgetAccountant or None, default=None
        A :class:`~privpca_edu.privacy.BudgetAccountant` that is asked before ``fit`` (a fit
        that would exceed its budget is refused) and charged the record ``privacy_`` after it.

    Attributes
    ----------
    released_matrix_ : ndarray (d, d)
        :math:`\tilde S`, the server's average of the noisy reports.
    noise_scale_ : float
        σ₁, the per-user noise standard deviation.
    aggregate_noise_scale_ : float
        σ₁/√n: the standard deviation of each entry of :math:`\tilde S - S`.
    sensitivity_ : float
        Δ used for σ₁.
    components_ : ndarray (k, d)
    explained_variance_ : ndarray (k,)
        The k largest eigenvalues of :math:`\tilde S`.
    privacy_ : PrivacyRecord
        ``model = "local"``; ε, δ are each user's guarantee.
    n_samples_ : int

    Notes
    -----
    **Privacy.**  Each report is the Gaussian mechanism applied to the upper-triangle vector of
    :math:`xx^\top`, whose ℓ2 sensitivity over *any two* inputs ‖x‖, ‖x′‖ ≤ B is √2·B²
    (:func:`local_noise_scale`).  Each user's report is therefore (ε, δ)-LDP on its own,
    whatever the server or the other users do; :math:`\tilde S` and the eigenvectors are
    post-processing.  The classic constant needs ε < 1 (``privacy.gaussian_sigma`` warns
    otherwise; Wang & Xu use ε up to 2): ``calibration="analytic"`` is valid for every ε.

    **Utility.**  :math:`\bar Z` has entries of standard deviation
    :math:`\sigma_1/\sqrt n \propto 1/(\varepsilon\sqrt n)`: the error depends on n and ε only
    through :math:`n\varepsilon^2`, the *effective sample size* of Theorem 1
    (:func:`privpca_edu.bounds.local.ldp_lower_bound`).  The central Analyze Gauss adds noise of
    standard deviation :math:`\propto 1/(n\varepsilon)` — local privacy costs a square root.

    References
    ----------
    Wang & Xu (2019), Section 4, Algorithm 1 and Theorem 2.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(20_000, 3)) * [0.5, 0.1, 0.05]
    >>> X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))  # each user clips their own row
    >>> est = LocalGaussianPCA(1, epsilon=0.5, delta=1e-4, random_state=0).fit(X)
    >>> round(est.noise_scale_, 6), est.privacy_.model
    (12.285591, 'local')
    >>> est.released_matrix_.shape
    (3, 3)
    """

    privacy_model = "local"
    neighbouring = "replace-one: any two records x, x′ of one user (local model)"
    mechanism_name = "local Gaussian mechanism on x xᵀ (Wang & Xu 2019, Algorithm 1)"
    noise_convention = "upper_iid"
    _parameter_constraints: dict = {
        **PrivateEstimator._parameter_constraints, "calibration": [StrOptions(set(LOCAL_CALIBRATIONS))],
        "sensitivity": [None, *POSITIVE], "per_user": BOOLEAN,
    }

    def __init__(self, n_components=2, *, epsilon=0.5, delta=1e-5, data_norm=1.0, calibration="replacement",
                 sensitivity=None, per_user=False, random_state=None, accountant=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.calibration = calibration
        self.sensitivity = sensitivity
        self.per_user = per_user
        self.random_state = random_state
        self.accountant = accountant

    # ------------------------------------------------------------------ calibration
    def _calibrate(self, warn=True):
        epsilon, delta, data_norm = self._validate_privacy()
        check_option(self.calibration, "calibration", tuple(LOCAL_CALIBRATIONS))
        cal = local_noise_scale(epsilon, delta, data_norm, self.calibration, self.sensitivity)
        if warn and not cal.is_private and not math.isinf(epsilon):
            warnings.warn(cal["note"], PrivacyWarning, stacklevel=caller_stacklevel())
        return epsilon, delta, data_norm, cal

    def noise_calibration(self, warn=True):
        """Compute the per-user calibration for the current parameters (from public parameters only).

        The :class:`~privpca_edu.privacy.PrivacyRecord` of one user's report, from
        :func:`privpca_edu.privacy.local_noise_scale` (``noise_scale`` σ₁, ``sensitivity``,
        ``is_private``, ``note``, ...), after validating ε, δ, B and ``calibration`` as :meth:`fit`
        does.

        Parameters
        ----------
        warn : bool, default True
            Issue the :class:`PrivacyWarning` that :meth:`fit` issues for a calibration that is
            not private.

        Returns
        -------
        PrivacyRecord
            The per-user record (it reads like a dict too: ``record["noise_scale"]``).
        """
        return self._calibrate(warn=warn)[3]

    def _check_per_user(self):
        if not isinstance(self.per_user, (bool, np.bool_)):
            raise TypeError(f"per_user must be True or False, got {self.per_user!r}")
        return bool(self.per_user)

    # ------------------------------------------------------------------ the user's side
    def _clip_record(self, x):
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 1:
            raise ValueError(f"x must be a single record of shape (d,), got shape {x.shape}")
        data_norm = check_data_norm(self.data_norm)
        X, _ = clip_rows(check_data(x[None, :], name="x"), data_norm, name="x", warn=True)
        return X[0]

    def user_report(self, x, random_state=None):
        """Draw one user's noisy report :math:`xx^\\top + Z` (what leaves their device).

        ``x`` is clipped to ``data_norm`` first, exactly as in ``fit``; here the user is told with a
        :class:`PrivacyWarning` (their own record, on their own device: nothing about it leaves).  For teaching: compare ``np.outer(x, x)`` with the report.

        Parameters
        ----------
        x : array_like, shape (n_features,)
            One user's record.
        random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
            Seed or generator of the draws (``None``: fresh OS entropy).

        Returns
        -------
        ndarray, shape (n_features, n_features)
            The symmetric noisy report.
        """
        x = self._clip_record(x)
        _, _, _, cal = self._calibrate()
        return local_gaussian_report(x, cal["noise_scale"], as_generator(random_state))

    def user_release_parts(self, x):
        """Compute :math:`xx^\\top`, Δ and σ₁ of one user's report, without noise (audits, teaching).

        **Not private**: the noiseless statistic of one record.

        Parameters
        ----------
        x : array_like, shape (n_features,)
            One user's record (scaled down to ``data_norm`` as in ``fit``).

        Returns
        -------
        ReleaseParts
            The noiseless statistic, its sensitivity Δ and the noise scale σ (**not private**).
        """
        x = self._clip_record(x)
        _, _, _, cal = self._calibrate()
        return ReleaseParts(np.outer(x, x), cal["sensitivity"], cal["noise_scale"], self.noise_convention)

    def sample_user_reports(self, x, n_draws, random_state=None):
        """Draw ``n_draws`` independent reports of the same record x.

        Drawn by repeated calls of :func:`local_gaussian_report` — the very function ``fit``
        uses on the per-user path — so an audit tests the mechanism's own noise.

        Parameters
        ----------
        x : array_like, shape (n_features,)
            One user's record.
        n_draws : int
            Number of reports, >= 1.
        random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
            Seed or generator of the draws (``None``: fresh OS entropy).

        Returns
        -------
        ndarray, shape (n_draws, n_features, n_features)
            The reports.
        """
        n_draws = check_int(n_draws, "n_draws", low=1)
        x = self._clip_record(x)
        _, _, _, cal = self._calibrate()
        rng = as_generator(random_state)
        return np.stack([local_gaussian_report(x, cal["noise_scale"], rng) for _ in range(n_draws)])

    # ------------------------------------------------------------------ the server's side
    def release_parts(self, X):
        r"""Compute S = XᵀX/n, its sensitivity and the per-entry σ of :math:`\tilde S` (not private).

        Seen as a *central* release of the whole data set, :math:`\tilde S` is a Gaussian
        mechanism on S with replace-one sensitivity √2B²/n (``sensitivity`` reports the Δ/n the
        calibration *used*, as :meth:`user_release_parts` does) and noise σ₁/√n per entry: the
        aggregate enjoys a far stronger central guarantee (μ = √2B²/(σ₁√n)) than each report.
        With n = 1 it is exactly one user's report.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data (scaled down to ``data_norm`` as in ``fit``).

        Returns
        -------
        ReleaseParts
            The noiseless statistic, its sensitivity Δ and the noise scale σ (**not private**).
        """
        X, k, epsilon, delta, data_norm = self._prepare(X)
        _, _, _, cal = self._calibrate()
        n = X.shape[0]
        return ReleaseParts(X.T @ X / n, cal["sensitivity"] / n, cal["noise_scale"] / math.sqrt(n),
                            self.noise_convention)

    def sample_releases(self, X, n_draws, random_state=None, per_user=None):
        """Draw ``n_draws`` independent server matrices :math:`\\tilde S` for the same X.

        ``per_user`` (default: the estimator's setting) chooses the faithful or the fast path.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data (scaled down to ``data_norm`` as in ``fit``).
        n_draws : int
            Number of server matrices, >= 1.
        random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
            Seed or generator of the draws (``None``: fresh OS entropy).
        per_user : bool or None, default=None
            Sum the users' reports (True) or draw the aggregate noise at once (False); ``None``: the
            estimator's ``per_user``.

        Returns
        -------
        ndarray, shape (n_draws, n_features, n_features)
            The server matrices.
        """
        n_draws = check_int(n_draws, "n_draws", low=1)
        per_user = self._check_per_user() if per_user is None else bool(per_user)
        X, k, epsilon, delta, data_norm = self._prepare(X)
        _, _, _, cal = self._calibrate()
        rng = as_generator(random_state)
        return np.stack([self._server_matrix(X, cal["noise_scale"], rng, per_user) for _ in range(n_draws)])

    @staticmethod
    def _server_matrix(X, sigma1, rng, per_user):
        n, d = X.shape
        if per_user:
            # Every user gets an independent generator (their own device's randomness) and
            # sees only their own row.
            total = np.zeros((d, d))
            for x, user_rng in zip(X, rng.spawn(n)):
                total += local_gaussian_report(x, sigma1, user_rng)
            released = total / n
        else:
            released = X.T @ X / n + symmetric_noise(d, sigma1 / math.sqrt(n), convention="upper_iid",
                                                     random_state=rng)
        return (released + released.T) / 2  # exact symmetry (the per-user sum is symmetric already)

    def fit(self, X, y=None):
        """Simulate every user's noisy report of X and keep the server's top-k eigenvectors.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data, one row per person; rows longer than ``data_norm`` are scaled down to it.
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        LocalGaussianPCA
            This estimator, fitted.
        """
        X, k, epsilon, delta, data_norm = self._prepare(X, fitting=True)
        _, _, _, cal = self._calibrate()
        per_user = self._check_per_user()
        rng = as_generator(self.random_state)
        with single_threaded_blas():
            released = self._server_matrix(X, cal["noise_scale"], rng, per_user)
        self._finish(released, X.shape[0], k, epsilon, delta, data_norm, cal, path="per_user" if per_user
                     else "aggregated")
        return self

    def fit_second_moment(self, second_moment, n_samples):
        r"""Fast-path fit from :math:`S = X^\top X/n` — a *simulation* shortcut.

        Draws :math:`\tilde S = S + \bar Z` exactly as ``fit(X)`` with ``per_user=False`` does.
        Only for simulations where you are the trusted simulator: S must come from n rows
        already within ``data_norm`` (nothing here can check that), and in a real deployment
        no one holds S.  The experiment functions use it to reuse one S across many noise
        draws.

        Parameters
        ----------
        second_moment : array_like, shape (n_features, n_features)
            S = XᵀX/n of n rows already within ``data_norm``.
        n_samples : int
            The number n of rows behind S, >= 1.

        Returns
        -------
        LocalGaussianPCA
            This estimator, fitted.
        """
        self._validate_params()
        self._forget_fit()
        self._no_noise_scale = 1.0  # S is taken as given (no rescaling, see _prepare)
        epsilon, delta, data_norm = self._validate_privacy()
        S = np.asarray(second_moment, dtype=np.float64)
        if S.ndim != 2 or S.shape[0] != S.shape[1] or not np.all(np.isfinite(S)):
            raise ValueError(f"second_moment must be a finite square (d, d) matrix, got shape {S.shape}")
        n = check_int(n_samples, "n_samples", low=1)
        d = S.shape[0]
        k = check_int(self.n_components, "n_components", low=1, high=d)
        _, _, _, cal = self._calibrate()
        rng = as_generator(self.random_state)
        released = S + symmetric_noise(d, cal["noise_scale"] / math.sqrt(n), convention="upper_iid",
                                       random_state=rng)
        self.n_samples_ = n
        with single_threaded_blas():
            self._finish((released + released.T) / 2, n, k, epsilon, delta, data_norm, cal, path="aggregated")
        return self

    def _finish(self, released, n, k, epsilon, delta, data_norm, cal, path):
        self.released_matrix_ = released
        self.noise_scale_ = cal["noise_scale"]
        self.aggregate_noise_scale_ = cal["noise_scale"] / math.sqrt(n)
        self.sensitivity_ = cal["sensitivity"]
        self.path_ = path
        self._postprocess(released, k, cal)
        self._unscale("released_matrix_", "explained_variance_")
        fields = dict(epsilon=epsilon, delta=delta, data_norm=data_norm, mechanism=self.mechanism_name,
                      calibration=self.calibration, sensitivity=cal["sensitivity"],
                      noise_scale=cal["noise_scale"], is_private=cal["is_private"])
        if cal["note"]:
            fields["note"] = cal["note"]
        self._record(**fields)

    def _postprocess(self, released, k, cal):
        values, basis = top_eigenvectors(released, k)
        self.explained_variance_ = values
        self._set_components(basis)


# ---------------------------------------------------------------------------------------------
# Algorithm 2: Fantope projection + ADMM
# ---------------------------------------------------------------------------------------------
def soft_threshold(A, tau):
    r"""Entrywise soft-thresholding :math:`\mathcal S_\tau(a) = \mathrm{sign}(a)\max(|a| - \tau, 0)`.

    Parameters
    ----------
    A : array_like
        The entries.
    tau : float
        τ ≥ 0, the threshold.

    Returns
    -------
    ndarray
        :math:`\mathcal S_\tau(A)`, float64, of A's shape (a new array).
    """
    A = np.asarray(A, dtype=np.float64)
    out = np.abs(A)
    out -= tau
    np.maximum(out, 0.0, out=out)
    return np.copysign(out, A, out=out)


def default_sparse_penalty(noise_scale, n_samples, n_features, scale=1.0):
    r"""Our default λ for Algorithm 2: :math:`c\,\sigma_1\sqrt{2\ln(d(d+1))/n}`.

    Wang & Xu give only the rate :math:`\lambda \asymp \lambda_1\sqrt{\log d/(n\varepsilon^2)}`
    (Theorem 4, without a constant).  In Vu et al.'s analysis
    λ must dominate the entrywise error :math:`\lVert\tilde S - \Sigma\rVert_{\max}`, which the
    LDP noise drives: the largest of the d(d+1)/2 i.i.d. N(0, σ₁²/n) entries of :math:`\bar Z`
    is about :math:`\sigma_1\sqrt{2\ln(d(d+1))/n}`.  ``scale`` is c (default 1).  This choice
    is ours, not the paper's (Wang & Xu, Section 5, Algorithm 2 leaves λ open).

    Examples
    --------
    >>> round(default_sparse_penalty(1.0, 100, 10), 6)
    0.30661
    """
    sigma = check_positive(noise_scale, "noise_scale", allow_zero=True)
    n = check_int(n_samples, "n_samples", low=1)
    d = check_int(n_features, "n_features", low=1)
    c = check_positive(scale, "lam_scale", allow_zero=True)
    return c * sigma * math.sqrt(2.0 * math.log(d * (d + 1)) / n)


class ADMMResult(OptimizeResult):
    """Outcome of :func:`fantope_admm`: a :class:`scipy.optimize.OptimizeResult` (a dict with
    attribute access; a missing key raises ``AttributeError``).

    Keys: ``Y`` (the returned iterate, sparse), ``X`` (the Fantope iterate), ``n_iter``,
    ``converged``, ``primal_residuals``, ``dual_residuals``, ``rho`` (final), ``objective``
    (:math:`\\langle S, Y\\rangle - \\lambda\\lVert Y\\rVert_{1,1}`).  :func:`fantope_admm_stack`
    returns ``Y``, ``n_iter``, ``converged`` and ``rho`` with one entry per problem.
    """


def fantope_admm(S, n_components, lam, *, rho=None, adaptive_rho=False, tol=1e-4, max_iter=1000):
    r"""ADMM for the Fantope relaxation of sparse PCA (Vu et al. 2013; Wang & Xu, Algorithm 2).

    Solves :math:`\max_{X\in\mathcal F^k}\langle S, X\rangle - \lambda\lVert X\rVert_{1,1}` as
    :math:`\min -\langle S,X\rangle + \mathbb 1_{\mathcal F^k}(X) + \lambda\lVert Y\rVert_{1,1}`
    s.t. X = Y, with scaled dual U::

        Y = U = 0
        repeat:
            X ← P_Fantope(Y − U + S/ρ)
            Y ← SoftThreshold_{λ/ρ}(X + U)
            U ← U + X − Y
        until max(r², s²) ≤ k·tol²,  r = ‖X − Y‖_F,  s = ρ‖Y − Y_prev‖_F

    Parameters
    ----------
    S : array_like, shape (d, d)
        Symmetric (symmetrised as (S + Sᵀ)/2 first).
    n_components : int
        Number of components k.
    lam : float
        Penalty λ ≥ 0.
    rho : float, optional
        ADMM penalty; default :math:`\rho_0 = \max_{ab}|S_{ab}|` (the ``fps`` reference
        implementation's initial value; 1 if S = 0).
    adaptive_rho : bool
        Residual balancing of ``fps``: if r > 10s then ρ ← 2ρ, U ← U/2; if s > 10r then
        ρ ← ρ/2, U ← 2U.  Default off (fixed ρ, the paper's "ρ is a constant").
    tol : float
        ε_tol of the stopping rule (``fps`` uses 1e-3 along a λ path; we use 1e-4 for a single λ).
    max_iter : int
        Iteration cap (default 1000); a :class:`ConvergenceWarning` is issued when reached.

    Returns
    -------
    ADMMResult
        The final iterates Y and X, ``n_iter``, ``converged``, the residuals per iteration, the
        final ρ and the objective.

    See Also
    --------
    fantope_admm_stack : The same iterations on many problems at once (faster, same result to
        the stopping rule's tolerance).
    """
    S = check_symmetric(S, "S")
    d = S.shape[0]
    k = check_int(n_components, "n_components", low=1, high=d)
    lam = check_positive(lam, "lam", allow_zero=True)
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", low=1)
    rho = _initial_rho(S) if rho is None else check_positive(rho, "rho")
    Y = np.zeros((d, d))
    U = np.zeros((d, d))
    primal, dual = [], []
    converged = False
    threshold = k * tol**2
    with single_threaded_blas():
        for it in range(1, max_iter + 1):
            X = fantope_projection(Y - U + S / rho, k)  # X ← P_Fantope(Y − U + S/ρ)
            Y_new = soft_threshold(X + U, lam / rho)  # Y ← SoftThreshold_{λ/ρ}(X + U)
            U = X + U - Y_new  # U ← U + X − Y
            r = np.linalg.norm(X - Y_new)  # primal residual
            s = rho * np.linalg.norm(Y_new - Y)  # dual residual
            Y = Y_new
            primal.append(r)
            dual.append(s)
            if max(r * r, s * s) <= threshold:
                converged = True
                break
            if adaptive_rho:
                if r > 10 * s:
                    rho, U = rho * 2.0, U / 2.0
                elif s > 10 * r:
                    rho, U = rho / 2.0, U * 2.0
    if not converged:
        warnings.warn(
            f"ADMM stopped at max_iter={max_iter} before its stopping rule held (last primal residual "
            f"{primal[-1]:.3g}, dual {dual[-1]:.3g}, target {math.sqrt(threshold):.3g}); raise max_iter or tol",
            ConvergenceWarning,
            stacklevel=caller_stacklevel(),
        )
    objective = float(np.sum(S * Y) - lam * np.sum(np.abs(Y)))
    return ADMMResult(Y=Y, X=X, n_iter=it, converged=converged, primal_residuals=np.array(primal),
                      dual_residuals=np.array(dual), rho=rho, objective=objective)


def _initial_rho(S):
    """ρ₀ = max_ab |S_ab| (``fps``), or 1 when S = 0."""
    return float(np.max(np.abs(S))) or 1.0


def fantope_admm_stack(S, n_components, lam, *, rho=None, adaptive_rho=False, tol=1e-4, max_iter=1000):
    r"""The ADMM of :func:`fantope_admm` on a stack of m problems at once (same k), in lock step.

    Each problem runs the iterations of :func:`fantope_admm` (its own ρ, residual balancing and
    stopping rule) and leaves the stack when its rule holds; the stack shares one stacked
    eigendecomposition and one numpy call per step.  At the chapter dashboard's sizes (m = 14
    problems, d = 20) this is several times faster than m calls of :func:`fantope_admm`.  It
    agrees with :func:`fantope_admm` to the tolerance its stopping rule implies: on the step
    where the rule holds the dual residual is :math:`\rho\lVert Y_t - Y_{t-1}\rVert_F \le
    \sqrt k\,\mathrm{tol}`, so rounding that moves the stop by one iteration moves Y by at most
    :math:`\sqrt k\,\mathrm{tol}/\rho` in Frobenius norm (tested).  Unlike :func:`fantope_admm`
    it issues no :class:`ConvergenceWarning`: ``converged`` says which problems hit ``max_iter``.

    Parameters
    ----------
    S : array_like, shape (m, d, d)
        Symmetric matrices (each symmetrised as (S + Sᵀ)/2 first).
    n_components : int
        k, shared by all problems.
    lam : float or array_like, shape (m,)
        λ ≥ 0 of each problem (a scalar: the same for all).
    rho : float, optional
        Initial ADMM penalty of every problem; default, as :func:`fantope_admm`, each problem's
        :math:`\max_{ab}|S_{ab}|` (1 if that matrix is 0).
    adaptive_rho : bool, default False
        Residual balancing, as :func:`fantope_admm`.
    tol : float, default 1e-4
        ε_tol of the stopping rule :math:`\max(r^2, s^2) \le k\,\mathrm{tol}^2`.
    max_iter : int, default 1000
        Iteration cap of each problem.

    Returns
    -------
    ADMMResult
        ``Y`` (m, d, d): each problem's final sparse iterate; ``n_iter`` (m,), ``converged``
        (m,) and ``rho`` (m,): each problem's iteration count, whether its stopping rule held,
        and its final ρ.

    Examples
    --------
    >>> import numpy as np
    >>> S = np.stack([np.diag([3.0, 2.0, 1.0, 0.5]), np.diag([1.0, 4.0, 0.5, 0.2])])
    >>> res = fantope_admm_stack(S, 1, [0.1, 0.1])
    >>> res.converged.tolist(), [int(np.argmax(np.diag(Y))) for Y in res.Y]
    ([True, True], [0, 1])
    """
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 3 or S.shape[1] != S.shape[2] or S.shape[0] < 1:
        raise ValueError(f"S must be a stack of square matrices, shape (m, d, d) with m >= 1, got shape {S.shape}")
    S = np.stack([check_symmetric(A, "S") for A in S])
    m, d, _ = S.shape
    k = check_int(n_components, "n_components", low=1, high=d)
    lam = np.broadcast_to(np.asarray(lam, dtype=np.float64), (m,)) if np.ndim(lam) == 0 else np.asarray(lam, float)
    if lam.shape != (m,):
        raise ValueError(f"lam must be a number or one per problem, shape ({m},), got shape {lam.shape}")
    lam = np.array([check_positive(v, "lam", allow_zero=True) for v in lam])
    tol = check_positive(tol, "tol")
    max_iter = check_int(max_iter, "max_iter", low=1)
    rhos = np.array([_initial_rho(A) for A in S]) if rho is None else np.full(m, check_positive(rho, "rho"))
    Y, n_iter, converged, rhos = lockstep_fantope_admm(S, k, lam, rhos, bool(adaptive_rho), tol, max_iter)
    return ADMMResult(Y=Y, n_iter=n_iter, converged=converged, rho=rhos)


class SlowFitWarning(UserWarning):
    """A fit is expected to take long (the message gives an estimate), before it starts."""


#: Above this dimension LocalSparsePCA times one eigendecomposition and warns if the ADMM may be slow.
_SLOW_CHECK_DIM = 400
#: Warn when the worst case (max_iter iterations) is estimated above this many seconds.
_SLOW_SECONDS = 60.0


def _warn_if_slow(d, max_iter):
    """Warn (SlowFitWarning) with a time estimate when max_iter ADMM iterations at dimension d may take long.

    Each ADMM iteration is dominated by one full d×d symmetric eigendecomposition (the Fantope
    projection), O(d³).  One is timed at d₀ = 200 on this machine (a few ms) and scaled by
    (d/d₀)³; the estimate is for ``max_iter`` iterations (the cap; convergence may come sooner).
    """
    if d < _SLOW_CHECK_DIM:
        return
    import time

    d0 = 200
    A = np.random.default_rng(0).standard_normal((d0, d0))
    A += A.T
    with single_threaded_blas():
        t0 = time.perf_counter()
        np.linalg.eigh(A)
        per_iter = (time.perf_counter() - t0) * (d / d0) ** 3
    worst = per_iter * max_iter
    if worst > _SLOW_SECONDS:
        warnings.warn(
            f"LocalSparsePCA at d = {d}: each ADMM iteration is a full {d}×{d} eigendecomposition (about "
            f"{per_iter:.2g} s here), so up to max_iter = {max_iter} iterations may take about {_fmt_seconds(worst)}; "
            "lower max_iter, raise tol, or reduce d",
            SlowFitWarning, stacklevel=caller_stacklevel())


class LocalSparsePCA(LocalGaussianPCA):
    r"""Row-sparse PCA under non-interactive (ε, δ)-LDP (Wang & Xu, Algorithm 2).

    Steps 1–2 are those of :class:`LocalGaussianPCA` (each user reports
    :math:`x_ix_i^\top + Z_i`; the server forms :math:`\tilde S`).  Then the server solves the
    Fantope relaxation

    .. math:: \hat X = \arg\max_{X\in\mathcal F^k}\ \langle\tilde S, X\rangle - \lambda\lVert X\rVert_{1,1}

    by ADMM (:func:`fantope_admm`) and returns the top-k eigenvectors (algebraically largest)
    of the final sparse iterate Y.  Everything after :math:`\tilde S` is post-processing, so
    the guarantee is that of Algorithm 1.

    Parameters
    ----------
    n_components : int, default=2
        As :class:`LocalGaussianPCA`.
    epsilon : float, default=0.5
        As :class:`LocalGaussianPCA` (each user's report is (ε, δ)-DP).
    delta : float, default=1e-5
        As :class:`LocalGaussianPCA`.
    data_norm : float, default=1.0
        As :class:`LocalGaussianPCA`.
    calibration : {"replacement", "paper", "analytic"}, default="replacement"
        As :class:`LocalGaussianPCA`.
    sensitivity : float, optional
        As :class:`LocalGaussianPCA`.
    lam : float, optional
        Penalty λ ≥ 0.  Default (our choice, see :func:`default_sparse_penalty`):
        :math:`c\,\sigma_1\sqrt{2\ln(d(d+1))/n}` — the typical largest noise entry of
        :math:`\tilde S`.  With ε = inf this is 0 (plain PCA).
    lam_scale : float, default 1.0
        Constant c in the default λ (ignored when ``lam`` is given).
    rho : float, optional
        ADMM penalty; default :math:`\max_{ab}|\tilde S_{ab}|` (``fps``).
    adaptive_rho : bool, default False
        Residual balancing (``fps``).
    tol : float, default 1e-4
        Stopping rule :math:`\max(r^2, s^2) \le k\,\mathrm{tol}^2` (Vu et al.; ``fps``).
    max_iter : int, default 1000
        Largest number of iterations.
    per_user : bool, default=False
        As :class:`LocalGaussianPCA`.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        As :class:`LocalGaussianPCA`.
    accountant : BudgetAccountant or None, default=None
        As :class:`LocalGaussianPCA`.

    Attributes
    ----------
    All of :class:`LocalGaussianPCA`, and
    lam_ : float            the λ used
    solution_ : (d, d)      the ADMM iterate Y (in the Fantope up to the tolerance, sparse)
    n_iter_ : int           ADMM iterations
    converged_ : bool
    primal_residuals_, dual_residuals_ : ndarray   per iteration
    support_ : ndarray      indices a with :math:`Y_{aa} > 0` (estimated support)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(4000, 8)) * [0.3, 0.2, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02]
    >>> X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    >>> est = LocalSparsePCA(1, epsilon=np.inf, lam=0.01).fit(X)
    >>> est.converged_, est.support_.tolist()
    (True, [0, 1])
    """

    mechanism_name = "local Gaussian mechanism on x xᵀ, then Fantope ADMM (Wang & Xu 2019, Algorithm 2)"
    _parameter_constraints: dict = {
        **LocalGaussianPCA._parameter_constraints, "lam": [None, *NONNEGATIVE], "lam_scale": NONNEGATIVE,
        "rho": [None, *POSITIVE], "adaptive_rho": BOOLEAN, "tol": POSITIVE, "max_iter": POSITIVE_INT,
    }

    def __init__(self, n_components=2, *, epsilon=0.5, delta=1e-5, data_norm=1.0, calibration="replacement",
                 sensitivity=None, lam=None, lam_scale=1.0, rho=None, adaptive_rho=False, tol=1e-4,
                 max_iter=1000, per_user=False, random_state=None, accountant=None):
        super().__init__(n_components, epsilon=epsilon, delta=delta, data_norm=data_norm, calibration=calibration,
                         sensitivity=sensitivity, per_user=per_user, random_state=random_state,
                         accountant=accountant)
        self.lam = lam
        self.lam_scale = lam_scale
        self.rho = rho
        self.adaptive_rho = adaptive_rho
        self.tol = tol
        self.max_iter = max_iter

    def _validate_solver(self, n, d):
        check_solver_params(self)

    def _prepare(self, X, *, fitting=False, min_samples=1):
        out = super()._prepare(X, fitting=fitting, min_samples=min_samples)
        self._validate_solver(*out[0].shape)
        return out

    def _postprocess(self, released, k, cal):
        n, d = self.n_samples_, released.shape[0]
        self._validate_solver(n, d)
        lam = (default_sparse_penalty(cal["noise_scale"], n, d, self.lam_scale) if self.lam is None
               else float(self.lam))
        _warn_if_slow(d, self.max_iter)
        res = fantope_admm(released, k, lam, rho=self.rho, adaptive_rho=bool(self.adaptive_rho), tol=self.tol,
                           max_iter=self.max_iter)
        self.lam_ = lam
        self.solution_ = res.Y
        self.n_iter_ = res.n_iter
        self.converged_ = res.converged
        self.primal_residuals_ = res.primal_residuals
        self.dual_residuals_ = res.dual_residuals
        self.rho_ = res.rho
        self.objective_ = res.objective
        self.support_ = np.flatnonzero(np.diag(res.Y) > 0)
        values, basis = top_eigenvectors(res.Y, k)
        self.explained_variance_ = values
        self._set_components(basis)
