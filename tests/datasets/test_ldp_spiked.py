"""The local-DP chapter's data model: datasets.ldp_spiked and ldp_spiked_model (Wang & Xu 2019, Section 6).

Statistical tolerance: E[S] = Σ: each entry of S = XᵀX/n has variance (Σ_aa Σ_bb + Σ_ab²)/n, so
|S − Σ|_ab ≤ 5 s.d. entrywise (over ≤ 210 entries the chance of any 5-s.d. excursion is < 1e-4).
"""

import numpy as np
import pytest

from privpca_edu.datasets import ldp_spiked, ldp_spiked_model


def test_ldp_spiked_dense_model():
    data = ldp_spiked(20_000, 10, 2, gap=10.0, random_state=0)
    p, k, gap = 10, 2, 10.0
    base = 1 / (5 * p * (gap + 1))
    np.testing.assert_allclose(data.eigenvalues, [1 / (5 * p)] * k + [base] * (p - k), rtol=1e-12)
    np.testing.assert_allclose(np.linalg.eigvalsh(data.covariance)[::-1], data.eigenvalues, atol=1e-15)
    np.testing.assert_allclose(data.components @ data.components.T, np.eye(k), atol=1e-12)
    assert np.trace(data.covariance) <= 0.2 + 1e-15
    assert np.linalg.norm(data.X, axis=1).max() <= 1 + 1e-12 and data.info["n_clipped"] == 0
    S = data.X.T @ data.X / 20_000
    sd = np.sqrt((np.outer(np.diag(data.covariance), np.diag(data.covariance)) + data.covariance**2) / 20_000)
    assert np.max(np.abs(S - data.covariance) / sd) < 5
    assert data.support is None and data.info["eigengap"] == pytest.approx(gap * base)


def test_ldp_spiked_sparse_model_and_reproducibility():
    data = ldp_spiked(100, 40, 3, gap=1.0, support_size=6, random_state=1)
    nonzero = np.flatnonzero(np.linalg.norm(data.components, axis=0) > 0)
    np.testing.assert_array_equal(nonzero, data.support)
    assert len(data.support) == 6 and not np.array_equal(data.support, np.arange(6))  # permuted
    V, Sigma, eig, support = ldp_spiked_model(40, 3, gap=1.0, support_size=6, random_state=1)
    np.testing.assert_array_equal(V, data.components)  # the model is drawn first, from the same stream
    again = ldp_spiked(100, 40, 3, gap=1.0, support_size=6, random_state=1)
    np.testing.assert_array_equal(again.X, data.X)


@pytest.mark.parametrize("kwargs,match", [
    (dict(n_components=10), "n_components"), (dict(n_components=0), "n_components"),
    (dict(support_size=1), "support_size"), (dict(support_size=11), "support_size"),
    (dict(gap=0.0), "gap"), (dict(gap=-1.0), "gap")])
def test_ldp_spiked_bad_input(kwargs, match):
    args = dict(n_samples=10, n_features=10, n_components=2)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        ldp_spiked(**args)
