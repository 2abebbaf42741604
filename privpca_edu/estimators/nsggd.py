r"""NSGGD (Maunu, Yu & Lerman 2022): noisy geodesic gradient descent for the least-absolute-deviations
subspace energy, a competitor in Kim & Jung's experiments.

The objective, its Riemannian gradient and the geodesic step are public (:func:`ggd_objective`,
:func:`ggd_gradient`, :func:`grassmann_step`); the per-step σ is
:func:`privpca_edu.privacy.nsggd_noise_scale`.

References
----------
.. [MYL22] T. Maunu, C. Yu and G. Lerman, "Stochastic and private nonconvex outlier-robust PCA",
   MSML 2022 (PMLR 190), arXiv:2203.09276.
.. [MZL19] T. Maunu, T. Zhang and G. Lerman, "A well-tempered landscape for non-convex robust
   subspace recovery", JMLR 20, 2019 (GGD; MATLAB code ``twmaunu/wtl``, ``ggd.m``).
.. [KJ25] M. Kim and S. Jung, "Robust and differentially private PCA for non-Gaussian data",
   arXiv:2507.15232 (2025); Statistical Analysis and Data Mining 18(6), 2025.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._validation import (
    caller_stacklevel,
    PrivacyWarning,
    check_int,
    check_n_components,
    check_positive,
    as_generator,
    clip_rows,
    diagnostics_enabled,
    row_norms,
    single_threaded_blas,
)
from ..privacy import (
    nsggd_noise_scale,
)
from ..subspace import fix_signs, random_orthonormal, top_eigenvectors
from ._base import (
    BOOLEAN,
    POSITIVE,
    POSITIVE_INT,
    PrivateEstimator,
    StrOptions,
)

__all__ = [
    "NSGGD",
    "ggd_objective",
    "ggd_gradient",
    "grassmann_step",
]


# =============================================================================================
# NSGGD (Maunu, Yu & Lerman 2022)
# =============================================================================================
def ggd_objective(X, V):
    r"""The least-absolute-deviations energy :math:`F(V) = \frac1n\sum_i\lVert(I-VV^\top)x_i\rVert`."""
    R = X - (X @ V) @ V.T
    return float(np.mean(np.sqrt(np.einsum("ij,ij->i", R, R))))


def ggd_gradient(X, V, *, return_objective=False):
    r"""Riemannian gradient of :func:`ggd_objective` on the Grassmannian (a d×k tangent matrix).

    .. math:: \nabla F(V) = -\frac1n\sum_{i:\ \mathrm{dist}_i>10^{-12}}
              \frac{(I-VV^\top)x_i\,x_i^\top V}{\mathrm{dist}_i},\qquad
              \mathrm{dist}_i = \lVert(I-VV^\top)x_i\rVert

    (GGD's code, ``ggd.m`` [MZL19]_: points on the subspace contribute 0).  Each summand has
    Frobenius norm exactly ‖Vᵀx_i‖ ≤ ‖x_i‖, and :math:`V^\top\nabla F = 0`.
    """
    XV = X @ V
    R = X - XV @ V.T
    dist = np.sqrt(np.einsum("ij,ij->i", R, R))
    scale = np.zeros_like(dist)
    on = dist > 1e-12
    scale[on] = 1.0 / dist[on]
    G = -(R * scale[:, None]).T @ XV / X.shape[0]
    if return_objective:
        return G, float(dist.mean())
    return G


def grassmann_step(V, direction, step):
    r"""Geodesic step from V along a tangent ``direction`` (d×k, VᵀH = 0) by ``step``.

    With the thin SVD :math:`H = U\,\mathrm{diag}(s)\,W^\top`:
    :math:`V' = VW\cos(\eta\,\mathrm{diag}\,s) + U\sin(\eta\,\mathrm{diag}\,s)` (``ggd.m``; the
    textbook form has a trailing Wᵀ, another basis of the same subspace), then thin QR with
    positive diagonal (our choice: keeps the basis orthonormal to rounding over many steps).
    """
    U, s, Wt = np.linalg.svd(direction, full_matrices=False)
    Vn = (V @ Wt.T) * np.cos(step * s) + U * np.sin(step * s)
    # Vn has orthonormal columns up to rounding (full rank), so no rank check is needed: plain
    # Householder QR with the sign fix of subspace.thin_qr (cheaper in this inner loop).
    Q, R = np.linalg.qr(Vn)
    return Q * np.where(np.diag(R) < 0, -1.0, 1.0)


def _largest_row_norm(X):
    """max_i ‖x_i‖ as numpy.linalg.norm computes it (the experiments reproduce it to the bit), without overflow."""
    with np.errstate(over="ignore"):
        top = float(np.max(np.linalg.norm(X, axis=1)))
    return top if math.isfinite(top) else float(np.max(row_norms(X)))


_STEP_RULES = ("constant", "inv_sqrt", "backtracking")


class NSGGD(PrivateEstimator):
    r"""Noisy (stochastic) geodesic gradient descent for robust subspace recovery (Maunu, Yu & Lerman 2022).

    Minimises the least-absolute-deviations energy :math:`F(V) = \frac1n\sum_i\lVert(I-VV^\top)x_i\rVert`
    over the Grassmannian, each step using a Gaussian-noised gradient:

    .. code-block:: text

        V₀ ← Haar-random d×k (data-independent)
        for t = 0 … T−1:
            B_t ← batch of size b (b = n: full batch)
            G_t ← (1/b) Σ_{i∈B_t} per-point gradient terms (tangent at V_t)
            G̃_t ← G_t + (I − V_tV_tᵀ) N_t,   N_t ∈ R^{d×k} i.i.d. N(0, σ²)
            V_{t+1} ← geodesic step along −G̃_t with step η_t, then QR
        output V_T

    Parameters
    ----------
    n_components : int, default 2
        Number of components k.
    epsilon, delta : float, default=1.0 and 1e-5
        Privacy parameters ε > 0 and δ in (0, 1) of the whole run (all T iterations).
    data_norm : float, default 1.0
        Public row-norm bound B; larger rows are scaled onto it (a per-record map: free under DP).
        The iterations run on X/B (rows in the unit ball; η means the same at every scale), so the
        fit is scale-equivariant: X → cX with B → cB gives the same components at every ε.
    n_iter : int, default=50
        Number of iterations T.
    batch_size : int or None, default=None
        Batch size b (``None``: n, full batch).
    step_size : float, default=1.0
        Step size η (on the *mean* objective; GGD's code uses the sum).
    step_rule : {"constant", "inv_sqrt", "backtracking"}, default "constant"
        η_t = η, η/√(t+1), or GGD's backtracking (halve from η until F decreases).  Backtracking
        evaluates F on the data, so it is allowed only with ``epsilon=numpy.inf``.
    init : {"haar", "pca"}, default "haar"
        Data-independent Haar start (private) or GGD's PCA start (non-private: only with ε = ∞).
    paper_normalization : bool, default False
        Kim & Jung centre at the sample mean and divide by the largest row norm before NSGGD.
        That uses the private data (mean, max), so it is **not private**: it warns and records
        ``is_private=False``; it exists to reproduce the paper's figures.  ``data_norm`` is then
        ignored (the scaled rows have norm ≤ 1, and σ is calibrated to 1).
    random_state : None, int or Generator
        Seed or generator of the randomness (``None``: fresh OS entropy).
    accountant : BudgetAccountant or None, default=None
        A :class:`~privpca_edu.privacy.BudgetAccountant` that is asked before ``fit`` (a fit
        that would exceed its budget is refused) and charged the record ``privacy_`` after it.

    Attributes
    ----------
    components_, noise_scale_ (σ per gradient entry), sensitivity_ (2B/b), objective_ (F per
    iteration, computed from the data without noise: set only when ε = ∞ or inside
    :func:`privpca_edu.privacy.diagnostics`, which records the fit as not private; never used
    by the algorithm unless ``step_rule="backtracking"``), n_iter_, privacy_

    Notes
    -----
    **Privacy.**  One per-point gradient term :math:`(I-VV^\top)x\,x^\top V/\lVert(I-VV^\top)x\rVert`
    has Frobenius norm ‖Vᵀx‖ ≤ B, so the batch mean has replace-one sensitivity 2B/b; the T
    adaptive steps compose exactly in zCDP (:func:`nsggd_noise_scale`).  Projecting the noise on
    the tangent space is post-processing.

    **Our settings.**  Neither Maunu, Yu & Lerman nor Kim & Jung's Appendix C.3 state the noise
    rule, batch size, accountant, initialisation, T, b and step-size schedule used.  Ours:
    exact full-batch zCDP, Haar V₀, T = 50, η = 1 (constant).  Gradient, geodesic step, step rules and
    PCA start are GGD's, from the author's code.
    """

    _parameter_constraints: dict = {
        **PrivateEstimator._parameter_constraints, "n_iter": POSITIVE_INT, "batch_size": [None, *POSITIVE_INT],
        "step_size": POSITIVE, "step_rule": [StrOptions(set(_STEP_RULES))], "init": [StrOptions({"haar", "pca"})],
        "paper_normalization": BOOLEAN,
    }

    def __init__(self, n_components=2, *, epsilon=1.0, delta=1e-5, data_norm=1.0, n_iter=50, batch_size=None,
                 step_size=1.0, step_rule="constant", init="haar", paper_normalization=False, random_state=None, accountant=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.n_iter = n_iter
        self.batch_size = batch_size
        self.step_size = step_size
        self.step_rule = step_rule
        self.init = init
        self.paper_normalization = paper_normalization
        self.random_state = random_state
        self.accountant = accountant

    def fit(self, X, y=None):
        """Run T noisy geodesic gradient steps from a data-independent start.

        Parameters
        ----------
        X : array_like, shape (n_samples, n_features)
            The data, one row per person; rows longer than ``data_norm`` are scaled down to it.
        y : None
            Ignored (scikit-learn's API).

        Returns
        -------
        NSGGD
            This estimator, fitted.
        """
        X = self._validate_fit_input(X, min_samples=2)
        epsilon, delta, data_norm = self._validate_privacy()
        T = check_int(self.n_iter, "n_iter", low=1)
        eta = check_positive(self.step_size, "step_size")
        if eta > 1e6:  # the geodesic angle η·‖G‖ must stay a finite float (1e308 broke the SVD)
            raise ValueError(f"step_size must be in (0, 1e6], got {eta:g}")
        n, d = X.shape
        k = check_n_components(self.n_components, d)
        b = n if self.batch_size is None else check_int(self.batch_size, "batch_size", low=1, high=n)
        private = not math.isinf(epsilon)
        if private and self.step_rule == "backtracking":
            raise ValueError("step_rule='backtracking' evaluates F on the data at every step (not private); "
                             "use it only with epsilon=numpy.inf")
        if private and self.init == "pca":
            raise ValueError("init='pca' starts from the data's own principal components (not private); "
                             "use init='haar' or epsilon=numpy.inf")
        notes = []
        if self.paper_normalization:
            warnings.warn("paper_normalization=True centres at the sample mean and divides by the largest row "
                          "norm: both use the private data, so the result is NOT differentially private",
                          PrivacyWarning, stacklevel=caller_stacklevel())
            X -= X.mean(axis=0)
            top = _largest_row_norm(X)
            if top > 0:
                X /= top
            data_norm = 1.0  # the rows now lie in the unit ball: that is the bound σ is calibrated to
            notes.append("not differentially private: data centred and max-norm scaled from the data (paper's "
                         "normalisation)")
        else:
            X, _ = clip_rows(X, data_norm)  # warns only inside privacy.diagnostics()
            # Run on X/B (rows in the unit ball, σ for B = 1): the step size then means the same at
            # every scale, so the fit is scale-equivariant (X → cX with B → cB gives the same
            # components, at every ε).  Dividing by the public B is data-independent; in the
            # original units the gradient noise is σ·B for sensitivity 2B/b (the same μ = Δ/σ).
            X /= data_norm
        rng = as_generator(self.random_state)
        sigma = 0.0 if not private else nsggd_noise_scale(b, epsilon, delta, T, 1.0)
        if self.init == "haar":
            V = random_orthonormal(d, k, rng)
        else:
            _, V = top_eigenvectors(X.T @ X, k)
        objective = []
        # F(V) along the iterations is computed from the data with no noise: a private fit keeps it
        # only inside privacy.diagnostics() (and is then recorded as not private)
        track = not private or diagnostics_enabled()
        with single_threaded_blas():
            for t in range(T):
                batch = X if b == n else X[rng.choice(n, size=b, replace=False)]
                G, F = ggd_gradient(batch, V, return_objective=True)
                if track:
                    objective.append(F if b == n else ggd_objective(X, V))
                if sigma > 0:
                    N = rng.standard_normal((d, k)) * sigma
                    G = G + (N - V @ (V.T @ N))
                else:
                    rng.standard_normal((d, k))  # keep the stream aligned across ε
                if self.step_rule == "backtracking":
                    V = self._backtrack(X, V, G, eta, objective[-1])
                else:
                    step = eta if self.step_rule == "constant" else eta / math.sqrt(t + 1)
                    V = grassmann_step(V, -G, step)
            if track:
                objective.append(ggd_objective(X, V))
        if track:
            self.objective_ = np.asarray(objective)
        self.n_iter_ = T
        self.noise_scale_ = sigma * data_norm  # in the units of X (the fit ran on X/B)
        self.sensitivity_ = 2.0 * data_norm / b
        self.n_samples_ = n
        self._set_components(fix_signs(V))
        rec = dict(epsilon=epsilon, delta=delta, data_norm=data_norm,
                   mechanism=f"noisy geodesic gradient descent (NSGGD), T = {T}, b = {b}",
                   calibration="zcdp (exact composition of T Gaussian steps)", sensitivity=self.sensitivity_,
                   noise_scale=self.noise_scale_, n_releases=T)
        if notes and private:
            rec.update(is_private=False, note=notes[0])
        self._record(**rec)
        return self

    @staticmethod
    def _backtrack(X, V, G, eta, F0):
        step = eta
        while step >= 1e-16:
            Vn = grassmann_step(V, -G, step)
            if ggd_objective(X, Vn) < F0:
                return Vn
            step /= 2
        return V
