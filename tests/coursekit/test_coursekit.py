"""The course kit: answer keys that hide the expected values, and the exercise cells using them."""

from __future__ import annotations

import importlib
import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from privpca_edu.widgets import exercises

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _instructor(module):
    """``instructor.<module>``; skips where instructor/ is absent (the sdist ships no answers)."""
    if not (ROOT / "instructor" / "__init__.py").exists():
        pytest.skip("instructor/ is absent (an sdist): the instructor tooling ships in a clone only")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module(f"instructor.{module}")


@pytest.fixture(scope="module")
def answers():
    return _instructor("answers")


def _code_cells(path):
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == "code"]


def test_answer_key_file_matches_the_registry(answers):
    """A changed solution or tolerance (or package result) must come with regenerated keys."""
    assert answers.KEYS_PATH.read_text(encoding="utf-8") == answers.render_keys(), (
        "privpca_edu/widgets/answer_keys.json is stale: python -m instructor.answers --write")


def test_every_solution_passes_and_answers_twice_the_tolerance_off_fail(capsys, answers):
    values = answers.expected_values()
    for _, ans in answers.answers():
        e = values[ans.id]
        assert exercises.check_answer(ans.id, e) is True, ans.id
        if ans.atol > 0:
            inside, outside = [e + 0.9 * ans.atol, e - 0.9 * ans.atol], [e + 2.1 * ans.atol, e - 2.1 * ans.atol]
        elif ans.rtol == 0:
            inside, outside = [], [e + 1, e - 1, e + 0.5]
        else:
            inside = [e * (1 + 0.99 * ans.rtol), e * (1 - 0.99 * ans.rtol)]
            # relative error 2.2 rtol is more than two grid cells away on either side
            outside = [e * (1 + 2.2 * ans.rtol), e * (1 - 2.2 * ans.rtol), -e]
        for v in inside:
            assert exercises.check_answer(ans.id, v) is True, (ans.id, v)
        for v in outside:
            assert exercises.check_answer(ans.id, v) is False, (ans.id, v)
    capsys.readouterr()


def test_key_file_does_not_contain_the_values(answers):
    from privpca_edu._coursekit import student

    def values_only(text):          # the ids ("10.3": {...}) are names, not values
        return re.sub(r'"[\d.]+(-\w+)?": \{', "{", text)

    assert student.find_answers(values_only(answers.KEYS_PATH.read_text(encoding="utf-8"))) == []
    term = values_only(answers.render_keys(3))
    assert student.find_answers(term, values=answers.expected_values(3)) == []


def test_notebooks_check_by_exercise_id_only(answers):
    """No check cell passes an expected value: only ``check_answer("<id>", variable, ...)``."""
    ids_in_notebooks = set()
    for path in NOTEBOOKS:
        for src in _code_cells(path):
            for call in re.finditer(r"check_answer\((.*?)\)\s*$", src, re.S | re.M):
                args = call.group(1)
                m = re.match(r'\s*f?"([\w.{}-]+)",\s*(\w+)\s*(,|$)', args)
                assert m, f"{path.name}: check_answer must be called as (\"<id>\", variable, ...): {args!r}"
                ids_in_notebooks.add((path.name, m.group(1)))
    registry = {(cell.notebook, a.id) for cell, a in answers.answers()}
    expanded = set()
    for nb, ident in ids_in_notebooks:
        if "{kind}" in ident:
            expanded |= {(nb, ident.replace("{kind}", k)) for k in ("sin_theta", "projection", "max_angle")}
        else:
            expanded.add((nb, ident))
    assert expanded == registry


def test_no_inline_answers_in_markdown():
    for path in NOTEBOOKS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                assert "(Answer:" not in "".join(cell["source"]), path.name


@pytest.mark.parametrize("bad", [dict(rtol=0.7), dict(rtol=-1), dict(atol=math.inf)])
def test_answer_key_rejects_bad_tolerances(bad):
    with pytest.raises(ValueError, match="rtol"):
        exercises.answer_key("x", 1.0, **bad)


def test_answer_key_rejects_non_integer_exact_answer():
    with pytest.raises(ValueError, match="integer"):
        exercises.answer_key("x", 1.5, rtol=0)


def test_student_sources_have_no_solutions_and_no_answers(tmp_path, answers):
    """What the student build compiles: no collapsed solution, no solution cell, and no expected
    value anywhere in its chapter's sources (no exercise asks for a number its chapter prints)."""
    from privpca_edu._coursekit import student

    removed = student.prepare(tmp_path)
    original = sum("".join(c["source"]).count("<summary>") for p in NOTEBOOKS
                   for c in json.loads(p.read_text(encoding="utf-8"))["cells"])
    assert removed >= original > 30
    for path in sorted((tmp_path / "notebooks").glob("*.ipynb")):
        text = path.read_text(encoding="utf-8")
        assert not student.SOLUTION_MARK.search(text), path.name
        assert "# Solution" not in text, path.name
        assert student.find_answers(text, path.name) == [], path.name
    # the instructor sources keep them
    assert any("<summary>Solution" in p.read_text(encoding="utf-8") for p in NOTEBOOKS)
    # and the student edition has no instructors' page, nor a link to it
    assert not (tmp_path / "book" / "instructors.md").exists()
    assert "book/instructors" not in (tmp_path / "_toc.yml").read_text(encoding="utf-8")
    for path in [*(tmp_path / "book").glob("*.md"), *(tmp_path / "notebooks").glob("*.ipynb")]:
        assert "instructors.md" not in path.read_text(encoding="utf-8"), path.name


def test_leak_check_finds_every_printed_form_of_an_answer(answers):
    """Exercise 6.1's former answer, as chapter 6's table printed it, and its derived forms."""
    from privpca_edu._coursekit import student

    values, where = {"x": 13.70320528}, {"x": "06_local_privacy.ipynb"}
    for text in ("13.7032", "13.70", "13.7", "13.703205", "1370.32 %", "0.0137032", "13703.2"):
        assert [t for _, t, _ in student.find_answers(f"σ₁ = {text} here", values=values, chapters=where)] \
            == [text.split()[0]], text
    for text in ("13.8", "113.70", "13.70321x", "0.194"):
        assert student.find_answers(f"σ₁ = {text} here", values=values, chapters=where) == [], text


def test_strip_markdown_removes_indented_answers_and_keeps_the_question():
    text = ("1. Why?\n\n   <details>\n   <summary>Answer</summary>\n\n   Because.\n\n   </details>\n\n"
            "2. Next question.\n<details>\n<summary>Solution 2</summary>\n\nx = 1\n\n</details>\n"
            "<details><summary>More about it</summary>kept</details>\n")
    from privpca_edu._coursekit.notebooks import strip_markdown

    out = strip_markdown(text)
    assert "Because" not in out and "x = 1" not in out
    assert "1. Why?" in out and "2. Next question." in out and "kept" in out


@pytest.mark.parametrize("edition,must_have", [("html", True), ("student/html", False)])
def test_built_editions(edition, must_have, answers):
    """On an existing build (bash scripts/build_book.sh [--student] --no-serve; several minutes,
    so not built here): the instructor edition has the collapsed solutions, the student edition
    has none and no answer (the same search the student build runs)."""
    from privpca_edu._coursekit import student

    site = ROOT / "_build" / edition
    if not (site / "index.html").exists():
        pytest.skip(f"no _build/{edition}: build it with scripts/build_book.sh")
    pages = sorted((site / "notebooks").glob("*.html"))
    assert len(pages) == 10
    with_solutions = [p.name for p in pages if student.SOLUTION_MARK.search(p.read_text(encoding="utf-8"))]
    if must_have:
        assert len(with_solutions) == 10
    else:
        assert with_solutions == [] and student.leaks(site) == []


def test_every_chapter_carries_up_to_date_slide_metadata():
    """scripts/slide_metadata.py derives it from the headings; rerun it after editing a chapter."""
    from privpca_edu._coursekit import slides

    assert slides.main(["--check"]) == 0
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        types = [c["metadata"]["slideshow"]["slide_type"] for c in cells]
        assert types[0] == "slide"
        headings = [c for c in cells if c["cell_type"] == "markdown" and re.match(r"\s*##", "".join(c["source"]))]
        assert all(c["metadata"]["slideshow"]["slide_type"] == "slide" for c in headings), path.name
        shows = [c for c in cells if c["cell_type"] == "code" and re.search(r"(^|\W)show\(", "".join(c["source"]))]
        assert shows and all(c["metadata"]["slideshow"]["slide_type"] == "slide" for c in shows), path.name


def test_slide_metadata_is_idempotent(tmp_path):
    from privpca_edu._coursekit import slides

    copy = tmp_path / NOTEBOOKS[2].name
    copy.write_bytes(NOTEBOOKS[2].read_bytes())
    slides.main([str(copy)])
    once = copy.read_bytes()
    slides.main([str(copy)])
    assert copy.read_bytes() == once
    assert slides.main(["--check", str(copy)]) == 0


def _probes(ans, e, u):
    """A probe at u times the tolerance from the expected value ``e`` (|u| <= 3)."""
    if ans.atol > 0:
        return e + u * ans.atol
    if ans.rtol == 0:
        return e + round(u * 2) / 2          # integers and half-integers
    return e * (1 + u * ans.rtol)


def test_one_tolerance_check_answer_and_the_hidden_test_agree_on_every_probe(answers):
    """The hidden test (instructor/grading.py, its own code) accepts exactly what check_answer
    accepts: 121 probes over ±3× each answer's tolerance (keys with one PBKDF2 round: the
    logic does not depend on the count; the real keys are checked on the expected values)."""
    grading = _instructor("grading")
    values = answers.expected_values()
    probes = [k / 20 for k in range(-60, 61)]
    for _, ans in answers.answers():
        e = values[ans.id]
        key = exercises.answer_key(ans.id, e, rtol=ans.rtol, atol=ans.atol, iterations=1)
        accepted = rejected = 0
        for u in probes:
            v = _probes(ans, e, u)
            ok = exercises.key_accepts(ans.id, v, key)
            assert ok == (grading.grade(ans.id, ans.id, v, key) is None), (ans.id, u, v)
            accepted += ok
            rejected += not ok
        assert accepted and rejected, ans.id   # the probes straddle the tolerance
    # the shipped keys, at full strength, on the expected values themselves
    keys = answers.answer_keys()
    for ident in ("2.1", "2.7", "6.1", "7.1"):
        assert grading.grade(ident, ident, values[ident], keys[ident]) is None


@pytest.mark.parametrize("term", [None, 5])
def test_property_one_tolerance_random_probes(answers, term):
    from hypothesis import given
    from hypothesis import strategies as st

    grading = _instructor("grading")
    values = answers.expected_values(term)
    cases = [(ans, exercises.answer_key(ans.id, values[ans.id], rtol=ans.rtol, atol=ans.atol,
                                         iterations=1, salt="00" * 16)) for _, ans in answers.answers()]

    @given(st.integers(0, len(cases) - 1), st.floats(-3, 3))
    def agree(i, u):
        ans, key = cases[i]
        v = _probes(ans, values[ans.id], u)
        assert exercises.key_accepts(ans.id, v, key) == (grading.grade(ans.id, ans.id, v, key) is None)

    agree()


def test_hidden_test_hints_types_and_tampering(answers):
    grading = _instructor("grading")
    e = answers.expected_values()["2.1"]
    key = exercises.answer_key("2.1", e, rtol=1e-3, iterations=1)
    delta_as_eps = exercises.answer_key("2.1", 2 * 10 / 1e-6 * math.sqrt(2 * math.log(2 * 10)), rtol=1e-3,
                                        iterations=1)
    assert grading.grade("2.1", "E", e, key) is None
    assert grading.grade("2.1", "E", __import__("numpy").float64(e), key) is None
    assert "√2" in grading.grade("2.1", "E", e * math.sqrt(2), key)
    assert "order of magnitude" in grading.grade("2.1", "E", e / 100, key)
    assert "δ entered as ε" in grading.grade("2.1", "E", 2 * 10 / 1e-6 * math.sqrt(2 * math.log(2 * 10)), key,
                                             [("δ entered as ε?", delta_as_eps)])
    for bad in ("115.97", True, [e], None):
        assert grading.grade("2.1", "E", bad, key) is not None, bad

    class Liar(float):
        def __eq__(self, other):
            return True
    assert "must be a number" in grading.grade("2.1", "E", Liar(1.0), key)
    # the message never holds the value
    for v in (e * 2, e / 10, -e, e * 1.37):
        assert f"{e:.4g}" not in grading.grade("2.1", "E", v, key)


def _assert_each_patch_needs_a_manual_check(grading, key, patches):
    """The embedded grader, run after a notebook cell holding each patch, refuses to grade it."""
    namespace = {}
    exec(grading.GRADER, namespace)  # noqa: S102
    for patch in patches:
        class Shell:
            user_ns = {"In": ["import math", patch]}
        namespace["get_ipython"] = lambda: Shell
        with pytest.raises(AssertionError, match="manual check"):
            namespace["_privpca_grade"]("2.1", "E", 10.0, key, [])


def test_hidden_test_fails_a_notebook_that_redefines_the_grading(answers):
    """Two lines of monkeypatching used to score full marks: now the grader does not call the
    package, and a cell that patches it makes the grade a manual one."""
    grading = _instructor("grading")
    key = exercises.answer_key("2.1", 10.0, rtol=1e-3, iterations=1)
    _assert_each_patch_needs_a_manual_check(grading, key, (
        "widgets.check_answer = lambda *a, **k: True",
        "import privpca_edu.widgets.exercises as ex\nex.key_accepts = lambda *a: True",
        "import hashlib\nhashlib.pbkdf2_hmac = lambda *a: b''"))
    # and a patched check_answer does not make a wrong answer right
    exercises_check = exercises.check_answer
    try:
        exercises.check_answer = lambda *a, **k: True
        assert grading.grade("2.1", "E", 11.0, key) is not None
    finally:
        exercises.check_answer = exercises_check


def test_term_key_file_is_used_by_check_answer(tmp_path, answers, capsys):
    term_values = answers.expected_values(4)
    path = tmp_path / "answer_keys.json"
    path.write_text(answers.render_keys(4), encoding="utf-8")
    try:
        exercises.use_answer_keys(path)
        assert exercises.check_answer("2.1", term_values["2.1"]) is True
        if term_values["2.1"] != answers.expected_values()["2.1"]:
            assert exercises.check_answer("2.1", answers.expected_values()["2.1"]) is False
    finally:
        exercises.use_answer_keys(None)
    assert exercises.check_answer("2.1", answers.expected_values()["2.1"]) is True
    with pytest.raises(FileNotFoundError):
        exercises.use_answer_keys(tmp_path / "missing.json")
    try:                                    # the mapping itself, as an assignment's first cell has it
        exercises.use_answer_keys({"2.1": answers.answer_keys(4)["2.1"]})
        assert exercises.check_answer("2.1", term_values["2.1"]) is True
    finally:
        exercises.use_answer_keys(None)
    with pytest.raises(ValueError, match="not an answer key"):
        exercises.use_answer_keys({"2.1": 3.0})
    capsys.readouterr()


def test_wheel_and_sdist_hold_no_answer_registry(tmp_path):
    """`pip wheel .` (and the sdist) of a copy of the tracked files: no instructor/, no course kit;
    the package keeps only the hashed keys check_answer reads.  About 20 s (pip's isolated build)."""
    import shutil
    import subprocess
    import zipfile

    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an sdist): nothing to package from")
    src = tmp_path / "src"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split()
    for name in files:
        if name.startswith(("notebooks/", "book/")) or not (ROOT / name).is_file():
            continue
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-q", "-w", str(tmp_path / "dist")],
                          cwd=src, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 and "No matching distribution" in proc.stderr:
        pytest.skip("pip cannot fetch the build backend (no index)")
    assert proc.returncode == 0, proc.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "privpca_edu/widgets/answer_keys.json" in names
    assert not [n for n in names if n.startswith("instructor/") or "_coursekit" in n or n.endswith("answers.py")]
    assert not any("solution" in zipfile.ZipFile(wheel).read(n).decode("utf-8", "replace").lower()
                   and n.endswith("answer_keys.json") for n in names)


def _intermediate_cases(answers, term=None):
    """(cell, answer, checks with one-round keys, the solution's namespace) of every answer whose
    hidden test checks intermediates."""
    out = []
    for cell in answers.CELLS:
        ns = None
        for ans in cell.answers:
            checks = answers.hidden_checks(cell, ans, term, iterations=1)
            if checks is None:
                continue
            if ns is None:
                ns = answers._run(cell, answers.solution(cell, term), answers._chapter_namespace(cell.notebook))
            out.append((cell, ans, checks, ns))
    return out


def test_hidden_tests_check_the_intermediates_an_exercise_asks_for(answers):
    """Deliverable: the student's own intermediate values and types are checked, so an answer typed
    in by hand (copied, or read off a patched package) scores nothing; a correct solution passes;
    no message holds an expected value."""
    grading = _instructor("grading")
    values = answers.expected_values()
    inter = answers.intermediate_values()
    secrets = [f"{v:.4g}" for v in list(values.values()) + list(inter.values())]
    secrets = [s for s in secrets if len(re.sub(r"\D", "", s)) >= 3]      # "2", "10": too short to tell
    cases = _intermediate_cases(answers)
    assert {c.exercise for c, *_ in cases} >= {"1.4", "2.2", "2.7", "2.8", "4.4", "5.3", "6.2", "10.3"}
    assert sum(len(ch["relations"]) for _, _, ch, _ in cases) >= 6
    messages = []
    for cell, ans, checks, ns in cases:
        key = exercises.answer_key(ans.id, values[ans.id], rtol=ans.rtol, atol=ans.atol, iterations=1)
        value = eval(ans.expr, dict(ns))  # noqa: S307
        scope = dict(ns)

        def run(scope=scope, checks=checks, value=value):
            return grading.grade(ans.id, "E", value, key, (), checks, scope)
        assert run() is None, (ans.id, run())
        # the answer typed in by hand, without the intermediates
        bare = {k: v for k, v in scope.items() if k not in {e["name"] for e in checks["values"]}}
        messages.append(run(scope=bare))
        assert "is not defined" in messages[-1], ans.id
        for entry in checks["values"]:
            name = entry["name"]
            # wrong value (what a patched package gives), wrong type, wrong shape
            wrong = dict(scope, **{name: np.asarray(scope[name]) * 1.37})
            if entry["shape"] is None:
                wrong[name] = float(wrong[name])
            messages.append(run(scope=wrong))
            assert messages[-1].endswith(f"{name} (asked for on the way to the answer) is not correct"), messages[-1]
            messages.append(run(scope=dict(scope, **{name: str(scope[name])})))
            assert "must be" in messages[-1], messages[-1]
            if entry["shape"] is not None:
                messages.append(run(scope=dict(scope, **{name: np.zeros(entry["shape"][0] + 1)})))
                assert "shape" in messages[-1]
                # a list, in the other order, is the same set of eigenvalues
                assert run(scope=dict(scope, **{name: list(scope[name])[::-1]})) is None
        for k, rel in enumerate(checks["relations"]):
            # right intermediates, but an answer that does not follow from them
            bent = json.loads(json.dumps(checks))
            bent["relations"][k]["expr"] = "1.37 * (" + rel["expr"] + ")"
            messages.append(run(checks=bent))
            assert "does not follow from your" in messages[-1], messages[-1]
            # the relation uses math only, never the package
            assert "privpca" not in rel["expr"] and "pp." not in rel["expr"]
            assert not re.search(r"\$\w", rel["expr"])     # parameters filled in
    for message in messages:
        assert not any(s in message for s in secrets), message


def test_term_intermediates_have_their_own_keys(answers):
    grading = _instructor("grading")
    for cell, ans, checks, ns in _intermediate_cases(answers, term=3):
        value = eval(ans.expr, dict(ns))  # noqa: S307
        key = exercises.answer_key(ans.id, value, rtol=ans.rtol, atol=ans.atol, iterations=1)
        assert grading.grade(ans.id, "E", value, key, (), checks, dict(ns)) is None
        book = answers.hidden_checks(cell, ans, None, iterations=1)
        # the book's intermediates do not pass a term whose parameters move them
        assert all(e["keys"] != b["keys"] for e, b in zip(checks["values"], book["values"]))


def test_hidden_test_fails_a_notebook_that_patches_the_package(answers):
    grading = _instructor("grading")
    key = exercises.answer_key("2.1", 10.0, rtol=1e-3, iterations=1)
    _assert_each_patch_needs_a_manual_check(grading, key, (
        'privacy.gaussian_sigma = lambda *a, **k: 1.0',
        'pp.privacy.gaussian_sigma = lambda *a, **k: 1.0',
        'from unittest import mock\nmock.patch("privpca_edu.privacy.gaussian_sigma")'))
    # the chapters and the solutions never trip the scan
    sources = [s for path in NOTEBOOKS for s in _code_cells(path)] + [c.solution for c in answers.CELLS]
    for pattern in grading.TAMPERING:
        assert not any(re.search(pattern, s) for s in sources), pattern
