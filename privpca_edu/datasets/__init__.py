"""Data generators: every function returns a :class:`SyntheticData` with the ground truth."""

from ._base import SyntheticData
from ._elliptical import elliptical
from ._europe import EUROPE_POPULATIONS, ChecksumError, EuropeData, europe, novembre_available
from ._ldp import ldp_spiked, ldp_spiked_model
from ._spiked import spiked_sparse, spiked_sparse_scatter

__all__ = ["SyntheticData", "spiked_sparse", "spiked_sparse_scatter", "ldp_spiked", "ldp_spiked_model", "elliptical",
           "europe", "EuropeData", "EUROPE_POPULATIONS", "ChecksumError", "novembre_available"]
