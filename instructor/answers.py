"""The exercises' answers (instructors only): solutions, parameters, tolerances, answer keys.

This folder (``instructor/``) is not part of the installed package: the wheel, the sdist and the
student edition leave it out.  Every exercise cell of the book ends in
``widgets.check_answer("<id>", <variable>)``.  This registry says, for each such cell,

* ``solution``: the statements that replace the cell's ``... = None`` lines, written with
  ``$name`` placeholders for the exercise's parameters (the nbgrader source notebooks use it);
* ``text``: where the parameters appear in the exercise's statement and check cell, as pairs
  (the book's literal text, an f-string template), so that a term's variant states its own numbers;
* for each checked value, its id, the expression that reads it after the solution ran, its
  tolerance, and ``mistakes``: solutions of a typical error, whose results the hidden tests
  recognise to give a hint ("δ entered as ε?") without saying the answer;
* ``intermediates`` and ``relations``: the values the exercise asks for on the way to its answer,
  which the assignment's answer cell names and its hidden tests check (each with a salted key of
  its own, and the answer recomputed from them with ``math`` only), so that an answer typed in by
  hand, or read off a patched package, does not pass.

``PARAMS`` holds each parameter's value in the book and the grid a term draws it from
(``draw(term)``: seeded by the term and the parameter's name, so adding a parameter does not move
the others, and never the book's own value).  Expected values are *computed* by running the
solution with the package, never typed in, so they follow the package.

    python -m instructor.answers --write   # rewrite privpca_edu/widgets/answer_keys.json
    python -m instructor.answers --check   # exit 1 if the key file is stale
    python -m instructor.answers --term 7 --keys PATH   # a term's key file

``tests/coursekit/test_coursekit.py`` checks that the key file matches, that every solution passes its
check, that the templates reproduce the book's text and that the term variants differ.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import string
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from privpca_edu.widgets import exercises

ROOT = Path(__file__).resolve().parents[1]
KEYS_PATH = Path(exercises.__file__).with_name(exercises.ANSWER_KEYS_FILE)


@dataclass(frozen=True)
class Answer:
    id: str
    expr: str                 # reads the value after the solution ran, e.g. 'answer_2_3_add_remove'
    rtol: float = 1e-2
    atol: float = 0.0


@dataclass(frozen=True)
class Intermediate:
    """A value the exercise asks for on the way to its answer (a σ before an error, a
    sensitivity before a σ, eigenvalues before a ratio): the answer cell's template names it
    (``name = None   # note``), the solution defines it, and the hidden test of ``answer`` (an
    answer id; default the cell's first) checks its type and its value through a salted key of its
    own at ``rtol``/``atol``.  ``shape``: None for a number, else an array's shape (a numpy array, a
    list or a tuple of numbers); ``sorted``: compare the elements sorted (the order of eigenvalues
    is a convention)."""
    name: str
    note: str
    rtol: float = 1e-2        # check_answer's default: never stricter than the exercise it comes from
    atol: float = 0.0
    shape: tuple = None
    sorted: bool = False
    answer: str = None


@dataclass(frozen=True)
class ExerciseCell:
    notebook: str             # file name under notebooks/
    solution: str             # statements assigning the cell's variables ($name: a parameter)
    answers: tuple = field(default_factory=tuple)
    text: tuple = ()          # (book literal, f-string template) in the statement and check cell
    mistakes: tuple = ()      # (hint, solution of that mistake) for the hidden tests
    intermediates: tuple = () # Intermediate(...): checked by the hidden tests too
    # (answer id, expression): the answer recomputed from the intermediates by the hidden test with
    # the standard library only (math; max, min, abs, sum, len), never with the package; an array
    # intermediate is a tuple of floats there; $name: a parameter
    relations: tuple = ()

    @property
    def exercise(self):
        """'2.3' for the cell checking '2.3-add_remove' and '2.3-replace_one'."""
        return self.answers[0].id.split("-")[0]


@dataclass(frozen=True)
class Param:
    book: object              # the value the book uses
    grid: tuple               # what a term draws from (the book's value is never drawn)


def _grid(lo, hi, step):
    n = int(round((hi - lo) / step))
    return tuple(round(lo + i * step, 10) for i in range(n + 1))


def _ints(lo, hi, step=1):
    return tuple(range(lo, hi + 1, step))


def _triples():
    """Eigenvalues (λ₁ > λ₂ ≥ λ₃ > 0) summing to 1 on a grid of 0.05, one per gap λ₁ − λ₂ (the
    answer depends on the gap only)."""
    out = {}
    for a in _grid(0.4, 0.8, 0.05):
        for b in _grid(0.1, 0.45, 0.05):
            c = round(1 - a - b, 10)
            if a > b >= c > 0:
                out.setdefault(round(a - b, 10), (a, b, c))
    return tuple(out[gap] for gap in sorted(out))


PARAMS = {
    "eps11": Param(3.0, _grid(2.25, 4.75, 0.25)),     # an ε the chapter's table skips
    "eps12": Param(1.0, (0.5, 2.0, 5.0)),
    "thr12": Param(0.2, _grid(0.1, 0.3, 0.025)),
    "eps14": Param(3.0, _grid(2.25, 4.75, 0.25)),     # between the table's 2 and 5
    "eps21": Param(1.0, _grid(0.5, 3.0, 0.25)),
    "T21": Param(10, _ints(4, 30)),
    "B23": Param(2.0, _grid(1.5, 6.0, 0.5)),
    "eps27": Param(1.0, _grid(0.25, 3.0, 0.25)),
    "k28": Param(5, _ints(2, 8)),
    "eps28": Param(0.5, _grid(0.2, 1.0, 0.1)),
    "T29": Param(50, _ints(20, 100, 5)),
    "s29": Param(20, _ints(10, 40, 2)),
    "a32": Param(45.0, _grid(15.0, 75.0, 5.0)),
    "k34": Param(10, _ints(2, 20)),
    "d34": Param(1000, _ints(200, 2000, 100)),
    "a35": Param(20.0, _grid(5.0, 40.0, 5.0)),
    "b35": Param(50.0, _grid(30.0, 80.0, 5.0)),
    "d41": Param(40, _ints(10, 80, 5)),
    "eps41": Param(1.0, _grid(0.25, 4.0, 0.25)),
    "n42": Param(10_000, _ints(5000, 50_000, 2500)),
    "d42": Param(100, _ints(50, 300, 10)),
    "eps43": Param(1.0, _grid(0.5, 3.0, 0.25)),
    "eps44": Param(1.0, _grid(0.25, 1.5, 0.125)),
    "N52": Param(5000, _ints(1000, 20_000, 500)),
    "N53": Param(20_000, _ints(5000, 100_000, 5000)),
    "eps61": Param(0.8, _grid(0.2, 0.95, 0.05)),    # the classic constant: ε < 1; not the table's 0.5
    "e62": Param(6, (4, 5, 7, 8)),
    "e63": Param(6, (4, 5, 7)),
    "eps63": Param(0.25, _grid(0.1, 0.9, 0.05)),
    "a64": Param(3.0, _grid(2.5, 6.0, 0.5)),
    "M71": Param(20, _ints(5, 60)),
    "eps72": Param(0.5, _grid(0.1, 0.9, 0.05)),
    "eps81": Param(2.0, _grid(0.5, 5.0, 0.5)),
    "T81": Param(10, _ints(5, 30)),
    "P82": Param(100, tuple(i * i for i in range(4, 31))),
    "d84": Param(200, _ints(100, 1000, 50)),
    "s84": Param(10, _ints(3, 20)),
    "n91": Param(2000, _ints(500, 10_000, 250)),
    "eps91": Param(0.5, _grid(0.1, 0.9, 0.05)),    # the classic Gaussian mechanism: ε < 1
    "r292": Param(10, _ints(2, 30)),
    "n92": Param(500, _ints(100, 2000, 50)),
    "lam93": Param((0.6, 0.25, 0.15), _triples()),
    "eps101": Param(0.5, _grid(0.1, 0.9, 0.05)),       # the chapter prints σ at ε = 1, 2, 5, 10, 20
}


def draw(term=None):
    """{name: value}: the book's values (``term=None``) or term ``term``'s (a seed >= 0)."""
    if term is None:
        return {name: p.book for name, p in PARAMS.items()}
    if isinstance(term, bool) or not isinstance(term, (int, np.integer)) or term < 0:
        raise ValueError(f"term must be an integer seed >= 0, got {term!r}")
    values = {}
    for name, p in PARAMS.items():
        choices = [v for v in p.grid if v != p.book]
        seed = int.from_bytes(hashlib.sha256(f"term {int(term)} {name}".encode()).digest()[:8], "big")
        rng = np.random.default_rng(seed)
        values[name] = choices[int(rng.integers(len(choices)))]
    return values


def _g(x):
    return f"{x:g}"


def _tex_int(n):
    """10000 -> '10\\,000' (the book's thin space in maths), 5000 -> '5000'."""
    return f"{n:,}".replace(",", "\\,") if n >= 10_000 else str(n)


TEXT_HELPERS = {"g": _g, "tex_int": _tex_int, "math": math}


def render_text(template, params):
    """An f-string ``template`` evaluated with the parameters (and g, tex_int, math)."""
    return eval("f" + repr(template), dict(TEXT_HELPERS), dict(params))  # noqa: S307 - our templates


def substitutions(cell, term=None):
    """[(book literal, this term's text)] for ``cell``."""
    params = draw(term)
    return [(literal, render_text(template, params)) for literal, template in cell.text]


def solution(cell, term=None, code=None):
    """The cell's solution (or ``code``, e.g. a mistake's) with the parameters filled in."""
    params = {k: repr(v) if not isinstance(v, tuple) else repr(list(v)) for k, v in draw(term).items()}
    return string.Template(cell.solution if code is None else code).substitute(params)


# The imports (and shared state) each chapter's solutions use: the names the chapter itself
# defines before its exercises.
SETUP = {
    "01_why_private_pca.ipynb": "import privpca_edu as pp\nfrom privpca_edu import experiments, widgets",
    "02_dp_in_one_sitting.ipynb": "import math\nfrom privpca_edu import experiments, privacy",
    "03_subspaces.ipynb": "import math\nimport numpy as np\nimport privpca_edu as pp\nfrom privpca_edu import experiments, subspace",
    "04_noisy_covariance.ipynb": (
        "import numpy as np\n"
        "from privpca_edu import bounds, privacy\n"
        "from privpca_edu.experiments import noisy_covariance as nc\n"
        "data = nc.spiked_data(2000, 30, 1, 0)\n"
        "plane = nc.bingham_2d(epsilons=(0.25, 1.0, 4.0), n_samples=20, angle_degrees=30.0, "
        "n_draws=20_000, seed=0)"),
    "05_auditing.ipynb": "import math\nfrom privpca_edu import audit",
    "06_local_privacy.ipynb": (
        "import math\n"
        "import numpy as np\n"
        "from privpca_edu.privacy import local_noise_scale\n"
        "from privpca_edu.subspace import fantope_projection"),
    "07_encrypted_distributed.ipynb": "import privpca_edu as pp",
    "08_dps_pca.ipynb": "from privpca_edu import privacy",
    "09_heavy_tails.ipynb": (
        "import math\n"
        "from privpca_edu.bounds.robust import kendall_breakdown\n"
        "from privpca_edu.privacy import kendall_noise_scale"),
    "10_europe_map.ipynb": (
        "import math\n"
        "import numpy as np\n"
        "from privpca_edu import datasets\n"
        "from privpca_edu.estimators.robust import KendallDPPCA\n"
        "from privpca_edu.privacy import kendall_noise_scale"),
}


CELLS = (
    ExerciseCell("01_why_private_pca.ipynb",
                 'answer_1_1 = experiments.membership_accuracy_bound($eps11, 1e-5)["dp"]',
                 (Answer("1.1", "answer_1_1", rtol=1e-3),),
                 text=(("ε = 3 and δ = 10⁻⁵", "ε = {g(eps11)} and δ = 10⁻⁵"),
                       ("with eps = 3\")", "with eps = {g(eps11)}\")")),
                 mistakes=(("δ entered as ε?", 'answer_1_1 = experiments.membership_accuracy_bound(1e-5, $eps11)["dp"]'),
                           ("that is 1 minus the bound: the attack's error, not its accuracy",
                            'answer_1_1 = 1 - experiments.membership_accuracy_bound($eps11, 1e-5)["dp"]'))),
    ExerciseCell("01_why_private_pca.ipynb",
                 "answer_1_2 = next(n for n in widgets.N_SAMPLES_OPTIONS\n"
                 '                  if experiments.membership_attack($eps12, n)["utility"] < $thr12)',
                 (Answer("1.2", "answer_1_2", rtol=0),),
                 text=(("membership_attack(1.0, n)", "membership_attack({eps12!r}, n)"),
                       ("PC error at ε = 1 is below 0.2", "PC error at ε = {g(eps12)} is below {g(thr12)}"),
                       ("first n below 0.2", "first n below {g(thr12)}"))),
    ExerciseCell("01_why_private_pca.ipynb",
                 'sigma_1_4 = pp.privacy.gaussian_sigma(2 ** 0.5, $eps14, 1e-5, method="analytic")\n'
                 "mu_1_4 = 2 ** 0.5 / sigma_1_4\n"
                 'answer_1_4 = experiments.membership_attack($eps14, 20)["bound"]["gdp"]',
                 (Answer("1.4", "answer_1_4"),),
                 intermediates=(Intermediate("sigma_1_4", "the analytic σ for Δ = √2, δ = 10⁻⁵"),
                                Intermediate("mu_1_4", "μ = Δ/σ")),
                 relations=(("1.4", "0.5 * math.erfc(-mu_1_4 / 2 / math.sqrt(2))"),),
                 text=(("At ε = 3 and $n = 20$", "At ε = {g(eps14)} and $n = 20$"),
                       ("membership_attack(3.0, 20)", "membership_attack({eps14!r}, 20)")),
                 mistakes=(("that is the generic (ε, δ) bound; this exercise asks for the Gaussian one, Φ(μ/2)",
                            'answer_1_4 = experiments.membership_accuracy_bound($eps14, 1e-5)["dp"]'),)),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 "answer_2_1 = 2 * $T21 / $eps21 * math.sqrt(2 * math.log(2 * $T21 / 1e-6))",
                 (Answer("2.1", "answer_2_1", rtol=1e-3),),
                 text=(("ε = 1, T = 10, Δ = 2", "ε = {g(eps21)}, T = {T21}, Δ = 2"),
                       ("with T = 10, delta = 1e-6", "with T = {T21}, delta = 1e-6")),
                 mistakes=(("δ entered as ε?", "answer_2_1 = 2 * $T21 / 1e-6 * math.sqrt(2 * math.log(2 * $T21 / $eps21))"),
                           ("log10 instead of the natural logarithm?",
                            "answer_2_1 = 2 * $T21 / $eps21 * math.sqrt(2 * math.log10(2 * $T21 / 1e-6))"))),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 "sensitivity_2_2 = 2 * math.sqrt($T21)\n"
                 'answer_2_2 = privacy.gaussian_sigma(sensitivity_2_2, $eps21, 1e-6, method="analytic")',
                 (Answer("2.2", "answer_2_2", rtol=2e-3),),
                 intermediates=(Intermediate("sensitivity_2_2", "the sensitivity of the T steps together"),),
                 text=(("(ε = 1, δ = 10⁻⁶, T = 10, Δ = 2)", "(ε = {g(eps21)}, δ = 10⁻⁶, T = {T21}, Δ = 2)"),),
                 mistakes=(("the classic calibration: this exercise asks for the exact (analytic) one",
                            "answer_2_2 = privacy.gaussian_sigma(2 * math.sqrt($T21), $eps21, 1e-6)"),
                           ("the sensitivity of T steps together is Δ√T, not ΔT",
                            'answer_2_2 = privacy.gaussian_sigma(2 * $T21, $eps21, 1e-6, method="analytic")'))),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 'answer_2_3_add_remove = experiments.sensitivity_example($B23)["add_remove"]\n'
                 'answer_2_3_replace_one = experiments.sensitivity_example($B23)["replace_one"]',
                 (Answer("2.3-add_remove", "answer_2_3_add_remove"),
                  Answer("2.3-replace_one", "answer_2_3_replace_one")),
                 text=(("norm at most $B = 2$", "norm at most $B = {g(B23)}$"),),
                 mistakes=(("the sensitivity of XᵀX grows like B², not B",
                            "answer_2_3_add_remove = $B23\nanswer_2_3_replace_one = math.sqrt(2) * $B23"),
                           ("replace-one: two rows change, add/remove: one — swapped?",
                            'answer_2_3_add_remove = experiments.sensitivity_example($B23)["replace_one"]\n'
                            'answer_2_3_replace_one = experiments.sensitivity_example($B23)["add_remove"]'))),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 'sigma_2_7 = privacy.gaussian_sigma(math.sqrt(2), $eps27, 1e-5, method="analytic")\n'
                 "laplace_sd_2_7 = math.sqrt(2) * 2 / $eps27\n"
                 "answer_2_7 = sigma_2_7 / laplace_sd_2_7",
                 (Answer("2.7", "answer_2_7"),),
                 intermediates=(Intermediate("sigma_2_7", "(b) the analytic Gaussian mechanism's σ"),
                                Intermediate("laplace_sd_2_7", "(b) the Laplace mechanism's standard deviation")),
                 relations=(("2.7", "sigma_2_7 / laplace_sd_2_7"),),
                 text=(("At ε = 1 the Laplace mechanism", "At ε = {g(eps27)} the Laplace mechanism"),),
                 mistakes=(("Δ₁ = 2 but Δ₂ = √2 (two counts change by one)",
                            'answer_2_7 = (privacy.gaussian_sigma(2.0, $eps27, 1e-5, method="analytic")\n'
                            "              / (math.sqrt(2) * 2 / $eps27))"),)),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 "answer_2_8_delta = $k28 * math.exp(($k28 - 1) * $eps28) * 1e-6\n"
                 'sigma_2_8 = privacy.gaussian_sigma(1.0, $eps28, 1e-6, method="analytic")\n'
                 "answer_2_8_epsilon = privacy.gdp_epsilon($k28 / sigma_2_8, 1e-6)",
                 (Answer("2.8-delta", "answer_2_8_delta"), Answer("2.8-epsilon", "answer_2_8_epsilon")),
                 intermediates=(Intermediate("sigma_2_8", "(b) the σ of the released mechanism",
                                             answer="2.8-epsilon"),),
                 text=(("up to $k = 5$ people", "up to $k = {k28}$ people"),
                       ("ε = 0.5, δ = 10⁻⁶. (a)", "ε = {g(eps28)}, δ = 10⁻⁶. (a)"),
                       ("ε = kε = 2.5", "ε = kε = {g(round(k28 * eps28, 10))}")),
                 mistakes=(("the group bound is k·e^{(k−1)ε}·δ: the exponent is (k−1)ε",
                            "answer_2_8_delta = $k28 * math.exp($k28 * $eps28) * 1e-6\n"
                            "answer_2_8_epsilon = $k28 * $eps28"),)),
    ExerciseCell("02_dp_in_one_sitting.ipynb",
                 "answer_2_9_basic = privacy.compose_basic(privacy.gdp_epsilon(1 / $s29, 1e-5 / $T29), 1e-5 / $T29, $T29)[0]\n"
                 "answer_2_9_exact = privacy.gdp_epsilon(math.sqrt($T29) / $s29, 1e-5)",
                 (Answer("2.9-basic", "answer_2_9_basic"), Answer("2.9-exact", "answer_2_9_exact")),
                 text=(("asks $T = 50$ adaptive", "asks $T = {T29}$ adaptive"),
                       ("noise σ = 20.", "noise σ = {s29}."),
                       ("privacy.gdp_epsilon(1 / 20, 1e-5 / 50)", "privacy.gdp_epsilon(1 / {s29}, 1e-5 / {T29})"),
                       ("averages the 50 answers", "averages the {T29} answers")),
                 mistakes=(("Gaussian-DP composes in μ: μ_total = √T·μ, not T·μ",
                            "answer_2_9_basic = None\nanswer_2_9_exact = privacy.gdp_epsilon($T29 / $s29, 1e-5)"),)),
    ExerciseCell("03_subspaces.ipynb",
                 'answer_3_1 = {kind: pp.subspace_distance(np.eye(3)[:, :1], np.eye(3)[:, 1:2], kind=kind)\n'
                 '              for kind in ("sin_theta", "projection", "max_angle")}',
                 tuple(Answer(f"3.1-{kind}", f'answer_3_1["{kind}"]', rtol=1e-6)
                       for kind in ("sin_theta", "projection", "max_angle"))),
    ExerciseCell("03_subspaces.ipynb",
                 'answer_3_2 = experiments.plane_distances($a32, 0.0)["distances"]["sin_theta"]',
                 (Answer("3.2", "answer_3_2", rtol=1e-3),),
                 text=(("Tilt the plane by 45° about $x_1$ only", "Tilt the plane by {g(a32)}° about $x_1$ only"),),
                 mistakes=(("that is ‖UUᵀ − VVᵀ‖_F; divide by √2 for ‖sin Θ‖_F",
                            'answer_3_2 = experiments.plane_distances($a32, 0.0)["distances"]["projection"]'),
                           ("an angle in radians or degrees? ‖sin Θ‖_F is a sine",
                            "answer_3_2 = $a32"))),
    ExerciseCell("03_subspaces.ipynb",
                 "answer_3_4 = subspace.random_subspace_distance($d34, $k34)",
                 (Answer("3.4", "answer_3_4", rtol=1e-3),),
                 text=(("returns 10 components in $d = 1000$", "returns {k34} components in $d = {d34}$"),
                       ("\\rVert_F = 3.1$ against", "\\rVert_F = {0.985 * math.sqrt(k34 * (d34 - k34) / d34):.1f}$ against")),
                 mistakes=(("√(k(d−k)/d): d and k swapped?", "answer_3_4 = math.sqrt(abs($d34 * ($k34 - $d34) / $k34))"),
                           ("that is the largest possible value √k; a random subspace gives √(k(d−k)/d)",
                            "answer_3_4 = math.sqrt($k34)"))),
    ExerciseCell("03_subspaces.ipynb",
                 'answer_3_5 = experiments.plane_distances($a35, $b35)["angles_deg"][-1]',
                 (Answer("3.5", "answer_3_5", rtol=1e-3),),
                 text=(("Tilt the plane by 20° about $x_1$ and 50° about $x_2$",
                        "Tilt the plane by {g(a35)}° about $x_1$ and {g(b35)}° about $x_2$"),),
                 mistakes=(("in degrees, please (that looks like radians)",
                            'answer_3_5 = math.radians(experiments.plane_distances($a35, $b35)["angles_deg"][-1])'),)),
    ExerciseCell("04_noisy_covariance.ipynb",
                 "answer_4_1 = privacy.mod_sulq_noise_scale($d41, 100_000, $eps41, 0.1)",
                 (Answer("4.1", "answer_4_1", rtol=1e-3),),
                 text=(("for $d = 40$, $n = 10^5$, ε = 1, δ = 0.1", "for $d = {d41}$, $n = 10^5$, ε = {g(eps41)}, δ = 0.1"),),
                 mistakes=(("δ entered as ε?", "answer_4_1 = privacy.mod_sulq_noise_scale($d41, 100_000, 0.1, $eps41)"),)),
    ExerciseCell("04_noisy_covariance.ipynb",
                 "answer_4_2 = bounds.analyze_gauss_bound($n42, $d42, 1, 1.0, 1e-5, data.eigengap,\n"
                 '                                        calibration="analytic")["expected_spectral_norm"]',
                 (Answer("4.2", "answer_4_2"),),
                 text=(("$n = 10\\,000$, $d = 100$", "$n = {tex_int(n42)}$, $d = {d42}$"),
                       ("with n = 10000 and d = 100", "with n = {n42} and d = {d42}"))),
    ExerciseCell("04_noisy_covariance.ipynb",
                 'answer_4_3 = 2000 * bounds.mod_sulq_bound(2000, 30, 1, $eps43, 1e-5, data.eigengap)["davis_kahan"]',
                 (Answer("4.3", "answer_4_3", rtol=0.05),),
                 text=(("and ε = 1, δ = 10⁻⁵. MOD-SuLQ's", "and ε = {g(eps43)}, δ = 10⁻⁵. MOD-SuLQ's"),
                       ("mod_sulq_bound(2000, 30, 1, 1.0, 1e-5, data.eigengap)",
                        "mod_sulq_bound(2000, 30, 1, {eps43!r}, 1e-5, data.eigengap)"))),
    ExerciseCell("04_noisy_covariance.ipynb",
                 "mu_4_4 = np.linalg.eigvalsh(plane['X'].T @ plane['X'])\n"
                 "answer_4_4 = np.exp($eps44 / 2 * (mu_4_4[-1] - mu_4_4[0]))",
                 (Answer("4.4", "answer_4_4"),),
                 intermediates=(Intermediate("mu_4_4", "the eigenvalues μ₁, μ₂ of XᵀX (an array)", shape=(2,),
                                             sorted=True),),
                 relations=(("4.4", "math.exp($eps44 / 2 * (max(mu_4_4) - min(mu_4_4)))"),),
                 text=(("Compute it for ε = 1 from", "Compute it for ε = {g(eps44)} from"),),
                 mistakes=(("exp(ε/2 (μ₁ − μ₂)), not exp(ε (μ₁ − μ₂))",
                            "mu = np.linalg.eigvalsh(plane['X'].T @ plane['X'])\n"
                            "answer_4_4 = np.exp($eps44 * (mu[-1] - mu[0]))"),)),
    ExerciseCell("05_auditing.ipynb",
                 "answer_5_2 = math.sqrt(2 / $N52)",
                 (Answer("5.2", "answer_5_2"),),
                 text=(("with $N = 5000$ releases", "with $N = {tex_int(N52)}$ releases"),),
                 mistakes=(("the difference of two means: √(2/N), not √(1/N)", "answer_5_2 = math.sqrt(1 / $N52)"),)),
    ExerciseCell("05_auditing.ipynb",
                 "mu_5_3 = audit.max_gdp_mu(1.0, 1e-5)\n"
                 "answer_5_3 = mu_5_3 / (mu_5_3 + 4 * math.sqrt(2 / $N53))",
                 (Answer("5.3", "answer_5_3", rtol=0.03),),
                 intermediates=(Intermediate("mu_5_3", "μ_claimed"),),
                 relations=(("5.3", "mu_5_3 / (mu_5_3 + 4 * math.sqrt(2 / $N53))"),),
                 text=(("$N = 20\\,000$: below", "$N = {tex_int(N53)}$: below"),)),
    ExerciseCell("06_local_privacy.ipynb",
                 'answer_6_1 = local_noise_scale($eps61, 1e-6)["noise_scale"]',
                 (Answer("6.1", "answer_6_1", rtol=1e-3),),
                 text=(("σ₁ at ε = 0.8, δ = 10⁻⁶?", "σ₁ at ε = {g(eps61)}, δ = 10⁻⁶?"),),
                 mistakes=(("the paper's Δ = 1; a user's xxᵀ can be replaced, so Δ = √2",
                            'answer_6_1 = local_noise_scale($eps61, 1e-6)["noise_scale"] / math.sqrt(2)'),
                           ("δ entered as ε?", "answer_6_1 = math.sqrt(2) * math.sqrt(2 * math.log(1.25 / $eps61)) / 1e-6"))),
    ExerciseCell("06_local_privacy.ipynb",
                 'sigma_6_2 = local_noise_scale($eps61, 1e-6)["noise_scale"]\n'
                 "answer_6_2 = sigma_6_2 / math.sqrt(10**$e62)",
                 (Answer("6.2", "answer_6_2", rtol=1e-3),),
                 intermediates=(Intermediate("sigma_6_2", "the σ₁ of Exercise 6.1", rtol=1e-3),),
                 relations=(("6.2", "sigma_6_2 / math.sqrt(10**$e62)"),),
                 text=(("With $n = 10^6$ users", "With $n = 10^{e62}$ users"),),
                 mistakes=(("the average of n reports: divide by √n, not n",
                            'answer_6_2 = local_noise_scale($eps61, 1e-6)["noise_scale"] / 10**$e62'),)),
    ExerciseCell("06_local_privacy.ipynb",
                 "answer_6_3 = 10**$e63 * (1 / $eps63) ** 2",
                 (Answer("6.3", "answer_6_3", rtol=1e-6),),
                 text=(("$10^6$ users at ε = 1.", "$10^{e63}$ users at ε = 1."),
                       ("at ε = 0.25?", "at ε = {g(eps63)}?")),
                 mistakes=(("n ε² stays fixed: the factor is squared", "answer_6_3 = 10**$e63 / $eps63"),)),
    ExerciseCell("06_local_privacy.ipynb",
                 "answer_6_4_theta = fantope_projection(np.diag([$a64, 1.0, 0.5]), 1, return_eigen=True)[1][0]",
                 (Answer("6.4", "answer_6_4_theta", rtol=1e-6),),
                 text=(("{\\rm diag}(3, 1, 0.5)$", "{{\\rm diag}}({g(a64)}, 1, 0.5)$"),
                       ("try theta in [1, 2]", "try theta in [1, {g(a64 - 1)}]")),
                 mistakes=(("that is the smallest such θ; the question asks for the largest", "answer_6_4_theta = 1.0"),)),
    ExerciseCell("07_encrypted_distributed.ipynb",
                 "answer_7_1 = $M71 * ($M71 + 1) // 2 + $M71 + 1",
                 (Answer("7.1", "answer_7_1", rtol=0),),
                 text=(("for $M = 20$ features", "for $M = {M71}$ features"),),
                 mistakes=(("R is symmetric: only its upper triangle (with the diagonal) is sent",
                            "answer_7_1 = $M71 * $M71 + $M71 + 1"),)),
    ExerciseCell("07_encrypted_distributed.ipynb",
                 "answer_7_2_corrected = pp.privacy.gaussian_sigma(4.0, $eps72, 1e-6)\n"
                 "answer_7_2_paper = pp.privacy.gaussian_sigma(1.0, $eps72, 1e-6)",
                 (Answer("7.2-corrected", "answer_7_2_corrected"),
                  Answer("7.2-paper", "answer_7_2_paper")),
                 text=(("for ε = 0.5 and a stricter", "for ε = {g(eps72)} and a stricter"),),
                 mistakes=(("δ entered as ε?", "answer_7_2_corrected = pp.privacy.gaussian_sigma(4.0, 1e-6, $eps72)\n"
                                               "answer_7_2_paper = pp.privacy.gaussian_sigma(1.0, 1e-6, $eps72)"),)),
    ExerciseCell("08_dps_pca.ipynb",
                 "answer_8_1 = privacy.dps_pca_sigma($eps81, 0.01, $T81)",
                 (Answer("8.1", "answer_8_1"),),
                 text=(("for ε = 2, δ = 0.01, $T = 10$", "for ε = {g(eps81)}, δ = 0.01, $T = {T81}$"),
                       ("σ(ε=2, δ=0.01, T=10)", "σ(ε={g(eps81)}, δ=0.01, T={T81})")),
                 mistakes=(("log10 instead of the natural logarithm?",
                            "import math\nanswer_8_1 = 2 * $T81 / $eps81 * math.sqrt(2 * math.log10(2 * $T81 / 0.01))"),)),
    ExerciseCell("08_dps_pca.ipynb",
                 "answer_8_2 = round($P82 ** 0.5)",
                 (Answer("8.2", "answer_8_2", rtol=0),),
                 text=(("With 100 providers", "With {P82} providers"),),
                 mistakes=(("independent variances add, standard deviations do not", "answer_8_2 = $P82"),)),
    ExerciseCell("08_dps_pca.ipynb",
                 "answer_8_4 = (1 - 40 / $d84) ** $s84",
                 (Answer("8.4", "answer_8_4"),),
                 text=(("for $d = 200$, $s^* = 10$ and", "for $d = {d84}$, $s^* = {s84}$ and"),),
                 mistakes=(("that is the probability of hitting the support, not of missing it",
                            "answer_8_4 = 1 - (1 - 40 / $d84) ** $s84"),)),
    ExerciseCell("09_heavy_tails.ipynb",
                 "my_sigma = kendall_noise_scale($n91, $eps91, 1e-5)[1]",
                 (Answer("9.1", "my_sigma"),),
                 text=(("for $n = 2000$, ε = 0.5, δ", "for $n = {tex_int(n91)}$, ε = {g(eps91)}, δ"),
                       ("σ (n = 2000, ε = 0.5)", "σ (n = {n91}, ε = {g(eps91)})")),
                 mistakes=(("δ entered as ε?", "my_sigma = 4 * math.sqrt(2 * math.log(1.25 / $eps91)) / ($n91 * 1e-5)"),)),
    ExerciseCell("09_heavy_tails.ipynb",
                 "my_delta = 2 * math.sqrt(2) * $r292 / $n92",
                 (Answer("9.2", "my_delta"),),
                 text=(("radius $r = \\sqrt{10}$ and $n = 500$", "radius $r = \\sqrt{{{r292}}}$ and $n = {n92}$"),
                       ("tight Δ (r = √10, n = 500)", "tight Δ (r = √{r292}, n = {n92})")),
                 mistakes=(("that is the paper's bound 4r²/n; the tight one is √2 times smaller",
                            "my_delta = 4 * $r292 / $n92"),)),
    ExerciseCell("09_heavy_tails.ipynb",
                 'my_fraction = kendall_breakdown($lam93, 1, 10**6)["breakdown_lower_bound"]',
                 (Answer("9.3", "my_fraction", rtol=1e-3),),
                 text=(("eigenvalues 0.6, 0.25, 0.15", "eigenvalues {g(lam93[0])}, {g(lam93[1])}, {g(lam93[2])}"),)),
    ExerciseCell("10_europe_map.ipynb",
                 "answer_10_1 = kendall_noise_scale(1387, $eps101, 1e-5)[1]",
                 (Answer("10.1", "answer_10_1"),),
                 text=(("$n = 1387$, ε = 0.5,", "$n = 1387$, ε = {g(eps101)},"),
                       ("sigma (eps = 0.5)", "sigma (eps = {g(eps101)})")),
                 mistakes=(("δ entered as ε?", "answer_10_1 = 4 * math.sqrt(2 * math.log(1.25 / $eps101)) / (1387 * 1e-5)"),)),
    ExerciseCell("10_europe_map.ipynb",
                 "answer_10_2_t0 = 1.0\nanswer_10_2_sin = 0.0",
                 (Answer("10.2-t0", "answer_10_2_t0", rtol=1e-9), Answer("10.2-sin", "answer_10_2_sin", atol=1e-9))),
    ExerciseCell("10_europe_map.ipynb",
                 "sigma_10_3 = kendall_noise_scale(1387, $eps101, 1e-5)[1]\n"
                 "answer_10_3 = np.sqrt(2 * 20) * sigma_10_3",
                 (Answer("10.3", "answer_10_3", rtol=5e-3),),
                 intermediates=(Intermediate("sigma_10_3", "your σ of Exercise 10.1"),),
                 relations=(("10.3", "math.sqrt(2 * 20) * sigma_10_3"),),
                 text=(("Exercise 10.1 (ε = 0.5)", "Exercise 10.1 (ε = {g(eps101)})"),),
                 mistakes=(("√(2d) with d = 20, not √d", "answer_10_3 = np.sqrt(20) * kendall_noise_scale(1387, $eps101, 1e-5)[1]"),)),
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


def _run(cell, code, notebook_ns):
    namespace = dict(notebook_ns)
    exec(code, namespace)  # noqa: S102 - the registry's own code
    return namespace


def _value(namespace, ans):
    value = eval(ans.expr, namespace)  # noqa: S307
    return None if value is None else float(value)


@functools.lru_cache(maxsize=None)
def expected_values(term=None):
    """{id: expected value}: each cell's solution (with the term's parameters) run after its
    chapter's setup."""
    values = {}
    for cell in CELLS:
        namespace = _run(cell, solution(cell, term), _chapter_namespace(cell.notebook))
        for ans in cell.answers:
            values[ans.id] = _value(namespace, ans)
    return values


def intermediate_id(cell, inter, index=None):
    """The key id of an intermediate ('2.7~sigma_2_7'; an array's element: '4.4~mu_4_4[0]')."""
    return f"{cell.exercise}~{inter.name}" + ("" if index is None else f"[{index}]")


def _elements(value, inter):
    """An intermediate's value as a list of floats (sorted if the order is a convention)."""
    if inter.shape is None:
        return [float(value)]
    arr = np.asarray(value, dtype=float)
    if arr.shape != tuple(inter.shape):
        raise ValueError(f"{inter.name}: shape {arr.shape}, declared {inter.shape}")
    out = [float(x) for x in arr.ravel()]
    return sorted(out) if inter.sorted else out


@functools.lru_cache(maxsize=None)
def intermediate_values(term=None):
    """{key id: value} of every intermediate, from each cell's solution (with the term's parameters)."""
    values = {}
    for cell in CELLS:
        if not cell.intermediates:
            continue
        namespace = _run(cell, solution(cell, term), _chapter_namespace(cell.notebook))
        for inter in cell.intermediates:
            elements = _elements(namespace[inter.name], inter)
            if inter.shape is None:
                values[intermediate_id(cell, inter)] = elements[0]
            else:
                values.update({intermediate_id(cell, inter, i): v for i, v in enumerate(elements)})
    return values


def hidden_checks(cell, ans, term=None, iterations=None):
    """What the hidden test of ``ans`` checks besides the answer itself (see instructor/grading.py):
    {"values": [{name, note, shape, sorted, keys}], "relations": [{expr, rtol, atol}]}, or None."""
    values = intermediate_values(term)
    extra = {} if iterations is None else {"iterations": iterations}
    mine = [i for i in cell.intermediates if (i.answer or cell.answers[0].id) == ans.id]
    relations = [expr for ident, expr in cell.relations if ident == ans.id]
    if not mine and not relations:
        return None
    entries = []
    for inter in mine:
        ids = ([intermediate_id(cell, inter)] if inter.shape is None else
               [intermediate_id(cell, inter, i) for i in range(int(np.prod(inter.shape)))])
        keys = [exercises.answer_key(i, values[i], rtol=inter.rtol, atol=inter.atol,
                                     salt=salt(i, term), **extra) for i in ids]
        entries.append({"name": inter.name, "ids": ids, "keys": keys, "sorted": inter.sorted,
                        "shape": None if inter.shape is None else list(inter.shape)})
    return {"values": entries,
            "relations": [{"expr": solution(cell, term, expr), "rtol": ans.rtol, "atol": ans.atol}
                          for expr in relations]}


@functools.lru_cache(maxsize=None)
def mistake_values(term=None):
    """{id: [(hint, value of that mistake)]}, leaving out a mistake that lands within the
    answer's tolerance (it would not be one) or that the mistake's code leaves undefined."""
    expected = expected_values(term)
    out = {ans.id: [] for _, ans in answers()}
    for cell in CELLS:
        for hint, code in cell.mistakes:
            try:
                namespace = _run(cell, solution(cell, term, code), _chapter_namespace(cell.notebook))
            except (ValueError, ZeroDivisionError, OverflowError):
                continue          # a mistake the package refuses (e.g. δ = 3): nothing to recognise
            for ans in cell.answers:
                try:
                    value = _value(namespace, ans)
                except (NameError, KeyError):
                    continue
                if value is None or not math.isfinite(value):
                    continue
                e = expected[ans.id]
                if abs(value - e) <= 3 * max(ans.rtol * abs(e), ans.atol, 0.5 if ans.rtol == ans.atol == 0 else 0):
                    continue
                if ans.rtol == 0 and ans.atol == 0 and value != round(value):
                    continue
                out[ans.id].append((hint, value))
    return out


def salt(ident, term=None):
    """The key's salt: the book's is derived from the id alone (as the package always did), a
    term's from the term too, so that two terms' key files share nothing."""
    if term is None:
        return None
    return hashlib.sha256(f"privpca_edu answer key term {term} {ident}".encode()).hexdigest()[:32]


def answer_keys(term=None, iterations=None):
    values = expected_values(term)
    extra = {} if iterations is None else {"iterations": iterations}
    return {ans.id: exercises.answer_key(ans.id, values[ans.id], rtol=ans.rtol, atol=ans.atol,
                                         salt=salt(ans.id, term), **extra)
            for _, ans in answers()}


def render_keys(term=None):
    about = ("Answer keys for privpca_edu.widgets.check_answer: salted PBKDF2 hashes of the "
             "grid cell of each expected value (see exercises.py). Written by "
             "python -m instructor.answers --write; do not edit.")
    if term is not None:
        about = (f"Answer keys of term {term}'s assignments (scripts/build_assignments.sh --term {term}); "
                 "the assignments select them with privpca_edu.widgets.exercises.use_answer_keys.")
    return json.dumps({"about": about, "exercises": answer_keys(term)}, indent=1, sort_keys=True) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help="rewrite the package's answer-key file")
    group.add_argument("--check", action="store_true", help="exit 1 if the key file is stale")
    group.add_argument("--keys", metavar="PATH", help="write the key file of --term to PATH")
    parser.add_argument("--term", type=int, help="a term's seed (with --keys)")
    args = parser.parse_args(argv)
    if args.keys:
        Path(args.keys).write_text(render_keys(args.term), encoding="utf-8")
        print(f"wrote {len(answers())} answer keys of term {args.term} to {args.keys}")
        return 0
    text = render_keys()
    rel = KEYS_PATH.relative_to(ROOT) if KEYS_PATH.is_relative_to(ROOT) else KEYS_PATH
    if args.write:
        KEYS_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {len(answers())} answer keys to {rel}")
        return 0
    if KEYS_PATH.exists() and KEYS_PATH.read_text(encoding="utf-8") == text:
        print(f"{rel} is up to date ({len(answers())} keys)")
        return 0
    print(f"{rel} is stale: run python -m instructor.answers --write", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
