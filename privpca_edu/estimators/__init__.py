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
    "PrivateLocalPCA",
]
