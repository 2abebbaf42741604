"""experiments.ldp's shared model: the second moment S drawn from its Wishart law or from rows (same law).

Statistical tolerance: each entry of S = XᵀX/n has variance (Σ_aa Σ_bb + Σ_ab²)/n, so
|S − Σ|_ab ≤ 5 s.d. entrywise (over ≤ 64 entries the chance of any 5-s.d. excursion is < 1e-4).
"""

import math

import numpy as np
import pytest

from privpca_edu.experiments import ldp as L


def test_wishart_and_data_second_moments_have_the_same_law():
    # Both are unbiased for Σ, with entrywise s.d. √((Σ_aa Σ_bb + Σ_ab²)/n): 5-s.d. band (docstring).
    n, p, k = 5000, 8, 2
    for method in ("wishart", "data"):
        out = L.second_moment(n, p, k, gap=10.0, random_state=3, method=method)
        S, Sig = np.asarray(out["second_moment"]), np.asarray(out["covariance"])
        sd = np.sqrt((np.outer(np.diag(Sig), np.diag(Sig)) + Sig**2) / n)
        assert out["method"] == method and np.max(np.abs(S - Sig) / sd) < 5
        assert not out["second_moment"].flags.writeable
    # across 200 seeds the spread of S_00/Σ_00 matches the theory √(2/n) for both methods (±20 %:
    # the sample s.d. of 200 values has relative s.e. 1/√400 = 5 %, so 20 % is 4 s.e.)
    for method in ("wishart", "data"):
        ratios = []
        for seed in range(200):
            out = L.second_moment(400, 4, 1, gap=1.0, random_state=seed, method=method)
            ratios.append(out["second_moment"][0, 0] / out["covariance"][0, 0])
        assert np.mean(ratios) == pytest.approx(1.0, abs=4 * math.sqrt(2 / 400 / 200)), method
        assert np.std(ratios) == pytest.approx(math.sqrt(2 / 400), rel=0.2), method
    with pytest.raises(ValueError, match="wishart"):
        L.second_moment(5, 8, 2, method="wishart")
