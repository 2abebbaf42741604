"""experiments.ldp.figures: Wang & Xu's Figures 1–2 as error curves (small sizes).

Monotone trends: a mean over R runs has s.e. sd/√R; consecutive grid points may only *rise* by 3
combined s.e.  The means move by ≥ 10 s.e. between the points tested, so a broken trend (e.g.
noise not shrinking with n) fails.
"""

import numpy as np
import pytest

from privpca_edu.experiments import ldp as L
from privpca_edu.subspace import random_subspace_distance

pytestmark = pytest.mark.filterwarnings("ignore:the classic Gaussian mechanism is proved only")


def test_error_curves_shapes_and_monotone_trends():
    # in the demo regime (p = 10, k = 2, Δ = 10): non-increasing in n and in ε.
    res = L.ldp_error_curves("dense", "n", (10_000, 1_000_000, 10_000_000), "epsilon", (2.0, 8.0), n_repeats=10,
                             random_state=0)
    assert res["mean"].shape == res["se"].shape == res["nonprivate"].shape == (2, 3)
    slack = 3 * np.sqrt(res["se"][:, 1:] ** 2 + res["se"][:, :-1] ** 2)
    assert np.all(np.diff(res["mean"], axis=1) <= slack)  # falls with n
    slack_eps = 3 * np.sqrt(res["se"][0] ** 2 + res["se"][1] ** 2)
    assert np.all(res["mean"][1] - res["mean"][0] <= slack_eps)  # falls with ε
    assert res["mean"][1, -1] < res["mean"][1, 0] - 10 * res["se"][1, 0]  # and really moves
    assert np.all(res["mean"] >= res["nonprivate"])  # private is never better than non-private
    assert np.allclose(res["random_level"], random_subspace_distance(10, 2, kind="projection"))
    assert any("ε ≥ 1" in n for n in res["notes"])
    with pytest.raises(ValueError, match="x and curve must differ"):
        L.ldp_error_curves("dense", "n", (10_000,), "n", (10_000,))
    with pytest.raises(ValueError, match="algorithm"):
        L.ldp_error_curves("fancy")


def test_paper_figure_book_scale_and_progress():
    calls = []
    res = L.paper_figure(2, "support_size", n_repeats=1, progress=lambda done, total: calls.append((done, total)))
    assert res["algorithm"] == "sparse" and res["figure"] == 2 and res["scale"] == "book"
    assert res["mean"].shape == (3, 7) and calls[-1] == (21, 21)
    assert np.all(res["iterations"] >= 1)
    with pytest.raises(ValueError, match="panel"):
        L.paper_figure(1, "support_size")
