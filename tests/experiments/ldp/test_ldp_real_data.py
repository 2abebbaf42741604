"""experiments.ldp.real_data: Table 1's shape on scikit-learn's bundled data sets."""

import math
import sys

import pytest

from privpca_edu.experiments import ldp as L

pytestmark = pytest.mark.filterwarnings("ignore:the classic Gaussian mechanism is proved only")


def test_real_data_table_shape():
    pytest.importorskip("sklearn")
    res = L.real_data_table(datasets=("wine",), sparsity_levels=(3, 5, 20), n_components=5, n_repeats=2)
    row = res["rows"][0]
    assert row["dataset"] == "wine" and row["size"] == (178, 13)
    assert math.isnan(row["sparse"][0]) and all(0 <= v <= row["max_error"] + 1e-12 for v in row["sparse"][1:])
    from privpca_edu.plotting.ldp import format_real_data_table

    text = format_real_data_table(res)
    assert "wine" in text and "(178, 13)" in text and "—" in text


def test_real_data_table_needs_scikit_learn(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        L.real_data_table(datasets=("wine",), n_repeats=1)
