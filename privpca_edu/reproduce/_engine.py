"""Run a paper's grid of (setting, repetition) tasks on joblib workers or a Dask cluster.

Reproducibility: task ``i`` of a grid draws all its randomness from child ``i`` of
``numpy.random.SeedSequence(seed).spawn(len(grid))``, rebuilt fresh in the worker (a spawned
child that was already used would spawn different grandchildren).  Every task runs with one
BLAS thread (threadpoolctl, through :func:`privpca_edu._validation.single_threaded_blas`), so

* ``n_jobs`` workers never oversubscribe the cores (each uses exactly one), and
* no floating-point reduction depends on how many BLAS threads happened to run it,

hence the results are bit-identical for any ``n_jobs`` and either backend.

Resuming: every finished task is written to ``cache_dir`` under a name derived from the paper,
the scale, the grid point (its experiment, index and parameters) and the package version.  A
rerun loads what is there and computes only the rest, so an interrupted run (Ctrl-C, a killed
job, a lost cluster) continues where it stopped.  Results are written in batches, each one
file written atomically (a temporary file, then :func:`os.replace`): a task that took a second
or more is written as soon as it arrives, quicker ones at most a second later, and whatever is
pending is written when the run stops on an exception (Ctrl-C included).  A killed process
thus loses at most the last second of work.  One file per task, as earlier versions wrote
them, is still read.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
import pickle
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .._validation import single_threaded_blas

__all__ = ["Task", "TaskResult", "run_tasks", "run_task", "task_seed", "cached_results", "BACKENDS"]

BACKENDS = ("loky", "dask")


@dataclass(frozen=True)
class Task:
    """One grid point: ``fn(seed=SeedSequence, **kwargs)`` for a setting and a repetition.

    ``experiment`` names the table or figure it belongs to, ``point`` the setting and the
    repetition (a dict of plain values: it labels the result and enters the cache key).
    ``fn`` must be importable by name (a module-level function), so that workers can run it.
    """

    experiment: str
    point: dict
    fn: object
    kwargs: dict = field(default_factory=dict)
    cost: float = 1.0  # rough relative run time: costlier tasks are sent first (not part of the result)

    def describe(self):
        """A JSON-able description: what the cache key is made of (besides paper, scale, version)."""
        return dict(experiment=self.experiment, point=self.point,
                    fn=f"{self.fn.__module__}.{self.fn.__qualname__}", kwargs=self.kwargs)


@dataclass
class TaskResult:
    value: object
    seconds: float
    notes: tuple
    cached: bool = False
    cpu_seconds: float = float("nan")  # CPU time of the worker process during the task


def task_seed(seed, n_tasks, index):
    """The SeedSequence of grid index ``index`` (child ``index`` of ``SeedSequence(seed).spawn(n_tasks)``).

    Built directly as ``SeedSequence(seed, spawn_key=(index,))``, which is that child (same
    entropy, spawn key and pool size), without creating the other ``n_tasks − 1``.
    """
    if not 0 <= index < n_tasks:
        raise IndexError(f"index must be in [0, {n_tasks}), got {index}")
    return np.random.SeedSequence(seed, spawn_key=(index,))


def run_task(tasks, index, seed=0):
    """The value of task ``index`` of ``tasks``, computed exactly as a worker computes it (its own
    :func:`task_seed`, one BLAS thread, warnings collected): what the cache stores for it."""
    child = task_seed(seed, len(tasks), index)
    task = tasks[index]
    return _call(task.fn, task.kwargs, child.entropy, child.spawn_key)[0]


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (tuple, set, frozenset, np.ndarray)):
        return list(value)
    return repr(value)


def cache_name(paper, scale, version, seed, index, task):
    """File name of a task's cached result: readable prefix, hash of everything that defines it."""
    blob = json.dumps(dict(paper=paper, scale=scale, version=version, seed=seed, index=index, **task.describe()),
                      sort_keys=True, default=_json_default)
    digest = hashlib.sha256(blob.encode()).hexdigest()[:16]
    return f"{task.experiment}-{index:05d}-{digest}.pkl"


def _call(fn, kwargs, entropy, spawn_key):
    """Run one task in a worker: fresh SeedSequence, one BLAS thread, warnings collected."""
    seed = np.random.SeedSequence(entropy, spawn_key=tuple(spawn_key))
    notes = []
    t0, c0 = time.perf_counter(), time.process_time()
    with single_threaded_blas(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn(seed=seed, **kwargs)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    for w in caught:
        message = str(w.message).splitlines()[0] if str(w.message) else w.category.__name__
        if message not in notes:
            notes.append(message)
    return value, (seconds, cpu), tuple(notes)


def _indexed_call(index, fn, kwargs, entropy, spawn_key):
    return (index,) + _call(fn, kwargs, entropy, spawn_key)


def _chunk_call(jobs):
    """Several tasks in one round trip to a worker: ``[(index, value, seconds, notes), …]``."""
    return [_indexed_call(*job) for job in jobs]


def _chunks(jobs, costs, n_jobs):
    """Group jobs (longest first) into about 20 per worker of similar estimated cost.

    A task costing more than a chunk's share travels alone; tiny ones (milliseconds) travel
    together, so they do not each pay a round trip to a worker and back.
    """
    target = sum(costs) / (20 * n_jobs)
    chunks, current, acc = [], [], 0.0
    for job, cost in zip(jobs, costs):
        current.append(job)
        acc += cost
        if acc >= target or len(current) >= 500:
            chunks.append(current)
            current, acc = [], 0.0
    if current:
        chunks.append(current)
    return chunks


_BATCH = "batch-"  # prefix of a file holding several tasks' results: {name: record}
_UNREADABLE = (OSError, EOFError, pickle.UnpicklingError, ValueError, TypeError, AttributeError, IndexError)


def _read(path):
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except _UNREADABLE:
        return None  # a file from a killed writer that somehow survived: its tasks are recomputed


def _result(record):
    """A cached record ``(value, (seconds, cpu), notes)`` as a :class:`TaskResult`, or None if malformed."""
    try:
        value, (seconds, cpu), notes = record
    except _UNREADABLE:
        return None
    return TaskResult(value, seconds, notes, cached=True, cpu_seconds=cpu)


def cached_results(cache_dir):
    """``{cache name: TaskResult}`` of every readable entry in ``cache_dir`` (batches and single files)."""
    try:
        names = os.listdir(cache_dir)
    except OSError:
        return {}
    out = {}
    for name in sorted(names):
        if not name.endswith(".pkl"):
            continue  # temporary files of an interrupted write
        content = _read(os.path.join(cache_dir, name))
        records = content.items() if name.startswith(_BATCH) and isinstance(content, dict) else [(name, content)]
        for key, record in records:
            result = _result(record) if record is not None else None
            if result is not None:
                out[key] = result
    return out


class _CacheWriter:
    """Collects finished tasks and writes them as one batch file at most every ``every`` seconds."""

    def __init__(self, cache_dir, every=1.0):
        self.cache_dir, self.every = cache_dir, every
        self.pending, self.files = {}, 0
        self.last = time.monotonic()

    def add(self, name, record):
        self.pending[name] = record
        if time.monotonic() - self.last >= self.every:
            self.flush()

    def flush(self):
        if self.pending:
            path = os.path.join(self.cache_dir, f"{_BATCH}{time.time_ns():d}-{os.getpid()}-{self.files}.pkl")
            tmp = f"{path}.tmp"
            with open(tmp, "wb") as fh:
                pickle.dump(self.pending, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
            self.pending, self.files = {}, self.files + 1
        self.last = time.monotonic()


class _PlainProgress:
    """A one-line progress report on stderr, for when tqdm (the ``scale`` extra) is not installed."""

    def __init__(self, total, initial, desc, every=1.0):
        self.total, self.n, self.desc, self.every = total, initial, desc, every
        self.t0 = self.last = time.monotonic()
        self._show()

    def _show(self, end=""):
        elapsed = time.monotonic() - self.t0
        sys.stderr.write(f"\r{self.desc}: {self.n}/{self.total} tasks, {elapsed:.0f} s{end}")
        sys.stderr.flush()

    def update(self, n=1):
        self.n += n
        if time.monotonic() - self.last >= self.every or self.n >= self.total:
            self.last = time.monotonic()
            self._show()

    def close(self):
        self._show(end="\n")


def _progress_bar(total, initial, desc, enabled):
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # without the scale extra: a plain line instead of a bar
        return _PlainProgress(total, initial, desc)
    return tqdm(total=total, initial=initial, desc=desc, unit="task", smoothing=0.05, dynamic_ncols=True)


#: Wall seconds for a pool of new loky workers to start: each imports NumPy, SciPy, scikit-learn
#: and the package before its first task (measured 1.2 s on an idle 2-core machine; the workers
#: start in parallel).  A pool is started only when the work it takes over is worth several times
#: this; workers stay alive for joblib's idle timeout (300 s), and a pool used by this process less
#: than :data:`_WARM_SECONDS` ago is taken as running (no start-up to pay).
WORKER_START_SECONDS = 1.2
#: How long the first (costliest) tasks run in this process to measure the speed of the work.
_PROBE_SECONDS = 0.5
_WARM_SECONDS = 240.0
_last_pool_use = {}  # n_jobs -> time.monotonic() when a loky pool of that size last finished work


def _pool_is_warm(n_jobs):
    last = _last_pool_use.get(n_jobs)
    return last is not None and time.monotonic() - last < _WARM_SECONDS


def _free_cores():
    """Cores this run can have: the CPU count minus the other work on the machine (at least 1).

    The 1-minute load average counts this process too (it is running the probe), so the others'
    load is ``load − 1``.  Measured on a 2-core machine at load ≈ 10 (``dps-pca --scale book``):
    two workers took 1.07× and 1.72× the wall time of one, since new workers then only add start-up
    and contention.  Without a load average (Windows) every core counts as free.
    """
    n = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - no load average on this platform
        return n
    return max(1, min(n, int(n - max(load - 1.0, 0.0) + 0.5)))


def _worth_a_pool(seconds_done, cost_done, cost_left, n_jobs):
    """Whether ``n_jobs`` new workers finish the remaining work sooner than this process alone.

    The remaining work takes R = (seconds per unit of cost so far) × (cost left) here, and about
    S + R/n_jobs on a new pool (S = :data:`WORKER_START_SECONDS`); the pool is chosen only when it
    saves at least S more, R(1 − 1/n_jobs) ≥ 2S, so a misjudged cost costs at most ~S.
    """
    if cost_left <= 0:
        return False
    if cost_done <= 0:
        return True
    remaining = seconds_done / cost_done * cost_left
    return remaining * (1.0 - 1.0 / n_jobs) >= 2.0 * WORKER_START_SECONDS


def _iter_loky(jobs, costs, n_jobs, plan):
    """Results of ``jobs`` as they finish: in this process, or on ``n_jobs`` loky workers when worth it.

    Unless a pool of that size is already running, the costliest tasks run here first for
    :data:`_PROBE_SECONDS`; from their speed and the estimated costs of the rest, the rest goes to
    a pool only if starting one pays off (:func:`_worth_a_pool`) and the machine has cores to spare
    (:func:`_free_cores`; the pool then has at most that many workers); otherwise it runs here too.  So
    ``n_jobs = 2`` is never much slower than one worker on work smaller than the workers' start-up.
    Results do not depend on where a task runs (each has its own seed and one BLAS thread).
    """
    done = 0
    if n_jobs > 1 and not _pool_is_warm(n_jobs):
        t0, cost_done = time.perf_counter(), 0.0
        while done < len(jobs) and (done == 0 or time.perf_counter() - t0 < _PROBE_SECONDS):
            yield _indexed_call(*jobs[done])
            cost_done += costs[done]
            done += 1
        n_jobs = min(n_jobs, _free_cores())  # a busy machine has no core for another worker
        if n_jobs > 1 and not _worth_a_pool(time.perf_counter() - t0, cost_done, sum(costs[done:]), n_jobs):
            n_jobs = 1
    plan["workers"] = n_jobs
    if n_jobs == 1:  # in this process: no pickling, no pool to start
        for job in jobs[done:]:
            yield _indexed_call(*job)
        return
    from joblib import Parallel, delayed

    # chunks come back as they finish (so their tasks are cached at once)
    parallel = Parallel(n_jobs=n_jobs, backend="loky", return_as="generator_unordered", batch_size=1)
    try:
        for chunk in parallel(delayed(_chunk_call)(c) for c in _chunks(jobs[done:], costs[done:], n_jobs)):
            yield from chunk
    finally:
        _last_pool_use[n_jobs] = time.monotonic()


def require_extra(module, extra, what):
    """Import ``module`` or raise an ImportError whose one line names the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{what} needs '{module}': pip install 'privpca_edu[{extra}]'") from None


def _iter_dask(jobs, costs, n_jobs, scheduler):
    require_extra("distributed", "scale", "--backend dask")
    from distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler is None:
        # a private cluster on this machine: loopback only, no dashboard, closed at the end
        cluster = LocalCluster(n_workers=n_jobs, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, silence_logs=40)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        workers = max(1, len(client.scheduler_info(n_workers=-1)["workers"]))
        futures = [client.submit(_chunk_call, c, pure=False)  # pure=False: unique keys
                   for c in _chunks(jobs, costs, workers)]
        try:
            for future in as_completed(futures):
                yield from future.result()
        finally:
            client.cancel([f for f in futures if not f.done()])
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def resolve_n_jobs(n_jobs):
    """``-1`` (or None) → every core this process may use; otherwise a positive int."""
    if n_jobs is None or n_jobs == -1:
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except (AttributeError, OSError):  # pragma: no cover - not Linux
            return max(1, os.cpu_count() or 1)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive int or -1 (all cores), got {n_jobs!r}")
    return int(n_jobs)


def run_tasks(tasks, *, paper, scale, version, seed=0, n_jobs=1, backend="loky", scheduler=None, cache_dir=None,
              progress=True, on_result=None, plan=None):
    """Results of ``tasks`` (a list of :class:`TaskResult`, in grid order), computing only uncached ones.

    ``plan`` (a dict, optional) receives ``"workers"``: the number of loky processes that ran the
    tasks (1 when the work was too small to be worth starting ``n_jobs`` workers, see
    :func:`_iter_loky`).

    ``on_result(index, result)`` is called in the main process after each computed task (used
    by the tests to interrupt a run); the task is in the cache within a second, or as soon as
    the run stops, whatever stops it.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise ValueError("scheduler= needs backend='dask'")
    n_jobs = resolve_n_jobs(n_jobs)
    n = len(tasks)
    children = np.random.SeedSequence(seed).spawn(n)
    names = [None] * n
    results = [None] * n
    writer = None
    if cache_dir is not None:
        os.makedirs(cache_dir, exist_ok=True)
        cached = cached_results(cache_dir)
        for i, task in enumerate(tasks):
            names[i] = cache_name(paper, scale, version, seed, i, task)
            results[i] = cached.get(names[i])
        writer = _CacheWriter(cache_dir)
    # longest first, so that no worker is left with one long task while the others idle at the end
    todo = sorted((i for i in range(n) if results[i] is None), key=lambda i: -tasks[i].cost)
    jobs = [(i, tasks[i].fn, tasks[i].kwargs, children[i].entropy, children[i].spawn_key) for i in todo]
    bar = _progress_bar(n, n - len(todo), f"{paper} ({scale})", progress)
    try:
        if jobs:
            costs = [max(float(tasks[i].cost), 0.0) for i in todo]
            stream = (_iter_loky(jobs, costs, n_jobs, plan if plan is not None else {}) if backend == "loky" else
                      _iter_dask(jobs, costs, n_jobs, scheduler))
            for i, value, (seconds, cpu), notes in stream:
                if writer is not None:
                    writer.add(names[i], (value, (seconds, cpu), notes))
                results[i] = TaskResult(value, seconds, notes, cpu_seconds=cpu)
                if bar is not None:
                    bar.update(1)
                if on_result is not None:
                    on_result(i, results[i])
    finally:
        if writer is not None:
            writer.flush()
        if bar is not None:
            bar.close()
    return results
