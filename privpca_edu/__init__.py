"""privpca_edu: differentially private PCA for teaching.

Public names follow the project's API contract: the estimators, ``subspace_distance`` and the
submodules ``datasets``, ``privacy``, ``subspace``, ``audit``, ``bounds`` and ``widgets``.
"""

from . import accounting, bounds, datasets, privacy, subspace
from ._validation import PrivacyWarning
from .estimators import (
    DPSPCA,
    NSGGD,
    PCA,
    PPCA,
    AnalyzeGauss,
    LocalGaussianPCA,
    LocalSparsePCA,
    ModSuLQ,
    PrivacyRecord,
    PrivateLocalPCA,
    SGPCA,
    KendallDPPCA,
    TruncatedPowerPCA,
)
from .subspace import subspace_distance

from ._version import __version__  # noqa: E402  (the one version source)

__all__ = [
    "PCA", "TruncatedPowerPCA", "AnalyzeGauss", "ModSuLQ", "PPCA", "DPSPCA", "LocalGaussianPCA", "LocalSparsePCA",
    "KendallDPPCA", "SGPCA", "NSGGD", "PrivateLocalPCA", "PrivacyRecord",
    "PrivacyWarning", "subspace_distance", "accounting", "datasets", "privacy", "subspace", "bounds", "audit", "protocol", "__version__",
]

from . import audit, protocol  # noqa: E402  (they build on the estimators; phe is imported lazily)
