r"""Subspaces: distances, principal angles, thin QR, row truncation, signs, top eigenvectors.

All bases here are orthonormal ``(d, k)`` matrices ("columns span the subspace").  The checked
distances (:func:`as_basis`, :func:`subspace_distance`, :func:`principal_angles`) also accept
``(k, d)`` (rows, like ``components_`` and a generator's ``components``) and transpose: a matrix
with more columns than rows is read as ``(k, d)`` (at k = d both readings span R^d).  The bare
:func:`sin_theta` refuses ``(k, d)`` instead, where its formula would silently give 0.

The three distances of the book, for principal angles θ₁ ≤ … ≤ θ_k between span U and span V:

* ``"sin_theta"``  :math:`D = \lVert\sin\Theta\rVert_F = \lVert U^\top V_\perp\rVert_F = \sqrt{\sum_i \sin^2\theta_i}`
  (Ge et al. 2018, Def. 4.2), range :math:`[0, \sqrt{\min(k, d-k)}]`;
* ``"projection"`` :math:`\lVert UU^\top - VV^\top\rVert_F = \sqrt2\,D` (Wang & Xu 2019);
* ``"max_angle"``  :math:`\lVert UU^\top - VV^\top\rVert_2 = \sin\theta_k` (Kim & Jung 2025).

All are computed from the d×k residual :math:`U - V(V^\top U)` in O(dk²): d×d projectors are
never formed, and small distances keep full relative precision (the textbook
:math:`\sqrt{k - \lVert U^\top V\rVert_F^2}` loses everything below ~1e-8).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import linalg
from scipy.linalg import lapack

from ._validation import check_int, check_option, check_symmetric

__all__ = [
    "as_basis",
    "subspace_distance",
    "sin_theta",
    "principal_angles",
    "random_subspace_distance",
    "thin_qr",
    "truncate_rows",
    "kept_rows",
    "fix_signs",
    "top_eigenvectors",
    "random_orthonormal",
    "fantope_projection",
    "DISTANCE_KINDS",
]

DISTANCE_KINDS = ("sin_theta", "projection", "max_angle")
_GEQRF, _ORGQR = linalg.lapack.dgeqrf, linalg.lapack.dorgqr


def as_basis(U, name="U", *, check_orthonormal=True, atol=1e-6):
    """Return U as a float ``(d, k)`` array (transposing a ``(k, d)`` input with k < d).

    Parameters
    ----------
    U : array_like, shape (d, k), (k, d) or (d,)
        A basis: columns of a (d, k) array, rows of a (k, d) array with k < d, or one vector.
    name : str, default="U"
        The argument's name in error messages.
    check_orthonormal : bool, default=True
        Require orthonormal columns, ``max |UᵀU − I| <= atol``.
    atol : float, default=1e-6
        Tolerance of that check.

    Returns
    -------
    ndarray, shape (d, k)
        A float64 array with k <= d (a view or copy of U, never U modified in place).

    Raises
    ------
    ValueError
        If U is empty, not 1-D or 2-D, not finite, or (with ``check_orthonormal``) not orthonormal.
    """
    U = np.asarray(U, dtype=np.float64)
    if U.ndim == 1:
        U = U[:, None]
    if U.ndim != 2 or U.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (d, k) or (k, d), got shape {U.shape}")
    if U.shape[1] > U.shape[0]:
        U = U.T
    if not np.all(np.isfinite(U)):
        raise ValueError(f"{name} must contain only finite values")
    if check_orthonormal:
        gram = U.T @ U
        err = np.max(np.abs(gram - np.eye(U.shape[1])))
        if err > atol:
            raise ValueError(
                f"{name} must have orthonormal columns (max |UᵀU − I| = {err:.2g} > {atol:g}); "
                "orthonormalise it first, e.g. with privpca_edu.subspace.thin_qr"
            )
    return U


def _pair(U, V):
    U = as_basis(U, "U")
    V = as_basis(V, "V")
    if U.shape != V.shape:
        raise ValueError(f"U and V must span subspaces of the same (d, k); got {U.shape} and {V.shape}")
    return U, V


def principal_angles(U, V):
    """Principal (canonical) angles between span U and span V, ascending, in radians.

    Small angles come from the sines (singular values of the residual U − V VᵀU) and large
    ones from the cosines (singular values of VᵀU), as in Björck & Golub (1973), so both ends
    are accurate.  Kept in the open because the formula is the lesson of the chapter on
    subspaces; :func:`scipy.linalg.subspace_angles` computes the same angles (in descending
    order), with a different treatment of nearly equal subspaces (differences up to ~1e-8 rad).

    Parameters
    ----------
    U, V : array_like, shape (d, k) or (k, d)
        Orthonormal bases of two k-dimensional subspaces of R^d.

    Returns
    -------
    ndarray, shape (k,)
        The angles θ₁ ≤ … ≤ θ_k in [0, π/2].
    """
    U, V = _pair(U, V)
    cos_desc = np.sort(np.clip(linalg.svdvals(V.T @ U), 0.0, 1.0))[::-1]  # i-th smallest angle
    sin_asc = np.sort(np.clip(linalg.svdvals(U - V @ (V.T @ U)), 0.0, 1.0))
    return np.where(sin_asc**2 < 0.5, np.arcsin(sin_asc), np.arccos(cos_desc))


def subspace_distance(U, V, kind="sin_theta"):
    """Distance between two k-dimensional subspaces of R^d.

    Parameters
    ----------
    U, V : array_like, shape (d, k) or (k, d)
        Orthonormal bases (columns of a (d, k) array, or rows of a (k, d) array such as
        ``components_``).
    kind : {"sin_theta", "projection", "max_angle"}
        See the module docstring.

    Returns
    -------
    float
        The distance: in [0, √k] for ``"sin_theta"``, [0, √(2k)] for ``"projection"`` and
        [0, 1] (the sine of the largest principal angle) for ``"max_angle"``.

    Examples
    --------
    >>> import numpy as np
    >>> e = np.eye(3)
    >>> round(subspace_distance(e[:, :1], e[:, 1:2]), 12)
    1.0
    >>> round(subspace_distance(e[:, :1], e[:, 1:2], kind="projection") ** 2, 12)
    2.0
    """
    check_option(kind, "kind", DISTANCE_KINDS)
    U, V = _pair(U, V)
    residual = U - V @ (V.T @ U)  # (I − VVᵀ)U: its singular values are the sines
    if kind == "max_angle":
        return float(min(1.0, linalg.norm(residual, 2)))
    d_sin = float(np.linalg.norm(residual))
    return d_sin if kind == "sin_theta" else math.sqrt(2.0) * d_sin


def sin_theta(U, V):
    """Return ‖sin Θ‖_F = ‖(I − VVᵀ)U‖_F for (d, k) orthonormal U, V, without validation.

    :func:`subspace_distance` with ``kind="sin_theta"`` checks its arguments and accepts either
    orientation; this is the bare formula for the hot loops of the experiments.  Only the shapes
    are checked: with (k, d) rows (``components_``) the formula would silently return 0, so
    those raise.

    Parameters
    ----------
    U, V : ndarray, shape (d, k)
        Orthonormal bases as columns, k < d (or k = d, where the distance is 0).

    Returns
    -------
    float
        ‖sin Θ‖_F.

    Raises
    ------
    ValueError
        If U and V are not two (d, k) arrays of the same shape with k ≤ d.

    Examples
    --------
    >>> import numpy as np
    >>> e = np.eye(3)
    >>> sin_theta(e[:, :1], e[:, 1:2])
    1.0
    """
    if U.ndim != 2 or U.shape != V.shape or U.shape[1] > U.shape[0]:
        raise ValueError(f"sin_theta needs two (d, k) column bases of the same shape with k <= d, got {U.shape} "
                         f"and {V.shape}; pass components_ (k, d) transposed, or use subspace_distance")
    return float(np.linalg.norm(U - V @ (V.T @ U)))


_sin_theta = sin_theta  # the name the estimators used before it was public


def random_subspace_distance(n_features, n_components, kind="sin_theta"):
    """The distance a uniformly random k-subspace has from any fixed one ("random guess" level).

    Each level is √(E D²) over a uniformly random k-subspace V.  For ``"sin_theta"`` this is
    √(k(d − k)/d) (for d = 1000, k = 5: 2.23): E‖sin Θ‖²_F = k − E‖UᵀV‖²_F and each of the k²
    entries of UᵀV has E u² = 1/d; for ``"projection"`` √2 times that.  For ``"max_angle"``:
    when min(k, d − k) = 1 there is a single nonzero principal angle, so E sin²θ_max is the
    same k(d − k)/d (at d = 3, k = 2: √(2/3) = 0.816); otherwise it has no closed form (the
    largest eigenvalue of a matrix-variate beta) and is estimated from 4000 random subspaces
    with a fixed seed (standard error below 0.005; cached).

    Parameters
    ----------
    n_features : int
        The dimension d of the ambient space.
    n_components : int
        The dimension k of the subspaces, 1 <= k <= d.
    kind : {"sin_theta", "projection", "max_angle"}, default="sin_theta"
        The distance, as in :func:`subspace_distance`.

    Returns
    -------
    float
        The root-mean-square distance of a uniformly random k-subspace.
    """
    d = check_int(n_features, "n_features", low=1)
    k = check_int(n_components, "n_components", low=1, high=d)
    check_option(kind, "kind", DISTANCE_KINDS)
    base = math.sqrt(k * (d - k) / d)
    if kind == "max_angle":
        return base if min(k, d - k) <= 1 else _random_max_angle(d, k)
    return {"sin_theta": base, "projection": math.sqrt(2) * base}[kind]


@functools.lru_cache(maxsize=64)
def _random_max_angle(d, k, n_draws=4000):
    """√(E sin²θ_max) between span(e₁, …, e_k) and a uniformly random k-subspace of R^d
    (Monte Carlo, fixed seed): sin²θ_max = 1 − σ_min(V[:k])² for V with orthonormal columns."""
    rng = np.random.default_rng(20260)
    m = min(k, d - k)
    # the cosines of the angles with span(e_1..e_k) are the singular values of the top k×k block
    # of an orthonormal basis; it is enough to draw the basis of the smaller of V and V⊥
    total = 0.0
    for start in range(0, n_draws, 500):
        G = rng.standard_normal((min(500, n_draws - start), d, m))
        Q, _ = np.linalg.qr(G)
        top = Q[:, : (k if m == k else d - k), :]
        s = np.linalg.svd(top, compute_uv=False)
        total += float(np.sum(1.0 - s[:, -1] ** 2))
    return math.sqrt(total / n_draws)


def thin_qr(A, *, rtol=1e-10):
    """Thin QR with positive diagonal: A = QR, QᵀQ = I_k, diag(R) > 0 (unique).

    Householder QR (LAPACK) followed by a sign fix, as Algorithm 3 of Ge et al. (2018).

    Parameters
    ----------
    A : array_like, shape (d, k)
        The matrix to factorise, k <= d.
    rtol : float, default=1e-10
        A is rank-deficient when min |diag R| <= rtol · max |diag R|.

    Returns
    -------
    Q : ndarray, shape (d, k)
        Orthonormal columns spanning the columns of A.
    R : ndarray, shape (k, k)
        Upper triangular with a positive diagonal.

    Raises
    ------
    numpy.linalg.LinAlgError
        If A has rank < k (e.g. fewer than k independent rows survive thresholding): padding
        with arbitrary directions would silently invent a subspace.
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[1] > A.shape[0]:
        raise ValueError(f"A must be a (d, k) array with k <= d, got shape {A.shape}")
    # LAPACK's Householder QR directly (dgeqrf + dorgqr): the same factorisation as
    # scipy.linalg.qr(mode="economic") at a quarter of the call overhead, which matters in
    # iterations that factorise a small d×k matrix thousands of times (the dashboards).
    k = A.shape[1]
    packed, tau, _, _ = _GEQRF(A)
    R = np.triu(packed[:k])
    Q = _ORGQR(packed, tau)[0][:, :k]
    diag = R.diagonal()
    size = np.abs(diag)
    scale = max(float(size.max()), np.finfo(float).tiny)
    if not (float(size.min()) > rtol * scale) or not np.isfinite(scale):  # also catches NaN
        raise np.linalg.LinAlgError(
            f"thin_qr: A of shape {A.shape} has rank < {A.shape[1]} (|diag R| min/max = "
            f"{float(size.min()):.3g}/{scale:.3g}); its columns do not span k dimensions"
        )
    signs = np.sign(diag)
    Q *= signs
    # Q = A R⁻¹ has a zero row wherever A has one; Householder leaves ~1e-17 round-off there,
    # which would break the exact row sparsity that thresholding promises.
    zero_rows = ~A.any(axis=1)
    if zero_rows.any():
        Q[zero_rows] = 0.0
    return Q, R * signs[:, None]


def kept_rows(V, n_rows):
    """Sorted indices of the ``n_rows`` rows of V with the largest ℓ2 norms.

    O(d) selection (``argpartition``) with a deterministic tie-break: among rows whose norm
    equals the cut-off, the smaller indices are kept — the same set a stable sort would keep.

    Parameters
    ----------
    V : ndarray, shape (d, k)
        The matrix whose rows are ranked.
    n_rows : int
        How many rows to keep, 0 <= n_rows <= d.

    Returns
    -------
    ndarray of int, shape (n_rows,)
        The kept row indices, ascending.
    """
    V = np.asarray(V, dtype=np.float64)
    d = V.shape[0]
    n_rows = check_int(n_rows, "n_rows", low=0, high=d)
    if n_rows == d:
        return np.arange(d)
    if n_rows == 0:
        return np.arange(0)
    norms = np.einsum("ij,ij->i", V, V) if V.ndim == 2 else V * V
    cut = norms[np.argpartition(norms, d - n_rows)[d - n_rows]]  # the n_rows-th largest norm
    greater = np.flatnonzero(norms > cut)
    ties = np.flatnonzero(norms == cut)[: n_rows - greater.size]
    return np.sort(np.concatenate([greater, ties]))


def truncate_rows(V, n_rows):
    """Keep the ``n_rows`` rows of V with the largest ℓ2 norms, zero the others (a copy).

    Ties are broken by the smaller row index, so the result is deterministic.  ``n_rows = d``
    returns an unchanged copy.  This is Algorithm 2 ("Threshold") of Ge et al. (2018); for
    k = 1 it keeps the largest-magnitude entries.

    Parameters
    ----------
    V : ndarray, shape (d, k)
        The matrix to truncate (not modified).
    n_rows : int
        How many rows to keep, 0 <= n_rows <= d.

    Returns
    -------
    ndarray, shape (d, k)
        A copy of V with all but the ``n_rows`` largest rows set to zero.
    """
    V = np.asarray(V, dtype=np.float64)
    keep = kept_rows(V, n_rows)
    out = np.zeros_like(V)
    out[keep] = V[keep]
    return out


def fix_signs(V):
    """Flip columns of a (d, k) basis so each column's largest-|·| entry is positive (a copy).

    Eigenvectors are defined up to sign; this makes plots and printed output reproducible.
    The subspace (and every distance) is unchanged.

    Parameters
    ----------
    V : ndarray, shape (d, k) or (d,)
        The basis (not modified).

    Returns
    -------
    ndarray, same shape as V
        V with some columns negated.
    """
    V = np.array(V, dtype=np.float64, copy=True)
    if V.ndim == 1:
        return fix_signs(V[:, None])[:, 0]
    return _fix_signs_in_place(V)


def _fix_signs_in_place(V):
    """:func:`fix_signs` on V itself (a (d, k) float64 array the caller owns); returns V."""
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    V *= signs
    return V


@functools.lru_cache(maxsize=128)
def _syevr_workspace(d):
    """LAPACK ``dsyevr``'s optimal workspace sizes (lwork, liwork) for a d×d matrix.

    The same workspace query :func:`scipy.linalg.eigh` makes on every call (``dsyevr_lwork``),
    made once per d: the blocked reduction to tridiagonal form needs the optimal size, and with it
    the result is the one ``eigh(A, subset_by_index=…, driver="evr")`` returns.
    """
    work, iwork, info = lapack.dsyevr_lwork(d, lower=0)
    if info != 0:  # pragma: no cover - a LAPACK that cannot answer its own query
        raise np.linalg.LinAlgError(f"LAPACK dsyevr workspace query failed (info={info})")
    return max(int(work), 26 * d, 1), max(int(iwork), 10 * d, 1)


def top_eigenvectors(A, n_components):
    """Compute the eigenvectors of the k algebraically largest eigenvalues of a symmetric matrix.

    Noisy covariance matrices may be indefinite: eigenvalues are ordered by value, not by
    absolute value.  Only the upper triangle of A is read (so exact symmetry is not required).

    Parameters
    ----------
    A : array_like, shape (d, d)
        A symmetric matrix (only its upper triangle is read).
    n_components : int
        The number k of eigenvectors, 1 <= k <= d.

    Returns
    -------
    eigenvalues : ndarray, shape (k,)
        The k largest eigenvalues, descending.
    vectors : ndarray, shape (d, k)
        Their orthonormal eigenvectors, signs fixed by :func:`fix_signs`.
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] == 0:
        raise ValueError(f"A must be a square (d, d) matrix with d >= 1, got shape {A.shape}")
    d = A.shape[0]
    k = check_int(n_components, "n_components", low=1, high=d)
    hi, lo = float(A.max()), float(A.min())  # two passes, no temporary (the NaN/inf check)
    if not (math.isfinite(hi) and math.isfinite(lo)):
        raise ValueError("A must contain only finite values (it holds NaN or infinity)")
    # LAPACK dsyevr (MRRR) for the k largest only, as scipy.linalg.eigh(A, subset_by_index=(d-k, d-1),
    # lower=False, driver="evr") calls it, without that function's per-call workspace query and
    # argument handling (most of its time at the dashboards' d ≈ 20: the numbers are the same)
    lwork, liwork = _syevr_workspace(d)
    w, V, m, _, info = lapack.dsyevr(A, compute_v=1, range="I", il=d - k + 1, iu=d, lower=0, lwork=lwork,
                                     liwork=liwork, overwrite_a=0)
    if info != 0 or m != k:
        raise np.linalg.LinAlgError(f"LAPACK dsyevr failed on A (info={info}, {m} of {k} eigenpairs)")
    return w[k - 1::-1].copy(), _fix_signs_in_place(np.array(V[:, ::-1], copy=True))


def random_orthonormal(n_features, n_components, random_state=None):
    """Draw a uniformly random (Haar) d×k orthonormal basis: QR of a Gaussian matrix with sign fix.

    Parameters
    ----------
    n_features : int
        The number of rows d.
    n_components : int
        The number of columns k, 1 <= k <= d.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        The source of randomness (``None``: fresh OS entropy).

    Returns
    -------
    ndarray, shape (d, k)
        Orthonormal columns.
    """
    from ._validation import as_generator

    rng = as_generator(random_state)
    d = check_int(n_features, "n_features", low=1)
    k = check_int(n_components, "n_components", low=1, high=d)
    Q, _ = thin_qr(rng.standard_normal((d, k)))
    return Q


def fantope_projection(A, n_components, *, return_eigen=False):
    r"""Frobenius-norm projection of a symmetric matrix onto the Fantope :math:`\mathcal F^k`.

    :math:`\mathcal F^k = \{X = X^\top : 0 \preceq X \preceq I,\ \mathrm{tr}\,X = k\}` is the convex
    hull of the rank-k orthogonal projectors.  Vu, Cho, Lei & Rohe (NIPS 2013, Lemma 4.1): with
    :math:`A = \sum_j \gamma_j u_j u_j^\top`,

    .. math:: P_{\mathcal F^k}(A) = \sum_j \gamma_j^+(\theta)\, u_j u_j^\top, \qquad
              \gamma_j^+(\theta) = \min\{\max\{\gamma_j - \theta, 0\}, 1\},

    where θ solves :math:`\sum_j \gamma_j^+(\theta) = k`.  The left side is continuous, piecewise
    linear and non-increasing in θ with breakpoints :math:`\{\gamma_j, \gamma_j - 1\}`, so θ is
    found *exactly*: evaluate the sum at the breakpoints, pick the segment where it crosses k and
    solve the linear equation there (no bisection tolerance).  The trace is k to rounding error.

    Parameters
    ----------
    A : array_like, shape (d, d)
        Symmetric (it is symmetrised as (A + Aᵀ)/2 first).
    n_components : int
        The trace k, with 1 ≤ k ≤ d.
    return_eigen : bool, default=False
        Also return ``(theta, clipped_eigenvalues, eigenvectors)`` for teaching.

    Returns
    -------
    ndarray, shape (d, d)
        The projection P (with ``return_eigen``, the pair ``(P, (theta, clipped_eigenvalues,
        eigenvectors))``): symmetric, eigenvalues in [0, 1], trace k.  If A has an eigen-gap
        :math:`\gamma_k - \gamma_{k+1} \ge 1`, P is exactly the rank-k eigenprojector of A.

    Examples
    --------
    >>> import numpy as np
    >>> P = fantope_projection(np.diag([3.0, 1.0, 0.5]), 1)
    >>> np.round(np.diag(P), 12).tolist()
    [1.0, 0.0, 0.0]
    >>> round(float(np.trace(fantope_projection(np.diag([0.2, 0.1, 0.0]), 2))), 12)
    2.0
    """
    A = check_symmetric(A)
    k = check_int(n_components, "n_components", low=1, high=A.shape[0])
    P, theta, weights, U = _fantope_project(A, k)
    if return_eigen:
        return P, (theta, weights, U)
    return P


def _fantope_project(A, k):
    """The kernel of :func:`fantope_projection`, for a symmetric finite float64 ``A`` and a valid
    ``k`` (no checks: the ADMM of :func:`~privpca_edu.estimators.local.fantope_admm` calls it
    hundreds of times per fit).  Returns ``(P, theta, clipped_eigenvalues, eigenvectors)``.

    The eigendecomposition is ``numpy.linalg.eigh`` (LAPACK ``dsyevd``, lower triangle), which
    releases the GIL, so two dashboard threads running ADMMs overlap in it.  (SciPy's f2py
    wrapper of the same routine is slightly cheaper to call at d ≈ 20 but holds the GIL.)
    """
    gamma, U = np.linalg.eigh(A)
    # Σ_j min(max(γ_j − θ, 0), 1) is continuous, piecewise linear and non-increasing in θ, with
    # breakpoints {γ_j, γ_j − 1}; evaluate it at all of them (ascending; repeats are harmless:
    # the bracketing segment below always has positive length).
    breaks = np.sort(np.concatenate([gamma, gamma - 1.0]))
    values = np.clip(gamma[None, :] - breaks[:, None], 0.0, 1.0).sum(axis=1)  # = d first, 0 last
    # Last breakpoint whose sum is still ≥ k (a prefix, the sums being non-increasing); the root
    # lies on [breaks[i], breaks[i + 1]].
    i = int(np.count_nonzero(values >= k)) - 1
    if values[i] == k or i == len(breaks) - 1:
        theta = breaks[i]
    else:
        lo, hi = breaks[i], breaks[i + 1]
        theta = lo + (values[i] - k) / (values[i] - values[i + 1]) * (hi - lo)
    weights = np.clip(gamma - theta, 0.0, 1.0)
    first = int(np.count_nonzero(weights <= 0))  # γ ascending: the positive weights are a suffix
    Uk = U[:, first:]
    P = (Uk * weights[first:]) @ Uk.T
    P = (P + P.T) / 2
    return P, float(theta), weights, U
