r"""Subspaces: distances, principal angles, thin QR, row truncation, signs, top eigenvectors.

All bases are orthonormal ``(d, k)`` matrices ("columns span the subspace").  Public functions
also accept ``(k, d)`` (rows, like ``components_``) and transpose: a matrix with more columns
than rows is read as ``(k, d)``.

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

import math

import numpy as np
from scipy import linalg

from ._validation import check_int, check_option

__all__ = [
    "as_basis",
    "subspace_distance",
    "principal_angles",
    "random_subspace_distance",
    "thin_qr",
    "truncate_rows",
    "fix_signs",
    "top_eigenvectors",
    "random_orthonormal",
    "DISTANCE_KINDS",
]

DISTANCE_KINDS = ("sin_theta", "projection", "max_angle")


def as_basis(U, name="U", *, check_orthonormal=True, atol=1e-6):
    """Return U as a float ``(d, k)`` array (transposing a ``(k, d)`` input with k < d)."""
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
    are accurate.
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


def random_subspace_distance(n_features, n_components, kind="sin_theta"):
    """The distance a uniformly random k-subspace has from any fixed one ("random guess" level).

    For ``"sin_theta"`` this is √(E D²) = √(k(d − k)/d) (for d = 1000, k = 5: 2.23); for
    ``"projection"`` √2 times that.  For ``"max_angle"`` it returns 1 as an upper reference.
    """
    d = check_int(n_features, "n_features", low=1)
    k = check_int(n_components, "n_components", low=1, high=d)
    check_option(kind, "kind", DISTANCE_KINDS)
    base = math.sqrt(k * (d - k) / d)
    return {"sin_theta": base, "projection": math.sqrt(2) * base, "max_angle": 1.0}[kind]


def thin_qr(A, *, rtol=1e-10):
    """Thin QR with positive diagonal: A = QR, QᵀQ = I_k, diag(R) > 0 (unique).

    Householder QR (LAPACK) followed by a sign fix, as Algorithm 3 of Ge et al. (2018).

    Raises
    ------
    numpy.linalg.LinAlgError
        If A has rank < k (e.g. fewer than k independent rows survive thresholding): padding
        with arbitrary directions would silently invent a subspace.
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[1] > A.shape[0]:
        raise ValueError(f"A must be a (d, k) array with k <= d, got shape {A.shape}")
    Q, R = np.linalg.qr(A, mode="reduced")
    diag = np.diag(R)
    scale = max(np.max(np.abs(diag)) if diag.size else 0.0, np.finfo(float).tiny)
    if np.any(np.abs(diag) <= rtol * scale) or not np.all(np.isfinite(diag)):
        raise np.linalg.LinAlgError(
            f"thin_qr: A of shape {A.shape} has rank < {A.shape[1]} (|diag R| min/max = "
            f"{np.min(np.abs(diag)):.3g}/{scale:.3g}); its columns do not span k dimensions"
        )
    signs = np.where(diag < 0, -1.0, 1.0)
    Q *= signs
    # Q = A R⁻¹ has a zero row wherever A has one; Householder leaves ~1e-17 round-off there,
    # which would break the exact row sparsity that thresholding promises.
    Q[~np.any(A != 0, axis=1)] = 0.0
    return Q, R * signs[:, None]


def truncate_rows(V, n_rows):
    """Keep the ``n_rows`` rows of V with the largest ℓ2 norms, zero the others (a copy).

    Ties are broken by the smaller row index (stable sort), so the result is deterministic.
    ``n_rows = d`` returns an unchanged copy.  This is Algorithm 2 ("Threshold") of Ge et
    al. (2018); for k = 1 it keeps the largest-magnitude entries.
    """
    V = np.asarray(V, dtype=np.float64)
    if V.ndim == 1:
        return truncate_rows(V[:, None], n_rows)[:, 0]
    d = V.shape[0]
    n_rows = check_int(n_rows, "n_rows", low=0, high=d)
    out = np.zeros_like(V)
    if n_rows == d:
        out[:] = V
        return out
    norms = np.einsum("ij,ij->i", V, V)
    keep = np.argsort(-norms, kind="stable")[:n_rows]
    out[keep] = V[keep]
    return out


def fix_signs(V):
    """Flip columns of a (d, k) basis so each column's largest-|·| entry is positive (a copy).

    Eigenvectors are defined up to sign; this makes plots and printed output reproducible.
    The subspace (and every distance) is unchanged.
    """
    V = np.array(V, dtype=np.float64, copy=True)
    if V.ndim == 1:
        return fix_signs(V[:, None])[:, 0]
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    V *= signs
    return V


def top_eigenvectors(A, n_components):
    """Eigenvectors of the k algebraically largest eigenvalues of a symmetric matrix.

    Noisy covariance matrices may be indefinite: eigenvalues are ordered by value, not by
    absolute value.  Only the upper triangle of A is read (so exact symmetry is not required).

    Returns
    -------
    eigenvalues : ndarray, shape (k,), descending
    vectors : ndarray, shape (d, k), orthonormal, signs fixed by :func:`fix_signs`
    """
    A = np.asarray(A, dtype=np.float64)
    d = A.shape[0]
    k = check_int(n_components, "n_components", low=1, high=d)
    w, V = linalg.eigh(A, subset_by_index=(d - k, d - 1), lower=False, check_finite=False, driver="evr")
    return w[::-1].copy(), fix_signs(V[:, ::-1])


def random_orthonormal(n_features, n_components, random_state=None):
    """A uniformly random (Haar) d×k orthonormal basis: QR of a Gaussian matrix with sign fix."""
    from ._validation import check_random_state

    rng = check_random_state(random_state)
    d = check_int(n_features, "n_features", low=1)
    k = check_int(n_components, "n_components", low=1, high=d)
    Q, _ = thin_qr(rng.standard_normal((d, k)))
    return Q
