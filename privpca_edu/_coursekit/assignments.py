"""nbgrader assignments from the book's chapters: one per chapter with exercises.

    python -m privpca_edu._coursekit.assignments [COURSE_DIR] [--chapter 03 ...]

writes an nbgrader course folder (default ``_build/assignments``)::

    nbgrader_config.py
    source/<assignment>/<chapter>.ipynb     the instructor version, for `nbgrader generate_assignment`

Each assignment is its chapter as the student edition shows it (collapsed solutions and
solution cells removed, outputs cleared: see :mod:`.student`), with every exercise cell
``answer = None; widgets.check_answer("<id>", answer, hint=...)`` turned into

* an **autograded answer** cell: ``answer = None``, then the registry's solution between
  ``### BEGIN SOLUTION`` / ``### END SOLUTION`` (``generate_assignment`` replaces it with
  ``raise NotImplementedError()``), then the chapter's own check call with its hint, so the
  student still gets feedback while working;
* one locked **autograder test** cell per checked value, worth one point:
  ``assert check_answer("<id>", value)`` (the hashed key, at the exercise's tolerance), plus a
  hidden test comparing with the expected value itself between ``### BEGIN HIDDEN TESTS`` /
  ``### END HIDDEN TESTS`` — removed from the release, restored by ``nbgrader autograde``.

A term's workflow (``book/instructors.md``): ``nbgrader generate_assignment <a>`` in the course
folder writes ``release/<a>/``; hand that out; collect submissions into
``submitted/<student>/<a>/``; ``nbgrader autograde <a>`` grades them.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

from . import notebooks as nbio
from .answers import CELLS, ROOT, expected_values

DEFAULT_DIR = ROOT / "_build" / "assignments"
COURSE_ID = "privpca_edu"
CONFIG = f'''\
# nbgrader configuration of the privpca_edu course folder (written by scripts/build_assignments.sh).
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = "{COURSE_ID}"
c.CourseDirectory.root = __import__("os").path.dirname(__import__("os").path.abspath(__file__))
# Chapters run whole when autograded; Chapter 7 encrypts with real Paillier keys (~15 s per cell).
c.Execute.timeout = 600
c.ExecutePreprocessor.timeout = 600
'''
NONE_LINE = re.compile(r"^(\w+)\s*=\s*(None|\{[^}]*\})\s*(#.*)?$")


def assignment_name(notebook):
    """``03_subspaces.ipynb`` -> ``ch03_subspaces``."""
    return "ch" + Path(notebook).stem


def _grade_id(text):
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


def _meta(grade_id, *, grade, solution, locked, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def _code_cell(text, metadata):
    cell = {"cell_type": "code", "execution_count": None, "metadata": metadata, "outputs": []}
    nbio.set_source(cell, text)
    return cell


def _hidden_test(expr, value, rtol, atol):
    if rtol == 0 and atol == 0:
        return f"assert float({expr}) == {value!r}"
    return f"assert abs(float({expr}) - {value!r}) <= {rtol!r} * {abs(value)!r} + {atol!r}"


def _find_cell(nb, exercise_cell):
    """Index of the notebook's check cell for ``exercise_cell`` (by its first checked id)."""
    first = exercise_cell.answers[0].id
    pattern = re.compile(r'check_answer\(\s*f?"' + re.escape(first.split("-")[0]) + r'(?:[-"{])')
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code" and pattern.search(nbio.source(cell)):
            return i
    raise LookupError(f"{exercise_cell.notebook}: no check_answer cell for exercise {first}")


def source_notebook(notebook):
    """The nbgrader source version of ``notebooks/<notebook>``."""
    nb, _ = nbio.strip_solutions(nbio.read(ROOT / "notebooks" / notebook))
    values = expected_values()
    cells = [c for c in CELLS if c.notebook == notebook]
    # replace from the bottom up so that earlier indices stay valid
    for ex in sorted(cells, key=lambda c: _find_cell(nb, c), reverse=True):
        i = _find_cell(nb, ex)
        lines = nbio.source(nb["cells"][i]).split("\n")
        k = 0
        while k < len(lines) and NONE_LINE.match(lines[k]):
            k += 1
        if k == 0:
            raise ValueError(f"{notebook}: the check cell of {ex.answers[0].id} does not start "
                             "with 'answer = None' lines")
        answer_src = "\n".join(lines[:k] + ["### BEGIN SOLUTION", ex.solution, "### END SOLUTION"]
                               + lines[k:])
        base = _grade_id(ex.answers[0].id.split("-")[0])
        new = [_code_cell(answer_src, _meta(f"answer_{base}", grade=False, solution=True, locked=False))]
        for ans in ex.answers:
            test = "\n".join([
                "from privpca_edu.widgets import check_answer",
                f'assert check_answer("{ans.id}", {ans.expr})',
                "### BEGIN HIDDEN TESTS",
                _hidden_test(ans.expr, values[ans.id], ans.rtol, ans.atol),
                "### END HIDDEN TESTS",
            ])
            new.append(_code_cell(test, _meta(f"test_{_grade_id(ans.id)}", grade=True, solution=False,
                                              locked=True, points=1)))
        nb["cells"][i:i + 1] = new
    for cell in nb["cells"]:
        cell.pop("id", None)       # fresh cells and copies: let nbformat 4.4 do without ids
    nb["nbformat_minor"] = 4
    return nb


def chapters():
    """Notebook file names that have exercises, in book order."""
    return sorted({c.notebook for c in CELLS})


def build(course_dir=DEFAULT_DIR, only=None):
    """Write the course folder; ``only``: chapter numbers or file names to limit to."""
    course_dir = Path(course_dir)
    course_dir.mkdir(parents=True, exist_ok=True)
    (course_dir / "nbgrader_config.py").write_text(CONFIG, encoding="utf-8")
    names = chapters()
    if only:
        names = [n for n in names if any(n.startswith(o) or n == o for o in only)]
        if not names:
            raise ValueError(f"no chapter with exercises matches {only}; chapters: {chapters()}")
    written = []
    for notebook in names:
        folder = course_dir / "source" / assignment_name(notebook)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        nbio.write(folder / notebook, source_notebook(notebook))
        written.append(assignment_name(notebook))
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("course_dir", nargs="?", default=str(DEFAULT_DIR))
    parser.add_argument("--chapter", action="append", help="limit to chapters starting with this (e.g. 03)")
    args = parser.parse_args(argv)
    written = build(args.course_dir, args.chapter)
    points = sum(len(c.answers) for c in CELLS if assignment_name(c.notebook) in written)
    print(f"[assignments] {len(written)} assignment(s), {points} point(s), in {args.course_dir}/source: "
          + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
