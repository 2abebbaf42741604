"""Smoke tests: ``benchmarks/bench_foundation.py --quick`` and a short ``bench_twins.py`` run to the end.

Not a timing assertion: timings depend on the machine.  It only guards the benchmark script
against rotting as the package's internals change (it imports private samplers).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_foundation.py"


def test_bench_foundation_quick_runs():
    env = dict(os.environ, MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"],
        capture_output=True, text=True, timeout=600, env=env, cwd=SCRIPT.parent.parent,
    )
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert any("median" in line for line in proc.stdout.splitlines()), proc.stdout
    for part in ("(a) PPCA Gibbs", "(b) MOD-SuLQ", "(c) exact k=1 sampler"):
        assert part in proc.stdout, f"{part!r} missing from:\n{proc.stdout}"


def test_bench_twins_runs():
    # benchmarks/bench_twins.py reaches into the twins' caches (clear_caches) and the dashboards'
    # controls: a short walk on the quickest dashboard guards it against rotting.
    pytest.importorskip("ipywidgets")
    script = SCRIPT.parent / "bench_twins.py"
    env = dict(os.environ, MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(script), "--only", "breakdown", "--changes", "3"],
                          capture_output=True, text=True, timeout=600, env=env, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert "breakdown (ch. 9)      walk" in proc.stdout and "defaults" in proc.stdout, proc.stdout


def test_bench_fit_overhead_quick_runs():
    # benchmarks/bench_fit_overhead.py reaches into the Kendall pair sum (its core); a quick run guards it
    script = SCRIPT.parent / "bench_fit_overhead.py"
    env = dict(os.environ, MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(script), "--quick", "--pairs", "3"],
                          capture_output=True, text=True, timeout=600, env=env, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert "AnalyzeGauss" in proc.stdout and "KendallDPPCA" in proc.stdout, proc.stdout
    assert "skip_parameter_validation" in proc.stdout, proc.stdout
