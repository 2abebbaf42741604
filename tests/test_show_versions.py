"""privpca_edu.show_versions() and estimators.fast_paths(): the public word on which paths run."""

import io

import numpy as np
import scipy

import privpca_edu
from privpca_edu.estimators import PPCA, fast_paths


def _printed():
    out = io.StringIO()
    privpca_edu.show_versions(file=out)
    return out.getvalue()


def test_show_versions_names_the_versions_and_the_fast_paths():
    text = _printed()
    assert f"privpca_edu: {privpca_edu.__version__}" in text
    assert f"numpy: {np.__version__}" in text and f"scipy: {scipy.__version__}" in text
    assert "lapack_dlaed9: in use" in text  # tests/estimators/test_compression.py fails if it is not


def test_a_missing_fast_path_is_said_with_its_fallback(monkeypatch):
    from privpca_edu.estimators import _compression

    monkeypatch.setattr(_compression, "DLAED9", None)
    assert fast_paths()["lapack_dlaed9"]["available"] is False
    text = _printed()
    assert "lapack_dlaed9: not available; instead one dense eigendecomposition per column" in text
    # and the sampler does run without it: the fallback the message names
    X = np.random.default_rng(0).standard_normal((200, 8)) / 4
    est = PPCA(2, epsilon=1.0, sampler="gibbs", n_iter=5, random_state=0).fit(X)
    assert est.components_.shape == (2, 8)
