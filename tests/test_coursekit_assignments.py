"""nbgrader round trip of the course kit's assignments (needs the `course` extra: nbgrader).

All ten assignments are written and checked without running nbgrader (cheap); one small chapter
(Chapter 3, about 2 s to execute) goes through the real command line: `generate_assignment`, then
`autograde` of a solved copy (full marks) and of the release as handed out (zero).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from privpca_edu._coursekit import answers, assignments, student
from privpca_edu._coursekit import notebooks as nbio

pytest.importorskip("nbgrader", reason="nbgrader is in the 'course' extra (scripts/setup_env.sh installs it)")

CHAPTER = "03_subspaces.ipynb"
ASSIGNMENT = assignments.assignment_name(CHAPTER)


def _nbgrader(course, *args):
    env = dict(os.environ)
    # nbgrader runs `alembic` (the gradebook's migrations) as a program: the venv's bin first
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def _leaked_values(text):
    return sorted({ident for ident, _, _ in student.find_answers(text)})


def test_every_chapter_becomes_an_assignment_with_one_point_per_answer(tmp_path):
    written = assignments.build(tmp_path)
    assert written == [assignments.assignment_name(n) for n in assignments.chapters()]
    assert len(written) == 10
    total = 0
    for name in written:
        (path,) = (tmp_path / "source" / name).glob("*.ipynb")
        nb = nbio.read(path)
        meta = [c["metadata"].get("nbgrader") for c in nb["cells"]]
        tests = [m for m in meta if m and m["grade"]]
        sols = [m for m in meta if m and m["solution"]]
        ids = {a.id for c in answers.CELLS if c.notebook == path.name for a in c.answers}
        assert {m["grade_id"] for m in tests} == {"test_" + re.sub(r"[^\w-]", "_", i) for i in ids}
        assert all(m["points"] == 1 and m["locked"] for m in tests)
        assert len(sols) == len([c for c in answers.CELLS if c.notebook == path.name])
        text = path.read_text(encoding="utf-8")
        assert text.count("### BEGIN SOLUTION") == len(sols)
        assert text.count("### BEGIN HIDDEN TESTS") == len(tests)
        assert "<summary>Solution" not in text and "<summary>Answer" not in text
        total += len(tests)
    assert total == len(answers.answers())


def test_nbgrader_round_trip_full_marks_and_zero(tmp_path):
    course = tmp_path / "course"
    assignments.build(course, only=[CHAPTER])
    _nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    (released,) = (course / "release" / ASSIGNMENT).glob("*.ipynb")
    text = released.read_text(encoding="utf-8")
    assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
    assert "NotImplementedError" in text
    source = nbio.read(course / "source" / ASSIGNMENT / CHAPTER)
    for cell in answers.CELLS:
        if cell.notebook == CHAPTER:
            assert cell.solution not in text
    assert _leaked_values(text) == []

    # a student who solved everything, and one who handed the release back untouched
    solutions = {c["metadata"]["nbgrader"]["grade_id"]: nbio.source(c) for c in source["cells"]
                 if c["metadata"].get("nbgrader", {}).get("solution")}
    solved = nbio.read(released)
    for cell in solved["cells"]:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if gid in solutions:
            nbio.set_source(cell, re.sub(r"### (BEGIN|END) SOLUTION\n", "", solutions[gid]))
    for who, nb in (("solved", solved), ("unsolved", nbio.read(released))):
        folder = course / "submitted" / who / ASSIGNMENT
        folder.mkdir(parents=True)
        nbio.write(folder / CHAPTER, nb)
    _nbgrader(course, "autograde", ASSIGNMENT, "--create", "--force")

    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {who: gb.find_submission(ASSIGNMENT, who) for who in ("solved", "unsolved")}
        points = {who: (s.score, s.max_score) for who, s in scores.items()}
    n = sum(len(c.answers) for c in answers.CELLS if c.notebook == CHAPTER)
    assert points == {"solved": (n, n), "unsolved": (0, n)}
