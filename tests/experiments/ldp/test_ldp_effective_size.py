"""experiments.ldp.effective_size: local noise depends on nε², central on nε (exactly)."""

import numpy as np
import pytest

from privpca_edu.experiments import ldp as L

pytestmark = pytest.mark.filterwarnings("ignore:the classic Gaussian mechanism is proved only")


def test_effective_sample_size_noise_scales_exactly():
    res = L.effective_sample_size(epsilons=(0.5, 2.0), n_values=(1000, 100_000), n_repeats=2)
    n, eps = res["n"], res["epsilons"][:, None]
    # local noise sd ∝ 1/(ε√n): depends on nε² only; central ∝ 1/(nε): on nε only (same constant)
    local_const = res["local_noise_sd"] * eps * np.sqrt(n)
    central_const = res["central_noise_sd"] * eps * n
    np.testing.assert_allclose(local_const, local_const[0, 0], rtol=1e-12)
    np.testing.assert_allclose(central_const, local_const[0, 0], rtol=1e-12)  # central at √n users = local at n
    assert res["local"].shape == res["central"].shape == (2, 2)
    # at n = 10⁵ the central error is small and the local one still near the random level
    assert np.all(res["local"][:, -1] > res["central"][:, -1] + 0.5)
