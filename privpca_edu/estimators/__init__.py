"""Estimators with the scikit-learn contract (``fit``, ``transform``, ``components_``)."""

from ._base import PCABase, PrivateEstimator
from .baselines import PCA, TruncatedPowerPCA
from .covariance import AnalyzeGauss, ModSuLQ, NoisyMatrixMechanism, ReleaseParts
from .dps_pca import DPSPCA
from .local import LocalGaussianPCA, LocalSparsePCA
from .ppca import PPCA
from .private_local import PrivateLocalPCA
from .robust import NSGGD, SGPCA, KendallDPPCA, NonPrivateAnalyzeGaussReplication

__all__ = [
    "PCABase", "PrivateEstimator", "NoisyMatrixMechanism",
    "ReleaseParts", "PCA", "TruncatedPowerPCA", "AnalyzeGauss", "ModSuLQ", "PPCA", "DPSPCA",
    "LocalGaussianPCA", "LocalSparsePCA", "KendallDPPCA", "SGPCA", "NSGGD", "NonPrivateAnalyzeGaussReplication",
    "PrivateLocalPCA", "fast_paths",
]


def fast_paths():
    """Say which of the optional speed-ups this installation uses, and what runs without one.

    One entry today: PPCA's Gibbs sampler (:class:`PPCA` with ``sampler="gibbs"``, k ≥ 2)
    updates its compressed eigenbasis by rank-one steps through LAPACK ``dlaed9``, reached
    through SciPy's Cython LAPACK table.  Where a SciPy release does not expose that routine, the
    sampler decomposes each compression densely instead: the same draws for the same seed
    (the chain depends only on the compression, not on the path), about 1.2-1.8x slower at
    d = 50-400.  :func:`privpca_edu.show_versions` prints this with the library versions.

    Returns
    -------
    dict
        ``name -> {"available": bool, "used_for": str, "fallback": str}``.

    Examples
    --------
    >>> from privpca_edu.estimators import fast_paths
    >>> sorted(fast_paths())
    ['lapack_dlaed9']
    """
    from . import _compression

    return {
        "lapack_dlaed9": {
            "available": _compression.DLAED9 is not None,
            "used_for": "PPCA(sampler='gibbs'), k >= 2: rank-one updates of the compressed eigenbasis",
            "fallback": "one dense eigendecomposition per column (same draws, about 1.2-1.8x slower at d = 50-400)",
        },
    }
