"""nbgrader assignments of the instructor kit, per term (needs the `course` extra: nbgrader).

All ten assignments are written and checked without running nbgrader (cheap); Chapter 3 (about
2 s to execute) goes through the real command line for two terms: `generate_assignment`, then
`autograde` of a solved copy (full marks) and a wrong copy (zero for each item); for term 1 also
the release as handed out (zero) and `generate_feedback` of the wrong copy, which must hold none
of the expected values' digits and must hold the hints.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from privpca_edu._coursekit import notebooks as nbio
from privpca_edu._coursekit import student

ROOT = Path(__file__).resolve().parents[2]
# the instructor tooling ships in a clone only; the sdist's test run has no instructor/
if not (ROOT / "instructor" / "__init__.py").exists():
    pytest.skip("instructor/ is absent (an sdist): the instructor tooling ships in a clone only",
                allow_module_level=True)
sys.path.insert(0, str(ROOT))
from instructor import answers, assignments, mark_schemes  # noqa: E402

CHAPTER = "03_subspaces.ipynb"
ASSIGNMENT = assignments.assignment_name(CHAPTER)


def _nbgrader(course, *args):
    env = dict(os.environ)
    # nbgrader runs `alembic` (the gradebook's migrations) as a program: the venv's bin first
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def test_every_chapter_becomes_an_assignment_with_one_point_per_answer(tmp_path):
    written = assignments.build(tmp_path)
    assert written == [assignments.assignment_name(n) for n in assignments.chapters()]
    assert len(written) == 10
    total = manual = 0
    for name in written:
        (path,) = (tmp_path / "source" / name).glob("*.ipynb")
        nb = nbio.read(path)
        meta = [c["metadata"].get("nbgrader") for c in nb["cells"]]
        tests = [m for m in meta if m and m["grade"] and m["grade_id"].startswith("test_")]
        opens = [m for m in meta if m and m["grade"] and m["grade_id"].startswith("open_")]
        sols = [m for m in meta if m and m["solution"] and m["grade_id"].startswith("answer_")]
        ids = {a.id for c in answers.CELLS if c.notebook == path.name for a in c.answers}
        assert {m["grade_id"] for m in tests} == {"test_" + re.sub(r"[^\w-]", "_", i) for i in ids}
        assert all(m["points"] == 1 and m["locked"] for m in tests)
        assert len(sols) == len([c for c in answers.CELLS if c.notebook == path.name])
        schemes = [s for s in mark_schemes.schemes() if s.notebook == path.name]
        assert sorted(m["grade_id"] for m in opens) == sorted("open_" + s.id.replace(".", "_") for s in schemes)
        text = path.read_text(encoding="utf-8")
        assert text.count("### BEGIN SOLUTION") == len(sols)
        assert text.count("### BEGIN HIDDEN TESTS") == len(tests)
        assert "<summary>Solution" not in text and "<summary>Answer" not in text
        # what students get (solutions, hidden tests, mark schemes cut): no answer at any precision
        assert student.find_answers(assignments.student_view(nb), path.name) == []
        total += len(tests)
        manual += len(opens)
    assert total == len(answers.answers())
    assert (tmp_path / "answer_keys.json").read_text(encoding="utf-8") == answers.render_keys()
    assert manual == len(mark_schemes.schemes()) == 22


def test_open_exercises_have_mark_schemes_that_add_up():
    schemes = mark_schemes.schemes()
    assert len({s.id for s in schemes}) == 22
    auto = {c.exercise for c in answers.CELLS}
    assert not auto & {s.id for s in schemes}
    for s in schemes:
        assert s.points == s.criteria_points() >= 2, s.id
        assert "*Model answer.*" in s.text, s.id


def test_terms_differ_and_the_book_is_the_default():
    book, t1, t2 = answers.expected_values(), answers.expected_values(1), answers.expected_values(2)
    assert answers.expected_values(None) == book
    differ = sum(t1[k] != t2[k] for k in book) / len(book)
    assert differ >= 0.8, differ
    assert sum(t1[k] != book[k] for k in book) / len(book) >= 0.8
    # the same seed gives the same term; the book's parameters are never drawn
    assert answers.draw(1) == answers.draw(1)
    assert all(answers.draw(t)[n] != p.book for t in (1, 2, 3) for n, p in answers.PARAMS.items())
    with pytest.raises(ValueError, match="term"):
        answers.draw(-1)


def test_templates_reproduce_the_book_text():
    """Rendered with the book's parameters, every template gives back the book's literal."""
    for cell in answers.CELLS:
        for literal, new in answers.substitutions(cell):
            assert new == literal, (cell.exercise, literal, new)


def _solved(released, source):
    solutions = {c["metadata"]["nbgrader"]["grade_id"]: nbio.source(c) for c in source["cells"]
                 if c["metadata"].get("nbgrader", {}).get("solution")
                 and c["cell_type"] == "code"}
    nb = nbio.read(released)
    for cell in nb["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if gid in solutions:
            nbio.set_source(cell, re.sub(r"### (BEGIN|END) SOLUTION\n", "", solutions[gid]))
    return nb


@pytest.mark.parametrize("term", [1, 2])
def test_nbgrader_term_full_marks_zero_and_feedback_without_answers(tmp_path, term):
    pytest.importorskip("nbgrader", reason="nbgrader is in the 'course' extra (scripts/setup_env.sh installs it)")
    course = tmp_path / "course"
    assignments.build(course, only=[CHAPTER], term=term)
    _nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    folder = course / "release" / ASSIGNMENT
    released = folder / CHAPTER
    text = released.read_text(encoding="utf-8")
    assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text and "MARK SCHEME" not in text
    assert "NotImplementedError" in text and "YOUR ANSWER HERE" in text
    assert assignments.release_leaks(course) == []
    values = answers.expected_values(term)

    source = nbio.read(course / "source" / ASSIGNMENT / CHAPTER)
    solved = _solved(released, source)
    # every answer wrong (set right after the solution, before the cell's own check); the first
    # of each cell off by √2, for a hint
    exprs = {c.exercise: [a.expr for a in c.answers] for c in answers.CELLS if c.notebook == CHAPTER}
    wrong_code = {}
    for cell in source["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
        if gid.startswith("answer_") and cell["cell_type"] == "code":
            ex = exprs[gid[len("answer_"):].replace("_", ".")]
            # (√2 only on single answers: 3.1's sin_theta·√2 would be its projection, √2)
            lines = [f"{e} = {e} * 2 ** 0.5" if len(ex) == 1 else f"{e} = {e} * 1.37 + 0.011" for e in ex]
            src = nbio.source(cell).replace("### END SOLUTION\n", "\n".join(lines) + "\n")
            wrong_code[gid] = src.replace("### BEGIN SOLUTION\n", "")
    wrong = nbio.read(released)
    for cell in wrong["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if gid in wrong_code:
            nbio.set_source(cell, wrong_code[gid])
    # term 2 repeats the grading only (full marks, zero): the feedback and the untouched release
    # are term 1's, to keep the suite's cost down
    who_all = ("solved", "wrong", "unsolved") if term == 1 else ("solved", "wrong")
    submissions = {"solved": solved, "wrong": wrong, "unsolved": nbio.read(released)}
    for who in who_all:
        nb = submissions[who]
        sub = course / "submitted" / who / ASSIGNMENT
        sub.mkdir(parents=True)                # what a student hands back: the notebook
        nbio.write(sub / CHAPTER, nb)
    _nbgrader(course, "autograde", ASSIGNMENT, "--create", "--force")

    from nbgrader.api import Gradebook
    tests = {"test_" + re.sub(r"[^\w-]", "_", a.id) for c in answers.CELLS if c.notebook == CHAPTER
             for a in c.answers}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {}
        for who in who_all:
            nb = gb.find_submission_notebook(Path(CHAPTER).stem, ASSIGNMENT, who)
            scores[who] = {g.name: g.score for g in nb.grades if g.name in tests}
    assert scores["solved"] == dict.fromkeys(tests, 1.0)
    assert scores["wrong"] == dict.fromkeys(tests, 0.0)
    if term != 1:
        return
    assert scores["unsolved"] == dict.fromkeys(tests, 0.0)

    # the feedback a student with wrong answers reads: hints, and none of the expected values
    _nbgrader(course, "generate_feedback", ASSIGNMENT, "--force")
    (html,) = (course / "feedback" / "wrong" / ASSIGNMENT).glob("*.html")
    feedback = html.read_text(encoding="utf-8")
    where = answers.chapter_of()
    assert student.find_answers(feedback, CHAPTER, values, where) == []
    assert "not correct" in feedback
    assert "√2" in feedback                     # single answers were off by √2: a hint
    for ident, value in values.items():
        if where[ident] == CHAPTER and student._significant(value) >= 3:
            assert repr(value) not in feedback


def test_generated_hidden_tests_check_the_intermediates():
    """The hidden-test code as generated (no nbgrader run): the term's solution passes; the answer
    typed in by hand, without the intermediates the template names, fails; so does an answer
    whose intermediates come from a patched package."""
    chapter, term = "02_dp_in_one_sitting.ipynb", 1
    nb = assignments.source_notebook(chapter, term)
    cells = {c["metadata"].get("nbgrader", {}).get("grade_id"): nbio.source(c) for c in nb["cells"]}
    answer = cells["answer_2_7"]
    assert answer.startswith("sigma_2_7 = None") and "laplace_sd_2_7 = None" in answer
    released = assignments.student_view(nb)
    assert "sigma_2_7 = None" in released and "sigma_2_8 = None" in released

    def hidden(gid):
        return re.search(r"### BEGIN HIDDEN TESTS\n(.*)### END HIDDEN TESTS", cells[gid], re.S).group(1)

    values = answers.expected_values(term)
    setup = answers.SETUP[chapter]
    solved = setup + "\n" + re.sub(r"### (BEGIN|END) SOLUTION\n", "", answer).split("widgets.check_answer")[0]
    for gid, ident, name in (("test_2_7", "2.7", "answer_2_7"), ("test_2_8-epsilon", "2.8-epsilon", "answer_2_8_epsilon")):
        ns = {}
        code = solved if gid == "test_2_7" else setup + "\n" + answers.solution(
            next(c for c in answers.CELLS if c.exercise == "2.8"), term)
        exec(code, ns)  # noqa: S102
        exec(hidden(gid), ns)  # noqa: S102 - passes
        typed = {name: values[ident]}
        with pytest.raises(AssertionError, match="is not defined"):
            exec(hidden(gid), typed)  # noqa: S102
        # intermediates read off a package whose gaussian_sigma was patched to return 1
        patched = dict(ns, **{k: 1.0 for k in ("sigma_2_7", "sigma_2_8") if k in ns})
        with pytest.raises(AssertionError, match="not correct"):
            exec(hidden(gid), patched)  # noqa: S102
