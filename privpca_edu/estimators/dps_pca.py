"""DPS-PCA: distributed, differentially private sparse PCA (Ge, Wang, Wang & Liu, AISTATS 2018)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._validation import (
    caller_stacklevel,
    PrivacyWarning,
    check_data,
    check_int,
    check_n_components,
    check_option,
    clip_rows,
    single_threaded_blas,
    as_generator,
    clip_provider_rows,
    power_of_two_scale,
)
from ..privacy import ITERATIVE_CALIBRATIONS, dps_pca_sigma
from ..subspace import fix_signs
from ._base import (
    BOOLEAN,
    POSITIVE_INT,
    PrivateEstimator,
    StrOptions,
    is_provider_list,
)
from ._power import initial_basis, truncated_orthogonal_iteration


def _provider_noise(sigma, shape, rng):
    """G ~ N(0, σ²) entries: the one place DPS-PCA draws its privacy noise."""
    return rng.standard_normal(shape) * sigma


def sparse_product(C, Q):
    """C @ Q for symmetric C, using only Q's nonzero rows: O(kŝd) once Q is ŝ-row-sparse."""
    rows = np.flatnonzero(Q.any(axis=1))
    if rows.size > Q.shape[0] // 2:
        return C @ Q
    return (Q[rows].T @ C[rows]).T  # C symmetric: C[:, rows] @ Q[rows] = (Q[rows]ᵀ C[rows])ᵀ


_sparse_product = sparse_product  # the name used before it was public


def run_dps_pca(scatters, sizes, Q1, sparsity, n_iter, sigma, *, noise="independent", random_state=None,
                record_messages=False, total_scatter=None):
    """The iterations of Algorithm 1 from Q(1), given each provider's scatter Σ_{x∈S_i} xxᵀ.

    ``DPSPCA.fit`` calls this after validation; experiments call it directly to rerun the
    algorithm many times on cached scatter matrices (same code, same random stream).

    Every provider draws its own G_i (or, with ``noise="shared"``, one G per iteration is
    reused).  With ``record_messages`` each message is formed and kept.  Without it only the
    server's sum matters, Σᵢ(CᵢQ + Gᵢ) = (ΣᵢCᵢ)Q + ΣᵢGᵢ, and it is simulated as such: the
    independent Gᵢ sum to one N(0, Nσ²) matrix (N·G for shared noise), drawn at once — the same
    distribution (and, for N = 1, the same random stream) at O(kd²) per iteration instead of
    O(Nkd²).  ``total_scatter`` may pass ΣᵢCᵢ precomputed.

    Returns
    -------
    history : list of (d, k), Q(1) … Q(T+1)
    messages : list over t of lists over providers of H_i(t) (None unless recorded)
    """
    rng = as_generator(random_state)
    sizes = np.asarray(sizes)
    n = int(sizes.sum())
    d, k = Q1.shape
    N = len(scatters)
    if total_scatter is None:
        total_scatter = scatters[0] if N == 1 else sum(scatters)
    messages = [] if record_messages else None
    aggregate_sigma = sigma * (N if noise == "shared" else math.sqrt(N))

    def apply(Q, t):
        if messages is None:  # only the sum reaches the server's estimate
            return (sparse_product(total_scatter, Q) + _provider_noise(aggregate_sigma, (d, k), rng)) / n
        if noise == "shared":
            G = _provider_noise(sigma, (d, k), rng)
            noises = [G] * N
        else:
            noises = [_provider_noise(sigma, (d, k), rng) for _ in scatters]
        # provider i releases n_i H_i = n_i Σ̂_i Q + G_i; the server sums and divides by n
        releases = [sparse_product(C, Q) + G for C, G in zip(scatters, noises)]
        messages.append([R / n_i for R, n_i in zip(releases, sizes)])
        return sum(releases) / n

    with single_threaded_blas():
        history = truncated_orthogonal_iteration(apply, Q1, sparsity, n_iter)
    return history, messages


def split_providers(X, name="X"):
    """Validate one array or a list of per-provider 2-D numpy arrays; return a list of float copies.

    Providers are recognised only as a non-empty list of 2-D numpy arrays
    (:func:`~privpca_edu.estimators._base.is_provider_list`); a list of lists is one data set.
    """
    if is_provider_list(X):
        parts = [check_data(Xi, name=f"{name}[{i}]") for i, Xi in enumerate(X)]
        dims = sorted({p.shape[1] for p in parts})
        if len(dims) > 1:
            raise ValueError(
                f"every provider in {name} must have the same number of features; got {dims} "
                f"(per provider: {[p.shape[1] for p in parts]})"
            )
        return parts
    return [check_data(X, name=name)]


class DPSPCA(PrivateEstimator):
    r"""Distributed private sparse PCA: the noisy row-truncated power method of Ge et al. (2018).

    N data providers each hold rows :math:`S_i` (``n_i`` of them).  An untrusted server sends
    the current :math:`Q^{(t)}` (d×k, orthonormal, ŝ nonzero rows); provider i returns

    .. math:: H_i^{(t)} = \hat\Sigma_i Q^{(t)} + G_i^{(t)}/n_i,\qquad
              \hat\Sigma_i = \tfrac1{n_i}\textstyle\sum_{x\in S_i} xx^\top,\quad
              G_i^{(t)} \sim N(0, \sigma^2)^{d\times k};

    the server forms :math:`K^{(t)} = \sum_i n_iH_i^{(t)}/n`, orthonormalises it (thin QR),
    keeps the ŝ rows of largest norm and orthonormalises again (Algorithm 1).

    Parameters
    ----------
    n_components : int
        Number of components k.
    epsilon, delta : float
        Total budget for the whole run (all T iterations); ``epsilon=numpy.inf``: σ = 0.
    sparsity : int or None
        Number ŝ of rows kept, k ≤ ŝ ≤ d (``None``: d, no truncation).  Paper: 50.
    n_iter : int, default 10
        T.
    data_norm : float, default 1.0
        Public row-norm bound B; rows above it are scaled down (a warning only inside ``privacy.diagnostics()``).
    calibration : str, default "paper"
        One of ``privacy.ITERATIVE_CALIBRATIONS``: ``"paper"`` (σ = 2B²T√(2 log(2T/δ))/ε, the
        paper's Algorithm 1 line 3), ``"classic"``, ``"analytic_basic"``,
        ``"advanced"``, ``"zcdp"``, ``"analytic_exact"`` (tightest).
    noise : {"independent", "shared"}
        ``"independent"`` (default): each provider draws its own G_i — what a real deployment
        can do.  ``"shared"``: one G per iteration added by every provider, the literal reading
        of the printed pseudocode.  Identical when N = 1, as in every experiment of the paper.
        **With N ≥ 2 providers shared noise is not private against the server**: every
        provider adds the same G, so :math:`n_1H_1 - n_2H_2 = (C_1 - C_2)Q` exactly and the
        noise cancels (and each provider, who knows G, strips it from the others' messages).
        Such a fit warns and is recorded with ``privacy_.is_private = False``.
    init : "random" or array_like of shape (d, k), default="random"
        The start: a Haar-random orthonormal basis drawn from ``random_state``, or this one.
    threshold_init : bool or None
        See :class:`TruncatedPowerPCA`: a random start is *not* thresholded by default
        (thresholding it often discards the true support: the "initialisation pitfall").
    record_messages : bool, default False
        Keep every provider's message :math:`H_i^{(t)}` in ``messages_`` — what a curious
        server sees.
    random_state : None, int or Generator
        Seed or generator of the randomness (``None``: fresh OS entropy).
    accountant : BudgetAccountant or None, default=None
        A :class:`~privpca_edu.privacy.BudgetAccountant` that is asked before ``fit`` (a fit
        that would exceed its budget is refused) and charged the record ``privacy_`` after it.

    Attributes
    ----------
    components_ : (k, d)
    history_ : list of (d, k) arrays Q(1), …, Q(T+1)
    noise_scale_ : float    σ (per entry of each provider's unnormalised message n_iH_i)
    sensitivity_ : float    2B² (Frobenius, per provider message)
    n_providers_ : int
    provider_sizes_ : (N,) int
    messages_ : list over t of lists over providers of (d, k) arrays (if recorded)
    privacy_ : PrivacyRecord (model "distributed")

    Notes
    -----
    **Sensitivity and privacy.**  Replacing one record x → x′ of provider i (‖x‖, ‖x′‖ ≤ B)
    changes :math:`n_iH_i = \sum_{x\in S_i}xx^\top Q + G_i` by
    :math:`xx^\top Q - x'x'^\top Q`, of Frobenius norm at most
    ‖x‖‖Qᵀx‖ + ‖x′‖‖Qᵀx′‖ ≤ 2B² (Q has orthonormal columns): Δ = 2B², the paper's constant, to
    which σ is calibrated.  The tight value is √2B²: :math:`\lVert(xx^\top - x'x'^\top)Q\rVert_F
    \le \lVert xx^\top - x'x'^\top\rVert_F\,\lVert Q\rVert_2` with ‖Q‖₂ = 1, and
    :math:`\lVert xx^\top - x'x'^\top\rVert_F^2 = \lVert x\rVert^4 + \lVert x'\rVert^4 - 2(x^\top x')^2 \le 2B^4`,
    attained by x = Be₁, x′ = Be₂ when Q spans e₁ and e₂.  The privacy record checks the noise
    against this proved √2B² (so it never under-claims), while σ keeps the paper's 2B² (the
    figures reproduce).  Each message is a
    Gaussian mechanism; Q(t) depends on the data only through earlier noisy messages, so the
    T messages compose adaptively, and σ is calibrated for the composition
    (:func:`privpca_edu.privacy.dps_pca_sigma`).  Every provider is protected by its own noise
    whatever the others do, so the guarantee holds against the server and the other
    providers (the distributed model).  The output is post-processing.
    """

    privacy_model = "distributed"
    mechanism_name = "noisy row-truncated power method (per-provider Gaussian noise on Σ̂_i Q)"
    _parameter_constraints: dict = {
        **PrivateEstimator._parameter_constraints, "sparsity": [None, *POSITIVE_INT], "n_iter": POSITIVE_INT,
        "calibration": [StrOptions(set(ITERATIVE_CALIBRATIONS))], "noise": [StrOptions({"independent", "shared"})],
        "init": [StrOptions({"random"}), "array-like"], "threshold_init": ["boolean", None],
        "record_messages": BOOLEAN,
    }

    def __init__(self, n_components=2, *, epsilon=1.0, delta=1e-5, sparsity=None, n_iter=10, data_norm=1.0,
                 calibration="paper", noise="independent", init="random", threshold_init=None,
                 record_messages=False, random_state=None, accountant=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.sparsity = sparsity
        self.n_iter = n_iter
        self.data_norm = data_norm
        self.calibration = calibration
        self.noise = noise
        self.init = init
        self.threshold_init = threshold_init
        self.record_messages = record_messages
        self.random_state = random_state
        self.accountant = accountant

    def fit(self, X, y=None):
        """Fit on one array (N = 1) or a list of per-provider 2-D numpy arrays (sizes may differ).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features), or list of such arrays
            One array (one provider, N = 1) or one 2-D numpy array per provider (sizes may differ);
            rows longer than ``data_norm`` are scaled down to it.
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        DPSPCA
            This estimator, fitted.
        """
        providers = self._validate_fit_providers(X, check_finite=False)  # NaN/inf: refused by the clipping below
        epsilon, delta, data_norm = self._validate_privacy()
        d = providers[0].shape[1]
        k = check_n_components(self.n_components, d)
        s = d if self.sparsity is None else check_int(self.sparsity, "sparsity", low=k, high=d)
        T = check_int(self.n_iter, "n_iter", low=1)
        check_option(self.calibration, "calibration", tuple(ITERATIVE_CALIBRATIONS))
        check_option(self.noise, "noise", ("independent", "shared"))
        rng = as_generator(self.random_state)

        # split_providers returned our own copies, so clipping may work in place
        clipped, _ = clip_provider_rows(providers, data_norm, copy=False)
        if math.isinf(epsilon):
            # no noise: work on X/c, c a power of two near max|x| (exact), when the scatters would
            # underflow or overflow (X·1e-200 lost rank); the iterates do not depend on c
            c = power_of_two_scale(None, max(max(float(P.max()), -float(P.min())) for P in clipped))
            if c != 1.0:
                for P in clipped:
                    P /= c
        sizes = np.array([len(P) for P in clipped])
        n = int(sizes.sum())
        # Each provider's (unnormalised) scatter Σ_{x∈S_i} x xᵀ = n_i Σ̂_i, computed once.
        scatters = [P.T @ P for P in clipped]
        sigma = dps_pca_sigma(epsilon, delta, T, data_norm=data_norm, method=self.calibration)
        Q1 = initial_basis(self.init, d, k, s, self.threshold_init, rng)

        history, messages = run_dps_pca(
            scatters, sizes, Q1, s, T, sigma, noise=self.noise, random_state=rng,
            record_messages=self.record_messages,
        )
        self.history_ = history
        self.n_iter_ = T
        self.noise_scale_ = sigma
        self.sensitivity_ = 2.0 * data_norm**2
        self.n_providers_ = len(providers)
        self.provider_sizes_ = sizes
        self.n_samples_ = n
        if messages is not None:
            self.messages_ = messages
        self._set_components(fix_signs(history[-1]))
        notes = []
        shared_leak = self.noise == "shared" and len(providers) > 1 and not math.isinf(epsilon)
        if shared_leak:
            notes.append(
                f"not differentially private: noise='shared' with {len(providers)} providers adds the same G "
                "to every message, so the server recovers (C_i - C_j)Q exactly from n_iH_i - n_jH_j "
                "(and every provider knows G); use noise='independent'")
            warnings.warn(
                "noise='shared' with more than one provider is not private: the server cancels the common "
                "noise by subtracting two providers' messages; use noise='independent'",
                PrivacyWarning, stacklevel=caller_stacklevel())
        if delta > 1.0 / n and not math.isinf(epsilon):
            notes.append(f"delta={delta:g} > 1/n={1 / n:.2g}: a weak guarantee (a mechanism may then reveal a "
                         "record outright)")
        # Each provider makes T adaptive Gaussian releases of the proved sensitivity √2B² (see Notes)
        # with noise σ: the shared record check composes them exactly (μ = √T·√2B²/σ).
        self._record(
            epsilon=epsilon, delta=delta, data_norm=data_norm, mechanism=self.mechanism_name,
            calibration=f"{self.calibration} (T={T}, noise={self.noise})", sensitivity=self.sensitivity_,
            noise_scale=sigma, n_releases=T, note="; ".join(notes), is_private=not shared_leak,
            releases=((math.sqrt(2.0) * data_norm**2, sigma, T),),
        )
        return self

    def sample_messages(self, X, Q, n_draws, random_state=None):
        """``n_draws`` independent messages n·H = XᵀXQ + G of one provider holding X, for a fixed Q.

        The same noise (same σ, same sampler) as one iteration of ``fit``; the per-iteration
        release that the audit recipes A and C test.  Returns (n_draws, d, k).

        Parameters
        ----------
        X : array_like, shape (n_i, n_features)
            The provider's rows (scaled down to ``data_norm`` as in ``fit``).
        Q : array_like, shape (n_features, n_components)
            The server's current orthonormal iterate.
        n_draws : int
            Number of messages, >= 1.
        random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
            Seed or generator of the draws (``None``: fresh OS entropy).

        Returns
        -------
        ndarray, shape (n_draws, n_features, n_components)
            The messages XᵀXQ + G.
        """
        epsilon, delta, data_norm = self._validate_privacy()
        X = clip_rows(check_data(X), data_norm)[0]
        Q = np.asarray(Q, dtype=np.float64)
        T = check_int(self.n_iter, "n_iter", low=1)
        check_option(self.calibration, "calibration", tuple(ITERATIVE_CALIBRATIONS))
        sigma = dps_pca_sigma(epsilon, delta, T, data_norm=data_norm, method=self.calibration)
        rng = as_generator(random_state)
        n_draws = check_int(n_draws, "n_draws", low=1)
        return (X.T @ X @ Q) + _provider_noise(sigma, (n_draws,) + Q.shape, rng)
