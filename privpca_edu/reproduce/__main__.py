"""``python -m privpca_edu.reproduce PAPER [--scale quick|book|paper] [--n-jobs N] [--backend loky|dask]
[--scheduler ADDRESS] [--out DIR]`` — see :mod:`privpca_edu.reproduce`."""

from __future__ import annotations

import argparse
import signal
import sys

from . import BACKENDS, PAPERS, SCALES, check_out, default_out, paper_tasks, run
from ._engine import require_extra


PROG = "python -m privpca_edu.reproduce"


def _parser(prog=PROG):
    p = argparse.ArgumentParser(
        prog=prog,
        description="Reproduce a paper's experiments at its own scale on every core or a Dask cluster: CSV tables, "
                    "PNG figures and report.md (our numbers next to the paper's). Interrupted runs resume.")
    p.add_argument("paper", nargs="?", choices=tuple(PAPERS), help="which paper")
    p.add_argument("--list", action="store_true", help="list the papers, their experiments and grid sizes, then exit")
    p.add_argument("--scale", choices=SCALES, default="book",
                   help="quick: seconds; book: the chapters' sizes (default); paper: the paper's sizes")
    p.add_argument("--n-jobs", type=int, default=-1, help="workers (default -1: every core)")
    p.add_argument("--backend", choices=BACKENDS, default="loky",
                   help="loky: joblib processes on this machine (default); dask: a dask.distributed cluster")
    p.add_argument("--scheduler", default=None,
                   help="address of a running Dask scheduler, tcp://HOST:PORT (with --backend dask; without it a "
                        "LocalCluster of --n-jobs workers on 127.0.0.1 is started and closed)")
    p.add_argument("--out", default=None, help="output folder (default reproduce-results/PAPER-SCALE); "
                                               "OUT/.cache keeps finished tasks so that a rerun resumes")
    p.add_argument("--seed", type=int, default=0, help="root seed of every task's SeedSequence (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--no-figures", action="store_true", help="write the CSV tables and report.md only")
    return p


def _list():
    for name, module in PAPERS.items():
        print(f"{name}: {module.TITLE}")
        for scale in SCALES:
            _, tasks = paper_tasks(name, scale)
            counts = {}
            for t in tasks:
                counts[t.experiment] = counts.get(t.experiment, 0) + 1
            print(f"  --scale {scale:5s}: {len(tasks):5d} tasks (" +
                  ", ".join(f"{k} {v}" for k, v in counts.items()) + ")")


def _interrupt(signum, frame):
    raise KeyboardInterrupt(signal.Signals(signum).name)


def main(argv=None, prog=PROG):
    parser = _parser(prog)
    args = parser.parse_args(argv)
    if args.list:
        _list()
        return 0
    if args.paper is None:
        parser.error("give a PAPER (or --list)")
    if args.scheduler is not None and args.backend != "dask":
        parser.error("--scheduler needs --backend dask")
    if args.n_jobs == 0 or args.n_jobs < -1:
        parser.error(f"--n-jobs must be a positive number of workers or -1 (every core), got {args.n_jobs}")
    if args.seed < 0:
        parser.error(f"--seed must be a non-negative integer (the root of a numpy SeedSequence), got {args.seed}")
    if args.out is not None and not args.out.strip():
        parser.error("--out must be a folder path, got an empty string")
    out = args.out if args.out is not None else default_out(args.paper, args.scale)
    try:
        out = check_out(out)
    except ValueError as exc:
        parser.error(str(exc).replace("out=", "--out ", 1))
    # `kill PID` (and Ctrl-C, also where a shell started us with SIGINT ignored) stops the run the
    # same way: joblib or Dask shut their workers down, and finished tasks stay cached
    try:  # a missing optional dependency is one line naming the extra, never a traceback
        if args.backend == "dask":
            require_extra("distributed", "scale", "--backend dask")
        if args.paper == "dpdpca":
            require_extra("phe", "crypto", "dpdpca (the encrypted protocol)")
    except ImportError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        res = run(args.paper, args.scale, n_jobs=args.n_jobs, backend=args.backend, scheduler=args.scheduler,
                  out=out, seed=args.seed, progress=not args.no_progress, figures=not args.no_figures)
    except ImportError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished tasks are kept in {out}/.cache; run the same command again to continue",
              file=sys.stderr)
        return 130
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    failed = [c for c in res["claims"] if not c.holds]
    print(f"{args.paper} ({args.scale}): {res['n_tasks']} tasks ({res['cached']} cached) in "
          f"{res['wall_seconds']:.1f} s; {len(res['claims']) - len(failed)} of {len(res['claims'])} of the paper's "
          f"orderings hold; report: {out}/report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
