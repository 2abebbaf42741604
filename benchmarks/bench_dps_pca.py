"""DPS-PCA speed: one iteration against the bare matrix product, and the paper-scale fit.

Prints medians and ratios (no assertions: this is a measurement, not a test).

    python benchmarks/bench_dps_pca.py            # iteration at d = 1000, paper-scale fit
    python benchmarks/bench_dps_pca.py --quick    # smaller sizes, a smoke run

Targets (issue 4): one iteration at d = 1000, k = 5 within 1.5× the d×d by d×k product
measured in the same run; the paper-scale fit (n = 10⁵, d = 1000, T = 10) end to end next to
the time of forming Σ̂ alone.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # see privpca_edu._validation.single_threaded_blas

import numpy as np  # noqa: E402

from _timing import median_time  # noqa: E402

import privpca_edu as pp  # noqa: E402
from privpca_edu._validation import single_threaded_blas  # noqa: E402
from privpca_edu.estimators.dps_pca import run_dps_pca  # noqa: E402


def bench_iteration(d, k, sparsity, repeats):
    rng = np.random.default_rng(0)
    A = rng.standard_normal((d, d))
    C = A @ A.T
    Q_dense = np.linalg.qr(rng.standard_normal((d, k)))[0]
    Q_sparse = np.zeros((d, k))
    Q_sparse[:sparsity] = np.linalg.qr(rng.standard_normal((sparsity, k)))[0]

    def product():
        C @ Q_dense

    def one_iteration(Q):
        # one iteration of what DPSPCA.fit runs (noisy product on the provider's scatter, thin QR,
        # threshold, thin QR), through the same function
        return lambda: run_dps_pca([C], [100_000], Q, sparsity, 1, 1.0, random_state=rng)

    with single_threaded_blas():
        for f in (product, one_iteration(Q_dense), one_iteration(Q_sparse)):  # warm up
            f()
        t_prod = median_time(product, repeats)
        t_dense = median_time(one_iteration(Q_dense), repeats)
        t_sparse = median_time(one_iteration(Q_sparse), repeats)
    print(f"bare d×d by d×k product C@Q (d={d}, k={k}): median {t_prod * 1e3:.3f} ms")
    print(f"one DPS-PCA iteration from a dense Q (the first one): median {t_dense * 1e3:.3f} ms, "
          f"ratio {t_dense / t_prod:.2f} (target ≤ 1.5)")
    print(f"one DPS-PCA iteration from an ŝ={sparsity}-row-sparse Q (every later one): median "
          f"{t_sparse * 1e3:.3f} ms, ratio {t_sparse / t_prod:.2f}")


def bench_fit(n, d, k, repeats):
    data = pp.datasets.spiked_sparse(n, d, k, 10, scaling="unit", random_state=0)
    X = data.X
    t_sigma = median_time(lambda: X.T @ X, repeats)
    est = pp.DPSPCA(k, epsilon=1.0, delta=0.3, sparsity=min(50, d), n_iter=10, random_state=0)
    t_fit = median_time(lambda: est.fit(X), repeats)
    print(f"paper-scale fit n={n}, d={d}, T=10: median {t_fit:.3f} s end to end; forming Σ̂ alone "
          f"median {t_sigma:.3f} s; ratio {t_fit / t_sigma:.2f}; "
          f"error D = {pp.subspace_distance(est.components_, data.components):.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    args = parser.parse_args()
    if args.quick:
        bench_iteration(200, 5, 20, 20)
        bench_fit(5000, 100, 5, 2)
    else:
        bench_iteration(1000, 5, 50, 200)
        bench_fit(100_000, 1000, 5, 3)


if __name__ == "__main__":
    main()
