"""The (noisy) row-truncated orthogonal iteration shared by TruncatedPowerPCA and DPS-PCA.

One iteration (Ge et al. 2018, Algorithm 1 lines 6–11)::

    K        = apply(Q)              # Σ̂ Q, plus whatever noise the caller adds
    V, _     = Thin_QR(K)
    Q~       = Threshold(V, ŝ)
    Q_next,_ = Thin_QR(Q~)

Keeping one implementation is what makes "DPS-PCA with σ = 0 equals TruncatedPowerPCA"
true to the last bit rather than approximately.
"""

from __future__ import annotations

import numpy as np

from .._validation import as_generator
from ..subspace import kept_rows, subspace_distance, thin_qr, truncate_rows


def initial_basis(init, n_features, n_components, sparsity, threshold_init, random_state):
    """Q(1) from ``init`` (lines 1–2 of Algorithm 1).

    ``init="random"``: a data-independent Haar-random d×k basis, *not* thresholded unless
    ``threshold_init=True`` (thresholding a random start often throws away the whole true
    support: the initialisation pitfall of Ge et al.'s Algorithm 1 line 1).  An array is used as given
    and thresholded unless ``threshold_init=False``.
    """
    d, k = n_features, n_components
    if isinstance(init, str):
        if init != "random":
            raise ValueError(f"init must be 'random' or a (n_features, n_components) array, got {init!r}")
        Q0 = as_generator(random_state).standard_normal((d, k))
        do_threshold = bool(threshold_init) if threshold_init is not None else False
    else:
        Q0 = np.array(init, dtype=np.float64, copy=True)
        if Q0.ndim == 2 and Q0.shape == (k, d) and k != d:
            Q0 = Q0.T
        if Q0.shape != (d, k) or not np.all(np.isfinite(Q0)):
            raise ValueError(f"init must be a finite array of shape ({d}, {k}), got shape {np.shape(init)}")
        do_threshold = True if threshold_init is None else bool(threshold_init)
    if do_threshold:
        Q0 = truncate_rows(Q0, sparsity)
    Q1, _ = thin_qr(Q0)
    return Q1


def truncated_orthogonal_iteration(apply, Q1, sparsity, n_iter, *, tol=None, max_iter=None):
    """Run the iteration from Q(1).

    Parameters
    ----------
    apply : callable(Q, t) -> (d, k) array
        The (possibly noisy) product K(t); ``t`` counts from 1.
    Q1 : (d, k) orthonormal start.
    sparsity : int
        ŝ rows kept (ŝ = d: no truncation, plain orthogonal iteration).
    n_iter : int or None
        T; ``None`` iterates until ``D(Q(t+1), Q(t)) < tol`` or ``max_iter``.

    Returns
    -------
    history : list of (d, k) arrays, Q(1) … Q(T+1)
    """
    history = [Q1]
    Q = Q1
    limit = n_iter if n_iter is not None else max_iter
    d = Q1.shape[0]
    k = Q1.shape[1]
    for t in range(1, limit + 1):
        try:
            V, _ = thin_qr(apply(Q, t))
            if sparsity == d:
                Q_next, _ = thin_qr(V)
            else:
                # Thin_QR(Threshold(V)): the zeroed rows do not touch R, so factorise only the ŝ×k
                # kept block (the same Q, at O(ŝk²) instead of O(dk²)).
                keep = kept_rows(V, sparsity)
                Q_next = np.zeros_like(V)
                Q_next[keep], _ = thin_qr(V[keep])
        except np.linalg.LinAlgError:
            raise ValueError(
                f"the power iteration lost rank at iteration {t}: Σ̂Q (or its {sparsity} kept rows) spans fewer "
                f"than n_components={k} directions, so no {k}-dimensional subspace can be returned; the data's "
                "second-moment matrix has rank < n_components (too few samples or collinear features) or the "
                "sparsity is too small: lower n_components or raise sparsity") from None
        history.append(Q_next)
        if n_iter is None and subspace_distance(Q_next, Q) < tol:
            break
        Q = Q_next
    return history
