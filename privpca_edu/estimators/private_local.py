r"""PrivateLocalPCA: the sequential distributed baseline of Imtiaz & Sarwate, as DPDPCA compared with it.

Sites are visited in a fixed order.  Each site computes a private *local summary* of its rows,
merges it with the summary handed over by the previous site, and passes the merged summary on;
the last site's summary gives the components (Imtiaz & Sarwate's chain, as run in the DPDPCA paper).
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
from scipy import linalg, stats

from .._validation import (
    caller_stacklevel,
    PrivacyWarning,
    check_int,
    check_n_components,
    as_generator,
    clip_provider_rows,
)
from ..privacy import private_local_noise_scale, private_local_sensitivity, symmetric_noise
from ..subspace import fix_signs, thin_qr
from ._base import POSITIVE_INT, PrivateEstimator, StrOptions, is_provider_list

__all__ = ["PrivateLocalPCA", "local_summary", "merge_summaries", "NOISE_KINDS"]

#: Noise options of :class:`PrivateLocalPCA`.
NOISE_KINDS = {
    "gaussian": "symmetric Gaussian noise on each site's XᵀX (Analyze Gauss, replace-one Δ = √2B²); the merges add none",
    "wishart_retracted": "Wishart_M(M + 1, I/ε) noise at every step, as in the DPDPCA authors' code — RETRACTED, "
                         "not differentially private; reproduction only",
}

_WISHART_NOTE = (
    "not differentially private: the Wishart mechanism (Imtiaz & Sarwate, ICASSP 2016) was retracted by "
    "its authors in 2017 (a positive-definite noise matrix gives outputs impossible under a neighbour)"
)


class ChainRankWarning(UserWarning):
    """The chain ended with fewer than n_components directions (``effective_rank_`` < K)."""


def _numerical_rank(eigenvalues, n_features):
    """Rank of U diag(√s) by numpy's matrix_rank rule on the singular values √s."""
    s = np.sqrt(np.clip(eigenvalues, 0.0, None))
    if s.size == 0 or s.max() == 0:
        return 0
    return int(np.sum(s > s.max() * max(n_features, s.size) * np.finfo(float).eps))


def local_summary(C, n_keep):
    r"""Top ``n_keep`` eigenpairs of a symmetric C as a summary :math:`P = U_k\,\mathrm{diag}(\sqrt{s_k})`.

    Negative eigenvalues (possible after noise) are clipped to 0 before the square root, so
    :math:`PP^\top` is the best rank-k positive semidefinite approximation of C's top part.
    Returns (P (M, k), s (k,) clipped eigenvalues).
    """
    M = C.shape[0]
    k = int(n_keep)
    w, U = linalg.eigh(C, subset_by_index=(M - k, M - 1), lower=False, check_finite=False, driver="evr")
    w, U = np.clip(w[::-1], 0.0, None), U[:, ::-1]
    return U * np.sqrt(w), w


def merge_summaries(P_site, P_previous, n_keep, noise=None):
    r"""One merge of the chain: summary of :math:`T = [P_l, P]`, i.e. of
    :math:`P_lP_l^\top + PP^\top` (+ ``noise``, only in the retracted Wishart version)."""
    C = P_site @ P_site.T + P_previous @ P_previous.T
    if noise is not None:
        C = C + noise
    return local_summary(C, n_keep)


class PrivateLocalPCA(PrivateEstimator):
    r"""The sequential ("chain") distributed private PCA baseline of Imtiaz & Sarwate.

    The DPDPCA paper (Wang & Chang 2018) compares with this method, its reference [18].  Sites
    l = 1, …, L (in this order) each hold rows :math:`X^l` (rows of norm ≤ B):

    1. site 1: :math:`P = \mathrm{summary}_{k_1}\big((X^1)^\top X^1 + E_1\big)`;
    2. site l ≥ 2: :math:`P_l = \mathrm{summary}_{k_l}\big((X^l)^\top X^l + E_l\big)`,
       :math:`k' = \max(k_l, \mathrm{rank}\,P)`, :math:`P \leftarrow \mathrm{summary}_{k'}(P_lP_l^\top + PP^\top)`,
       and P is handed to site l + 1;
    3. the components are the normalised columns of the last P,

    where :math:`\mathrm{summary}_k(C) = U_k\,\mathrm{diag}(\sqrt{s_k})` (top-k eigenpairs) and
    :math:`k_l = \min(K, N^l)`.  Because a site keeps at most as many directions as it has rows,
    the chain loses information when sites hold fewer than M rows, even without noise — the
    mechanism behind the baseline's collapse in the paper's Fig. 4.  (With sites of fewer than K
    rows the rank of the merged summary can stop growing altogether, e.g. at 1 for one-row sites:
    the fit then says so with a :class:`ChainRankWarning` and ``effective_rank_`` < K.)

    Parameters
    ----------
    n_components : int
        K.
    epsilon, delta : float
        Each site's release is (ε, δ)-DP; sites hold disjoint records, so the whole chain is
        (ε, δ)-DP for every record (parallel composition; the merges are post-processing).
    data_norm : float, default 1.0
        Public row-norm bound B; larger rows are scaled down to it (a warning only inside ``privacy.diagnostics()``).
    noise : {"gaussian", "wishart_retracted"}, default "gaussian"
        ``"gaussian"``: :math:`E_l` symmetric with i.i.d. :math:`N(0,\sigma^2)` entries on and
        above the diagonal, σ from :func:`privpca_edu.privacy.gaussian_sigma` with Δ = √2B²
        (the replace-one variant); the merges add no noise.  ``"wishart_retracted"``:
        :math:`W\sim\mathcal W_M(M+1, I/\varepsilon)` added at every local step *and* every merge,
        as in the code the DPDPCA authors ran.  **That mechanism was retracted (Sarwate 2017) and
        is not differentially private**: it warns (:class:`~privpca_edu.PrivacyWarning`) and
        ``privacy_.is_private`` is False.  It is kept only to reproduce the paper's comparison.
    calibration : {"classic", "analytic"}, default "classic"
        σ formula for ``noise="gaussian"``.
    n_sites : int, optional
        When ``fit`` gets a single array: split it into this many contiguous, near-equal blocks
        (``numpy.array_split``, as the authors did).  Ignored for a list of arrays.
    random_state : None, int or Generator
        Seed or generator of the randomness (``None``: fresh OS entropy).
    accountant : BudgetAccountant or None, default=None
        A :class:`~privpca_edu.privacy.BudgetAccountant` that is asked before ``fit`` (a fit
        that would exceed its budget is refused) and charged the record ``privacy_`` after it.

    Attributes
    ----------
    components_ : (K, M)
        Orthonormal rows.  If the chain ends with fewer than K directions
        (``effective_rank_ < K``), the remaining rows are random orthonormal directions
        orthogonal to the kept ones, drawn from ``random_state`` (the chain carries no
        information about them).
    effective_rank_ : int     directions the chain actually kept at the end (k′)
    summary_ : (M, k′)        the last site's summary P
    noise_scale_ : float      σ of each entry of E_l (Gaussian); for Wishart the scale 1/ε
    sensitivity_ : float      √2B² (Gaussian)
    site_sizes_ : (L,)        rows per site
    site_seconds_ : list      wall time of each site's step (local summary + merge)
    chain_seconds_ : float    wall time of the whole chain (sites run one after another)
    privacy_ : PrivacyRecord  model "distributed"

    Notes
    -----
    **Sensitivity.** Replacing one row x → x′ (‖x‖, ‖x′‖ ≤ B) of site l changes
    :math:`(X^l)^\top X^l` by :math:`xx^\top - x'x'^\top`, of Frobenius norm ≤ √2B²
    (:class:`~privpca_edu.AnalyzeGauss`'s argument).  Imtiaz & Sarwate state τ for add/remove
    neighbours (Δ = B²); the package uses replace-one throughout, hence √2.

    **Deviations.** The authors cap :math:`k_l` at the numerical rank of :math:`X^l`; that rank is
    data-dependent (not private), so we use the public :math:`\min(K, N^l)`, equal to it for
    data in general position.  :math:`\mathrm{rank}\,P` is computed from P, already private.

    References
    ----------
    H. Imtiaz and A. D. Sarwate, "Symmetric matrix perturbation for differentially-private
    principal component analysis", ICASSP 2016 (Wishart version; retracted by A. Sarwate,
    "Retraction for Symmetric Matrix Perturbation…", 2017).  H. Imtiaz and A. D. Sarwate,
    "Distributed differentially private algorithms for matrix and tensor factorization", IEEE
    JSTSP 2018.  S. Wang and J. M. Chang, IEEE DSC 2018 (the comparison).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 5)) * [1.0, 0.4, 0.2, 0.1, 0.1]
    >>> X /= np.linalg.norm(X, axis=1, keepdims=True)  # each record scaled on its own: B = 1 is public
    >>> est = PrivateLocalPCA(1, epsilon=0.5, delta=1e-5, n_sites=4, random_state=0).fit(X)
    >>> est.components_.shape, est.effective_rank_, est.privacy_.is_private
    ((1, 5), 1, True)
    """

    privacy_model = "distributed"
    mechanism_name = "Imtiaz & Sarwate chain: symmetric Gaussian noise on each site's X^T X, merges noise-free"
    _parameter_constraints: dict = {
        **PrivateEstimator._parameter_constraints, "noise": [StrOptions(set(NOISE_KINDS))],
        "calibration": [StrOptions({"classic", "analytic"})], "n_sites": [None, *POSITIVE_INT],
    }

    def __init__(self, n_components=2, *, epsilon=0.5, delta=1e-5, data_norm=1.0, noise="gaussian",
                 calibration="classic", n_sites=None, random_state=None, accountant=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.noise = noise
        self.calibration = calibration
        self.n_sites = n_sites
        self.random_state = random_state
        self.accountant = accountant

    def _sites(self, X):
        if is_provider_list(X):
            return self._validate_fit_providers(X)
        (X,) = self._validate_fit_providers(X)
        if self.n_sites is None:
            return [X]
        L = check_int(self.n_sites, "n_sites", low=1, high=X.shape[0])
        return list(np.array_split(X, L))

    def fit(self, X, y=None):
        """Fit on a list of per-site 2-D numpy arrays, or on one array split into ``n_sites`` blocks.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data, one row per person; rows longer than ``data_norm`` are scaled down to it.
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        PrivateLocalPCA
            This estimator, fitted.
        """
        sites = self._sites(X)
        epsilon, delta, data_norm = self._validate_privacy()
        M = sites[0].shape[1]
        K = check_n_components(self.n_components, M)
        rng = as_generator(self.random_state)

        clipped, _ = clip_provider_rows(sites, data_norm, copy=False)  # sites are our own copies
        wishart = self.noise == "wishart_retracted"
        if wishart:
            warnings.warn(_WISHART_NOTE + "; noise='wishart_retracted' is for reproducing the DPDPCA paper only",
                          PrivacyWarning, stacklevel=caller_stacklevel())
        no_noise = math.isinf(epsilon)
        sens = private_local_sensitivity(data_norm)
        if wishart:
            sigma = 0.0 if no_noise else 1.0 / epsilon
        else:
            sigma = private_local_noise_scale(epsilon, delta, data_norm, self.calibration)

        def site_noise():
            if no_noise:
                return None
            if wishart:
                return np.atleast_2d(stats.wishart.rvs(df=M + 1, scale=np.eye(M) / epsilon, random_state=rng))
            return symmetric_noise(M, sigma, convention="upper_iid", random_state=rng)

        def noisy(C):
            E = site_noise()
            return C if E is None else C + E

        site_seconds = []
        P = None
        for S in clipped:
            t0 = time.perf_counter()
            k_site = min(K, S.shape[0])
            P_site, _ = local_summary(noisy(S.T @ S), k_site)
            if P is None:
                P = P_site
            else:
                rank_prev = _numerical_rank(np.sum(P * P, axis=0), M)
                k_new = max(k_site, rank_prev)
                P, _ = merge_summaries(P_site, P, k_new, noise=site_noise() if wishart else None)
            site_seconds.append(time.perf_counter() - t0)

        norms = np.linalg.norm(P, axis=0)
        keep = norms > 0
        kept = P[:, keep] / norms[keep]
        k_eff = kept.shape[1]
        basis = kept[:, :K]
        if k_eff < K:  # pad with random directions orthogonal to what the chain kept
            # not silent: the components past k_eff carry no information.  Public facts only: the
            # site sizes and the rank of the (already private) summary P.
            small = sum(len(S) < K for S in clipped)
            why = (f"{small} of {len(clipped)} sites hold fewer than {K} rows and each merge keeps k' = max(k_l, rank P) "
                   "directions (the rule of the comparison reproduced here); use sites of at least n_components "
                   "rows, or fewer sites (n_sites)" if small else
                   "the noisy summaries have fewer positive eigenvalues than that (the noise dominates)")
            warnings.warn(f"the chain kept only {k_eff} of n_components={K} directions: {why}; components_ rows past "
                          "effective_rank_ are random directions", ChainRankWarning, stacklevel=2)
            Z = rng.standard_normal((M, K - k_eff))
            Z -= basis @ (basis.T @ Z)
            Z, _ = thin_qr(Z)
            basis = np.hstack([basis, Z])
        self.summary_ = P
        self.effective_rank_ = int(min(k_eff, K))
        self.noise_scale_ = sigma
        self.sensitivity_ = sens if not wishart else None
        self.site_sizes_ = np.array([len(S) for S in sites])
        self.n_sites_ = len(sites)
        self.n_samples_ = int(self.site_sizes_.sum())
        self.site_seconds_ = site_seconds
        self.chain_seconds_ = float(sum(site_seconds))
        self._set_components(fix_signs(basis))
        if wishart:
            self._record(epsilon=epsilon, delta=delta, data_norm=data_norm,
                         mechanism="Imtiaz & Sarwate chain with Wishart noise (retracted)",
                         calibration="wishart_retracted", sensitivity=None, noise_scale=sigma, is_private=False,
                         note=_WISHART_NOTE)
        else:
            note = ""
            if not no_noise and delta > 1.0 / self.n_samples_:
                note = f"delta={delta:g} > 1/N={1 / self.n_samples_:.2g}: a weak guarantee"
            self._record(epsilon=epsilon, delta=delta, data_norm=data_norm, mechanism=self.mechanism_name,
                         calibration=self.calibration, sensitivity=sens, noise_scale=sigma, note=note)
        return self
