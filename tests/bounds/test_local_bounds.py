"""Wang & Xu (2019), Theorems 1–4: the local-DP lower and upper bounds of bounds.local."""

import math

import pytest

from privpca_edu.bounds import local as B

EIG = [2.0, 2.0, 2.0, 2.0] + [1.0] * 6


def test_theorem_1_and_2():
    lo = B.ldp_lower_bound(10_000, 10, 4, 0.5, EIG)
    assert lo["effective_noise_variance"] == pytest.approx(2.0)
    assert lo["squared_sin_theta"] == pytest.approx(2.0 * 4 * 10 / (10_000 * 0.25))
    assert lo["nonprivate_rate"] / lo["squared_sin_theta"] == pytest.approx(0.25)  # n → nε²
    assert lo["conditions_hold"] and lo["effective_sample_size"] == 2500
    assert lo["projection_distance"] == pytest.approx(math.sqrt(2 * lo["squared_sin_theta"]))
    # halving ε quadruples the bound; a constant scales it
    assert B.ldp_lower_bound(10_000, 10, 4, 0.25, EIG)["squared_sin_theta"] == pytest.approx(4 * lo["squared_sin_theta"])
    assert B.ldp_lower_bound(10_000, 10, 4, 0.5, EIG, constant=3)["squared_sin_theta"] == pytest.approx(
        3 * lo["squared_sin_theta"])
    assert not B.ldp_lower_bound(10_000, 10, 1, 0.5, EIG[:1] + [1.0] * 9)["conditions"]["p/4 <= k <= 3p/4"]
    up = B.local_gaussian_upper_bound(10_000, 10, 4, 0.5, 1e-4, EIG)
    assert up["squared_sin_theta"] == pytest.approx(4 * 4 * 10 * math.log(1e4) / (10_000 * 0.25))
    assert up["gap_to_lower"] == pytest.approx(math.log(1e4) * 2.0)  # log(1/δ)·λ₁/λ_{k+1}
    assert up["numerator_one"] == pytest.approx(up["squared_sin_theta"] / 4)
    tiny = B.local_gaussian_upper_bound(10, 10, 4, 0.1, 1e-4, EIG)
    assert tiny["vacuous"] and tiny["projection_distance"] == pytest.approx(math.sqrt(8))


def test_theorems_3_and_4_and_bad_input():
    eig = [2.0, 2.0] + [1.0] * 398
    lo = B.ldp_sparse_lower_bound(10_000, 400, 2, 10, 0.5, eig)
    assert lo["squared_sin_theta"] == pytest.approx(2.0 * 10 * (2 + math.log(400)) / 2500)
    assert lo["conditions_hold"]
    assert not B.ldp_sparse_lower_bound(10_000, 400, 2, 5, 0.5, eig)["conditions"]["2k <= s-k <= p-k"]
    up = B.local_sparse_upper_bound(10_000, 400, 2, 10, 0.5, eig)
    assert up["squared_sin_theta"] == pytest.approx(4.0 * 100 * math.log(400) / 2500)
    for fn, args in ((B.ldp_sparse_lower_bound, (100, 40, 3, 2, 0.5, EIG * 4)),
                     (B.local_sparse_upper_bound, (100, 40, 3, 41, 0.5, EIG * 4))):
        with pytest.raises(ValueError, match="support_size"):
            fn(*args)
    with pytest.raises(ValueError, match="gap"):
        B.ldp_lower_bound(100, 10, 2, 0.5, [1.0] * 10)
    with pytest.raises(ValueError, match="n_components"):
        B.ldp_lower_bound(100, 10, 10, 0.5, EIG)
    with pytest.raises(ValueError, match="epsilon"):
        B.local_gaussian_upper_bound(100, 10, 4, 0.0, 1e-4, EIG)
