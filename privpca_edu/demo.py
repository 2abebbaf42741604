"""A one-screen tour: four estimators on the same spiked data, side by side.

Run it with ``python -m privpca_edu.demo``.  It draws n = 20 000 rows in d = 50 dimensions
whose leading direction is supported on 5 coordinates (``datasets.spiked_sparse``, rows scaled
to unit norm so that ``data_norm=1`` holds), fits the non-private PCA and three private
mechanisms at ε = 0.5, δ = 1e-5, and prints for each the sin-Θ distance to the true direction,
the noise scale it used and what its privacy record promises.
"""

from __future__ import annotations

import argparse
import math
import time

from . import datasets
from .estimators import PCA, PPCA, AnalyzeGauss, ModSuLQ
from .subspace import random_subspace_distance, subspace_distance


def run_demo(epsilon=0.5, delta=1e-5, n_samples=20_000, n_features=50, random_state=0):
    """Fit the four estimators and return one row (a dict) per method."""
    data = datasets.spiked_sparse(
        n_samples=n_samples, n_features=n_features, n_components=1, support_size=5,
        scaling="unit", random_state=random_state,
    )
    estimators = [
        ("PCA (non-private)", PCA(n_components=1, center=False)),  # the same XᵀX/n as the others
        ("AnalyzeGauss", AnalyzeGauss(n_components=1, epsilon=epsilon, delta=delta, random_state=1)),
        ("ModSuLQ", ModSuLQ(n_components=1, epsilon=epsilon, delta=delta, random_state=2)),
        ("PPCA (exact sampler)", PPCA(n_components=1, epsilon=epsilon, sampler="exact", random_state=3)),
    ]
    rows = []
    for name, estimator in estimators:
        start = time.perf_counter()
        estimator.fit(data.X)
        seconds = time.perf_counter() - start
        record = getattr(estimator, "privacy_", None)
        rows.append(dict(
            method=name,
            distance=subspace_distance(estimator.components_, data.components),
            noise_scale=getattr(estimator, "noise_scale_", None),
            epsilon=None if record is None else record.epsilon,
            delta=None if record is None else record.delta,
            neighbouring=None if record is None else record.neighbouring,
            is_private=False if record is None else record.is_private,
            seconds=seconds,
        ))
    return data, rows


def _fmt(value, spec):
    if value is None:
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    return format(value, spec)


def main(argv=None, prog="python -m privpca_edu.demo"):
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("--epsilon", type=float, default=0.5)
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--seed", type=int, default=0, help="seed of the data (estimator seeds are fixed)")
    args = parser.parse_args(argv)

    data, rows = run_demo(epsilon=args.epsilon, delta=args.delta, random_state=args.seed)
    n, d = data.X.shape
    print(f"spiked_sparse: n={n}, d={d}, k=1, support 5, rows scaled to unit norm (data_norm=1)")
    print(f"privacy budget: epsilon={args.epsilon:g}, delta={args.delta:g}, replace-one neighbours")
    print(f"distance = ||sin Theta||_F to the true direction (0 = exact; a random direction "
          f"scores about {random_subspace_distance(d, 1):.3f})\n")
    header = f"{'method':<22} {'distance':>9} {'noise_scale_':>13} {'epsilon':>8} {'delta':>8}  {'neighbours':<12} {'private':<7} {'time':>7}"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['method']:<22} {r['distance']:>9.4f} {_fmt(r['noise_scale'], '.3g'):>13} "
            f"{_fmt(r['epsilon'], 'g'):>8} {_fmt(r['delta'], 'g'):>8}  {r['neighbouring'] or '-':<12} "
            f"{'yes' if r['is_private'] else 'no':<7} {r['seconds'] * 1000:>5.0f} ms"
        )
    print("\nnoise_scale_: std of each noise entry of X^T X / n (AnalyzeGauss, ModSuLQ); "
          "for PPCA the temperature 2B^2/epsilon of its Bingham law.")
    print("PPCA is pure epsilon-DP (delta = 0).")


if __name__ == "__main__":  # pragma: no cover
    main()
