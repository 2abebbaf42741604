"""python -m privpca_edu.reproduce: same numbers on any workers and backend, resumes after an interruption."""

from __future__ import annotations

import filecmp
import glob
import os
import pickle

import numpy as np
import pytest

pytest.importorskip("joblib")
pytest.importorskip("distributed")

from privpca_edu import reproduce  # noqa: E402
from privpca_edu.reproduce import _engine  # noqa: E402
from privpca_edu.reproduce.__main__ import main  # noqa: E402

PAPERS = tuple(reproduce.PAPERS)


def _csvs(folder):
    """The seeded tables (``*_timing.csv`` hold measured times, which differ between runs)."""
    return sorted(os.path.basename(f) for f in glob.glob(os.path.join(folder, "*.csv"))
                  if not f.endswith("_timing.csv"))


def _assert_same_tables(a, b):
    names = _csvs(a)
    assert names and names == _csvs(b)
    different = [n for n in names if not filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False)]
    assert not different, f"{different} differ between {a} and {b}"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Every paper at quick scale on one worker, in this process."""
    root = tmp_path_factory.mktemp("serial")
    out = {}
    for paper in PAPERS:
        out[paper] = str(root / paper)
        reproduce.run(paper, "quick", n_jobs=1, out=out[paper], progress=False, figures=paper == "dps-pca")
    return out


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                      silence_logs=40) as c:
        yield c


def test_reference_run_writes_tables_figures_and_report(reference):
    folder = reference["dps-pca"]
    assert {"fig3a.csv", "fig3b.csv", "fig4a.csv", "fig4b.csv"} <= set(_csvs(folder))
    assert os.path.exists(os.path.join(folder, "table1_timing.csv"))
    assert glob.glob(os.path.join(folder, "*.png"))
    report = open(os.path.join(folder, "report.md"), encoding="utf-8").read()
    assert "Fig. 3(a)" in report and "Table 1" in report
    assert "## The paper's orderings, checked" in report
    assert "holds" in report
    for word in ("spec", "shared/"):
        assert word not in report
    for paper in PAPERS:  # every paper checks some of its orderings
        text = open(os.path.join(reference[paper], "report.md"), encoding="utf-8").read()
        assert text.count("” — holds") + text.count("” — **does NOT hold**") >= 3


def test_two_loky_workers_give_identical_tables(reference, tmp_path, monkeypatch):
    # workers that start for free, and a probe of one task: the pool takes over after the first task
    monkeypatch.setattr(_engine, "WORKER_START_SECONDS", 0.0)
    monkeypatch.setattr(_engine, "_PROBE_SECONDS", 0.0)
    monkeypatch.setattr(_engine, "_free_cores", lambda: 2)  # whatever else the machine runs
    for paper in PAPERS:
        out = str(tmp_path / paper)
        res = reproduce.run(paper, "quick", n_jobs=2, out=out, progress=False, figures=False)
        assert res["runs"][-1]["workers"] == 2, paper
        _assert_same_tables(reference[paper], out)


def test_work_smaller_than_the_workers_start_up_runs_in_this_process(reference, tmp_path, monkeypatch):
    import joblib

    def no_pool(*args, **kwargs):
        raise AssertionError("a worker pool was started for work smaller than its start-up")

    monkeypatch.setattr(joblib, "Parallel", no_pool)
    monkeypatch.setattr(_engine, "WORKER_START_SECONDS", 3600.0)
    monkeypatch.setattr(_engine, "_last_pool_use", {})
    out = str(tmp_path / "g")
    res = reproduce.run("g-dppca", "quick", n_jobs=2, out=out, progress=False, figures=False)
    assert res["runs"][-1]["workers"] == 1
    assert "one process (2 joblib workers asked for" in open(os.path.join(out, "report.md"), encoding="utf-8").read()
    _assert_same_tables(reference["g-dppca"], out)


def test_a_busy_machine_gets_no_extra_worker(monkeypatch):
    import os

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    for load, free in ((0.2, 2), (1.0, 2), (1.6, 1), (2.5, 1), (11.0, 1)):
        monkeypatch.setattr(os, "getloadavg", lambda load=load: (load, load, load))
        assert _engine._free_cores() == free, load


def test_the_pool_decision():
    S = _engine.WORKER_START_SECONDS
    worth = _engine._worth_a_pool
    # 1 s of work done for cost 1, cost 3 left: R = 3 s; two workers save R/2 = 1.5 s < 2S → no pool
    assert worth(1.0, 1.0, 3.0, 2) is (1.5 >= 2 * S)
    assert not worth(0.1, 1.0, 10.0, 2)        # R = 1 s: far below the start-up
    assert worth(1.0, 1.0, 100.0, 2)           # R = 100 s: a pool halves it
    assert not worth(1.0, 1.0, 0.0, 2)         # nothing left
    assert worth(0.0, 0.0, 5.0, 2)             # no measurement (zero costs): trust the workers


def test_dask_cluster_gives_identical_tables(reference, cluster, tmp_path):
    for paper in PAPERS:
        out = str(tmp_path / paper)
        reproduce.run(paper, "quick", backend="dask", scheduler=cluster.scheduler_address, out=out, progress=False,
                      figures=False)
        _assert_same_tables(reference[paper], out)


def test_cli_dask_starts_and_closes_its_own_local_cluster(reference, tmp_path, capsys):
    out = str(tmp_path / "g")
    assert main(["g-dppca", "--scale", "quick", "--backend", "dask", "--n-jobs", "2", "--out", out,
                 "--no-progress", "--no-figures"]) == 0
    assert "orderings hold" in capsys.readouterr().out
    _assert_same_tables(reference["g-dppca"], out)


@pytest.mark.filterwarnings("ignore:.*tasks have been successfully executed:UserWarning")  # joblib, on interrupt
@pytest.mark.filterwarnings("ignore:.*tasks which were still being processed:UserWarning")
def test_interrupted_run_resumes_with_the_same_tables(reference, tmp_path):
    out = str(tmp_path / "dps")
    n_tasks = len(reproduce.paper_tasks("dps-pca", "quick")[1])
    seen = []

    def interrupt(index, result):
        seen.append(index)
        if len(seen) == 5:
            raise KeyboardInterrupt  # what Ctrl-C does in the main process

    with pytest.raises(KeyboardInterrupt):
        reproduce.run("dps-pca", "quick", n_jobs=2, out=out, progress=False, figures=False, on_result=interrupt)
    cache = os.path.join(out, ".cache")
    done = _engine.cached_results(cache)
    assert 5 <= len(done) < n_tasks  # everything computed before the interruption was written
    # a writer killed mid-write leaves at most a temporary file, ignored; a damaged file is
    # skipped and its tasks recomputed
    open(os.path.join(cache, "batch-0-0-0.pkl.tmp"), "wb").write(b"\x80\x04")
    open(os.path.join(cache, "batch-1-0-0.pkl"), "wb").write(b"\x80\x04")
    res = reproduce.run("dps-pca", "quick", n_jobs=1, out=out, progress=False, figures=False)
    assert res["cached"] == len(done)
    _assert_same_tables(reference["dps-pca"], out)
    again = reproduce.run("dps-pca", "quick", n_jobs=1, out=out, progress=False, figures=False)
    assert again["cached"] == n_tasks


def test_cache_is_written_in_batches_and_reads_one_file_per_task_too(tmp_path):
    """Quick tasks share a file (one open per second, not per task); a file per task is still read."""
    def fn(seed):
        return float(np.random.default_rng(seed).random())

    fn.__module__, fn.__qualname__ = __name__, "fn"
    tasks = [_engine.Task("x", dict(rep=r), fn) for r in range(50)]
    cache = str(tmp_path / "cache")
    first = _engine.run_tasks(tasks, paper="p", scale="quick", version="0", cache_dir=cache, progress=False)
    files = os.listdir(cache)
    assert 1 <= len(files) <= 3 and all(f.startswith("batch-") and f.endswith(".pkl") for f in files)
    assert len(_engine.cached_results(cache)) == 50
    # the older layout: one pickle per task, named by cache_name
    name = _engine.cache_name("p", "quick", "0", 0, 50, _engine.Task("x", dict(rep=50), fn))
    with open(os.path.join(cache, name), "wb") as fh:
        pickle.dump((0.5, (1.0, 1.0), ()), fh)
    more = tasks + [_engine.Task("x", dict(rep=50), fn)]
    again = _engine.run_tasks(more, paper="p", scale="quick", version="0", cache_dir=cache, progress=False)
    assert all(r.cached for r in again) and again[50].value == 0.5
    assert [r.value for r in again[:50]] == [r.value for r in first]
    # a damaged batch: its tasks are recomputed, to the same values
    batch = [f for f in files if f.startswith("batch-")][0]
    with open(os.path.join(cache, batch), "r+b") as fh:
        fh.truncate(3)
    third = _engine.run_tasks(tasks, paper="p", scale="quick", version="0", cache_dir=cache, progress=False)
    assert [r.value for r in third] == [r.value for r in first] and not all(r.cached for r in third)


def test_each_task_draws_from_its_own_spawned_seed():
    calls = []

    def fn(seed):
        calls.append(seed.spawn_key)
        return float(np.random.default_rng(seed).random())

    fn.__module__, fn.__qualname__ = __name__, "fn"
    tasks = [_engine.Task("x", dict(rep=r), fn) for r in range(4)]
    results = _engine.run_tasks(tasks, paper="p", scale="quick", version="0", seed=7, progress=False)
    children = np.random.SeedSequence(7).spawn(4)
    assert [r.value for r in results] == [float(np.random.default_rng(c).random()) for c in children]
    assert calls == [c.spawn_key for c in children]


def test_task_seed_and_run_task_are_what_the_workers_use():
    """task_seed(seed, n, i) is child i of SeedSequence(seed).spawn(n); run_task recomputes a task's cached value."""
    for seed, n, i in ((0, 423, 0), (0, 2440, 1234), (7, 5, 4)):
        child = np.random.SeedSequence(seed).spawn(n)[i]
        mine = _engine.task_seed(seed, n, i)
        assert (mine.entropy, mine.spawn_key, mine.pool_size) == (child.entropy, child.spawn_key, child.pool_size)
        assert (mine.generate_state(8) == child.generate_state(8)).all()
    with pytest.raises(IndexError):
        _engine.task_seed(0, 5, 5)

    def fn(seed):
        return float(np.random.default_rng(seed).random())

    fn.__module__, fn.__qualname__ = __name__, "fn"
    tasks = [_engine.Task("x", dict(rep=r), fn) for r in range(6)]
    results = _engine.run_tasks(tasks, paper="p", scale="quick", version="0", seed=3, progress=False)
    assert [_engine.run_task(tasks, i, seed=3) for i in range(6)] == [r.value for r in results]


def test_bad_arguments_are_refused(tmp_path, capsys):
    with pytest.raises(ValueError, match="paper must be one of"):
        reproduce.run("pca", "quick", out=str(tmp_path))
    with pytest.raises(ValueError, match="scale must be one of"):
        reproduce.run("dps-pca", "huge", out=str(tmp_path))
    with pytest.raises(ValueError, match="backend must be one of"):
        reproduce.run("dps-pca", "quick", backend="ray", out=str(tmp_path))
    with pytest.raises(ValueError, match="n_jobs must be"):
        reproduce.run("dps-pca", "quick", n_jobs=0, out=str(tmp_path))
    with pytest.raises(ValueError, match="needs"):
        reproduce.run("dps-pca", "quick", scheduler="tcp://127.0.0.1:1", out=str(tmp_path))
    with pytest.raises(SystemExit):
        main(["dps-pca", "--scheduler", "tcp://127.0.0.1:1"])
    assert "--scheduler needs --backend dask" in capsys.readouterr().err


def test_list_names_every_paper_and_scale(capsys):
    assert main(["--list"]) == 0
    text = capsys.readouterr().out
    for paper in PAPERS:
        assert paper in text
    assert text.count("--scale paper") == len(PAPERS)


def test_every_run_into_a_folder_is_kept_in_runs_json_and_the_report(tmp_path):
    """A rerun that takes every task from the cache keeps the first run's measured time in report.md."""
    import json

    out = str(tmp_path / "runs")
    first = reproduce.run("dps-pca", "quick", n_jobs=1, out=out, progress=False, figures=False)
    second = reproduce.run("dps-pca", "quick", n_jobs=1, out=out, progress=False, figures=False)
    runs = json.load(open(os.path.join(out, "runs.json"), encoding="utf-8"))
    assert runs == second["runs"] and len(runs) == 2
    n = first["n_tasks"]
    assert [(r["computed"], r["from_cache"]) for r in runs] == [(n, 0), (0, n)]
    assert runs[0]["wall_seconds"] == round(first["wall_seconds"], 3) and runs[0]["cpu_seconds_computed"] > 0
    assert runs[1]["cpu_seconds_computed"] == 0
    for r in runs:
        assert (r["paper"], r["scale"], r["backend"], r["workers"], r["tasks"]) == ("dps-pca", "quick", "loky", 1, n)
        assert r["load_average"] is None or len(r["load_average"]) == 3
    report = open(os.path.join(out, "report.md"), encoding="utf-8").read()
    table = report.split("Runs into this folder")[1].split("\n\n")[1].splitlines()
    assert table[0].startswith("| started (UTC) | backend | workers | computed | from cache |")
    assert len(table) == 2 + 2
    assert table[2].split(" | ")[1:5] == ["loky", "1", str(n), "0"]
    assert table[3].split(" | ")[1:5] == ["loky", "1", "0", str(n)]
    assert f"| {runs[0]['wall_seconds']:.1f} |" in table[2]
    # a record written by hand (a run from before runs.json existed), with unknown values, is shown too
    runs.insert(0, dict(paper="dps-pca", scale="quick", started_utc="2026-01-01 00:00", backend="loky", workers=2,
                        computed=n, from_cache=0, wall_seconds=99.5, cpu_seconds_computed=150.0, load_average=None))
    json.dump(runs, open(os.path.join(out, "runs.json"), "w", encoding="utf-8"))
    third = reproduce.run("dps-pca", "quick", n_jobs=1, out=out, progress=False, figures=False)
    assert len(third["runs"]) == 4
    report = open(os.path.join(out, "report.md"), encoding="utf-8").read()
    assert "| 2026-01-01 00:00 | loky | 2 | " + str(n) + " | 0 | 99.5 | 150.0 | — |" in report


def test_mean_sd_cells_of_the_report():
    from privpca_edu.reproduce._report import fmt_mean_sd

    assert fmt_mean_sd(1.00057845175491, 0.19166156219747793) == "1.00 ± 0.19"
    assert fmt_mean_sd(2.230468882320282, 0.001521924378128833) == "2.2305 ± 0.0015"
    assert fmt_mean_sd(0.5866902437678042, 0.11774423858022806) == "0.587 ± 0.118"
    assert fmt_mean_sd(1.0, 1e-15) == "1.0000 ± 0.0000"  # a tiny sd does not stretch the mean
    assert fmt_mean_sd(0.4, 0.0) == "0.4" and fmt_mean_sd(float("nan"), 0.1) == "—"


def test_figure_3_tables_give_mean_and_sd(reference):
    report = open(os.path.join(reference["dps-pca"], "report.md"), encoding="utf-8").read()
    fig3a = report.split("### Fig. 3(a)")[1].split("###")[0]
    assert "| ε | t = 0 | t = 4 | t = 5 = T |" in fig3a and "mean ± sd over 2 repetitions" in fig3a
    fig3b = report.split("### Fig. 3(b)")[1].split("###")[0]
    rows = [line for line in fig3b.splitlines() if line.startswith("| 1 |") or line.startswith("| 2 |")]
    assert len(rows) == 2 and all(line.count(" ± ") == 2 for line in rows)
