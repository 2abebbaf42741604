"""Smoke test: ``benchmarks/bench_protocol.py --quick`` runs to the end (no timing assertions)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_protocol.py"


def test_bench_protocol_quick_runs():
    pytest.importorskip("phe")
    env = dict(os.environ, MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([str(SCRIPT.parents[1]), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=600,
                          env=env, cwd=SCRIPT.parent.parent)
    assert proc.returncode == 0, f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    for part in ("(a) Paillier throughput", "values/s", "(b) wall time against the number of owners", "median",
                 "(c) run_dpdpca end to end", "parallel/sequential"):
        assert part in proc.stdout, f"{part!r} missing from:\n{proc.stdout}"
    assert "INSECURE" in proc.stdout  # the 1024-bit quick run says so
