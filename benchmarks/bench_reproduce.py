"""Wall time of ``python -m privpca_edu.reproduce`` per paper on 1 and 2 workers, and the speed-up.

Prints times and ratios (no assertions: this is a measurement, not a test).  Every run starts
from an empty output folder (no cached tasks) and writes everything the command writes (CSV,
PNG, report.md).  Goal: a speed-up of at least 1.8× on 2 cores at ``book`` scale.

Two measurements per paper and worker count:

* **fresh**: the command as a user runs it, in a new process, timed from start to exit
  (interpreter start, imports, starting the workers, the tasks, the figures and the report);
* **warm**: in this process, after a ``quick``-scale run of the same paper on the same number of
  workers, so that the imports are done and the worker pool is running (joblib reuses it): what
  the work itself parallelises to.

The difference between the two is the fixed cost of a run (about 1 s of imports in the command,
plus about 1 s for 2 new workers to import NumPy, SciPy, scikit-learn and the package), which
weighs on papers whose book scale is only seconds of work.  A fresh run on several workers first
runs the costliest tasks in its own process for half a second and starts the workers only if the
rest of the work is worth their start-up (``reproduce._engine.WORKER_START_SECONDS``), so on small
work it takes as long as one worker.

    python benchmarks/bench_reproduce.py                       # book scale, every paper, 1 and 2 workers
    python benchmarks/bench_reproduce.py --papers g-dppca --jobs 1 2 4
    python benchmarks/bench_reproduce.py --scale paper --jobs 2 --keep results/   # the paper-scale times
    python benchmarks/bench_reproduce.py --quick                # quick scale: a smoke run

With ``--keep DIR`` the outputs stay in ``DIR/PAPER-SCALE-jN`` (their report.md records the
time); otherwise they go to a temporary folder that is removed.  ``--only fresh`` or ``--only
warm`` runs one of the two measurements (``--scale paper`` runs only the fresh one).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # tasks run with one BLAS thread anyway

from privpca_edu import reproduce  # noqa: E402
from privpca_edu.reproduce import _engine  # noqa: E402


def _fresh(paper, scale, jobs, backend, out):
    """Seconds of the command in a new process, and its result summary."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "privpca_edu.reproduce", paper, "--scale", scale, "--n-jobs", str(jobs),
                    "--backend", backend, "--out", out, "--no-progress"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def _warm(paper, scale, jobs, backend, out):
    """Seconds of ``reproduce.run`` in this process after a quick-scale warm-up on the same workers."""
    start_up, _engine.WORKER_START_SECONDS = _engine.WORKER_START_SECONDS, 0.0  # the warm-up starts the pool
    try:
        reproduce.run(paper, "quick", n_jobs=jobs, backend=backend, out=out + "-warmup", progress=False)
    finally:
        _engine.WORKER_START_SECONDS = start_up
    shutil.rmtree(out + "-warmup", ignore_errors=True)
    t0 = time.perf_counter()
    res = reproduce.run(paper, scale, n_jobs=jobs, backend=backend, out=out, progress=False)
    return time.perf_counter() - t0, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", nargs="+", default=list(reproduce.PAPERS), choices=list(reproduce.PAPERS))
    ap.add_argument("--scale", default="book", choices=reproduce.SCALES)
    ap.add_argument("--jobs", nargs="+", type=int, default=[1, 2], help="worker counts to time (default 1 2)")
    ap.add_argument("--backend", default="loky", choices=reproduce.BACKENDS)
    ap.add_argument("--keep", default=None, help="keep the outputs under this folder")
    ap.add_argument("--only", choices=("fresh", "warm"), default=None, help="run one of the two measurements")
    ap.add_argument("--quick", action="store_true", help="quick scale (a smoke run of this script)")
    args = ap.parse_args()
    scale = "quick" if args.quick else args.scale
    kinds = [args.only] if args.only else (["fresh"] if scale == "paper" else ["fresh", "warm"])
    root = args.keep or tempfile.mkdtemp(prefix="bench-reproduce-")
    print(f"scale {scale}, backend {args.backend}, workers {args.jobs}; every run from an empty cache; "
          f"{os.cpu_count()} cores")
    print(f"{'paper':9s} {'run':5s} {'tasks':>6s} " + " ".join(f"{f'{j} worker(s) s':>14s}" for j in args.jobs) +
          "  speed-up vs 1 worker")
    try:
        for paper in args.papers:
            n_tasks = len(reproduce.paper_tasks(paper, scale)[1])
            for kind in kinds:
                times, task_s, task_cpu = {}, {}, {}
                for j in args.jobs:
                    out = os.path.join(root, f"{paper}-{scale}-j{j}-{kind}")
                    shutil.rmtree(out, ignore_errors=True)
                    if kind == "fresh":
                        times[j] = _fresh(paper, scale, j, args.backend, out)
                    else:
                        times[j], res = _warm(paper, scale, j, args.backend, out)
                        task_s[j], task_cpu[j] = res["task_seconds"], res["task_cpu"]
                base = times.get(1)
                ratios = "  ".join(f"{j}: {base / t:.2f}×" for j, t in times.items() if base and j != 1)
                load = " ".join(f"{v:.1f}" for v in os.getloadavg())
                print(f"{paper:9s} {kind:5s} {n_tasks:6d} " + " ".join(f"{times[j]:14.1f}" for j in args.jobs) +
                      f"  {ratios}   (load average now {load})", flush=True)
                if task_s:
                    # tasks that take longer on more workers while using the same CPU time were waiting for a core
                    print("                sum over tasks, wall / CPU seconds: " +
                          ", ".join(f"{j} worker(s) {task_s[j]:.1f} / {task_cpu[j]:.1f}" for j in args.jobs),
                          flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
