"""privpca_edu.subspace: thin QR, row truncation, distances, angles (Ge et al. 2018, Algorithms 2–3, Definition 4.2)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import linalg

from privpca_edu import subspace_distance
from privpca_edu.subspace import (
    fix_signs,
    principal_angles,
    random_orthonormal,
    random_subspace_distance,
    thin_qr,
    top_eigenvectors,
    truncate_rows,
)

seeds = st.integers(0, 2**32 - 1)


@st.composite
def shapes(draw, min_d=1, max_d=12):
    d = draw(st.integers(min_d, max_d))
    k = draw(st.integers(1, d))
    return d, k


# ---------------------------------------------------------------------------------------------
# §8 item 2: Thin_QR
# ---------------------------------------------------------------------------------------------


@given(shape=shapes(), seed=seeds)
def test_thin_qr_properties(shape, seed):
    d, k = shape
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, k))
    Q, R = thin_qr(A)
    assert Q.shape == (d, k) and R.shape == (k, k)
    np.testing.assert_allclose(Q.T @ Q, np.eye(k), atol=1e-12)
    np.testing.assert_allclose(Q @ R, A, atol=1e-12 * np.linalg.norm(A))
    assert np.array_equal(R, np.triu(R))
    assert np.all(np.diag(R) > 0)
    # deterministic
    Q2, R2 = thin_qr(A)
    assert np.array_equal(Q, Q2) and np.array_equal(R, R2)
    # A·S for a diagonal sign matrix S: the unique positive-diagonal factorisation is
    # (Q S)(S R S), so the result is the same up to exactly those signs and diag stays > 0.
    signs = rng.choice([-1.0, 1.0], size=k)
    Qs, Rs = thin_qr(A * signs)
    assert np.all(np.diag(Rs) > 0)
    np.testing.assert_allclose(Qs, Q * signs, atol=1e-10)
    np.testing.assert_allclose(Rs, signs[:, None] * R * signs, atol=1e-10 * np.linalg.norm(A))


def test_thin_qr_keeps_zero_rows_exactly_zero():
    # Q = A R⁻¹: a zero row of A is a zero row of Q, exactly (thresholding relies on it)
    V = truncate_rows(np.random.default_rng(3).standard_normal((30, 3)), 7)
    Q, R = thin_qr(V)
    assert np.array_equal(np.flatnonzero(np.any(Q != 0, axis=1)), np.flatnonzero(np.any(V != 0, axis=1)))
    np.testing.assert_allclose(Q @ R, V, atol=1e-12)


def test_thin_qr_input_not_modified():
    A = np.random.default_rng(0).standard_normal((6, 3))
    A0 = A.copy()
    thin_qr(A)
    assert np.array_equal(A, A0)


@pytest.mark.parametrize(
    "A",
    [
        np.column_stack([np.arange(1.0, 6), 2 * np.arange(1.0, 6)]),  # dependent columns
        np.column_stack([np.ones(5), np.zeros(5)]),  # a zero column
        np.vstack([[1.0, 2.0, 3.0], np.zeros((5, 3))]),  # only 1 nonzero row for k = 3
        np.zeros((4, 2)),
    ],
)
def test_thin_qr_rank_deficient_raises(A):
    with pytest.raises(np.linalg.LinAlgError, match="rank"):
        thin_qr(A)


def test_thin_qr_after_truncation_with_too_few_rows_raises():
    # thresholding leaves fewer than k independent rows
    V = np.random.default_rng(1).standard_normal((10, 3))
    with pytest.raises(np.linalg.LinAlgError):
        thin_qr(truncate_rows(V, 2))


def test_thin_qr_rejects_wide_input():
    with pytest.raises(ValueError, match="k <= d"):
        thin_qr(np.ones((2, 3)))


# ---------------------------------------------------------------------------------------------
# §8 item 3: Threshold (truncate_rows)
# ---------------------------------------------------------------------------------------------


@given(shape=shapes(min_d=2), seed=seeds, data=st.data())
def test_truncate_rows_properties(shape, seed, data):
    d, k = shape
    s = data.draw(st.integers(0, d))
    V = np.random.default_rng(seed).standard_normal((d, k))
    V0 = V.copy()
    out = truncate_rows(V, s)
    # input untouched, result is a new array
    assert np.array_equal(V, V0)
    assert not np.shares_memory(out, V)
    kept = np.flatnonzero(np.any(out != 0, axis=1))
    assert kept.size == s  # all rows of a Gaussian V are nonzero
    assert np.array_equal(out[kept], V[kept])  # kept rows unchanged, bit for bit
    dropped = np.setdiff1d(np.arange(d), kept)
    norms = np.linalg.norm(V, axis=1)
    if kept.size and dropped.size:
        assert norms[kept].min() >= norms[dropped].max()  # the largest rows are the ones kept
    # idempotent
    assert np.array_equal(truncate_rows(out, s), out)


def test_truncate_rows_full_sparsity_is_identity_copy():
    V = np.random.default_rng(2).standard_normal((7, 2))
    out = truncate_rows(V, 7)
    assert np.array_equal(out, V) and out is not V and not np.shares_memory(out, V)


def test_truncate_rows_tie_break_by_smaller_index():
    # all rows have norm 1: keep the first ŝ
    V = np.array([[1.0, 0], [0, 1.0], [0, -1.0], [-1.0, 0], [0.6, 0.8]])
    assert np.flatnonzero(np.any(truncate_rows(V, 3) != 0, axis=1)).tolist() == [0, 1, 2]
    # a tie at the cut between rows 3 and 1 (both norm 2): row 1 wins
    W = np.array([[0.5, 0], [2.0, 0], [3.0, 0], [0, 2.0], [1.0, 0]])
    assert np.flatnonzero(truncate_rows(W, 2)[:, 0] + truncate_rows(W, 2)[:, 1]).tolist() == [1, 2]
    # 1-D input (k = 1): largest magnitudes, ties to the smaller index
    v = np.array([1.0, -3.0, 3.0, 0.5])
    np.testing.assert_array_equal(truncate_rows(v, 1), [0.0, -3.0, 0.0, 0.0])


def test_truncate_rows_counts_only_available_nonzero_rows():
    V = np.zeros((6, 2))
    V[[1, 4]] = [[1.0, 2.0], [3.0, 0.0]]
    out = truncate_rows(V, 3)  # only 2 nonzero rows exist
    np.testing.assert_array_equal(out, V)


def test_truncate_rows_rejects_bad_sparsity():
    with pytest.raises(ValueError, match="n_rows"):
        truncate_rows(np.ones((4, 2)), 5)
    with pytest.raises(TypeError, match="n_rows"):
        truncate_rows(np.ones((4, 2)), 2.0)


# ---------------------------------------------------------------------------------------------
# §8 item 4 / §4: distances and principal angles
# ---------------------------------------------------------------------------------------------


def _pair(d, k, seed):
    rng = np.random.default_rng(seed)
    return random_orthonormal(d, k, rng), random_orthonormal(d, k, rng)


@given(shape=shapes(min_d=2), seed=seeds)
def test_distance_identities(shape, seed):
    d, k = shape
    U, V = _pair(d, k, seed)
    D = subspace_distance(U, V)
    PU, PV = U @ U.T, V @ V.T
    assert D == pytest.approx(subspace_distance(V, U), abs=1e-12)
    assert D == pytest.approx(np.linalg.norm(PU - PV, "fro") / math.sqrt(2), abs=1e-12)
    assert D == pytest.approx(math.sqrt(max(0.0, k - np.linalg.norm(U.T @ V, "fro") ** 2)), abs=1e-7)
    assert D == pytest.approx(np.linalg.norm((np.eye(d) - PV) @ U, "fro"), abs=1e-12)
    # the three kinds
    assert subspace_distance(U, V, kind="projection") == pytest.approx(math.sqrt(2) * D, abs=1e-12)
    theta = principal_angles(U, V)
    assert D == pytest.approx(math.sqrt(np.sum(np.sin(theta) ** 2)), abs=1e-12)
    max_angle = subspace_distance(U, V, kind="max_angle")
    assert max_angle == pytest.approx(np.sin(theta.max()), abs=1e-12)
    assert max_angle == pytest.approx(np.linalg.norm(PU - PV, 2), abs=1e-12)
    # range
    assert -1e-15 <= D <= math.sqrt(min(k, d - k)) + 1e-12


@given(shape=shapes(min_d=2), seed=seeds)
def test_distance_invariant_to_basis_change_and_accepts_rows(shape, seed):
    d, k = shape
    U, V = _pair(d, k, seed)
    O = random_orthonormal(k, k, seed + 1)  # Haar orthogonal k×k
    for kind in ("sin_theta", "projection", "max_angle"):
        ref = subspace_distance(U, V, kind=kind)
        assert subspace_distance(U @ O, V, kind=kind) == pytest.approx(ref, abs=1e-12)
        assert subspace_distance(U, V @ O, kind=kind) == pytest.approx(ref, abs=1e-12)
        # (k, d) inputs like components_ give the same value
        assert subspace_distance(U.T, V.T, kind=kind) == pytest.approx(ref, abs=1e-14)
        assert subspace_distance(U.T, V, kind=kind) == pytest.approx(ref, abs=1e-14)


@given(shape=shapes(min_d=2), seed=seeds)
def test_distance_to_itself_is_zero(shape, seed):
    d, k = shape
    U = random_orthonormal(d, k, seed)
    for kind in ("sin_theta", "projection", "max_angle"):
        assert subspace_distance(U, U, kind=kind) <= 1e-12


@given(d=st.integers(2, 12), seed=seeds, data=st.data())
def test_orthogonal_subspaces_give_sqrt_k(d, seed, data):
    k = data.draw(st.integers(1, d // 2))
    W = random_orthonormal(d, d, seed)
    U, V = W[:, :k], W[:, k : 2 * k]
    assert subspace_distance(U, V) == pytest.approx(math.sqrt(k), abs=1e-12)
    assert subspace_distance(U, V, kind="projection") == pytest.approx(math.sqrt(2 * k), abs=1e-12)
    assert subspace_distance(U, V, kind="max_angle") == pytest.approx(1.0, abs=1e-12)


def test_distance_k1_ignores_sign():
    u = np.array([1.0, 0.0, 0.0])
    v = np.array([0.6, 0.8, 0.0])
    assert subspace_distance(u[:, None], v[:, None]) == pytest.approx(0.8)
    assert subspace_distance(u[:, None], -v[:, None]) == pytest.approx(0.8)


def test_distance_rejects_non_orthonormal_and_mismatched():
    with pytest.raises(ValueError, match="orthonormal"):
        subspace_distance(np.ones((4, 1)), np.eye(4)[:, :1])
    with pytest.raises(ValueError, match="same"):
        subspace_distance(np.eye(5)[:, :2], np.eye(5)[:, :1])
    with pytest.raises(ValueError, match="kind"):
        subspace_distance(np.eye(3)[:, :1], np.eye(3)[:, :1], kind="chordal")


@given(shape=shapes(min_d=2), seed=seeds)
def test_principal_angles_agree_with_scipy(shape, seed):
    d, k = shape
    U, V = _pair(d, k, seed)
    ours = principal_angles(U, V)
    assert np.all(np.diff(ours) >= -1e-15)  # ascending
    # scipy itself is only ~1e-8 accurate for angles that are exactly 0 (seen at d=5, k=4)
    np.testing.assert_allclose(ours, np.sort(linalg.subspace_angles(U, V)), atol=1e-7)
    # two k-subspaces of R^d share at least 2k − d dimensions: those angles are exactly 0
    assert np.all(ours[: max(0, 2 * k - d)] <= 1e-12)


def test_principal_angles_and_distance_accurate_for_tiny_angles():
    # Angles 1e-9 and 3e-5 in a randomly rotated frame.  sqrt(k − ‖UᵀV‖²_F) would return
    # ~1e-8 garbage here (cancellation in 1 − cos²); the residual-based formulas must not.
    d = 6
    a, b = 1e-9, 3e-5
    E = np.eye(d)
    U0 = E[:, :2]
    V0 = np.column_stack([math.cos(a) * E[:, 0] + math.sin(a) * E[:, 2], math.cos(b) * E[:, 1] + math.sin(b) * E[:, 3]])
    W = random_orthonormal(d, d, 7)
    U, V = W @ U0, W @ V0
    np.testing.assert_allclose(principal_angles(U, V), [a, b], rtol=1e-6)
    assert subspace_distance(U, V) == pytest.approx(math.hypot(math.sin(a), math.sin(b)), rel=1e-6)
    u, v = U[:, :1], V[:, :1]
    assert principal_angles(u, v)[0] == pytest.approx(a, rel=1e-6)
    assert subspace_distance(u, v) == pytest.approx(a, rel=1e-6)
    assert subspace_distance(u, v, kind="max_angle") == pytest.approx(a, rel=1e-6)


# ---------------------------------------------------------------------------------------------
# Random subspaces
# ---------------------------------------------------------------------------------------------


def test_random_subspace_distance_reference():
    # §4: E D² = k(d − k)/d; d = 1000, k = 5 gives √4.975 = 2.2305
    assert random_subspace_distance(1000, 5) == pytest.approx(2.23, abs=5e-3)
    assert random_subspace_distance(1000, 5) == pytest.approx(math.sqrt(5 * 995 / 1000), rel=1e-15)
    assert random_subspace_distance(1000, 5, kind="projection") == pytest.approx(math.sqrt(2 * 5 * 995 / 1000))
    # sin θ_max: one angle when min(k, d − k) = 1, so E sin²θ_max = k(d − k)/d exactly (d = 3,
    # k = 2: √(2/3)); otherwise (d − k)/d = E D²/k ≤ E sin²θ_max ≤ 1 (the largest of k sines²)
    assert random_subspace_distance(3, 2, kind="max_angle") == pytest.approx(math.sqrt(2 / 3), rel=1e-15)
    assert random_subspace_distance(10, 1, kind="max_angle") == pytest.approx(math.sqrt(9 / 10), rel=1e-15)
    level = random_subspace_distance(1000, 5, kind="max_angle")
    assert math.sqrt(995 / 1000) <= level <= 1.0


def test_random_subspaces_mean_squared_distance_monte_carlo():
    # N independent Haar subspaces V against a fixed U: the sample mean of D² estimates
    # E D² = k(d − k)/d = 2.55 (d = 20, k = 3).  Its standard error is s/√N with s the sample
    # standard deviation of D²; we accept |mean − 2.55| ≤ 4 SE (false alarm ≈ 6e-5 under the
    # CLT).  With N = 4000, SE ≈ 0.006, so e.g. a non-Haar sampler biased by a few % fails.
    d, k, N = 20, 3, 4000
    rng = np.random.default_rng(20240)
    U = random_orthonormal(d, k, rng)
    D2 = np.array([subspace_distance(U, random_orthonormal(d, k, rng)) ** 2 for _ in range(N)])
    se = D2.std(ddof=1) / math.sqrt(N)
    assert se < 0.01
    assert abs(D2.mean() - k * (d - k) / d) <= 4 * se
    assert math.sqrt(D2.mean()) == pytest.approx(random_subspace_distance(d, k), abs=4 * se)


def test_random_orthonormal_is_orthonormal_and_seeded():
    Q = random_orthonormal(9, 4, 3)
    np.testing.assert_allclose(Q.T @ Q, np.eye(4), atol=1e-12)
    assert np.array_equal(Q, random_orthonormal(9, 4, 3))
    assert not np.array_equal(Q, random_orthonormal(9, 4, 4))


# ---------------------------------------------------------------------------------------------
# top_eigenvectors, fix_signs
# ---------------------------------------------------------------------------------------------


def test_top_eigenvectors_algebraically_largest_of_indefinite_matrix():
    W = random_orthonormal(5, 5, 11)
    eig = np.array([-10.0, 5.0, 1.0, -3.0, 0.5])
    A = (W * eig) @ W.T
    values, V = top_eigenvectors(A, 2)
    np.testing.assert_allclose(values, [5.0, 1.0], atol=1e-12)  # not −10 (largest |·|)
    assert V.shape == (5, 2)
    np.testing.assert_allclose(V.T @ V, np.eye(2), atol=1e-12)
    assert subspace_distance(V, W[:, [1, 2]]) < 1e-12
    np.testing.assert_allclose(A @ V, V * values, atol=1e-12)
    # signs fixed: the largest-|·| entry of each column is positive
    assert np.all(V[np.argmax(np.abs(V), axis=0), [0, 1]] > 0)


@pytest.mark.parametrize("d", [1, 2, 20, 64, 65, 130])
def test_top_eigenvectors_is_scipy_eigh_of_the_largest(d):
    # LAPACK dsyevr called as scipy.linalg.eigh(subset_by_index=…, driver="evr") calls it (its
    # workspace query made once per d): the same eigenpairs, descending, signs fixed.  d = 65 and
    # 130 take LAPACK's blocked reduction, which needs the optimal workspace.
    from scipy import linalg

    A = np.random.default_rng(d).standard_normal((d, d))
    A = A + A.T
    for k in sorted({1, min(3, d), d}):
        values, vectors = top_eigenvectors(A, k)
        w, V = linalg.eigh(A, subset_by_index=(d - k, d - 1), lower=False, driver="evr")
        np.testing.assert_allclose(values, w[::-1], rtol=0, atol=1e-12 * np.abs(w).max())
        np.testing.assert_allclose(vectors, fix_signs(V[:, ::-1]), rtol=0, atol=1e-10)
        np.testing.assert_allclose(vectors.T @ vectors, np.eye(k), atol=1e-12)


def test_top_eigenvectors_reads_upper_triangle_only():
    W = random_orthonormal(4, 4, 1)
    A = (W * np.array([4.0, 3.0, 2.0, 1.0])) @ W.T
    B = np.triu(A) + np.tril(np.full((4, 4), 99.0), -1)
    v1, V1 = top_eigenvectors(A, 2)
    v2, V2 = top_eigenvectors(B, 2)
    np.testing.assert_allclose(v1, v2, atol=1e-12)
    np.testing.assert_allclose(V1, V2, atol=1e-12)


@given(shape=shapes(), seed=seeds)
def test_fix_signs(shape, seed):
    d, k = shape
    V = np.random.default_rng(seed).standard_normal((d, k))
    V0 = V.copy()
    F = fix_signs(V)
    assert np.array_equal(V, V0)  # input untouched
    idx = np.argmax(np.abs(F), axis=0)
    assert np.all(F[idx, np.arange(k)] > 0)
    np.testing.assert_array_equal(np.abs(F), np.abs(V))  # only column signs change
    assert np.all(np.all(F == V, axis=0) | np.all(F == -V, axis=0))
    assert np.array_equal(fix_signs(F), F)  # idempotent
    assert np.array_equal(fix_signs(-V), F)  # sign-invariant output


def test_fix_signs_zero_column_and_vector():
    V = np.array([[0.0, -2.0], [0.0, 1.0]])
    np.testing.assert_array_equal(fix_signs(V), [[0.0, 2.0], [0.0, -1.0]])
    np.testing.assert_array_equal(fix_signs(np.array([0.1, -0.5, 0.2])), [-0.1, 0.5, -0.2])
