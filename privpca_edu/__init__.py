"""Differentially private PCA for teaching (privpca_edu).

Public names (``__all__``):

* the estimators ``PCA``, ``TruncatedPowerPCA``, ``AnalyzeGauss``, ``ModSuLQ``, ``PPCA``, ``DPSPCA``,
  ``LocalGaussianPCA``, ``LocalSparsePCA``, ``KendallDPPCA``, ``SGPCA``, ``NSGGD`` and
  ``PrivateLocalPCA``; their privacy record ``PrivacyRecord`` (from ``privacy``) and warning ``PrivacyWarning``;
* ``subspace_distance``, ``show_versions`` (what a bug report needs) and ``__version__``;
* the submodules ``audit``, ``bounds``, ``datasets``, ``estimators``, ``experiments``, ``plotting``,
  ``privacy``, ``protocol``, ``reproduce``, ``subspace`` and ``widgets``.

Everything is imported on first use (PEP 562): ``import privpca_edu`` is instant, and
``from privpca_edu import AnalyzeGauss`` or ``privpca_edu.datasets`` loads only what that name needs
(scikit-learn, SciPy, matplotlib, ipywidgets come with the modules that use them).
"""

import importlib

from ._version import __version__  # noqa: E402  (the one version source)

#: Submodules reachable as attributes, ``privpca_edu.<name>``.  A new submodule is one line here.
_SUBMODULES = (
    "audit",
    "bounds",
    "datasets",
    "estimators",
    "experiments",
    "plotting",
    "privacy",
    "protocol",
    "reproduce",
    "subspace",
    "widgets",
)

#: Names defined in a submodule and re-exported here: name -> the module that defines it.
_NAMES = {
    **dict.fromkeys(
        ("PCA", "TruncatedPowerPCA", "AnalyzeGauss", "ModSuLQ", "PPCA", "DPSPCA", "LocalGaussianPCA",
         "LocalSparsePCA", "KendallDPPCA", "SGPCA", "NSGGD", "PrivateLocalPCA"),
        ".estimators"),
    "PrivacyRecord": ".privacy",
    "PrivacyWarning": "._validation",
    "subspace_distance": ".subspace",
    "show_versions": "._show_versions",
}

__all__ = [*_NAMES, "__version__", *_SUBMODULES]


def __getattr__(name):
    if name in _NAMES:
        value = getattr(importlib.import_module(_NAMES[name], __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module("." + name, __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
