"""PPCA: the exponential mechanism for PCA (Chaudhuri, Sarwate & Sinha 2012/2013)."""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_int, check_option, as_generator
from ..subspace import fix_signs, top_eigenvectors
from ._base import ACCOUNTANT, DATA_NORM, EPSILON, N_COMPONENTS, POSITIVE_INT, RANDOM_STATE, PrivateEstimator, StrOptions
from ._bingham import bingham_gibbs, kgm_envelope, kgm_log_ratio, sample_bingham_exact


class PPCA(PrivateEstimator):
    r"""Private PCA by the exponential mechanism: V drawn from the matrix Bingham law.

    .. math:: p(V) \propto \exp\Big(\frac{\varepsilon}{2B^2}\,\mathrm{tr}(V^\top X^\top X V)\Big)
              \quad\text{on } \{V \in \mathbb R^{d\times k}: V^\top V = I_k\}

    Parameters
    ----------
    n_components : int, default 1
        With the default ``sampler="auto"``, k = 1 draws exactly (ε-DP as proved); k > 1 uses the
        Gibbs sampler, recorded as not proved private.
    epsilon : float, default 1.0
        Privacy parameter ε > 0; ``numpy.inf`` returns the exact top-k eigenvectors (the limit of the law).
    data_norm : float, default 1.0
        Public row-norm bound B (rows above it are scaled down; a warning only inside ``privacy.diagnostics()``).
    sampler : {"auto", "exact", "gibbs"}, default "auto"
        ``"auto"``: ``"exact"`` for k = 1, ``"gibbs"`` otherwise.
        ``"gibbs"``: Hoff's Gibbs sampler, any k, ``n_iter`` sweeps — approximate, so pure
        ε-DP holds only in the limit (the DPS-PCA paper makes the same remark).
        ``"exact"``: Kent–Ganeiber–Mardia rejection sampler, exact, k = 1 only.
    n_iter : int, default 1000
        Gibbs sweeps (Chaudhuri et al.'s choice); ignored by ``"exact"``.  Each sweep costs
        about k log₂ k rank-one eigenvalue updates of size d, O(d²) each (after one d×d
        eigendecomposition); when the estimated run time exceeds a minute (d ≳ 1400 with
        k = 2, n_iter = 1000) ``fit`` warns before sampling, naming the cheaper options.
        The cost of each draw is bounded whatever ε (see :func:`~privpca_edu.estimators._bingham.draw_theta`).
    random_state : None, int or Generator
        Seed or generator of the randomness (``None``: fresh OS entropy).
    accountant : BudgetAccountant or None, default=None
        A :class:`~privpca_edu.privacy.BudgetAccountant` that is asked before ``fit`` (a fit
        that would exceed its budget is refused) and charged the record ``privacy_`` after it.

    Attributes
    ----------
    components_ : (k, d)
    concentration_ : float   ε/(2B²), the factor in front of tr(VᵀXᵀXV)
    noise_scale_ : float     2B²/ε, the mechanism's "temperature" (0 for ε = inf)
    privacy_ : PrivacyRecord (δ = 0: pure ε-DP)

    Notes
    -----
    **Privacy (replace-one).**  The utility q(X, V) = tr(VᵀXᵀXV) = Σᵢ ‖Vᵀxᵢ‖² changes by
    ‖Vᵀx‖² − ‖Vᵀx′‖² ∈ [−B², B²] when one row is replaced, so Δq = B² and the exponential
    mechanism exp(ε q/(2Δq)) is ε-DP (McSherry & Talwar 2007).  IBM diffprivlib uses ε/(4B²),
    twice as conservative; we follow Chaudhuri et al.
    """

    privacy_model = "central"
    requires_delta = False
    gaussian_noise = False  # the exponential mechanism: pure ε-DP
    mechanism_name = "exponential mechanism: matrix Bingham on X^T X"
    #: acceptance log-ratio of the exact sampler (audits swap in broken ones in mutants)
    _log_ratio = staticmethod(kgm_log_ratio)
    _parameter_constraints: dict = {
        "n_components": N_COMPONENTS, "epsilon": EPSILON, "data_norm": DATA_NORM,
        "sampler": [StrOptions({"auto", "gibbs", "exact"})], "n_iter": POSITIVE_INT, "random_state": RANDOM_STATE,
        "accountant": ACCOUNTANT,
    }

    def __init__(self, n_components=1, *, epsilon=1.0, data_norm=1.0, sampler="auto", n_iter=1000,
                 random_state=None, accountant=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.sampler = sampler
        self.n_iter = n_iter
        self.random_state = random_state
        self.accountant = accountant

    @property
    def delta(self):
        """PPCA is pure ε-DP: δ = 0."""
        return 0.0

    def bingham_concentration(self, epsilon, data_norm):
        r"""Return the factor c in :math:`p(V) \propto \exp(c\,\mathrm{tr}(V^\top X^\top XV))`.

        c = ε/(2B²): the exponential mechanism exp(ε q/(2Δq)) with utility q = tr(VᵀXᵀXV) and
        sensitivity Δq = B² (class Notes).  Experiments that sample the same law on a cached
        XᵀX take c from here; the audits' mutants override it.

        Parameters
        ----------
        epsilon : float
            The privacy parameter ε > 0.
        data_norm : float
            The public row-norm bound B.

        Returns
        -------
        float
            The concentration c = ε/(2B²).

        Examples
        --------
        >>> PPCA().bingham_concentration(1.0, 2.0)
        0.125
        """
        return epsilon / (2.0 * data_norm**2)

    def bingham_parameter(self, X):
        """Compute the matrix c·XᵀX of the Bingham law this estimator samples from (non-private).

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data (scaled down to ``data_norm`` as in ``fit``).

        Returns
        -------
        ndarray, shape (n_features, n_features)
            The Bingham parameter matrix (**not private**).
        """
        X, k, epsilon, delta, data_norm = self._prepare(X)
        return _bingham_matrix(self.bingham_concentration(epsilon, data_norm), X.T @ X, epsilon)

    def _resolved_sampler(self, k):
        check_option(self.sampler, "sampler", ("auto", "gibbs", "exact"))
        return ("exact" if k == 1 else "gibbs") if self.sampler == "auto" else self.sampler

    def _validated_sampler(self, k):
        if self._resolved_sampler(k) == "exact" and k != 1:
            raise ValueError(f"sampler='exact' needs n_components=1, got n_components={k}; use 'gibbs'")
        return check_int(self.n_iter, "n_iter", low=1)

    def sample_components(self, X, n_draws, random_state=None):
        """Draw ``n_draws`` independent outputs for the same X (k = 1, exact sampler): (n_draws, d).

        What the output-level audits (recipes D and E) call; the same law as ``fit``.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data (scaled down to ``data_norm`` as in ``fit``).
        n_draws : int
            Number of outputs, >= 1.
        random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
            Seed or generator of the draws (``None``: fresh OS entropy).

        Returns
        -------
        ndarray, shape (n_draws, n_features)
            Unit vectors, one output per row.
        """
        X, k, epsilon, delta, data_norm = self._prepare(X)
        if k != 1:
            raise ValueError("sample_components needs n_components=1")
        A = _bingham_matrix(self.bingham_concentration(epsilon, data_norm), X.T @ X, epsilon)
        return sample_bingham_exact(A, size=check_int(n_draws, "n_draws", low=1), random_state=random_state,
                                    log_ratio=self._log_ratio)

    def fit(self, X, y=None):
        """Draw the components from the Bingham law of X (exact for k = 1, Gibbs otherwise).

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data, one row per person; rows longer than ``data_norm`` are scaled down to it.
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        PPCA
            This estimator, fitted.
        """
        X, k, epsilon, delta, data_norm = self._prepare(X, fitting=True)
        n_sweeps = self._validated_sampler(k)
        rng = as_generator(self.random_state)  # validated even when ε = inf draws nothing
        C = X.T @ X
        if math.isinf(epsilon):
            _, basis = top_eigenvectors(C, k)
            c = math.inf
        else:
            c = self.bingham_concentration(epsilon, data_norm)
            if self._resolved_sampler(k) == "exact":
                basis = sample_bingham_exact(_bingham_matrix(c, C, epsilon), random_state=rng,
                                             log_ratio=self._log_ratio)[:, None]
            else:
                basis = bingham_gibbs(_bingham_matrix(c, C, epsilon), k, n_sweeps, random_state=rng)
        self.concentration_ = c
        self.noise_scale_ = 0.0 if math.isinf(c) else 1.0 / c
        self._set_components(fix_signs(basis))
        note = ""
        sampler = self._resolved_sampler(k)
        approximate = sampler == "gibbs" and not math.isinf(epsilon)
        if approximate:
            note = (f"not proved differentially private: the Gibbs sampler with {n_sweeps} sweeps only approximates "
                    "the Bingham law, and ε-DP is proved for exact draws (it holds in the limit of infinitely many "
                    "sweeps); sampler='exact' (k = 1) draws exactly")
        self._record(
            epsilon=epsilon, delta=0.0, data_norm=data_norm, mechanism=self.mechanism_name,
            calibration=f"exponential mechanism, sampler={sampler}", sensitivity=data_norm**2,
            noise_scale=self.noise_scale_, note=note, releases=(), is_private=not approximate,
        )
        return self


def _bingham_matrix(c, C, epsilon):
    """c·XᵀX, or a ValueError naming ε when it is beyond float64 (was the sampler's internal message)."""
    with np.errstate(over="ignore", invalid="ignore"):
        A = c * C
    if not np.all(np.isfinite(A)):
        raise ValueError(f"epsilon={epsilon:g} is too large for the Bingham sampler: the parameter ε/(2B²)·XᵀX "
                         "exceeds the largest float64; use epsilon=numpy.inf (the top eigenvectors, no privacy) "
                         "or a smaller epsilon")
    return A
