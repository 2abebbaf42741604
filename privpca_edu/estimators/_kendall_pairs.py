r"""The pair sum of the Kendall's τ matrix, each unordered pair visited once (speed layer).

:func:`privpca_edu.estimators.kendall.kendall_tau_matrix` is the public function and states the
mathematics; :func:`privpca_edu.estimators.kendall.kendall_tau_naive` is the reference that reads
like the definition.  This module only computes, fast and in bounded memory, the Laplacian form

.. math:: L = \sum_{i<j} c_ic_j\,w_{ij}\,(x_i-x_j)(x_i-x_j)^\top
            = \sum_i \deg_i\,x_ix_i^\top - (C + C^\top),\qquad
          \deg_i = \sum_{j\ne i} c_ic_jw_{ij},\quad C = \sum_{i<j} c_ic_jw_{ij}\,x_ix_j^\top,

with :math:`w_{ij} = 1/\lVert x_i-x_j\rVert^2` (spherical) or :math:`\min(1, r^2/\lVert x_i-x_j\rVert^2)`
(winsorized) and multiplicities :math:`c` (1 without repeated rows).  Rows go in blocks
:math:`B`; block :math:`B` meets only the rows from its own first row on (the upper triangle of
the pair matrix), so every pair's distance and weight is computed once — half the work of
visiting each pair from both of its rows.  Per block: one GEMM for the squared distances
(:math:`[-2X_B, s_B, 1][X, 1, s]^\top`), the weights in place, one GEMM :math:`W_B[cX\,|\,c]` for
:math:`C` and the row degrees, one GEMV :math:`c_B^\top W_B` for the column degrees.

Near-duplicate pairs (squared distance at most ``near_rtol``·(‖x_i‖² + ‖x_j‖²), where the Gram
formula loses accuracy) get weight 0 in :math:`L` and are added exactly as
:math:`c_ic_j\,g(x_i-x_j)g(x_i-x_j)^\top`, in chunks of bounded size.
"""

from __future__ import annotations

import numpy as np

__all__ = ["pair_sum", "default_block_rows"]


def default_block_rows(n, block_entries):
    """Rows per block: a block row holds ≤ block_entries numbers, and there are ≥ 8 blocks when n ≥ 512.

    With blocks of b rows the distances computed are n²/2 + nb/2 (the diagonal blocks are computed
    whole), so b ≤ n/8 keeps the waste below 1/8 of the pairs, and b ≥ 64 keeps each GEMM large.
    """
    return int(min(n, max(16, block_entries // n), max(64, -(-n // 8))))


def pair_sum(X, counts, kind, radius, block_rows, *, block_entries, near_rtol, sign):
    """:math:`\\sum_{i<j} c_ic_j\\,g(x_i-x_j)g(x_i-x_j)^\\top` of the rows of X (a (d, d) array, not symmetrised).

    ``counts``: multiplicities of the rows (None: all 1); ``kind``: "spherical" or "winsorized";
    ``block_rows``: rows per block (None: :func:`default_block_rows`); ``sign``: the spatial-sign
    function g(T, kind, radius) for the near-duplicate pairs; ``block_entries`` bounds the
    block buffer and the chunks of near-duplicate candidates.
    """
    n, d = X.shape
    b = default_block_rows(n, block_entries) if block_rows is None else min(n, block_rows)
    sq = np.einsum("ij,ij->i", X, X)
    # Augmented factors: left_B @ right[start:].T = s_i + s_j − 2 x_iᵀx_j in one GEMM.
    left = np.empty((n, d + 2))
    left[:, :d] = -2.0 * X
    left[:, d] = sq
    left[:, d + 1] = 1.0
    right = np.empty((n, d + 2))
    right[:, :d] = X
    right[:, d] = 1.0
    right[:, d + 1] = sq
    c = np.ones(n) if counts is None else counts
    cX1 = np.empty((n, d + 1))  # [cX | c]
    np.multiply(X, c[:, None], out=cX1[:, :d])
    cX1[:, d] = c
    r2 = radius * radius
    degree = np.zeros(n)
    cross = np.zeros((d, d))
    near_acc = np.zeros((d, d))
    buffer = np.empty(b * n)
    for start in range(0, n, b):
        stop = min(n, start + b)
        m, width = stop - start, n - start
        W = buffer[: m * width].reshape(m, width)
        np.matmul(left[start:stop], right[start:].T, out=W)
        # within the block, keep j > i only: the diagonal and the lower triangle get weight 0
        W[:, :m][np.tri(m, dtype=bool)] = np.inf
        _near_duplicates(W, X, sq, start, kind, radius, near_acc, counts, block_entries, near_rtol, sign)
        if kind == "spherical":
            np.reciprocal(W, out=W)
        else:
            np.maximum(W, r2, out=W)
            np.divide(r2, W, out=W)
        WcX1 = W @ cX1[start:]
        cB = c[start:stop]
        degree[start:stop] += cB * WcX1[:, d]
        degree[start:] += c[start:] * (cB @ W)
        cross += cX1[start:stop, :d].T @ WcX1[:, :d]
    L = X.T @ (degree[:, None] * X)
    L -= cross
    L -= cross.T
    return L + near_acc


def _near_duplicates(W, X, sq, start, kind, radius, near_acc, counts, block_entries, near_rtol, sign):
    """Take near-duplicate pairs of one block out of W (W ← inf ⇒ weight 0) and add them exactly.

    W is the block's (m × (n − start)) part of the upper triangle: entry (i, j) is rows
    (start + i, start + j).  A generous per-row screen (D² ≤ 4·tol·s_i, one read-only pass for the
    row minima) finds candidate rows; the exact test recomputes each candidate difference.
    Candidates are handled in chunks of rows (≤ block_entries/4 weights compared at once) and of
    pairs (≤ block_entries/4 numbers of differences), so memory stays bounded.
    """
    m, width = W.shape
    d = X.shape[1]
    thresh = (4.0 * near_rtol) * sq[start : start + m]
    rows = np.flatnonzero(W.min(axis=1) <= thresh)
    row_chunk = max(1, (block_entries // 4) // width)
    pair_chunk = max(1, (block_entries // 4) // (d + 4))
    for lo in range(0, rows.size, row_chunk):
        chunk = rows[lo : lo + row_chunk]
        i_loc, j_loc = np.nonzero(W[chunk] <= thresh[chunk, None])
        i_loc = chunk[i_loc]
        for p in range(0, i_loc.size, pair_chunk):
            il, jl = i_loc[p : p + pair_chunk], j_loc[p : p + pair_chunk]
            i, j = il + start, jl + start
            T = X[i] - X[j]
            near = np.einsum("ij,ij->i", T, T) <= near_rtol * (sq[i] + sq[j])
            if not near.any():
                continue
            W[il[near], jl[near]] = np.inf
            G = sign(T[near], kind, radius)
            if counts is None:
                near_acc += G.T @ G
            else:
                near_acc += (G * (counts[i[near]] * counts[j[near]])[:, None]).T @ G
