"""The encrypted chapter's experiment twins, figures and dashboard (small sizes, 1024-bit demo keys)."""

import warnings

import numpy as np
import pytest

pytest.importorskip("phe")
pytest.importorskip("sklearn")

from privpca_edu.plotting import protocol as figures  # noqa: E402
from privpca_edu.experiments import protocol as ex  # noqa: E402
from privpca_edu.protocol import protocol_noise  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::privpca_edu.protocol.InsecureKeyWarning")


def test_standins_are_unit_rows_and_owner_splits():
    X, y = ex.load_standin("breast_cancer", n_features=10)
    assert X.shape == (569, 10) and len(y) == 569
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    blocks = ex.hospital_data(5)
    assert len(blocks) == 5 and sum(len(b) for b in blocks) == 569 and min(len(b) for b in blocks) >= 5
    assert [len(b) for b in ex.split_owners(X, samples_per_owner=100)] == [114, 114, 114, 114, 113]
    with pytest.raises(ValueError, match="name"):
        ex.load_standin("iris")


def test_hospitals_twin_caches_phase_one_and_reports_every_party():
    ex.clear_caches()
    first = ex.hospitals_demo(3, 0.5, 1024)
    second = ex.hospitals_demo(3, 2.0, 1024)
    assert not first["cached"] and second["cached"]
    res = second["result"]
    assert res.privacy_.is_private and res.privacy_.model == "distributed"
    by = second["by_party"]
    assert by["proxy"]["plaintexts"] == (569,) and by["proxy"]["n_ciphertexts"] == 3 * 66
    assert by["owner 1"]["n_ciphertexts"] == 0 and by["owner 1"]["public_key"]
    assert by["data user"]["n_ciphertexts"] == 1 + 55 + 10 and not by["data user"]["plaintexts"]
    assert set(second["cv"]) == {"DPDPCA (encrypted, distributed)", "Analyze Gauss (central, uncentred XᵀX)"}
    assert 0 <= first["cv"]["DPDPCA (encrypted, distributed)"] <= 1 + 1e-12
    assert second["notes"] and "INSECURE" in second["notes"][0]
    # both releases decrypt the same cached aggregate: S' = S + σZ with the same seeded Z, so the
    # difference of the two releases is (σ₁ − σ₂)·Z exactly (to encoding precision)
    Z = protocol_noise(10, 1.0, 3, "proxy", random_state=0)[0]
    diff = first["result"].released_matrix_ - second["result"].released_matrix_
    np.testing.assert_allclose(diff, (first["noise_scale"] - second["noise_scale"]) * Z, atol=1e-10)
    # ... which is why it is one simulated draw rescaled, not a sequence of releases: two of them
    # give the statistic back exactly, and the figure says so in a line of text
    X = np.vstack(ex.hospital_data(3))
    Xc = X - X.mean(axis=0)
    s1, s2 = first["noise_scale"], second["noise_scale"]
    recovered = (s2 * first["result"].released_matrix_ - s1 * second["result"].released_matrix_) / (s2 - s1)
    np.testing.assert_allclose(recovered, Xc.T @ Xc, atol=1e-9)
    with pytest.raises(ValueError, match="key_length"):
        ex.hospitals_demo(3, 0.5, 999)
    fig = figures.plot_hospitals(second)
    assert len(fig.axes) == 4  # overlay + three panels
    from matplotlib.text import Text

    texts = " ".join(t.get_text() for t in fig.findobj(Text))
    assert "one simulated noise draw" in texts.lower() and "not a sequence of releases" in texts
    assert "rescaled" in ex.hospitals_demo.__doc__ and "not a sequence of releases" in ex.hospitals_demo.__doc__


def test_dashboard_builds_headless_and_shows_errors_not_tracebacks():
    from privpca_edu.widgets.protocol import hospitals_dashboard

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing may leak to stderr
        dash = hospitals_dashboard(n_owners=3, epsilon=0.5, key_length=1024)
    assert dash.last_error is None and dash.png()[:4] == b"\x89PNG"
    dash.controls["epsilon"].value = 1.0
    assert dash.last_error is None
    dash.refresh(key_length=999)
    assert dash.last_error is not None


def test_timing_captured_variance_and_f1_twins_small():
    t = ex.timing_vs_owners((2, 3), n_features=4, rows_per_owner=10, key_length=1024, chain_repeats=1)
    assert t["n_owners"].tolist() == [2, 3] and t["encryptions_per_owner"] == 15
    assert np.all(t["dpdpca_total"] >= t["dpdpca_parallel"] - 1e-12)
    assert t["chain_hops"].tolist() == [2, 3]
    figures.plot_timing_vs_owners(t)

    cv = ex.captured_variance_vs_epsilon("breast_cancer", epsilons=(0.3, 0.9), n_seeds=3, n_features=10)
    assert cv["delta"] == pytest.approx(1 / 569)
    means = cv["curves"]["classic"]["true_variance"][0]
    assert means.shape == (2,) and np.all((means > 0) & (means <= 1 + 1e-12))
    assert means[1] > means[0]  # more budget, more variance captured (3 seeds, a large gap here)
    figures.plot_captured_variance_vs_epsilon(cv)

    f1 = ex.f1_vs_samples_per_owner("digits", samples_per_owner=(2, 50), n_seeds=1)
    chain = f1["methods"]["PrivateLocalPCA (Gaussian)"][0]
    assert chain[0] < chain[1]  # the chain collapses with 2 rows per owner (2 directions of K)
    assert f1["chain_effective_rank"][0] == 2
    dpd = f1["methods"]["DPDPCA"][0]
    assert dpd[0] == dpd[1]  # DPDPCA does not depend on the split
    figures.plot_f1_vs_samples_per_owner(f1)
