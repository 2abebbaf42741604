"""The privacy record: what a release promises, checked exactly in one place.

Every privacy record of the package — an estimator's ``privacy_``, the encrypted protocol's
``DPDPCAResult.privacy_``, the per-user calibration :func:`~privpca_edu.privacy.local_noise_scale`
— is a :class:`PrivacyRecord` made by :func:`make_record`, which runs every Gaussian release
through :func:`~privpca_edu.privacy.check_gaussian_guarantee`: ``is_private`` is True only when the
noise actually used provably gives the (ε, δ) recorded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

from .._validation import DIAGNOSTICS_NOTE, diagnostics_enabled
from ._gaussian import check_gaussian_guarantee

__all__ = ["PrivacyRecord", "make_record"]


@dataclass(frozen=True)
class PrivacyRecord(Mapping):
    """What a private release promises, and on what assumptions.

    The one result type of every privacy record (an estimator's ``privacy_``, the encrypted
    protocol's record, :func:`~privpca_edu.privacy.local_noise_scale`).  Make it with
    :func:`make_record`, which checks the claim exactly; the fields below are also its
    attributes, and it is a read-only mapping of them (``record["epsilon"]``, ``dict(record)``,
    :meth:`as_dict`).

    Parameters
    ----------
    model : {"central", "local", "distributed"}
        Who is trusted: a curator (central), nobody (local: each user randomises their own
        record), or no single server (distributed: each provider adds its own noise).
    epsilon, delta : float
        The guarantee for the whole release (``inf`` means no privacy).
    neighbouring : str
        The neighbouring relation the guarantee is proved for ("replace-one").
    data_norm : float
        The public row-norm bound the proof assumes (rows above it were scaled down).
    mechanism : str
        Short name of the mechanism (e.g. "Gaussian mechanism on X^T X / n").
    calibration : str
        How σ was computed ("classic", "analytic", "paper", …).
    sensitivity : float or None
        The ℓ2 sensitivity in the coordinates the noise is added in (None for samplers).
    noise_scale : float or None
        The noise standard deviation used (None for samplers).
    is_private : bool
        True only when the noise actually used provably gives (ε, δ): every record with
        Gaussian noise is checked exactly by :func:`privpca_edu.privacy.check_gaussian_guarantee`
        (one shared place).  False when that check fails, when the calibration or the pipeline
        is known not to be private (a paper's constant kept for reproduction, data-dependent
        scaling), or when ε = inf.
    note : str
        Anything the user must know (e.g. "not differentially private: …").
    n_releases : int
        How many times a Gaussian release of this sensitivity and noise scale was made (the T
        adaptive steps of an iterative method; 1 for a one-shot mechanism).
    releases : tuple of (sensitivity, noise_scale, count)
        Every Gaussian release computed from the private data, as checked; empty for
        mechanisms that add no Gaussian noise (samplers).
    exact_delta : float or None
        The exact δ at ε of all Gaussian releases together (Gaussian DP; None without any).
    """

    model: str
    epsilon: float
    delta: float
    neighbouring: str
    data_norm: float | None
    mechanism: str
    calibration: str
    sensitivity: float | None = None
    noise_scale: float | None = None
    is_private: bool = True
    note: str = ""
    n_releases: int = 1
    releases: tuple = ()
    exact_delta: float | None = None

    def __getitem__(self, key):
        """Read a field by name, as from a dict: ``record["epsilon"]`` is ``record.epsilon``.

        Parameters
        ----------
        key : str
            A field name.

        Returns
        -------
        object
            The field's value.
        """
        if not isinstance(key, str) or key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self):
        return (f.name for f in fields(self))

    def __len__(self):
        return len(self.__dataclass_fields__)

    def as_dict(self):
        """All fields as a new dict (e.g. to make a changed record with :func:`make_record`).

        Returns
        -------
        dict
            Field name to value.
        """
        return asdict(self)


def make_record(**fields):
    """Build a :class:`PrivacyRecord`, checking every Gaussian release exactly.

    The one constructor of privacy records: whatever the caller claims, ``is_private`` ends up
    True only if :func:`~privpca_edu.privacy.check_gaussian_guarantee` confirms (ε, δ) for the
    noise actually used; otherwise the record says not private and the note says why.  With
    ε = ∞ (no noise) and inside :func:`~privpca_edu.privacy.diagnostics` the record is never
    private either.

    Parameters
    ----------
    **fields
        The fields of :class:`PrivacyRecord`.  ``releases`` (a sequence of (Δ, σ, count) or
        (Δ, σ)) defaults to one entry ``(sensitivity, noise_scale, n_releases)`` when both are
        given; pass ``releases=()`` for a mechanism that adds no Gaussian noise (a sampler).
        ``exact_delta`` is computed, never taken from the caller.

    Returns
    -------
    PrivacyRecord
        The checked record.

    Examples
    --------
    >>> r = make_record(model="central", epsilon=1.0, delta=1e-5, neighbouring="replace-one",
    ...                 data_norm=1.0, mechanism="Gaussian mechanism", calibration="too little noise",
    ...                 sensitivity=1.0, noise_scale=1.0)
    >>> r.is_private, r["note"].startswith("not (1, 1e-05)-DP")
    (False, True)
    """
    n_rel = int(fields.setdefault("n_releases", 1))
    releases = fields.get("releases")
    if releases is None:
        sens, sigma = fields.get("sensitivity"), fields.get("noise_scale")
        releases = ((float(sens), float(sigma), n_rel),) if sens is not None and sigma is not None else ()
    fields["releases"] = tuple(tuple(r) if len(r) == 3 else (*r, 1) for r in releases)
    notes = [fields["note"]] if fields.get("note") else []
    if diagnostics_enabled() and not math.isinf(fields["epsilon"]):
        fields["is_private"] = False
        if not any(DIAGNOSTICS_NOTE in n for n in notes):  # a record re-made from a record's fields
            notes.insert(0, DIAGNOSTICS_NOTE)
    if math.isinf(fields["epsilon"]):
        fields["is_private"] = False
        fields["releases"] = ()
        if not any("no noise" in n for n in notes):  # first, whatever else the note says
            notes.insert(0, "epsilon=inf: no noise, not differentially private")
        fields["exact_delta"] = None
    elif fields["releases"]:
        g = check_gaussian_guarantee(fields["epsilon"], fields["delta"], fields["releases"])
        fields["exact_delta"] = g.exact_delta
        if not g.holds and fields.get("is_private", True):
            fields["is_private"] = False
            notes.insert(0, g.note)
    fields["note"] = "; ".join(notes)
    return PrivacyRecord(**fields)
