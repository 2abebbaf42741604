"""Reproduce the four papers' experiments at their own scale, on every core or on a Dask cluster.

``python -m privpca_edu.reproduce PAPER [--scale quick|book|paper] [--n-jobs N]
[--backend loky|dask] [--scheduler ADDRESS] [--out DIR]`` (or :func:`run`) builds the paper's grid
of (setting, repetition) tasks, runs it (:mod:`._engine`: joblib's loky workers, or
``dask.distributed``), and writes the paper's tables as CSV, its figures as PNG and a
``report.md`` that puts our numbers next to the paper's and says where an ordering the paper
claims does not hold.

========== =====================================================================================
paper      experiments
========== =====================================================================================
dps-pca    Ge et al. (AISTATS 2018) §5: Figs. 3(a), 3(b), 4(a), 4(b), Table 1
g-dppca    Kim & Jung (2025) §4: Figs. 2–4 (Gaussian, t₁, contaminated), Fig. 5
ldp-pca    Wang & Xu (2019) §6: Figs. 1 and 2, Table 1 (on bundled stand-in data)
dpdpca     Wang & Chang (2018) §V: Figs. 3, 4 and 5 (on bundled stand-in data)
========== =====================================================================================

Scales: ``quick`` (seconds; the tests), ``book`` (the chapters' sizes) and ``paper`` (the papers'
sizes — hours for some).  Results are bit-identical for any number of workers and either
backend, and every finished task is cached under ``OUT/.cache``, so an interrupted run resumes.
Every run into ``OUT`` appends a line to ``OUT/runs.json`` (when, backend, workers, tasks computed
and from the cache, wall and CPU seconds, load average), which ``report.md`` prints: a rerun that
takes every task from the cache keeps the time the first run measured.
Runs on the base install (joblib comes with scikit-learn; without tqdm the progress is a plain
line).  The ``scale`` extra (``pip install privpca_edu[scale]``) adds tqdm's bar and Dask
(``--backend dask``); ``dpdpca`` needs the ``crypto`` extra.  A missing extra is reported in
one line that names it.
"""

from __future__ import annotations

import datetime
import os
import platform
import time

from . import dpdpca, dps_pca, g_dppca, ldp_pca
from ._engine import BACKENDS, resolve_n_jobs, run_tasks
from ._report import append_run, line_figure, runs_table

__all__ = ["PAPERS", "SCALES", "BACKENDS", "run", "paper_tasks", "default_out"]

PAPERS = {m.NAME: m for m in (dps_pca, g_dppca, ldp_pca, dpdpca)}
SCALES = ("quick", "book", "paper")


def _check(paper, scale):
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}, got {paper!r}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    return PAPERS[paper]


def paper_tasks(paper, scale="book"):
    """Build the settings and the task grid of ``paper`` at ``scale``.

    Parameters
    ----------
    paper : {"dps-pca", "g-dppca", "ldp-pca", "dpdpca"}
        The paper.
    scale : {"quick", "book", "paper"}, default="book"
        The scale.

    Returns
    -------
    settings : dict
        The scale's settings.
    tasks : list of Task
        The task grid.
    """
    module = _check(paper, scale)
    cfg = module.SCALES[scale]
    return cfg, module.tasks(cfg)


def default_out(paper, scale):
    """Name where results go without ``--out``: ``reproduce-results/PAPER-SCALE`` in the current directory.

    Parameters
    ----------
    paper : str
        The paper.
    scale : str
        The scale.

    Returns
    -------
    str
        ``reproduce-results/PAPER-SCALE``.
    """
    return os.path.join("reproduce-results", f"{paper}-{scale}")


def check_out(out):
    """Make the output folder ``out`` (a non-empty path) and check that files can be written in it.

    Raises ``ValueError`` naming ``out`` and the reason (an existing file on the way, ``/dev/null``,
    ``/proc/...``, no permission) before any task runs, instead of a traceback after the first one.
    """
    if not isinstance(out, (str, os.PathLike)) or not os.fspath(out):
        raise ValueError(f"out must be a non-empty folder path, got {out!r}")
    out = os.fspath(out)
    try:
        os.makedirs(out, exist_ok=True)
        probe = os.path.join(out, f".write-test-{os.getpid()}")
        with open(probe, "w") as fh:
            fh.write("")
        os.remove(probe)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        if isinstance(exc, FileExistsError) or (os.path.exists(out) and not os.path.isdir(out)):
            reason = "it exists and is not a folder"
        elif isinstance(exc, (NotADirectoryError,)):
            reason = "a part of the path is a file, not a folder"
        raise ValueError(f"out={out!r} cannot be used as the output folder: {reason}") from None
    return out


def _version():
    from .. import __version__

    return __version__


def run(paper, scale="book", *, n_jobs=-1, backend="loky", scheduler=None, out=None, seed=0, progress=True,
        figures=True, on_result=None):
    """Reproduce ``paper`` at ``scale``; returns a dict with the output folder, files and timings.

    Parameters
    ----------
    paper : {"dps-pca", "g-dppca", "ldp-pca", "dpdpca"}
    scale : {"quick", "book", "paper"}
    n_jobs : int
        Workers (``-1``: every core).  With ``backend="dask"`` and no scheduler, the size of the
        LocalCluster started for the run; with a scheduler it is ignored (the cluster decides).
    backend : {"loky", "dask"}
    scheduler : str, optional
        Address of a running ``dask.distributed`` scheduler (``tcp://HOST:PORT``).
    out : str, optional
        Output folder (default :func:`default_out`); its ``.cache`` holds finished tasks.
    seed : int
        Root of every task's SeedSequence.
    progress : bool
        Show a tqdm progress bar (tasks done, rate, time left).
    figures : bool
        Also draw the PNG figures.
    on_result : callable or None, default=None
        ``on_result(index, result)``, called in the main process after each computed task.

    Returns
    -------
    dict
        ``out`` (the folder), ``files``, ``wall_seconds``, ``task_seconds``, ``task_cpu``,
        ``longest_task``, ``n_tasks``, ``cached``, ``claims`` and ``runs``.
    """
    module = _check(paper, scale)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise ValueError("--scheduler needs --backend dask")
    n_jobs = resolve_n_jobs(n_jobs)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative int (the root of a numpy SeedSequence), got {seed!r}")
    out = check_out(default_out(paper, scale) if out is None else out)
    cfg = module.SCALES[scale]
    task_list = module.tasks(cfg)
    version = _version()
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.perf_counter()
    plan = {}
    results = run_tasks(task_list, paper=paper, scale=scale, version=version, seed=seed, n_jobs=n_jobs,
                        backend=backend, scheduler=scheduler, cache_dir=os.path.join(out, ".cache"),
                        progress=progress, on_result=on_result, plan=plan)
    wall = time.perf_counter() - t0
    cached = sum(r.cached for r in results)
    task_seconds = sum(r.seconds for r in results)
    task_cpu = sum(r.cpu_seconds for r in results)
    longest = max((r.seconds for r in results), default=0.0)
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):  # pragma: no cover - not Unix
        load = None
    runs = append_run(out, dict(
        paper=paper, scale=scale, version=version, seed=seed,
        started_utc=f"{started:%Y-%m-%d %H:%M}",
        finished_utc=f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M}",
        backend=backend, workers=None if scheduler else plan.get("workers", n_jobs), scheduler=scheduler,
        tasks=len(task_list), computed=len(task_list) - cached, from_cache=cached, wall_seconds=round(wall, 3),
        cpu_seconds_computed=round(float(sum(r.cpu_seconds for r in results if not r.cached)), 3), load_average=load))
    draw = line_figure if figures else (lambda *args, **kwargs: None)
    files, body, claims = module.write(cfg, task_list, results, out, draw)
    files = [f for f in files if f is not None]
    notes = []
    for r in results:
        notes += [n for n in r.notes if n not in notes]
    workers = (f"Dask cluster at {scheduler}" if scheduler else
               f"{n_jobs} Dask worker{'s' * (n_jobs > 1)} (LocalCluster)" if backend == "dask" else
               f"{n_jobs} joblib worker{'s' * (n_jobs > 1)}" if plan.get("workers", n_jobs) == n_jobs else
               f"{plan['workers']} joblib workers ({n_jobs} asked for; the other cores were busy)"
               if plan["workers"] > 1 else
               f"one process ({n_jobs} joblib workers asked for; the work was smaller than their start-up, "
               "or the other cores were busy)")
    lines = [
        f"# Reproduction: {module.TITLE}",
        "",
        f"Command: `python -m privpca_edu.reproduce {paper} --scale {scale}` — privpca_edu {version}, "
        f"report written {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.machine()}, "
        f"{workers}, one BLAS thread per task.",
        "",
        f"Tasks: {len(task_list)} ({cached} from the cache of an earlier run). Wall time (this run) {wall:.1f} s; "
        f"task time (the sum over tasks, as first computed) {task_seconds:.1f} s ({task_cpu:.1f} s of CPU), "
        f"longest task {longest:.1f} s: "
        f"on N workers expect about max(task time / N, longest task).",
        "",
        *runs_table(runs, paper, scale),
        "",
        "The tables below put our numbers next to the paper's where the paper prints one; where it only "
        "draws a curve or states an ordering, the ordering is checked on our numbers at the end.",
        "",
        body,
        "",
        "## The paper's orderings, checked",
        "",
        *[c.markdown() for c in claims],
    ]
    if notes:
        lines += ["", "## Warnings raised while computing", ""] + [f"- {n}" for n in notes]
    lines += ["", "## Files", ""] + [f"- `{f}`" for f in files + ["runs.json"]]
    with open(os.path.join(out, "report.md"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return dict(out=out, files=files + ["report.md", "runs.json"], wall_seconds=wall, task_seconds=task_seconds,
                task_cpu=task_cpu, longest_task=longest, n_tasks=len(task_list), cached=cached, claims=claims,
                runs=runs)

