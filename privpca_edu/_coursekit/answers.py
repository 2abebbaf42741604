"""The exercises' answers (instructors only): solutions, tolerances, and the answer keys.

Every exercise cell of the book ends in ``widgets.check_answer("<id>", <variable>)``.  This
registry says, for each such cell, the code that solves it (``solution``: the statements that
replace the cell's ``... = None`` lines; the nbgrader source notebooks use it verbatim) and, for
each checked value, its id, the expression that reads it after the solution ran, and the
tolerance the exercise asks for.  Expected values are *computed* by running the solution with
the package, never typed in, so they follow the package.

    python -m privpca_edu._coursekit.answers --write   # rewrite privpca_edu/widgets/answer_keys.json
    python -m privpca_edu._coursekit.answers --check   # exit 1 if the key file is stale

``tests/test_coursekit.py`` checks that the key file matches, that every solution passes its
check and that answers off by more than twice the tolerance fail.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..widgets import exercises

ROOT = Path(__file__).resolve().parents[2]
KEYS_PATH = Path(exercises.__file__).with_name(exercises.ANSWER_KEYS_FILE)


@dataclass(frozen=True)
class Answer:
    id: str
    expr: str                 # reads the value after the solution ran, e.g. 'answer_2_3_add_remove'
    rtol: float = 1e-2
    atol: float = 0.0


@dataclass(frozen=True)
class ExerciseCell:
    notebook: str             # file name under notebooks/
    solution: str             # statements assigning the cell's variables
    answers: tuple = field(default_factory=tuple)


# The imports (and shared state) each chapter's solutions use: the names the chapter itself
# defines before its exercises.
SETUP = {
    "01_why_private_pca.ipynb": "from privpca_edu import experiments, widgets",
    "02_dp_in_one_sitting.ipynb": "import math\nfrom privpca_edu import experiments, privacy",
    "03_subspaces.ipynb": "import numpy as np\nimport privpca_edu as pp\nfrom privpca_edu import experiments, subspace",
    "04_noisy_covariance.ipynb": (
        "from privpca_edu import bounds, privacy\n"
        "from privpca_edu.experiments import noisy_covariance as nc\n"
        "data = nc.spiked_data(2000, 30, 1, 0)\n"
        "plane = nc.bingham_2d(epsilons=(0.25, 1.0, 4.0), n_samples=20, angle_degrees=30.0, "
        "n_draws=20_000, seed=0)"),
    "05_auditing.ipynb": "import math\nfrom privpca_edu import audit",
    "06_local_privacy.ipynb": (
        "import numpy as np\n"
        "from privpca_edu.estimators.local import local_noise_scale\n"
        "from privpca_edu.subspace import fantope_projection"),
    "07_encrypted_distributed.ipynb": "import privpca_edu as pp",
    "08_dps_pca.ipynb": "from privpca_edu import privacy",
    "09_heavy_tails.ipynb": (
        "import math\n"
        "from privpca_edu.bounds.robust import kendall_breakdown\n"
        "from privpca_edu.estimators.robust import kendall_noise_scale"),
    "10_europe_map.ipynb": (
        "import numpy as np\n"
        "from privpca_edu import datasets\n"
        "from privpca_edu.estimators.robust import KendallDPPCA, kendall_noise_scale"),
}

CELLS = (
    ExerciseCell("01_why_private_pca.ipynb",
                 'answer_1_1 = experiments.membership_accuracy_bound(3.0, 1e-5)["dp"]',
                 (Answer("1.1", "answer_1_1", rtol=1e-3),)),
    ExerciseCell("01_why_private_pca.ipynb",
                 "answer_1_2 = next(n for n in widgets.N_SAMPLES_OPTIONS\n"
                 '                  if experiments.membership_attack(1.0, n)["utility"] < 0.2)',
                 (Answer("1.2", "answer_1_2", rtol=0),)),
    ExerciseCell("01_why_private_pca.ipynb",
                 'answer_1_4 = experiments.membership_attack(3.0, 20)["bound"]["gdp"]',
                 (Answer("1.4", "answer_1_4"),)),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 "answer_2_1 = 2 * 10 / 1.0 * math.sqrt(2 * math.log(2 * 10 / 1e-6))",
                 (Answer("2.1", "answer_2_1", rtol=1e-3),)),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 'answer_2_2 = privacy.gaussian_sigma(2 * math.sqrt(10), 1.0, 1e-6, method="analytic")',
                 (Answer("2.2", "answer_2_2", rtol=2e-3),)),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 'answer_2_3_add_remove = experiments.sensitivity_example(2.0)["add_remove"]\n'
                 'answer_2_3_replace_one = experiments.sensitivity_example(2.0)["replace_one"]',
                 (Answer("2.3-add_remove", "answer_2_3_add_remove"),
                  Answer("2.3-replace_one", "answer_2_3_replace_one"))),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 'answer_2_7 = (privacy.gaussian_sigma(math.sqrt(2), 1.0, 1e-5, method="analytic")\n'
                 "              / (math.sqrt(2) * 2 / 1.0))",
                 (Answer("2.7", "answer_2_7"),)),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 "answer_2_8_delta = 5 * math.exp((5 - 1) * 0.5) * 1e-6\n"
                 'sigma = privacy.gaussian_sigma(1.0, 0.5, 1e-6, method="analytic")\n'
                 "answer_2_8_epsilon = privacy.gdp_epsilon(5 / sigma, 1e-6)",
                 (Answer("2.8-delta", "answer_2_8_delta"), Answer("2.8-epsilon", "answer_2_8_epsilon"))),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 "answer_2_9_basic = privacy.compose_basic(privacy.gdp_epsilon(1 / 20, 1e-5 / 50), 1e-5 / 50, 50)[0]\n"
                 "answer_2_9_exact = privacy.gdp_epsilon(math.sqrt(50) / 20, 1e-5)",
                 (Answer("2.9-basic", "answer_2_9_basic"), Answer("2.9-exact", "answer_2_9_exact"))),
    ExerciseCell("03_subspaces.ipynb",
                 'answer_3_1 = {kind: pp.subspace_distance(np.eye(3)[:, :1], np.eye(3)[:, 1:2], kind=kind)\n'
                 '              for kind in ("sin_theta", "projection", "max_angle")}',
                 tuple(Answer(f"3.1-{kind}", f'answer_3_1["{kind}"]', rtol=1e-6)
                       for kind in ("sin_theta", "projection", "max_angle"))),
    ExerciseCell("03_subspaces.ipynb",
                 'answer_3_2 = experiments.plane_distances(45.0, 0.0)["distances"]["sin_theta"]',
                 (Answer("3.2", "answer_3_2", rtol=1e-3),)),
    ExerciseCell("03_subspaces.ipynb",
                 "answer_3_4 = subspace.random_subspace_distance(1000, 10)",
                 (Answer("3.4", "answer_3_4", rtol=1e-3),)),
    ExerciseCell("03_subspaces.ipynb",
                 'answer_3_5 = experiments.plane_distances(20.0, 50.0)["angles_deg"][-1]',
                 (Answer("3.5", "answer_3_5", rtol=1e-3),)),
    ExerciseCell("04_noisy_covariance.ipynb",
                 "answer_4_1 = privacy.mod_sulq_noise_scale(40, 100_000, 1.0, 0.1)",
                 (Answer("4.1", "answer_4_1", rtol=1e-3),)),
    ExerciseCell("04_noisy_covariance.ipynb",
                 "answer_4_2 = bounds.analyze_gauss_bound(10_000, 100, 1, 1.0, 1e-5, data.eigengap,\n"
                 '                                        calibration="analytic")["expected_spectral_norm"]',
                 (Answer("4.2", "answer_4_2"),)),
    ExerciseCell("04_noisy_covariance.ipynb",
                 'answer_4_3 = 2000 * bounds.mod_sulq_bound(2000, 30, 1, 1.0, 1e-5, data.eigengap)["davis_kahan"]',
                 (Answer("4.3", "answer_4_3", rtol=0.05),)),
    ExerciseCell("04_noisy_covariance.ipynb",
                 'answer_4_4 = plane["density"][1.0].max() / plane["density"][1.0].min()',
                 (Answer("4.4", "answer_4_4"),)),
    ExerciseCell("05_auditing.ipynb",
                 "answer_5_2 = math.sqrt(2 / 5000)",
                 (Answer("5.2", "answer_5_2"),)),
    ExerciseCell("05_auditing.ipynb",
                 "answer_5_3 = audit.max_gdp_mu(1.0, 1e-5) / (audit.max_gdp_mu(1.0, 1e-5) + 4 * math.sqrt(2 / 20_000))",
                 (Answer("5.3", "answer_5_3", rtol=0.03),)),
    ExerciseCell("06_local_privacy.ipynb",
                 'answer_6_1 = local_noise_scale(0.5, 1e-5)["noise_scale"]',
                 (Answer("6.1", "answer_6_1", rtol=1e-3),)),
    ExerciseCell("06_local_privacy.ipynb",
                 'answer_6_2 = local_noise_scale(0.5, 1e-5)["noise_scale"] / 1000',
                 (Answer("6.2", "answer_6_2", rtol=1e-3),)),
    ExerciseCell("06_local_privacy.ipynb",
                 "answer_6_3 = 1e6 * (1 / 0.25) ** 2",
                 (Answer("6.3", "answer_6_3", rtol=1e-6),)),
    ExerciseCell("06_local_privacy.ipynb",
                 "answer_6_4_theta = fantope_projection(np.diag([3.0, 1.0, 0.5]), 1, return_eigen=True)[1][0]",
                 (Answer("6.4", "answer_6_4_theta", rtol=1e-6),)),
    ExerciseCell("07_encrypted_distributed.ipynb",
                 "answer_7_1 = 20 * 21 // 2 + 20 + 1",
                 (Answer("7.1", "answer_7_1", rtol=0),)),
    ExerciseCell("07_encrypted_distributed.ipynb",
                 "answer_7_2_corrected = pp.privacy.gaussian_sigma(4.0, 0.5, 1e-6)\n"
                 "answer_7_2_paper = pp.privacy.gaussian_sigma(1.0, 0.5, 1e-6)",
                 (Answer("7.2-corrected", "answer_7_2_corrected"),
                  Answer("7.2-paper", "answer_7_2_paper"))),
    ExerciseCell("08_dps_pca.ipynb",
                 "answer_8_1 = privacy.dps_pca_sigma(2.0, 0.01, 10)",
                 (Answer("8.1", "answer_8_1"),)),
    ExerciseCell("08_dps_pca.ipynb",
                 "answer_8_2 = 10",
                 (Answer("8.2", "answer_8_2", rtol=0),)),
    ExerciseCell("08_dps_pca.ipynb",
                 "answer_8_4 = (1 - 40 / 200) ** 10",
                 (Answer("8.4", "answer_8_4"),)),
    ExerciseCell("09_heavy_tails.ipynb",
                 "my_sigma = kendall_noise_scale(2000, 0.5, 1e-5)[1]",
                 (Answer("9.1", "my_sigma"),)),
    ExerciseCell("09_heavy_tails.ipynb",
                 "my_delta = 2 * math.sqrt(2) * 10 / 500",
                 (Answer("9.2", "my_delta"),)),
    ExerciseCell("09_heavy_tails.ipynb",
                 'my_fraction = kendall_breakdown([0.6, 0.25, 0.15], 1, 10**6)["breakdown_lower_bound"]',
                 (Answer("9.3", "my_fraction", rtol=1e-3),)),
    ExerciseCell("10_europe_map.ipynb",
                 "answer_10_1 = kendall_noise_scale(1387, 0.5, 1e-5)[1]",
                 (Answer("10.1", "answer_10_1"),)),
    ExerciseCell("10_europe_map.ipynb",
                 "answer_10_2_t0 = 1.0\nanswer_10_2_sin = 0.0",
                 (Answer("10.2-t0", "answer_10_2_t0", rtol=1e-9), Answer("10.2-sin", "answer_10_2_sin", atol=1e-9))),
    ExerciseCell("10_europe_map.ipynb",
                 "answer_10_3 = np.sqrt(2 * 20) * kendall_noise_scale(1387, 0.5, 1e-5)[1]",
                 (Answer("10.3", "answer_10_3", rtol=5e-3),)),
    # the budget factor on the simulation: (noise/gap of AG with B = 1) / (noise/gap of spherical Kendall);
    # both σ at the same ε (their ratio, √2B²/4, does not depend on ε); 3% accepts the page's rounded gaps
    # (0.111 / (2 · 0.017) = 3.26)
    ExerciseCell("10_europe_map.ipynb",
                 "sim = datasets.europe()\n"
                 "n, d = sim.X.shape\n"
                 "lam = np.linalg.eigvalsh(KendallDPPCA(2, epsilon=np.inf).release_parts(sim.X).statistic)[::-1]\n"
                 "mu = sim.eigenvalues\n"
                 "sigma = kendall_noise_scale(n, 0.5, 1e-5)[1]\n"
                 "sigma_ag = np.sqrt(2) * 1.0**2 / n * np.sqrt(2 * np.log(1.25 / 1e-5)) / 0.5\n"
                 "answer_10_5 = (2 * np.sqrt(d) * sigma_ag / (mu[0] - mu[1])) / (np.sqrt(2 * d) * sigma / (lam[0] - lam[1]))",
                 (Answer("10.5", "answer_10_5", rtol=0.03),)),
)


def answers():
    """Every checked value: (cell, answer) pairs in book order."""
    return [(cell, ans) for cell in CELLS for ans in cell.answers]


def chapter_of():
    """{id: notebook file name}."""
    return {ans.id: cell.notebook for cell, ans in answers()}


@functools.lru_cache(maxsize=None)
def _chapter_namespace(notebook):
    namespace = {}
    exec(SETUP[notebook], namespace)  # noqa: S102 - the registry's own code
    return namespace


@functools.lru_cache(maxsize=None)
def expected_values():
    """{id: expected value}: each cell's solution run after its chapter's setup."""
    values = {}
    for cell in CELLS:
        namespace = dict(_chapter_namespace(cell.notebook))
        exec(cell.solution, namespace)  # noqa: S102
        for ans in cell.answers:
            values[ans.id] = float(eval(ans.expr, namespace))  # noqa: S307
    return values


def answer_keys():
    values = expected_values()
    return {ans.id: exercises.answer_key(ans.id, values[ans.id], rtol=ans.rtol, atol=ans.atol)
            for _, ans in answers()}


def render_keys():
    return json.dumps({
        "about": "Answer keys for privpca_edu.widgets.check_answer: salted PBKDF2 hashes of the "
                 "grid cell of each expected value (see exercises.py). Written by "
                 "python -m privpca_edu._coursekit.answers --write; do not edit.",
        "exercises": answer_keys(),
    }, indent=1, sort_keys=True) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help="rewrite the answer-key file")
    group.add_argument("--check", action="store_true", help="exit 1 if the key file is stale")
    args = parser.parse_args(argv)
    text = render_keys()
    if args.write:
        KEYS_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {len(answers())} answer keys to {KEYS_PATH.relative_to(ROOT)}")
        return 0
    if KEYS_PATH.exists() and KEYS_PATH.read_text(encoding="utf-8") == text:
        print(f"{KEYS_PATH.relative_to(ROOT)} is up to date ({len(answers())} keys)")
        return 0
    print(f"{KEYS_PATH.relative_to(ROOT)} is stale: run python -m privpca_edu._coursekit.answers --write",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
