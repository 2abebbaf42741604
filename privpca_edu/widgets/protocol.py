"""The encrypted-distributed chapter's dashboard (twin: :func:`privpca_edu.experiments.protocol.hospitals_demo`).

Real Paillier encryption is slow, so the twin caches the expensive phase 1 — every hospital's
encryption and the proxy's aggregation, i.e. ciphertexts and the public count N — per
(number of hospitals, key length).  Moving ε re-runs only phase 2 (mask, correction and noise at
the proxy, decryption at the data user): about a tenth of a second at the default sizes.

The noise is one seeded draw Z rescaled by σ(ε) at every slider position (common random numbers,
so the picture moves smoothly): a what-if over ε, not a sequence of releases — two such releases
give the statistic back exactly.  The figure says so in a line of text.
"""

from __future__ import annotations

from ..experiments.protocol import KEY_LENGTH_OPTIONS, hospitals_demo
from ..plotting.protocol import HospitalsFigure
from . import controls as C
from .dashboard import Dashboard

__all__ = ["hospitals_dashboard", "OWNER_OPTIONS"]

#: Numbers of hospitals offered by the dashboard.
OWNER_OPTIONS = (2, 3, 5, 8, 12, 20)


def hospitals_dashboard(n_owners=5, epsilon=0.5, key_length=1024, *, delta=1e-5, n_components=2, seed=0):
    """Several hospitals, one PCA: the transcript party by party, accuracy, time.

    Every ε shows the same simulated noise draw, rescaled — not a sequence of releases.

    Controls: number of hospitals, ε (log slider), key length (1024 and 1536 bits are
    INSECURE demo sizes; the dashboard says so on the figure).  δ, k and the seed are fixed.

    Parameters
    ----------
    n_owners : int, default=5
        Starting value of the number of hospitals control.
    epsilon : float, default=0.5
        Starting value of the ε control.
    key_length : int, default=1024
        Starting value of the key length (bits) control.
    delta : float, default=1e-5
        Privacy parameter δ. Fixed for the dashboard (passed to the twin unchanged).
    n_components : int, default=2
        Number of components k. Fixed for the dashboard (passed to the twin unchanged).
    seed : int, default=0
        Seed. Fixed for the dashboard (passed to the twin unchanged).

    Returns
    -------
    Dashboard
        The dashboard (an :class:`ipywidgets.Widget`; display it with :func:`show`).
    """
    controls = {
        "n_owners": C.n_samples_slider(n_owners, options=OWNER_OPTIONS, description="hospitals"),
        "epsilon": C.epsilon_slider(epsilon, min_exp=-1, max_exp=1, step=0.05),
        "key_length": C.method_picker([(f"{k} bits" + (" (demo)" if k < 2048 else ""), k) for k in KEY_LENGTH_OPTIONS],
                                      key_length, description="Paillier key", kind="toggle"),
    }
    return Dashboard(hospitals_demo, HospitalsFigure(), controls,
                     fixed={"delta": delta, "n_components": n_components, "seed": seed})
