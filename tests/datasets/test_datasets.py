"""privpca_edu.datasets.spiked_sparse: the §5.1 model of Ge, Wang, Wang & Liu (2018)."""

import math

import numpy as np
import pytest
from scipy import stats

from privpca_edu import PCA, datasets, subspace_distance


def nonzero_columns(M):
    return np.flatnonzero(np.any(M != 0, axis=0))


@pytest.fixture(scope="module")
def small():
    return datasets.spiked_sparse(500, 30, 3, 8, random_state=0)


def test_shapes_and_container(small):
    data = small
    assert data.X.shape == (500, 30)
    assert data.components.shape == (3, 30)  # (k, d): one direction per row, like components_
    assert data.covariance.shape == (30, 30)
    assert data.eigenvalues.shape == (30,)
    assert data.n_samples == 500 and data.n_features == 30 and data.n_components == 3
    assert data.info["model"] == "spiked_sparse" and data.info["support_size"] == 8
    assert "array(" not in repr(data)  # no array dumps in notebooks


def test_components_orthonormal_with_exact_support(small):
    data = small
    Q = data.components
    np.testing.assert_allclose(Q @ Q.T, np.eye(3), atol=1e-12)
    assert np.array_equal(nonzero_columns(Q), data.support)
    assert data.support.tolist() == list(range(8))  # permute=False: the first s* coordinates


def test_eigenvalues_follow_the_model(small):
    lam = small.eigenvalues
    assert np.array_equal(lam[:3], np.full(3, 100.0))
    assert np.all((lam[3:] >= 0) & (lam[3:] <= 10.0))
    # tail is Uniform[0, 10]: 27 draws are not all equal and not all at one end
    assert lam[3:].std() > 1.0


def test_covariance_is_U_Lambda_Ut(small):
    data = small
    S = data.covariance
    np.testing.assert_allclose(S, S.T, atol=1e-12)
    np.testing.assert_allclose(np.linalg.eigvalsh(S), np.sort(data.eigenvalues), atol=1e-10)
    # Σ Q* = 100 Q*: the components are eigenvectors with the spike eigenvalue
    np.testing.assert_allclose(S @ data.components.T, 100.0 * data.components.T, atol=1e-10)
    # and they are the top-k eigenspace (gap 100 vs ≤ 10, so eigh resolves it to rounding)
    w, V = np.linalg.eigh(S)
    assert subspace_distance(V[:, -3:], data.components) < 1e-10


def test_sample_second_moment_converges_to_covariance():
    # For Gaussian rows (Isserlis): Var(Ŝ_ij) = (Σ_ij² + Σ_ii Σ_jj)/n for Ŝ = XᵀX/n (mean 0, not
    # centred).  So z_ij = (Ŝ_ij − Σ_ij)/√((Σ_ij² + Σ_iiΣ_jj)/n) is ≈ N(0, 1) (n = 20000, CLT).
    # With m = d(d+1)/2 = 210 entries, a Bonferroni bound at family-wise level 1e-3 allows
    # max |z| ≤ Φ⁻¹(1 − 1e-3/(2m)) = 4.57.
    n, d = 20000, 20
    data = datasets.spiked_sparse(n, d, 3, 6, random_state=11)
    S, X = data.covariance, data.X
    S_hat = X.T @ X / n
    iu = np.triu_indices(d)
    var = (S**2 + np.outer(np.diag(S), np.diag(S))) / n

    def max_z(target):
        return np.max(np.abs((S_hat - target)[iu]) / np.sqrt(var[iu]))

    z_star = stats.norm.ppf(1 - 1e-3 / (2 * len(iu[0])))
    assert z_star == pytest.approx(4.57, abs=0.01)
    assert max_z(S) <= z_star
    # the same check rejects a covariance that is off by 5 % (power of the test)
    assert max_z(1.05 * S) > z_star


def test_reproducible_from_seed():
    a = datasets.spiked_sparse(50, 12, 2, 4, permute=True, random_state=5)
    b = datasets.spiked_sparse(50, 12, 2, 4, permute=True, random_state=5)
    for field in ("X", "components", "covariance", "eigenvalues", "support"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    c = datasets.spiked_sparse(50, 12, 2, 4, permute=True, random_state=6)
    assert not np.array_equal(a.X, c.X)
    g = np.random.default_rng(5)
    d1 = datasets.spiked_sparse(50, 12, 2, 4, random_state=g)
    d2 = datasets.spiked_sparse(50, 12, 2, 4, random_state=g)  # the Generator's stream advanced
    assert not np.array_equal(d1.X, d2.X)


def test_permute_moves_the_support():
    data = datasets.spiked_sparse(200, 40, 2, 6, permute=True, random_state=3)
    assert data.support.size == 6
    assert data.support.tolist() != list(range(6))
    assert np.array_equal(data.support, np.sort(data.support))
    assert np.array_equal(nonzero_columns(data.components), data.support)
    np.testing.assert_allclose(data.components @ data.components.T, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(data.covariance @ data.components.T, 100.0 * data.components.T, atol=1e-10)


def test_scalings_are_per_row_maps_of_the_raw_data():
    kw = dict(n_samples=300, n_features=25, n_components=2, support_size=5, random_state=9)
    raw = datasets.spiked_sparse(**kw).X
    unit = datasets.spiked_sparse(scaling="unit", **kw)
    maxn = datasets.spiked_sparse(scaling="max_norm", **kw)
    norms = np.linalg.norm(raw, axis=1)
    np.testing.assert_allclose(np.linalg.norm(unit.X, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(unit.X, raw / norms[:, None], rtol=1e-12)
    np.testing.assert_allclose(maxn.X, raw / norms.max(), rtol=1e-12)
    assert np.linalg.norm(maxn.X, axis=1).max() == pytest.approx(1.0, abs=1e-12)
    # raw rows are far from norm 1 (≈ √(k·100 + Σ tail) ≈ 15 here): scaling matters
    assert norms.mean() > 10
    assert unit.info["scaling"] == "unit"


def test_unit_scaling_keeps_the_top_k_eigenspace():
    # Population: for x = UΛ^{1/2}z, E[xxᵀ/‖x‖²] = U M Uᵀ with M diagonal (flipping the sign of
    # any z_i leaves the law invariant, so off-diagonal entries vanish) and M's diagonal ordered
    # like λ; so the top-k eigenspace is still Q*.  Sample: first-order perturbation theory for
    # Gaussian rows gives E D² ≈ Σ_{i≤k<j} λ_iλ_j / (n(λ_i − λ_j)²) (≈ 0.021² here; raw data
    # match it).  Unit rows are not Gaussian, so that formula is only a guide for them: we allow
    # 3× it.  A scaling that changed the eigenvectors would give D = O(1).
    n, d, k = 20000, 50, 3
    raw = datasets.spiked_sparse(n, d, k, 10, random_state=1)
    unit = datasets.spiked_sparse(n, d, k, 10, scaling="unit", random_state=1)
    lam = raw.eigenvalues
    pred = math.sqrt(sum(lam[i] * lam[j] / (n * (lam[i] - lam[j]) ** 2) for i in range(k) for j in range(k, d)))
    D_raw = subspace_distance(PCA(k, center=False).fit(raw.X).components_, raw.components)
    D_unit = subspace_distance(PCA(k, center=False).fit(unit.X).components_, unit.components)
    assert D_raw <= 3 * pred
    assert D_unit <= 3 * pred
    assert 3 * pred < 0.1


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(n_components=10), "n_components"),  # k must be < d
        (dict(n_components=0), "n_components"),
        (dict(support_size=1), "support_size"),  # s* < k
        (dict(support_size=11), "support_size"),  # s* > d
        (dict(spike=0.0), "spike"),
        (dict(spike=-1.0), "spike"),
        (dict(noise_high=-0.5), "noise_high"),
        (dict(scaling="l2"), "scaling"),
        (dict(n_samples=0), "n_samples"),
        (dict(n_features=1, n_components=1, support_size=1), "n_features"),
    ],
)
def test_invalid_arguments_raise_value_error_naming_them(kwargs, name):
    base = dict(n_samples=20, n_features=10, n_components=2, support_size=4, random_state=0)
    base.update(kwargs)
    with pytest.raises(ValueError, match=name):
        datasets.spiked_sparse(**base)
