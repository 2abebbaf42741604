"""Data generators: every function returns a :class:`SyntheticData` with the ground truth.

The true subspace is ``components``, shape ``(n_components, n_features)``: one direction per
row, the orientation of every estimator's ``components_`` (scikit-learn's convention).
"""

from ._base import SyntheticData
from ._elliptical import elliptical, outlier_direction, spike_directions
from ._europe import (EUROPE_POPULATIONS, EUROPE_SOURCES, ChecksumError, EuropeData, europe, europe_data_dir,
                      locate_novembre, novembre_available)
from ._ldp import ldp_spiked, ldp_spiked_model
from ._spiked import spiked_sparse, spiked_sparse_scatter

__all__ = ["SyntheticData", "spiked_sparse", "spiked_sparse_scatter", "ldp_spiked", "ldp_spiked_model", "elliptical",
           "spike_directions", "outlier_direction", "europe", "EuropeData", "EUROPE_POPULATIONS", "EUROPE_SOURCES",
           "ChecksumError", "novembre_available", "locate_novembre", "europe_data_dir"]
