"""Fit time of the private estimators against the floor: one copy of X plus XᵀX (paired, interleaved).

The floor is the work no fit can avoid: one copy of the caller's X (a fit never works on, or
mutates, the caller's array) and the O(nd²) product XᵀX that every second-moment method forms.
Each repeat times the floor and then the fit, back to back, and the ratio fit/floor is taken per
pair, so the load of a shared machine (which changes from second to second) cancels; the script
prints the median fit time, the median floor time and the median of the paired ratios.

A second column divides by the estimator's own core instead: the numerical work of its mechanism
written with plain NumPy/SciPy, as a user would write it for the same private release: the copy
of X with its rows clipped to the public bound (the row norms), XᵀX/n, the noise drawn from a
generator seeded for this fit (``random_state=0``: a generator made per fit), and a top-k
``eigh`` for the noisy-matrix mechanisms; the pair sum for Kendall's τ.  Its ratio is the overhead of the
package around that core (validation, clipping, the privacy record with its exact Gaussian
check, sign fixing).

Also printed: the cost of scikit-learn's parameter check (``BaseEstimator._validate_params``)
against a fit, and what the package does about it (see ``PCABase._validate_params``).

Usage::

    python benchmarks/bench_fit_overhead.py              # d = 20 and d = 60, 200 pairs each
    python benchmarks/bench_fit_overhead.py --quick      # small sizes, 20 pairs (a smoke run)
    python benchmarks/bench_fit_overhead.py --only AnalyzeGauss --pairs 500

One BLAS thread (as the dashboards run).  Not a test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np

try:  # run from a checkout without installing: put the repository root on the path
    import privpca_edu  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from scipy import linalg
from threadpoolctl import threadpool_limits

import privpca_edu as pe
from privpca_edu.estimators import _kendall_pairs, kendall


def _copy_gram(X):
    Y = np.array(X, copy=True)
    return Y, Y.T @ Y


def _clipped_copy(X, bound=1.0):
    """A copy of X with every row of norm > bound scaled down to it (the public bound B = 1)."""
    Y = np.array(X, copy=True)
    norms = np.sqrt(np.einsum("ij,ij->i", Y, Y))
    over = norms > bound
    if over.any():
        Y[over] *= (bound / norms[over])[:, None]
    return Y


def _noisy_top_k(X, k, seed):
    """Plain core of a noisy-matrix mechanism: copy clipped to the bound, XᵀX/n, symmetric noise from
    the seeded generator, top-k eigh."""
    Y = _clipped_copy(X)
    G = Y.T @ Y
    d = G.shape[0]
    rng = np.random.default_rng(seed)
    E = np.triu(rng.standard_normal((d, d)))
    A = G / Y.shape[0] + E + np.triu(E, 1).T
    return linalg.eigh(A, subset_by_index=(d - k, d - 1), check_finite=False, driver="evr")


def _chain_core(X, k, sites, seed):
    """Plain core of PrivateLocalPCA: per site SᵀS + noise and a top-k eigh, then a merge (one more eigh) per site."""
    Y = _clipped_copy(X)
    rng = np.random.default_rng(seed)
    d = Y.shape[1]
    P = None
    for S in np.array_split(Y, sites):
        E = np.triu(rng.standard_normal((d, d)))
        _, U = linalg.eigh(S.T @ S + E + np.triu(E, 1).T, subset_by_index=(d - k, d - 1), check_finite=False,
                           driver="evr")
        if P is not None:
            _, U = linalg.eigh(U @ U.T + P @ P.T, subset_by_index=(d - k, d - 1), check_finite=False, driver="evr")
        P = U
    return P


def _kendall_core(X):
    Y = np.array(X, copy=True)
    n = Y.shape[0]
    return _kendall_pairs.pair_sum(Y, None, "spherical", 1.0, None, block_entries=kendall._BLOCK_ENTRIES,
                                   near_rtol=kendall._NEAR_DUPLICATE_RTOL, sign=kendall.spatial_sign)


def cases(d, quick):
    """(name, n, estimator factory, core) for the estimators a chapter fits per slider move."""
    n = 400 if quick else 2000
    n_kendall = 200 if quick else 1000
    rng = np.random.default_rng(0)
    return [
        ("AnalyzeGauss", n, lambda: pe.AnalyzeGauss(2, epsilon=0.5, random_state=0),
         lambda X: _noisy_top_k(X, 2, 0)),
        ("ModSuLQ", n, lambda: pe.ModSuLQ(2, epsilon=0.5, random_state=0),
         lambda X: _noisy_top_k(X, 2, 0)),
        ("LocalGaussianPCA", n, lambda: pe.LocalGaussianPCA(2, epsilon=0.5, random_state=0),
         lambda X: _noisy_top_k(X, 2, 0)),
        ("PrivateLocalPCA(4 sites)", n, lambda: pe.PrivateLocalPCA(2, epsilon=0.5, n_sites=4, random_state=0),
         lambda X: _chain_core(X, 2, 4, 0)),
        ("PPCA(gibbs, 20 sweeps)", n, lambda: pe.PPCA(2, epsilon=1.0, sampler="gibbs", n_iter=20, random_state=0),
         None),
        ("DPSPCA(T=10)", n, lambda: pe.DPSPCA(2, epsilon=1.0, delta=1e-5, sparsity=5, n_iter=10, random_state=0),
         None),
        ("KendallDPPCA", n_kendall, lambda: pe.KendallDPPCA(2, epsilon=0.5, random_state=0), _kendall_core),
    ], rng


def paired(floor, fit, X, pairs):
    """Interleave floor(X) and fit(X) ``pairs`` times; medians of each and of the per-pair ratio."""
    tf, tg, ratios = [], [], []
    for _ in range(pairs):
        t0 = time.perf_counter()
        floor(X)
        t1 = time.perf_counter()
        fit(X)
        t2 = time.perf_counter()
        tf.append(t1 - t0)
        tg.append(t2 - t1)
        ratios.append((t2 - t1) / (t1 - t0))
    return statistics.median(tg), statistics.median(tf), statistics.median(ratios)


def validation_cost(pairs):
    """The parameter check three ways, each paired with a whole AnalyzeGauss fit at n = 2000, d = 20.

    scikit-learn's constraint check alone (``BaseEstimator._validate_params``); the package's
    ``_validate_params`` on a parameter set its class has accepted before (the cache); the same
    inside scikit-learn's public ``skip_parameter_validation`` switch.
    """
    import sklearn
    from sklearn.base import BaseEstimator

    X = np.random.default_rng(0).standard_normal((2000, 20)) / 10
    est = pe.AnalyzeGauss(2, epsilon=0.5, random_state=0)
    fit = lambda X: pe.AnalyzeGauss(2, epsilon=0.5, random_state=0).fit(X)  # noqa: E731
    out = {}
    out["scikit-learn's check"] = paired(lambda _: BaseEstimator._validate_params(est), fit, X, pairs)
    est._validate_params()
    out["remembered set (cache)"] = paired(lambda _: est._validate_params(), fit, X, pairs)
    with sklearn.config_context(skip_parameter_validation=True):
        out["public switch on"] = paired(lambda _: est._validate_params(), fit, X, pairs)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, default=None)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--dims", type=int, nargs="+", default=None)
    p.add_argument("--only", nargs="+", default=None, help="estimator names (prefixes) to run")
    args = p.parse_args()
    pairs = args.pairs or (20 if args.quick else 200)
    dims = args.dims or ([10] if args.quick else [20, 60])
    print(f"privpca_edu from {os.path.dirname(pe.__file__)}; {pairs} interleaved pairs; one BLAS thread")
    print("floor = one copy of X + XᵀX; core = floor + the mechanism's own numerics in plain NumPy/SciPy")
    print(f"{'estimator':26s} {'n':>6s} {'d':>4s} {'fit ms':>9s} {'floor ms':>9s} {'fit/floor':>10s} {'fit/core':>9s}")
    with threadpool_limits(1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for d in dims:
            items, rng = cases(d, args.quick)
            for name, n, make, core in items:
                if args.only and not any(name.startswith(o) for o in args.only):
                    continue
                X = rng.standard_normal((n, d)) * np.linspace(1.0, 0.2, d)
                X /= np.linalg.norm(X, axis=1).max()  # rows inside data_norm = 1: no clipping
                fit = lambda X, make=make: make().fit(X)  # noqa: E731
                fit(X)  # warm: first-call imports and caches are not what a slider move pays
                t_fit, t_floor, ratio = paired(_copy_gram, fit, X, pairs)
                core_txt = ""
                if core is not None:
                    core(X)
                    core_txt = f"{paired(core, fit, X, pairs)[2]:9.2f}"
                print(f"{name:26s} {n:6d} {d:4d} {t_fit * 1e3:9.3f} {t_floor * 1e3:9.3f} {ratio:10.2f} {core_txt:>9s}")
        costs = validation_cost(pairs)
    print("parameter check per fit (AnalyzeGauss, n = 2000, d = 20): " + "; ".join(
        f"{name} {t_fit / ratio * 1e6:.1f} µs = {1 / ratio:.1%} of a fit" for name, (t_fit, _, ratio) in costs.items()))
    print("kept: the per-class cache of accepted parameter values (serves every fit) and scikit-learn's switch sklearn.config_context(skip_parameter_validation=True) "
          "(skips the check for callers that set it); the package's own value checks run in every fit")


if __name__ == "__main__":
    main()
