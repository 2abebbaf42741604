"""Non-private baselines: PCA and the truncated power method (sparse PCA)."""

from __future__ import annotations

import numpy as np

from .._validation import as_generator, check_int, check_n_components, check_positive, single_threaded_blas
from ..subspace import fix_signs, top_eigenvectors
from ._base import BOOLEAN, POSITIVE, POSITIVE_INT, RANDOM_STATE, PCABase, StrOptions
from ._power import initial_basis, truncated_orthogonal_iteration


class PCA(PCABase):
    """Non-private PCA: top-k eigenvectors of the covariance (or the second-moment) matrix.

    Parameters
    ----------
    n_components : int
        Number of components k, 1 ≤ k ≤ d.
    center : bool, default True
        ``True`` (as :class:`sklearn.decomposition.PCA`): subtract the sample mean and decompose
        the sample covariance :math:`(X - \\bar x)^\\top (X - \\bar x)/(n - 1)`; components,
        ``explained_variance_``, ``explained_variance_ratio_``, ``noise_variance_`` and
        :meth:`score` agree with scikit-learn's.  ``False``: decompose the uncentred second moment
        :math:`X^\\top X / n`, what every private mechanism here works with (pass it when
        comparing with them: they release no mean, which would cost privacy).

    Attributes
    ----------
    components_ : (k, d) orthonormal rows.
    explained_variance_ : (k,) the top eigenvalues.
    explained_variance_ratio_ : (k,) eigenvalues over the trace.
    noise_variance_ : float   the mean of the other d − k eigenvalues (probabilistic PCA, as scikit-learn).
    second_moment_ : (d, d) the matrix that was decomposed.
    mean_ : (d,) or 0.0

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(100, 3)) * [3.0, 1.0, 0.1]
    >>> PCA(n_components=1).fit(X).components_.round(1)
    array([[1., 0., 0.]])
    """

    _parameter_constraints: dict = {**PCABase._parameter_constraints, "center": BOOLEAN}
    _has_spectrum = True

    def __init__(self, n_components=2, *, center=True):
        self.n_components = n_components
        self.center = center

    def fit(self, X, y=None):
        """Fit the top-k eigenvectors of the covariance (or second-moment) matrix.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data.
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        PCA
            This estimator, fitted.
        """
        X, c = self._validate_fit_input(X, return_scale=True)
        k = check_n_components(self.n_components, X.shape[1])
        if self.center:
            self.mean_ = X.mean(axis=0)
            X -= self.mean_  # X is our own copy
        else:
            self.mean_ = 0.0
        n = X.shape[0]
        denominator = max(n - 1, 1) if self.center else n  # scikit-learn's sample covariance when centred
        # Work on X/c, c ≈ max|x_ij| (a power of two: exact), so XᵀX/n neither overflows (entries
        # beyond ~1e154) nor underflows; eigenvectors do not depend on c, eigenvalues scale by c².
        # (Centring at most doubles max|x_ij|, so c still keeps everything finite.)
        if c != 1.0:
            X /= c  # not X *= 1/c: 1/c overflows for subnormal data (X·1e-310 gave no components)
        A = X.T @ X / denominator
        values, basis = top_eigenvectors(A, k)
        trace = np.trace(A)
        self.explained_variance_ratio_ = values / trace if trace > 0 else np.zeros_like(values)
        rest = (trace - values.sum()) / (A.shape[0] - k) if A.shape[0] > k else 0.0
        with np.errstate(over="ignore"):  # c² · λ may be beyond float64: then inf is the true value
            self.second_moment_ = A * (c * c) if c != 1.0 else A
            self.explained_variance_ = values * (c * c) if c != 1.0 else values
            self.noise_variance_ = float(max(rest, 0.0) * (c * c))
        self.n_samples_ = n
        self._set_components(basis)
        return self


class TruncatedPowerPCA(PCABase):
    """Non-private sparse PCA by the row-truncated power (orthogonal) iteration.

    Each iteration multiplies by :math:`\\hat\\Sigma = X^\\top X/n`, orthonormalises (thin QR),
    keeps the ``sparsity`` rows of largest norm and orthonormalises again.  This is Algorithm 1
    of Ge et al. (2018) with σ = 0 — the same code — i.e. the block truncated power method of
    Wang, Lu & Liu (2014); for k = 1 it is Yuan & Zhang's (2013) TPower.

    Parameters
    ----------
    n_components : int
        Number of components k.
    sparsity : int or None
        Number ŝ of rows kept, k ≤ ŝ ≤ d; ``None`` means d (no truncation: plain orthogonal iteration).
    n_iter : int or None
        T iterations; ``None`` (default) runs until the subspace moves less than ``tol``
        (in ‖sin Θ‖_F) or ``max_iter`` iterations.
    tol : float, default 1e-10
        Stop when the subspace moves less than this in ‖sin Θ‖_F (with ``n_iter=None``).
    max_iter : int, default 1000
        Largest number of iterations.
    init : "random" or array (d, k)
        ``"random"``: a Haar-random start drawn from ``random_state`` (not thresholded by
        default: see ``threshold_init``).
    threshold_init : bool or None
        Threshold the start (Algorithm 1 line 1).  Default: True for an array, False for
        ``"random"`` (thresholding a random start often discards the true support).
    method : {"block", "deflation"}
        ``"deflation"`` finds one sparse vector at a time and deflates
        :math:`\\hat\\Sigma \\leftarrow (I - xx^\\top)\\hat\\Sigma(I - xx^\\top)` (Yuan & Zhang).
    random_state : None, int or Generator
        Seed or generator of the randomness (``None``: fresh OS entropy).

    Attributes
    ----------
    components_ : (k, d)
    history_ : list of (d, k) arrays, Q(1) … Q(T+1) (block method)
    n_iter_ : int, iterations run
    """

    _parameter_constraints: dict = {
        **PCABase._parameter_constraints, "sparsity": [None, *POSITIVE_INT], "n_iter": [None, *POSITIVE_INT],
        "tol": POSITIVE, "max_iter": POSITIVE_INT, "init": [StrOptions({"random"}), "array-like"],
        "threshold_init": ["boolean", None], "method": [StrOptions({"block", "deflation"})],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, n_components=1, *, sparsity=None, n_iter=None, tol=1e-10, max_iter=1000,
                 init="random", threshold_init=None, method="block", random_state=None):
        self.n_components = n_components
        self.sparsity = sparsity
        self.n_iter = n_iter
        self.tol = tol
        self.max_iter = max_iter
        self.init = init
        self.threshold_init = threshold_init
        self.method = method
        self.random_state = random_state

    def _validated(self, d):
        k = check_n_components(self.n_components, d)
        s = d if self.sparsity is None else check_int(self.sparsity, "sparsity", low=k, high=d)
        n_iter = None if self.n_iter is None else check_int(self.n_iter, "n_iter", low=1)
        tol = check_positive(self.tol, "tol")
        max_iter = check_int(self.max_iter, "max_iter", low=1)
        return k, s, n_iter, tol, max_iter

    def fit(self, X, y=None):
        """Fit by the row-truncated power iteration.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data.
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        TruncatedPowerPCA
            This estimator, fitted.
        """
        X, c = self._validate_fit_input(X, return_scale=True)  # c: keep Σ̂ finite (the iterates are scale-free)
        n, d = X.shape
        k, s, n_iter, tol, max_iter = self._validated(d)
        if c != 1.0:
            X /= c  # not X *= 1/c: 1/c overflows for subnormal data (X·1e-310 gave no components)
        A = X.T @ X / n
        with np.errstate(over="ignore"):
            self.second_moment_ = A * (c * c) if c != 1.0 else A
        self.n_samples_ = n
        with single_threaded_blas():  # many small products: one BLAS thread is faster here
            if self.method == "block":
                Q1 = initial_basis(self.init, d, k, s, self.threshold_init, self.random_state)
                self.history_ = truncated_orthogonal_iteration(
                    lambda Q, t: A @ Q, Q1, s, n_iter, tol=tol, max_iter=max_iter
                )
                self.n_iter_ = len(self.history_) - 1
                basis = self.history_[-1]
            else:
                basis = self._fit_deflation(A, k, s, n_iter, tol, max_iter)
        self._set_components(fix_signs(basis))
        return self

    def _fit_deflation(self, A, k, s, n_iter, tol, max_iter):
        rng = as_generator(self.random_state)
        d = A.shape[0]
        vectors = []
        A = A.copy()
        self.n_iter_ = 0
        for _ in range(k):
            init = self.init if isinstance(self.init, str) else np.asarray(self.init)[:, len(vectors)][:, None]
            Q1 = initial_basis(init, d, 1, s, self.threshold_init, rng)
            hist = truncated_orthogonal_iteration(lambda Q, t: A @ Q, Q1, s, n_iter, tol=tol, max_iter=max_iter)
            x = hist[-1][:, 0]
            self.n_iter_ += len(hist) - 1
            vectors.append(x)
            P = np.eye(d) - np.outer(x, x)
            A = P @ A @ P
        V = np.column_stack(vectors)
        # Deflated vectors are orthogonal up to rounding; re-orthonormalise for the contract.
        Q, _ = np.linalg.qr(V)
        return Q * np.sign(np.sum(Q * V, axis=0))
