"""Fit time of every public estimator at a moderate size (medians), to compare two checkouts.

Usage::

    python benchmarks/bench_estimator_fits.py            # repeats = 7
    python benchmarks/bench_estimator_fits.py --quick    # tiny sizes, 2 repeats (a smoke run)
    PYTHONPATH=/path/to/other/checkout python benchmarks/bench_estimator_fits.py

Times ``Estimator(...).fit(X)`` including validation (data generation excluded) with one BLAS
thread.  Prints one line per estimator: median and minimum wall time.  Not a test: the numbers
depend on the machine and its load; compare two checkouts on the same machine, interleaved.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

try:  # run from a checkout without installing: put the repository root on the path
    import privpca_edu  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from threadpoolctl import threadpool_limits

import privpca_edu as pe


def cases(quick):
    n, d = (400, 10) if quick else (20_000, 50)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d)) * np.linspace(1.0, 0.1, d)
    X /= np.linalg.norm(X, axis=1).max()
    Xs = X[: (200 if quick else 2000), : (8 if quick else 10)]
    Xl = X[:, : (8 if quick else 30)]
    return [
        ("PCA", lambda: pe.PCA(5), X),
        ("TruncatedPowerPCA", lambda: pe.TruncatedPowerPCA(2, sparsity=5, n_iter=20, random_state=0), X),
        ("AnalyzeGauss", lambda: pe.AnalyzeGauss(5, epsilon=0.5, random_state=0), X),
        ("ModSuLQ", lambda: pe.ModSuLQ(5, epsilon=0.5, random_state=0), X),
        ("PPCA(exact)", lambda: pe.PPCA(1, epsilon=1.0, sampler="exact", random_state=0), Xs),
        ("DPSPCA", lambda: pe.DPSPCA(2, epsilon=1.0, delta=1e-5, sparsity=5, n_iter=10, random_state=0), X),
        ("LocalGaussianPCA", lambda: pe.LocalGaussianPCA(3, epsilon=0.5, random_state=0), X),
        ("LocalSparsePCA", lambda: pe.LocalSparsePCA(2, epsilon=np.inf, lam=0.01, random_state=0), Xl),
        ("PrivateLocalPCA", lambda: pe.PrivateLocalPCA(3, epsilon=0.5, n_sites=4, random_state=0), X),
        ("KendallDPPCA", lambda: pe.KendallDPPCA(2, epsilon=0.5, random_state=0), Xs),
        ("SGPCA", lambda: pe.SGPCA(2, epsilon=0.5, spikes=(9, 4), random_state=0), X),
        ("NSGGD", lambda: pe.NSGGD(2, epsilon=1.0, n_iter=20, random_state=0), Xs),
        ("NonPrivateAnalyzeGaussReplication", lambda: pe.estimators.NonPrivateAnalyzeGaussReplication(2, random_state=0), X),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=None)
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    repeats = args.repeats or (2 if args.quick else 7)
    print(f"privpca_edu from {os.path.dirname(pe.__file__)}; repeats={repeats}; median / min seconds")
    with threadpool_limits(1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, make, X in cases(args.quick):
            times = []
            for _ in range(repeats):
                est = make()
                t0 = time.perf_counter()
                est.fit(X)
                times.append(time.perf_counter() - t0)
            print(f"{name:36s} {np.median(times) * 1e3:10.2f} ms {min(times) * 1e3:10.2f} ms  shape={X.shape}")


if __name__ == "__main__":
    main()
