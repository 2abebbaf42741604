r"""Eigenpairs of a diagonal matrix compressed to the orthogonal complement of one vector.

For D = diag(d₁ < … < d_K) and a unit vector z, the compression of D to z⊥ (the matrix of the
quadratic form xᵀDx on the unit sphere of z⊥) has K − 1 eigenvalues, one strictly between each
pair of consecutive poles: the roots μ of the secular equation

.. math:: \sum_i \frac{z_i^2}{d_i - \mu} = 0,

with eigenvectors proportional to (D − μI)⁻¹z.  It is the limit ρ → ∞ of the rank-one update
D + ρzzᵀ (whose secular equation is 1/ρ + Σᵢ zᵢ²/(dᵢ − μ) = 0; its K-th root goes to infinity),
and LAPACK solves rank-one updates in O(K²): ``dlaed9`` — the step of divide and conquer
(``dstedc``) that merges two halves — finds each root with ``dlaed4`` and builds the eigenvectors
from a recomputed z (Gu & Eisenstat 1994), so that they are orthogonal to working precision
however close the roots are.  The limit is taken exactly (:func:`_dlaed9`): ρ = ∞ makes 1/ρ = 0
in the equation for the first K − 1 roots, and the K-th root is left out.

This is what makes :func:`~privpca_edu.estimators._bingham.bingham_gibbs` cheap at large d: the
compression of A to the complement of k − 1 columns is k − 1 such steps from A's eigenbasis,
O(k d²) instead of a d×d eigendecomposition (O(d³)) per column.

``dlaed9`` is reached through SciPy's Cython LAPACK table (``scipy.linalg.cython_lapack``, the
same library SciPy's own ``eigh`` calls).  :data:`DLAED9` is ``None`` where it cannot be loaded;
callers then use the dense path, and :func:`privpca_edu.estimators.fast_paths` (printed by
:func:`privpca_edu.show_versions`) says so.

**Why ctypes, and why it stays.**  ``scipy.linalg.cython_lapack`` is SciPy's documented, stable
interface to its LAPACK (every routine, for Cython code), but SciPy's Python wrappers
(``scipy.linalg.lapack``) do not include ``dlaed9``/``dlaed4``, and this package compiles no
extension, so the function pointer is taken from that module's capsule table (``__pyx_capi__``,
the mechanism Cython's ``cimport`` itself uses) after checking its C signature.  Measured on the
PPCA Gibbs sampler (k = 5, 100 sweeps, one BLAS thread, CPU time, paired): the dense fallback
takes 1.16× the time at d = 50, 1.57× at d = 200 and 1.76× at d = 400 — the sizes of the DPS-PCA paper's Table 1 —
so the path earns its place; ``tests/estimators/test_compression.py`` fails (it does not skip)
if a SciPy release stops exposing the routine, and checks every step against a dense
eigendecomposition.
"""

from __future__ import annotations

import ctypes

import numpy as np

_EPS = np.finfo(np.float64).eps
#: |zᵢ| ≤ this (z a unit vector) is set to 0 and eᵢ kept as an eigenvector (LAPACK's deflation
#: tolerance 8ε: the change to the compressed matrix is at most 16ε·max|dᵢ|)
DEFLATION_TOL = 8.0 * _EPS


def _load_dlaed9():
    """ctypes handle on LAPACK ``dlaed9`` from SciPy's Cython LAPACK table, or None."""
    try:
        from scipy.linalg import cython_lapack

        capsule = cython_lapack.__pyx_capi__["dlaed9"]
        api = ctypes.pythonapi
        api.PyCapsule_GetName.restype = ctypes.c_char_p
        api.PyCapsule_GetName.argtypes = [ctypes.py_object]
        api.PyCapsule_GetPointer.restype = ctypes.c_void_p
        api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
        name = api.PyCapsule_GetName(capsule)
        # every argument is a pointer: int* for the integers, double* for ρ and the arrays
        if not name.startswith(b"void (int *, int *, int *, int *"):
            return None
        pointer = api.PyCapsule_GetPointer(capsule, name)
        return ctypes.CFUNCTYPE(None, *([ctypes.c_void_p] * 13))(pointer)
    except Exception:  # pragma: no cover - a SciPy without the table or with another ABI
        return None


DLAED9 = _load_dlaed9()


def _dlaed9(poles, z):
    """Roots (ascending) of Σᵢ zᵢ²/(dᵢ − μ) = 0 and the unit eigenvectors (columns) of the
    compression of diag(poles) to z⊥, or None on failure.

    ``poles`` strictly increasing, z a unit vector with no zero entry, K ≥ 3.  ``dlaed9`` is
    asked for roots 1 … K − 1 only, with ρ = ∞: for those dlaed4 uses ρ only through 1/ρ, now
    exactly 0, so it solves the compression's secular equation itself.  The root that goes to
    infinity with ρ is not computed; in Gu–Eisenstat's recomputation of z it enters through the
    column dⱼ − λ_K ≈ −ρ, a common factor of every component that the normalisation of the
    eigenvectors removes, so that column is set to −1.
    """
    K = poles.size
    roots = np.empty(K)
    work = np.empty((K, K), order="F")  # column j: dlaed4's differences dᵢ − μⱼ
    work[:, K - 1] = -1.0
    vectors = np.empty((K, K), order="F")
    poles = np.array(poles, dtype=np.float64)  # dlaed9 may touch both inputs: private copies
    z = np.array(z, dtype=np.float64)
    size, one, last, info = ctypes.c_int(K), ctypes.c_int(1), ctypes.c_int(K - 1), ctypes.c_int(0)
    rho = ctypes.c_double(np.inf)
    DLAED9(ctypes.byref(size), ctypes.byref(one), ctypes.byref(last), ctypes.byref(size),
           roots.ctypes.data, work.ctypes.data, ctypes.byref(size), ctypes.byref(rho), poles.ctypes.data,
           z.ctypes.data, vectors.ctypes.data, ctypes.byref(size), ctypes.byref(info))
    roots, vectors = roots[:-1], vectors[:, :-1]
    if info.value != 0 or not (np.isfinite(roots).all() and np.isfinite(vectors[:, 0]).all()):
        return None
    return roots, vectors


class Compression:
    """The basis change of one compression: new coordinates (K − 1) ↔ old coordinates (K).

    The new basis vectors, written in the old coordinates, are the columns of an orthonormal
    K × (K − 1) matrix F: the Cauchy-like eigenvectors S on the coordinates where z ≠ 0, and unit
    vectors on the deflated ones (z = 0), ordered by eigenvalue.  ``to_new(x)`` = Fᵀx and
    ``to_old(y)`` = Fy, for a vector or a block of columns, in O(K²).
    """

    __slots__ = ("vectors", "kept", "deflated", "order")

    def __init__(self, vectors, kept=None, deflated=None, order=None):
        self.vectors, self.kept, self.deflated, self.order = vectors, kept, deflated, order

    def to_new(self, x):
        if self.kept is None:
            return self.vectors.T @ x
        combined = np.concatenate([self.vectors.T @ x[self.kept], x[self.deflated]])
        return combined[self.order]

    def to_old(self, y):
        if self.kept is None:
            return self.vectors @ y
        combined = np.empty_like(y)
        combined[self.order] = y
        n_roots = self.vectors.shape[1]
        out = np.empty((self.kept.size + self.deflated.size,) + y.shape[1:])
        out[self.kept] = self.vectors @ combined[:n_roots]
        out[self.deflated] = combined[n_roots:]
        return out


def compress(poles, z):
    """Eigenpairs of diag(poles) (ascending) compressed to z⊥.

    Returns (eigenvalues ascending, :class:`Compression`), or None when the poles that z
    touches are not strictly increasing (a repeated eigenvalue) or LAPACK fails: the caller
    then decomposes the compression densely.
    """
    z = np.asarray(z, dtype=np.float64)
    z = z / np.linalg.norm(z)
    small = np.abs(z) <= DEFLATION_TOL
    if small.any():
        kept, deflated = np.flatnonzero(~small), np.flatnonzero(small)
        d, w = poles[kept], z[kept]
        w = w / np.linalg.norm(w)
    else:
        kept = deflated = None
        d, w = poles, z
    K = d.size
    if K == 0 or (K > 1 and not np.all(d[1:] > d[:-1])):
        return None
    if K == 1:  # the whole direction is removed
        roots, vectors = np.empty(0), np.empty((1, 0))
    elif K == 2:  # the complement of (w₁, w₂) in the plane is (−w₂, w₁)
        roots = np.array([w[1] * w[1] * d[0] + w[0] * w[0] * d[1]])
        vectors = np.array([[-w[1]], [w[0]]])
    else:
        out = _dlaed9(d, w)
        if out is None:
            return None
        roots, vectors = out
    if kept is None:
        return roots, Compression(vectors)
    values = np.concatenate([roots, poles[deflated]])
    order = np.argsort(values, kind="stable")
    return values[order], Compression(vectors, kept, deflated, order)
