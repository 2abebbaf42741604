r"""DPDPCA's experiments (Wang & Chang 2018, Figs. 3–5) and the chapter's dashboard twin.

The paper's data sets (its Table I) all need downloads: Aloi (LibSVM), Facebook comment volume,
Million Song, CNAE-9, ISOLET and GISETTE (UCI).  The book runs offline, so we use tables bundled
with scikit-learn instead:

======================  ====================  ======================================================
paper                   stand-in here          why
======================  ====================  ======================================================
Fig. 3 (Aloi/Facebook/  synthetic unit-norm    running time depends on M and the owners, not on the
Million Song timing)    rows, M = 20           values; M = 20 keeps real Paillier affordable
Fig. 4 (CNAE, GISETTE,  ``load_digits``        1797 × 64, 10 classes: a classification utility at
ISOLET F1)                                     an M for which encryption takes seconds, not hours
Fig. 5 (Aloi, Facebook, ``load_digits``,       δ = 1/N as in the paper
Million Song CV)        ``load_breast_cancer``
chapter's hospitals     ``load_breast_cancer`` 569 patients (Wisconsin diagnostic), its 10 "mean"
                        (10 mean features)     features; UCI data, CC BY 4.0
======================  ====================  ======================================================

Pre-processing follows the authors' code: standardise every feature, then scale every row to
unit norm.  The row scaling is a per-record map (free in privacy); standardising with the pooled
mean and standard deviation is *not* — a deployment needs public scaling constants.  We use the
pooled ones for simplicity and say so.

scikit-learn is imported lazily (it is needed for the data and the SVM only):
``pip install privpca_edu[book]`` or ``pip install scikit-learn``.

Default sizes are the book's (seconds, 1024-bit demo keys — INSECURE, labelled as such);
``scale="paper"`` asks for paper-like sizes (2048-bit keys, more owners and seeds).
"""

from __future__ import annotations

import functools
import time
import warnings

import numpy as np

from .._validation import PrivacyWarning, check_int, check_option, as_generator, single_threaded_blas
from ..estimators import AnalyzeGauss
from ..estimators.private_local import ChainRankWarning, PrivateLocalPCA
from .. import protocol as _protocol
from ..privacy import dpdpca_noise_scale
from ..protocol.mechanism import (
    PlaintextDPDPCA,
    centred_scatter,
    default_mask_scale,
    owner_shares,
    protocol_noise,
)
from ..protocol.parties import DataOwner, DataUser, Proxy
from ..protocol.run import encrypt_and_aggregate
from ..subspace import top_eigenvectors

__all__ = [
    "PAPER_DATASETS",
    "STAND_INS",
    "SCALES",
    "require_sklearn",
    "load_standin",
    "split_owners",
    "captured_variance",
    "timing_vs_owners",
    "captured_variance_vs_epsilon",
    "f1_vs_samples_per_owner",
    "hospitals_demo",
    "hospital_data",
    "cached_aggregate",
    "clear_caches",
    "KEY_LENGTH_OPTIONS",
]

#: The paper's Table I: name → (features M, rows N, source).
PAPER_DATASETS = {
    "Aloi": (29, 108_000, "LibSVM"),
    "Facebook comment volume": (54, 199_030, "UCI"),
    "Million Song (YearPrediction)": (90, 515_345, "UCI"),
    "CNAE-9": (857, 1080, "UCI"),
    "ISOLET": (617, 7797, "UCI"),
    "GISETTE": (5000, 13_500, "UCI / NIPS 2003"),
}

#: Which offline table stands in for which figure.
STAND_INS = {
    "Fig. 3 (running time vs owners)": "synthetic unit-norm rows, M = 20",
    "Fig. 4 (SVM F1 vs samples per owner)": "scikit-learn load_digits (1797 × 64, 10 classes)",
    "Fig. 5 (captured variance vs ε, δ = 1/N)": "load_digits and load_breast_cancer (569 × 30)",
    "chapter: hospitals": "load_breast_cancer, the 10 'mean' features",
}

#: Book and paper-like sizes of the experiments.
SCALES = {
    "book": dict(key_length=1024, n_owners=(2, 4, 8, 16), n_seeds=5, samples_per_owner=(2, 5, 10, 20, 50, 100)),
    "paper": dict(key_length=2048, n_owners=(2, 4, 8, 16, 32, 64), n_seeds=10,
                  samples_per_owner=(2, 5, 10, 20, 50, 100, 200, 500)),
}

#: Key lengths offered by the chapter's dashboard (bits); 1024 and 1536 are demo sizes.
KEY_LENGTH_OPTIONS = (1024, 1536, 2048)


def require_sklearn():
    """Import scikit-learn or explain how to get it.

    Returns
    -------
    module
        The ``sklearn`` module.

    Raises
    ------
    ImportError
        If scikit-learn is missing; the message says how to install it.
    """
    try:
        import sklearn
    except ImportError as exc:  # pragma: no cover - exercised only without scikit-learn
        raise ImportError(
            "this experiment needs scikit-learn (bundled data sets and the SVM); install it with "
            "'pip install scikit-learn' or 'pip install privpca_edu[book]'"
        ) from exc
    return sklearn


def _standardise_rows(X, mean=None, std=None):
    """Standardise features (with the given or the pooled statistics), then scale rows to unit norm."""
    X = np.asarray(X, dtype=np.float64)
    mean = X.mean(axis=0) if mean is None else mean
    std = X.std(axis=0) if std is None else std
    std = np.where(std > 0, std, 1.0)
    Z = (X - mean) / std
    norms = np.linalg.norm(Z, axis=1, keepdims=True)
    return Z / np.where(norms > 0, norms, 1.0)


@functools.lru_cache(maxsize=8)
def _raw_table(name):
    require_sklearn()
    from sklearn import datasets as skd

    loader = {"digits": skd.load_digits, "breast_cancer": skd.load_breast_cancer}[name]
    data = loader()
    return np.asarray(data.data, dtype=np.float64), np.asarray(data.target)


def load_standin(name="digits", n_features=None):
    """Load a bundled scikit-learn table, standardised and row-normalised: (X, y), rows of norm 1.

    Parameters
    ----------
    name : {"digits", "breast_cancer"}, default="digits"
        The table: digits (1797 × 64) or breast cancer (569 × 30).
    n_features : int or None, default=None
        Keep only the first features (``10`` with breast cancer: the ten "mean" features).

    Returns
    -------
    X : ndarray, shape (n, d)
        Standardised rows of norm 1 (read-only).
    y : ndarray, shape (n,)
        The labels.
    """
    check_option(name, "name", ("digits", "breast_cancer"))
    X, y = _raw_table(name)
    if n_features is not None:
        X = X[:, : check_int(n_features, "n_features", low=1, high=X.shape[1])]
    X = _standardise_rows(X)
    X.setflags(write=False)
    return X, y


def split_owners(X, n_owners=None, samples_per_owner=None):
    """Split rows into contiguous, near-equal owner blocks (``numpy.array_split``), by count or by block size.

    Parameters
    ----------
    X : ndarray, shape (n, d)
        The rows to split.
    n_owners : int or None, default=None
        Number of blocks.
    samples_per_owner : int or None, default=None
        Rows per block instead (n // samples_per_owner blocks, at least one).

    Returns
    -------
    list of ndarray
        The owners' blocks, in order.
    """
    n = X.shape[0]
    if samples_per_owner is not None:
        n_owners = max(1, n // check_int(samples_per_owner, "samples_per_owner", low=1))
    n_owners = check_int(n_owners, "n_owners", low=1, high=n)
    return list(np.array_split(X, n_owners))


def captured_variance(U, S, K=None):
    r"""Compute the share of the best possible variance that the private components capture.

    True-variance captured-variance ratio :math:`\mathrm{tr}(\hat U^\top S\hat U)/\mathrm{tr}(U_K^\top SU_K)`: the private components'
    variance over the best possible.

    Parameters
    ----------
    U : ndarray, shape (d, k)
        The private components (orthonormal columns).
    S : ndarray, shape (d, d)
        The true scatter or covariance.
    K : int or None, default=None
        Number of best directions to compare with (``None``: k).

    Returns
    -------
    float
        The ratio, at most 1.
    """
    U = np.asarray(U)
    K = U.shape[1] if K is None else K
    best = np.sort(np.linalg.eigvalsh(S))[::-1][:K].sum()
    return float(np.trace(U.T @ S @ U) / best)


def _components_for_variance(S, fraction):
    w = np.sort(np.linalg.eigvalsh(S))[::-1]
    w = np.clip(w, 0, None)
    return int(np.searchsorted(np.cumsum(w) / w.sum(), fraction) + 1)


# ---------------------------------------------------------------------------------------------
# Fig. 3: running time against the number of owners
# ---------------------------------------------------------------------------------------------
def timing_vs_owners(n_owners=(2, 4, 8, 16), *, n_features=20, rows_per_owner=50, key_length=1024, epsilon=0.3,
                     delta=1e-5, chain_repeats=5, release_repeats=1, keypair=None, random_state=0):
    """Measure the wall time of DPDPCA (owners in parallel) and of the PrivateLocalPCA chain, against L.

    Real Paillier encryption.  Every owner holds ``rows_per_owner`` unit-norm rows (so N grows
    with L; an owner's cost does not depend on its row count).  The owners of the largest L are
    created and encrypt once; smaller L use the first L of them, so every owner's encryption is
    timed exactly once.  For each L the proxy's aggregation and release and the data user's
    decryption are run and timed.

    DPDPCA's simulated wall time is the slowest owner (owners work at the same time) plus the
    proxy and the data user (medians of ``release_repeats`` runs of their steps);
    ``dpdpca_total`` is the single-machine sum.  The chain's time is the sum of its sites' steps
    (median of ``chain_repeats`` fits).  Key generation is a one-off and
    reported apart.  ``*_hops``: messages on the critical path, for a network-latency model
    (time + hops × latency) — the paper simulated transmission with file I/O.

    Parameters
    ----------
    n_owners : sequence of int, default=(2, 4, 8, 16)
        The numbers of owners L.
    n_features : int, default=20
        Dimension M >= 2.
    rows_per_owner : int, default=50
        Rows per owner.
    key_length : int, default=1024
        Bits of the Paillier modulus (1024: an insecure demo size).
    epsilon : float, default=0.3
        Privacy parameter ε.
    delta : float, default=1e-5
        Privacy parameter δ.
    chain_repeats : int, default=5
        Fits of the chain per L (the median is kept).
    release_repeats : int, default=1
        Runs of the proxy's and data user's steps per L (the median is kept).
    keypair : tuple or None, default=None
        A ``phe`` key pair to reuse.
    random_state : int, default=0
        Seed of the data and the noise.

    Returns
    -------
    dict
        Arrays over ``n_owners`` of the timings and ``*_hops`` counts.
    """
    grid = sorted(int(L) for L in n_owners)
    if not grid or grid[0] < 1:
        raise ValueError(f"n_owners must be positive ints, got {n_owners}")
    rng = as_generator(random_state)
    M = check_int(n_features, "n_features", low=2)
    L_max = grid[-1]
    scales = np.linspace(1.0, 0.2, M)
    data = [rng.normal(size=(rows_per_owner, M)) * scales for _ in range(L_max)]
    data = [D / np.linalg.norm(D, axis=1, keepdims=True) for D in data]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", _protocol.InsecureKeyWarning)
        user = DataUser(key_length, keypair=keypair)
    owners = [DataOwner(D, name=f"owner {l + 1}") for l, D in enumerate(data)]
    ciphertexts, owner_seconds = [], []
    for owner in owners:
        owner.receive_public_key(user.public_key)
        ciphertexts.append(owner.encrypt_shares())
        owner_seconds.append(owner.encrypt_seconds)
    sigma = dpdpca_noise_scale(epsilon, delta)

    out = {key: [] for key in ("dpdpca_parallel", "dpdpca_total", "owner_max", "owner_mean", "proxy", "user",
                               "chain", "chain_per_site")}
    for L in grid:
        proxy_times, user_times = [], []
        for _ in range(check_int(release_repeats, "release_repeats", low=1)):
            proxy = Proxy()
            proxy.receive_public_key(user.public_key)
            for cts in ciphertexts[:L]:
                proxy.receive_shares(cts, M)
            t0 = time.perf_counter()
            proxy.aggregate("tree")
            N = user.decrypt_count(proxy.encrypted_count())
            proxy.learn_count(N)
            enc_R, enc_v = proxy.release(protocol_noise(M, sigma, 1, "proxy", random_state=rng)[0],  # B = 1
                                         mask_scale=default_mask_scale(N), secret=_protocol.new_secret())
            proxy_times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            S_prime, _, _ = user.decrypt_release(enc_R, enc_v, M)
            np.linalg.eigh(S_prime)
            user_times.append(time.perf_counter() - t0)
        t_proxy, t_user = float(np.median(proxy_times)), float(np.median(user_times))
        times = owner_seconds[:L]
        out["owner_max"].append(max(times))
        out["owner_mean"].append(float(np.mean(times)))
        out["proxy"].append(t_proxy)
        out["user"].append(t_user)
        out["dpdpca_parallel"].append(max(times) + t_proxy + t_user)
        out["dpdpca_total"].append(sum(times) + t_proxy + t_user)
        chain_times = []
        with warnings.catch_warnings(), single_threaded_blas():
            warnings.simplefilter("ignore", PrivacyWarning)
            warnings.simplefilter("ignore", ChainRankWarning)
            for r in range(chain_repeats):
                est = PrivateLocalPCA(2, epsilon=epsilon, delta=delta, random_state=r).fit(data[:L])
                chain_times.append(est.chain_seconds_)
        out["chain"].append(float(np.median(chain_times)))
        out["chain_per_site"].append(float(np.median(chain_times)) / L)
    result = {key: np.array(value) for key, value in out.items()}
    result.update(
        n_owners=np.array(grid), dpdpca_hops=np.full(len(grid), 5), chain_hops=np.array(grid),
        keygen=user.keygen_seconds, key_length=user.key_length, n_features=M, rows_per_owner=rows_per_owner,
        encryptions_per_owner=M * (M + 1) // 2 + M + 1, gmpy2=_protocol.gmpy2_in_use(), epsilon=epsilon, delta=delta,
    )
    return result


# ---------------------------------------------------------------------------------------------
# Fig. 5: captured variance against ε, δ = 1/N
# ---------------------------------------------------------------------------------------------
def captured_variance_vs_epsilon(dataset="digits", *, epsilons=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
                                 n_seeds=10, n_owners=10, variance_kept=0.9, calibrations=("classic", "paper"),
                                 delta=None, n_features=None, random_state=0):
    r"""Compute the captured variance of DPDPCA's components against ε (the paper's Fig. 5), δ = 1/N by default.

    K is the number of principal components reaching ``variance_kept`` of the variance on the
    non-private data (the authors' 90 % rule).  Two metrics: ``"true_variance"``
    :math:`\mathrm{tr}(\hat U^\top S\hat U)/\mathrm{tr}(U_K^\top SU_K)` and the authors'
    ``"noisy_eigen_ratio"`` :math:`\sum_{j\le K}\tilde\lambda_j^+/\sum_j\tilde\lambda_j^+` over the
    positive parts of S′'s eigenvalues (``DPDPCAResult.explained_variance_ratio_``).  The
    authors' code divides by the trace of S′ instead, which is meaningless once the noise makes
    S′ indefinite (at small ε it even turns negative), so we clip.

    The releases come from :class:`~privpca_edu.protocol.PlaintextDPDPCA` — the protocol's
    noise and arithmetic without the Paillier layer, which decrypts to the same S′ up to the
    last digit of each noise entry (tested) — so the sweep costs milliseconds.  ``calibration="paper"`` (Δ = 1) is
    shown for comparison only: it is **not** differentially private.

    Parameters
    ----------
    dataset : {"digits", "breast_cancer"}, default="digits"
        The table (:func:`load_standin`).
    epsilons : sequence of float, default=(0.1, 0.2, …, 0.9)
        The ε values.
    n_seeds : int, default=10
        Releases per ε.
    n_owners : int, default=10
        Number of owners.
    variance_kept : float, default=0.9
        K reaches this share of the non-private variance.
    calibrations : sequence of str, default=("classic", "paper")
        The calibrations compared (``"paper"`` is not private).
    delta : float or None, default=None
        Privacy parameter δ (``None``: 1/N).
    n_features : int or None, default=None
        As :func:`load_standin`.
    random_state : int, default=0
        Seed of the noise.

    Returns
    -------
    dict
        ``epsilons``, ``K``, ``delta``, ``N``, ``M`` and, per calibration and metric, arrays of means
        and standard deviations over seeds.
    """
    X, _ = load_standin(dataset, n_features)
    N, M = X.shape
    delta = 1.0 / N if delta is None else delta
    owners = split_owners(X, n_owners)
    S = centred_scatter(*_sum_shares(owners))
    K = _components_for_variance(S, variance_kept)
    rng = as_generator(random_state)
    seeds = rng.integers(0, 2**31, size=n_seeds)
    result = dict(dataset=dataset, epsilons=np.asarray(epsilons, dtype=float), K=K, delta=delta, N=N, M=M,
                  n_owners=n_owners, curves={})
    for calibration in calibrations:
        true_v = np.empty((len(epsilons), n_seeds))
        noisy = np.empty_like(true_v)
        for i, eps in enumerate(epsilons):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PrivacyWarning)
                mech = PlaintextDPDPCA(K, epsilon=eps, delta=delta, n_owners=n_owners, calibration=calibration)
                for j, seed in enumerate(seeds):
                    S_prime = mech.release(owners, random_state=int(seed))
                    w, V = np.linalg.eigh(S_prime)
                    w, V = w[::-1], V[:, ::-1]
                    true_v[i, j] = captured_variance(V[:, :K], S, K)
                    positive = np.clip(w, 0.0, None)
                    noisy[i, j] = positive[:K].sum() / positive.sum() if positive.sum() > 0 else 0.0
        result["curves"][calibration] = dict(
            true_variance=(true_v.mean(axis=1), true_v.std(axis=1)),
            noisy_eigen_ratio=(noisy.mean(axis=1), noisy.std(axis=1)),
            sigma=np.array([_sigma_quiet(e, delta, calibration) for e in epsilons]),
        )
    return result


def _sigma_quiet(epsilon, delta, calibration):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        return dpdpca_noise_scale(epsilon, delta, calibration=calibration)


def _sum_shares(owners):
    R, v, N = 0.0, 0.0, 0
    for P in owners:
        r, s, n = owner_shares(P)
        R, v, N = R + r, v + s, N + n
    return R, v, N


# ---------------------------------------------------------------------------------------------
# Fig. 4: SVM F1 against samples per owner
# ---------------------------------------------------------------------------------------------
def f1_vs_samples_per_owner(dataset="digits", *, samples_per_owner=(2, 5, 10, 20, 50, 100), epsilon=0.5, delta=1e-5,
                            n_seeds=3, variance_kept=0.8, include_wishart=False, svm_C=10.0, average="macro",
                            test_size=0.2, random_state=0):
    """Score a downstream RBF SVM (F1) on private components against the number of samples per owner (Fig. 4).

    80/20 train/test split (seeded); features standardised with the *training* statistics, rows
    scaled to unit norm; K = the number of components reaching ``variance_kept`` of the
    training variance (the authors' 80 % rule).  The training rows are split into owners of
    ``samples_per_owner`` rows each.  Methods: non-private PCA (the ceiling), DPDPCA (its
    release does not depend on the split: one curve per seed, flat by construction) and the
    PrivateLocalPCA chain (correct Gaussian noise; with ``include_wishart`` also the retracted
    Wishart version, not private).  The chain is scored on the ``effective_rank_`` directions it
    actually kept (as the authors projected on their final summary); when owners hold fewer than
    K rows that is fewer than K — the collapse of the paper's Fig. 4.  SVM: ``sklearn.svm.SVC(kernel="rbf", C=svm_C,
    gamma="scale")`` — fixed hyper-parameters where the paper grid-searched; F1 averaged
    ``average`` over classes (the paper does not say; macro by default).

    Parameters
    ----------
    dataset : {"digits", "breast_cancer"}, default="digits"
        The table (:func:`load_standin`).
    samples_per_owner : sequence of int, default=(2, 5, 10, 20, 50, 100)
        The owners' sizes.
    epsilon : float, default=0.5
        Privacy parameter ε.
    delta : float, default=1e-5
        Privacy parameter δ.
    n_seeds : int, default=3
        Repetitions.
    variance_kept : float, default=0.8
        K reaches this share of the training variance.
    include_wishart : bool, default=False
        Also score the retracted Wishart chain (not private).
    svm_C : float, default=10.0
        The SVM's C.
    average : str, default="macro"
        F1 averaging over classes (:func:`sklearn.metrics.f1_score`).
    test_size : float, default=0.2
        Share of the rows held out for testing.
    random_state : int, default=0
        Seed of the split and the noise.

    Returns
    -------
    dict
        ``samples_per_owner``, ``K`` and ``methods`` → (mean, sd) arrays of F1, with the settings.
    """
    require_sklearn()
    from sklearn.metrics import f1_score
    from sklearn.svm import SVC

    raw, y = _raw_table(dataset)
    rng = as_generator(random_state)
    perm = rng.permutation(len(raw))
    n_test = int(round(test_size * len(raw)))
    test, train = perm[:n_test], perm[n_test:]
    mean, std = raw[train].mean(axis=0), raw[train].std(axis=0)
    X_train = _standardise_rows(raw[train], mean, std)
    X_test = _standardise_rows(raw[test], mean, std)
    y_train, y_test = y[train], y[test]
    Xc = X_train - X_train.mean(axis=0)
    S = Xc.T @ Xc
    K = _components_for_variance(S, variance_kept)
    seeds = rng.integers(0, 2**31, size=n_seeds)

    def f1(U):
        clf = SVC(kernel="rbf", C=svm_C, gamma="scale").fit(X_train @ U, y_train)
        return f1_score(y_test, clf.predict(X_test @ U), average=average)

    methods = {"PCA (non-private)": [], "DPDPCA": [], "PrivateLocalPCA (Gaussian)": []}
    if include_wishart:
        methods["PrivateLocalPCA (Wishart, retracted)"] = []
    with single_threaded_blas():
        pca_f1 = f1(top_eigenvectors(S, K)[1])
        dpd = []
        for seed in seeds:
            S_prime = PlaintextDPDPCA(K, epsilon=epsilon, delta=delta).release(X_train, random_state=int(seed))
            dpd.append(f1(top_eigenvectors(S_prime, K)[1]))
        chain_rank = []
        for spo in samples_per_owner:
            owners = split_owners(X_train, samples_per_owner=spo)
            methods["PCA (non-private)"].append([pca_f1])
            methods["DPDPCA"].append(dpd)
            chain, wish, kept = [], [], []
            for seed in seeds:
                with warnings.catch_warnings():  # the collapse is what this figure shows (effective_rank_)
                    warnings.simplefilter("ignore", ChainRankWarning)
                    est = PrivateLocalPCA(K, epsilon=epsilon, delta=delta, random_state=int(seed)).fit(owners)
                chain.append(f1(est.components_[: est.effective_rank_].T))
                kept.append(est.effective_rank_)
                if include_wishart:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", PrivacyWarning)
                        warnings.simplefilter("ignore", ChainRankWarning)
                        est = PrivateLocalPCA(K, epsilon=epsilon, noise="wishart_retracted",
                                              random_state=int(seed)).fit(owners)
                    wish.append(f1(est.components_[: est.effective_rank_].T))
            methods["PrivateLocalPCA (Gaussian)"].append(chain)
            chain_rank.append(float(np.mean(kept)))
            if include_wishart:
                methods["PrivateLocalPCA (Wishart, retracted)"].append(wish)
    summary = {name: (np.array([np.mean(v) for v in vals]), np.array([np.std(v) for v in vals]))
               for name, vals in methods.items()}
    return dict(dataset=dataset, samples_per_owner=np.asarray(samples_per_owner), K=K, epsilon=epsilon, delta=delta,
                n_train=len(train), n_test=n_test, methods=summary, average=average,
                chain_effective_rank=np.array(chain_rank))


# ---------------------------------------------------------------------------------------------
# The chapter's dashboard twin: hospitals
# ---------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=4)
def hospital_data(n_owners, data_seed=0):
    """Deal the breast-cancer records to ``n_owners`` hospitals.

    The breast-cancer records (10 mean features, unit rows) shuffled and dealt to ``n_owners``
    hospitals of unequal sizes (a seeded Dirichlet split, every hospital ≥ 5 records).

    Parameters
    ----------
    n_owners : int
        Number of hospitals, 1 <= L <= n/5.
    data_seed : int, default=0
        Seed of the shuffle and the split.

    Returns
    -------
    tuple of ndarray
        One (read-only) block of rows per hospital.
    """
    X, y = load_standin("breast_cancer", n_features=10)
    rng = np.random.default_rng(data_seed)
    perm = rng.permutation(len(X))
    L = check_int(n_owners, "n_owners", low=1, high=len(X) // 5)
    weights = rng.dirichlet(np.full(L, 3.0))
    sizes = 5 + np.floor(weights * (len(X) - 5 * L)).astype(int)
    sizes[-1] += len(X) - sizes.sum()
    cuts = np.cumsum(sizes)[:-1]
    blocks = [X[idx] for idx in np.split(perm, cuts)]
    for b in blocks:
        b.setflags(write=False)
    return tuple(blocks)


@functools.lru_cache(maxsize=6)
def cached_aggregate(n_owners, key_length, data_seed=0):
    """Run phase 1 of the protocol for the hospitals, cached per (owners, key length).

    What is cached is what the proxy holds after aggregation — ciphertexts and the public count
    N — plus the data user's key pair.  No plaintext statistic is cached.

    Parameters
    ----------
    n_owners : int
        Number of hospitals.
    key_length : int
        Bits of the Paillier modulus.
    data_seed : int, default=0
        Seed of :func:`hospital_data`.

    Returns
    -------
    aggregate : EncryptedAggregate
        The state after phase 1.
    seconds : float
        How long phase 1 took.
    """
    blocks = hospital_data(n_owners, data_seed)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", _protocol.InsecureKeyWarning)  # reported by hospitals_demo instead
        aggregate = encrypt_and_aggregate(list(blocks), key_length)
    return aggregate, time.perf_counter() - t0


@functools.lru_cache(maxsize=8)
def _central_curves(n_components, delta, n_seeds, data_seed=0):
    """CV against ε for DPDPCA (any split) and central Analyze Gauss on the pooled records."""
    X, _ = load_standin("breast_cancer", n_features=10)
    Xc = X - X.mean(axis=0)
    S = Xc.T @ Xc
    grid = np.logspace(-1, 1, 13)
    dpd = np.empty((len(grid), n_seeds))
    ag = np.empty_like(dpd)
    for i, eps in enumerate(grid):
        mech = PlaintextDPDPCA(n_components, epsilon=eps, delta=delta, calibration="analytic")
        for s in range(n_seeds):
            dpd[i, s] = captured_variance(top_eigenvectors(mech.release(X, random_state=1000 + s), n_components)[1], S)
            est = AnalyzeGauss(n_components, epsilon=eps, delta=delta, calibration="analytic",
                               random_state=1000 + s).fit(X)
            ag[i, s] = captured_variance(est.components_.T, S)
    return grid, dpd.mean(axis=1), ag.mean(axis=1), S


def hospitals_demo(n_owners=5, epsilon=0.5, key_length=1024, *, delta=1e-5, n_components=2, calibration="analytic",
                   seed=0, n_curve_seeds=10, data_seed=0):
    r"""Twin of the chapter's dashboard: one encrypted DPDPCA run over hospitals, party by party.

    Phase 1 (keys, encryption by every hospital, aggregation) is cached per
    (``n_owners``, ``key_length``) by :func:`cached_aggregate`; moving ε re-runs only phase 2
    (the proxy's masking and noise under encryption, the data user's decryption).

    **One simulated noise draw, rescaled.**  Phase 2 draws its noise from ``seed``, so every ε
    shows S + σ(ε)·Z with the *same* Z (common random numbers: the picture moves smoothly with
    ε).  That is a what-if over ε, not a sequence of releases: two such releases at ε₁ ≠ ε₂ give
    the statistic back exactly, :math:`S = (\sigma_2 S'_1 - \sigma_1 S'_2)/(\sigma_2 - \sigma_1)`.
    Real releases draw fresh noise each time, and their privacy losses add up.  Also returns
    the captured variance of the same release and of central Analyze Gauss at the same (ε, δ)
    (analytic curves over ε for reference).  The default calibration is ``"analytic"`` (valid for
    every ε the dashboard offers); warnings (e.g. the classic formula at ε ≥ 1, or
    ``calibration="paper"``) are raised, and the dashboard prints them on the figure.

    Parameters
    ----------
    n_owners : int, default=5
        Number of hospitals.
    epsilon : float, default=0.5
        Privacy parameter ε.
    key_length : int, default=1024
        Bits of the Paillier modulus (1024: an insecure demo size).
    delta : float, default=1e-5
        Privacy parameter δ.
    n_components : int, default=2
        Number of components k.
    calibration : {"analytic", "classic", "paper"}, default="analytic"
        The σ calibration.
    seed : int, default=0
        Seed of phase 2 (the noise and the mask).
    n_curve_seeds : int, default=10
        Seeds of the reference curves over ε.
    data_seed : int, default=0
        Seed of :func:`hospital_data`.

    Returns
    -------
    dict
        ``result`` (the DPDPCAResult), ``by_party`` (what each party received), ``owner_sizes``,
        ``cv`` (this run: DPDPCA, Analyze Gauss), ``curves``, ``timings``, ``cached`` (whether phase 1
        came from the cache) and ``notes``.
    """
    if key_length not in KEY_LENGTH_OPTIONS:
        raise ValueError(f"key_length must be one of {', '.join(map(str, KEY_LENGTH_OPTIONS))} bits, got {key_length!r}")
    hits = cached_aggregate.cache_info().hits
    aggregate, phase1_seconds = cached_aggregate(int(n_owners), int(key_length), data_seed)
    cached = cached_aggregate.cache_info().hits > hits
    notes = []
    if key_length < _protocol.SECURE_KEY_LENGTH:
        notes.append(f"{key_length}-bit key: INSECURE demo size (real use: ≥ 2048 bits)")
    result = aggregate.release(n_components, epsilon, delta, calibration=calibration, random_state=seed)
    grid, dpd_curve, ag_curve, S = _central_curves(n_components, delta, n_curve_seeds, data_seed)
    X = np.vstack(hospital_data(int(n_owners), data_seed))
    ag = AnalyzeGauss(n_components, epsilon=epsilon, delta=delta,
                      calibration="analytic" if calibration == "analytic" else "classic", random_state=seed).fit(X)
    cv = {"DPDPCA (encrypted, distributed)": captured_variance(result.components_.T, S),
          "Analyze Gauss (central, uncentred XᵀX)": captured_variance(ag.components_.T, S)}
    t = result.timings_
    timings = {"key generation": t["keygen"], "slowest hospital": max(t["owners"]),
               "proxy: aggregate + count": t["proxy_aggregate"] + t["count"], "proxy: mask, G, noise": t["proxy_release"],
               "data user: decrypt + EVD": t["user"]}
    return dict(
        result=result, by_party=result.transcript.by_party(), owner_sizes=[len(b) for b in hospital_data(int(n_owners), data_seed)],
        cv=cv, curves=dict(epsilon=grid, dpdpca=dpd_curve, analyze_gauss=ag_curve, calibration="analytic"),
        timings=timings, phase1_seconds=phase1_seconds, cached=cached, epsilon=epsilon, delta=delta,
        key_length=int(key_length), n_owners=int(n_owners), noise_scale=result.noise_scale_,
        ag_noise_scale=ag.noise_scale_ * X.shape[0], notes=notes,
    )


def clear_caches():
    """Forget cached data, encryptions and curves (e.g. to time a cold run)."""
    for f in (hospital_data, cached_aggregate, _central_curves, _raw_table):
        f.cache_clear()
