"""What a fresh interpreter pays on first use: ``import privpca_edu``, the first fit, the first slider move.

Each measurement runs in a new interpreter (``--repeats`` times, median), so nothing is cached
(the last two columns: the child's CPU time, which the machine's other load hardly changes, and
the wall time of the whole process):

* ``python -c pass`` (the interpreter alone),
* ``import privpca_edu`` (lazy submodules: nothing heavy yet),
* ``from privpca_edu import AnalyzeGauss`` (scikit-learn, SciPy and the estimators load here),
* that import plus the first ``AnalyzeGauss(...).fit(X)`` at n = 2000, d = 20, and a second fit,
* a notebook's first dashboard (``heavy_tails_dashboard``): building it (with its first figure),
  then its first and second slider moves, to show that the first move pays no one-off cost.

Usage::

    python benchmarks/bench_first_use.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHILD = {
    "interpreter": "import time; t0 = time.perf_counter(); result = {}",
    "import privpca_edu": "import time; t0 = time.perf_counter(); import privpca_edu; result = {'import': time.perf_counter() - t0}",
    "first fit": """
import time
t0 = time.perf_counter()
import privpca_edu
t1 = time.perf_counter()
from privpca_edu import AnalyzeGauss
t2 = time.perf_counter()
import numpy as np
X = np.random.default_rng(0).standard_normal((2000, 20)) / 10
t3 = time.perf_counter()
AnalyzeGauss(2, epsilon=0.5, random_state=0).fit(X)
t4 = time.perf_counter()
AnalyzeGauss(2, epsilon=0.5, random_state=0).fit(X)
t5 = time.perf_counter()
result = {'import': t1 - t0, 'from-import AnalyzeGauss': t2 - t1, 'first fit': t4 - t3, 'second fit': t5 - t4}
""",
    "first dashboard": """
import time
t0 = time.perf_counter()
from privpca_edu import widgets
t1 = time.perf_counter()
dash = widgets.heavy_tails_dashboard()
t2 = time.perf_counter()
control = dash.controls['epsilon']
control.value = 2.0  # ε = 1 → 2 → 0.5, on the slider's grid
t3 = time.perf_counter()
control.value = 0.5
t4 = time.perf_counter()
result = {'import widgets': t1 - t0, 'build dashboard': t2 - t1, 'first move': t3 - t2, 'second move': t4 - t3}
""",
}


def run(code):
    env = dict(os.environ, MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    wrapped = code + ("\nimport json, sys; result['total'] = time.perf_counter() - t0; "
                      "result['process CPU'] = time.process_time(); print(json.dumps(result))")
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", wrapped], capture_output=True, text=True, env=env, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["process wall"] = time.perf_counter() - start
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    print(f"median of {args.repeats} fresh interpreters (seconds); one BLAS thread")
    for name, code in CHILD.items():
        runs = [run(code) for _ in range(args.repeats)]
        keys = [k for k in runs[0] if k != "total"]
        parts = "  ".join(f"{k} {statistics.median(r[k] for r in runs):.3f}" for k in keys)
        print(f"{name:18s} {parts}")


if __name__ == "__main__":
    main()
