"""Wall time of ``python -m privpca_edu.reproduce`` per paper on 1 and 2 workers, and the speed-up.

Prints times and ratios (no assertions: this is a measurement, not a test).  Every run starts
from an empty output folder (no cached tasks) and writes everything the command writes (CSV,
PNG, report.md).  Goal: a speed-up of at least 1.8× on 2 cores at ``book`` scale.

    python benchmarks/bench_reproduce.py                       # book scale, every paper, 1 and 2 workers
    python benchmarks/bench_reproduce.py --papers g-dppca --jobs 1 2 4
    python benchmarks/bench_reproduce.py --scale paper --jobs 2 --keep results/   # the paper-scale times
    python benchmarks/bench_reproduce.py --quick                # quick scale: a smoke run

With ``--keep DIR`` the outputs stay in ``DIR/PAPER-SCALE-jN`` (their report.md records the
time); otherwise they go to a temporary folder that is removed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # tasks run with one BLAS thread anyway

from privpca_edu import reproduce  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", nargs="+", default=list(reproduce.PAPERS), choices=list(reproduce.PAPERS))
    ap.add_argument("--scale", default="book", choices=reproduce.SCALES)
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2], help="worker counts to time (default 1 2)")
    ap.add_argument("--backend", default="loky", choices=reproduce.BACKENDS)
    ap.add_argument("--keep", default=None, help="keep the outputs under this folder")
    ap.add_argument("--quick", action="store_true", help="quick scale (a smoke run of this script)")
    args = ap.parse_args()
    scale = "quick" if args.quick else args.scale
    root = args.keep or tempfile.mkdtemp(prefix="bench-reproduce-")
    print(f"scale {scale}, backend {args.backend}, workers {args.jobs}; every run from an empty cache")
    print(f"{'paper':9s} {'tasks':>6s} " + " ".join(f"{f'{j} worker(s) s':>14s}" for j in args.jobs) +
          "  speed-up vs 1 worker")
    try:
        for paper in args.papers:
            times, task_s, task_cpu = {}, {}, {}
            n_tasks = 0
            for j in args.jobs:
                out = os.path.join(root, f"{paper}-{scale}-j{j}")
                shutil.rmtree(out, ignore_errors=True)
                t0 = time.perf_counter()
                res = reproduce.run(paper, scale, n_jobs=j, backend=args.backend, out=out, progress=False)
                times[j], n_tasks = time.perf_counter() - t0, res["n_tasks"]
                task_s[j], task_cpu[j] = res["task_seconds"], res["task_cpu"]
            base = times.get(1)
            ratios = "  ".join(f"{j}: {base / t:.2f}×" for j, t in times.items() if base and j != 1)
            load = " ".join(f"{v:.1f}" for v in os.getloadavg())
            print(f"{paper:9s} {n_tasks:6d} " + " ".join(f"{times[j]:14.1f}" for j in args.jobs) + f"  {ratios}"
                  f"   (load average now {load} on {os.cpu_count()} cores)", flush=True)
            # tasks that take longer on more workers while using the same CPU time were waiting for a core
            print("          sum over tasks, wall / CPU seconds: " +
                  ", ".join(f"{j} worker(s) {task_s[j]:.1f} / {task_cpu[j]:.1f}" for j in args.jobs), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
