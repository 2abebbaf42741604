"""nbgrader assignments from the book's chapters: one per chapter with exercises.

    python -m instructor.assignments [COURSE_DIR] [--term SEED] [--chapter 03 ...]

writes an nbgrader course folder (default ``_build/assignments``)::

    nbgrader_config.py
    source/<assignment>/<chapter>.ipynb     the instructor version, for `nbgrader generate_assignment`
    answer_keys.json                        the term's answer keys (hashes; see use_answer_keys)

Each assignment is its chapter as the student edition shows it (collapsed solutions and
solution cells removed, outputs cleared: see ``privpca_edu/_coursekit/student.py``).  With
``--term SEED`` every auto-graded exercise states the term's own parameters (drawn by
``instructor.answers.draw``) and is graded against the answers computed for them; without it,
the book's numbers.  In the notebook:

* a locked first code cell selects the term's answer keys for the chapter (``use_answer_keys``
  with the hashes themselves, so no extra file must travel with the notebook), so that the
  chapter's own ``check_answer`` calls give feedback on this term's numbers;
* every exercise cell ``answer = None; widgets.check_answer("<id>", answer, hint=...)`` becomes an
  **autograded answer** cell (the registry's solution between ``### BEGIN SOLUTION`` / ``### END
  SOLUTION``, replaced by ``raise NotImplementedError()`` in the release) and one locked
  **autograder test** cell per checked value, worth one point: a hidden test (the grader of
  ``instructor/grading.py``: the answer key's own check, a type check, an integrity scan and a
  hint, never the expected value; where the exercise asks for intermediate values, which the
  answer cell's template then names, their types and salted keys and the answer recomputed from
  them with ``math`` only) and the visible ``assert check_answer("<id>", value)``;
* every open exercise gets a **manually graded** answer cell after its statement (markdown, worth
  the points of its mark scheme in ``instructor/mark_schemes.md``; the source version holds the
  scheme, the release says "YOUR ANSWER HERE").

A term's workflow (``book/instructors.md``): ``nbgrader generate_assignment <a>`` in the course
folder writes ``release/<a>/``; hand that out; collect submissions into
``submitted/<student>/<a>/``; ``nbgrader autograde <a>``; grade the open answers in formgrader;
``nbgrader generate_feedback <a>``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from privpca_edu._coursekit import notebooks as nbio

from . import answers as reg
from . import grading, mark_schemes
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
EXERCISE_HEAD = re.compile(r"\*\*Exercise (\d+\.\d+)[.* (]")
KEYS_SETUP = '''\
# This assignment's answer keys (salted hashes, not the answers): check_answer uses them.
from privpca_edu.widgets import exercises as _exercises
_exercises.use_answer_keys({keys})'''


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


def _markdown_cell(text, metadata=None):
    cell = {"cell_type": "markdown", "metadata": metadata or {}}
    nbio.set_source(cell, text)
    return cell


def _find_cell(nb, exercise_cell):
    """Index of the notebook's check cell for ``exercise_cell`` (by its first checked id)."""
    first = exercise_cell.answers[0].id
    pattern = re.compile(r'check_answer\(\s*f?"' + re.escape(first.split("-")[0]) + r'(?:[-"{])')
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code" and pattern.search(nbio.source(cell)):
            return i
    raise LookupError(f"{exercise_cell.notebook}: no check_answer cell for exercise {first}")


def _split_exercises(nb):
    """Split markdown cells so that each exercise statement ends its cell: then an answer cell
    can follow it.  Returns {exercise id: index of the cell holding its statement}."""
    cells = []
    for cell in nb["cells"]:
        text = nbio.source(cell) if cell["cell_type"] == "markdown" else ""
        starts = [m.start() for m in EXERCISE_HEAD.finditer(text)]
        if len(starts) <= 1 or cell["cell_type"] != "markdown":
            cells.append(cell)
            continue
        bounds = [0] + starts[1:] + [len(text)]
        for a, b in zip(bounds, bounds[1:]):
            part = json.loads(json.dumps(cell))
            part.pop("id", None)
            nbio.set_source(part, text[a:b].strip("\n") + "\n")
            cells.append(part)
    nb["cells"] = cells
    where = {}
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            for m in EXERCISE_HEAD.finditer(nbio.source(cell)):
                where[m.group(1)] = i
    return where


def _apply_parameters(nb, notebook, term, where):
    """Each auto-graded exercise's statement and check cell state the term's numbers."""
    for ex in (c for c in CELLS if c.notebook == notebook and c.text):
        subs = reg.substitutions(ex, term)
        i = where[ex.exercise]
        j = _find_cell(nb, ex)
        statement = nbio.source(nb["cells"][i])
        check = nbio.source(nb["cells"][j])
        # each literal is in the statement, in the check cell, or in both
        for literal, new in subs:
            if literal not in statement and literal not in check:
                raise ValueError(f"{notebook}, exercise {ex.exercise}: {literal!r} is in neither its "
                                 "statement nor its check cell; update instructor/answers.py")
            statement = statement.replace(literal, new)
            check = check.replace(literal, new)
        nbio.set_source(nb["cells"][i], statement)
        nbio.set_source(nb["cells"][j], check)


def _hidden_test(ans, keys, mistakes, label, checks=None):
    key = keys[ans.id]
    mistake_keys = [(hint, key_) for hint, key_ in mistakes]
    tail = ")" if checks is None else ","
    lines = [
        "### BEGIN HIDDEN TESTS",
        grading.GRADER.rstrip("\n"),
        f"_privpca_grade({ans.id!r}, {label!r}, {ans.expr},",
        f"               {json.dumps(key, sort_keys=True)},",
        f"               {json.dumps(mistake_keys, ensure_ascii=False)}{tail}",
    ]
    if checks is not None:     # the intermediates, read from the notebook's own names
        lines.append(f"               {checks!r}, globals())")     # a Python literal (None, True)
    return "\n".join(lines + ["### END HIDDEN TESTS"])


def _mistake_keys(term):
    """{id: [(hint, key of that mistake's value)]} with the term's salts."""
    out = {}
    for _, ans in reg.answers():
        out[ans.id] = [(hint, reg.exercises.answer_key(ans.id, value, rtol=ans.rtol, atol=ans.atol,
                                                       salt=reg.salt(ans.id, term)))
                       for hint, value in reg.mistake_values(term)[ans.id]]
    return out


def source_notebook(notebook, term=None, keys=None, mistakes=None):
    """The nbgrader source version of ``notebooks/<notebook>`` for ``term`` (None: the book's)."""
    nb, _ = nbio.strip_solutions(nbio.read(ROOT / "notebooks" / notebook))
    keys = keys or reg.answer_keys(term)
    mistakes = mistakes or _mistake_keys(term)
    where = _split_exercises(nb)
    _apply_parameters(nb, notebook, term, where)
    cells = [c for c in CELLS if c.notebook == notebook]
    # open exercises: a manually graded answer cell after the statement (and its code cells)
    schemes = {s.id: s for s in mark_schemes.schemes() if s.notebook == notebook}
    inserts = []
    for ident, scheme in schemes.items():
        if ident not in where:
            raise LookupError(f"{notebook}: no statement of open exercise {ident}")
        k = where[ident] + 1
        while k < len(nb["cells"]) and nb["cells"][k]["cell_type"] == "code" \
                and "check_answer(" not in nbio.source(nb["cells"][k]):
            k += 1
        inserts.append((k, scheme))
    # replace from the bottom up so that earlier indices stay valid
    edits = [(_find_cell(nb, ex), "auto", ex) for ex in cells] + [(k, "open", s) for k, s in inserts]
    for i, kind, item in sorted(edits, key=lambda e: e[0], reverse=True):
        if kind == "open":
            text = "\n".join([f"**Your answer to Exercise {item.id}** ({item.points} points)", "",
                              "=== BEGIN MARK SCHEME ===", "", item.text, "", "=== END MARK SCHEME ==="])
            nb["cells"][i:i] = [_markdown_cell(text, _meta(f"open_{_grade_id(item.id)}", grade=True, solution=True,
                                                           locked=False, points=item.points))]
            continue
        ex = item
        lines = nbio.source(nb["cells"][i]).split("\n")
        k = 0
        while k < len(lines) and NONE_LINE.match(lines[k]):
            k += 1
        if k == 0:
            raise ValueError(f"{notebook}: the check cell of {ex.answers[0].id} does not start "
                             "with 'answer = None' lines")
        # the intermediates the exercise asks for: the template names them, the hidden tests check them
        width = max([len(i.name) for i in ex.intermediates] + [0])
        named = [f"{i.name} = None".ljust(width + 7) + f"   # {i.note}" for i in ex.intermediates]
        answer_src = "\n".join(named + lines[:k] + ["### BEGIN SOLUTION", reg.solution(ex, term), "### END SOLUTION"]
                               + lines[k:])
        base = _grade_id(ex.exercise)
        new = [_code_cell(answer_src, _meta(f"answer_{base}", grade=False, solution=True, locked=False))]
        for ans in ex.answers:
            label = f"Exercise {ans.id}"
            test = "\n".join([
                _hidden_test(ans, keys, mistakes[ans.id], label, reg.hidden_checks(ex, ans, term)),
                "from privpca_edu.widgets import check_answer",
                f'assert check_answer("{ans.id}", {ans.expr})',
            ])
            new.append(_code_cell(test, _meta(f"test_{_grade_id(ans.id)}", grade=True, solution=False,
                                              locked=True, points=1)))
        nb["cells"][i:i + 1] = new
    # the term's keys, before the first code cell
    first_code = next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code")
    chapter_keys = {a.id: keys[a.id] for c in cells for a in c.answers}
    setup = KEYS_SETUP.format(keys=json.dumps(chapter_keys, indent=1, sort_keys=True))
    nb["cells"].insert(first_code, _code_cell(setup, _meta("term_keys", grade=False, solution=False,
                                                           locked=True)))
    for cell in nb["cells"]:
        cell.pop("id", None)       # fresh cells and copies: let nbformat 4.4 do without ids
    nb["nbformat_minor"] = 4
    return nb


def student_view(nb):
    """The text of ``nb`` as ``nbgrader generate_assignment`` releases it (solutions, hidden
    tests and mark schemes cut out), for the leak check."""
    text = json.dumps(nb, ensure_ascii=False)
    text = re.sub(r"### BEGIN SOLUTION.*?### END SOLUTION", "", text, flags=re.S)
    text = re.sub(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", "", text, flags=re.S)
    return re.sub(r"=== BEGIN MARK SCHEME ===.*?=== END MARK SCHEME ===", "", text, flags=re.S)


def chapters():
    """Notebook file names that have exercises, in book order."""
    return sorted({c.notebook for c in CELLS})


def build(course_dir=DEFAULT_DIR, only=None, term=None):
    """Write the course folder; ``only``: chapter numbers or file names to limit to; ``term``:
    a term's seed (None: the book's parameters)."""
    course_dir = Path(course_dir)
    course_dir.mkdir(parents=True, exist_ok=True)
    (course_dir / "nbgrader_config.py").write_text(CONFIG, encoding="utf-8")
    names = chapters()
    if only:
        names = [n for n in names if any(n.startswith(o) or n == o for o in only)]
        if not names:
            raise ValueError(f"no chapter with exercises matches {only}; chapters: {chapters()}")
    keys_text = reg.render_keys(term)
    keys = json.loads(keys_text)["exercises"]
    mistakes = _mistake_keys(term)
    written = []
    for notebook in names:
        folder = course_dir / "source" / assignment_name(notebook)
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        nb = source_notebook(notebook, term, keys, mistakes)
        nbio.write(folder / notebook, nb)
        written.append(assignment_name(notebook))
    # the term's hash file (each assignment carries its chapter's keys in its first cell)
    (course_dir / "answer_keys.json").write_text(keys_text, encoding="utf-8")
    (course_dir / "TERM").write_text(f"{'book' if term is None else term}\n", encoding="utf-8")
    return written


def _term_of(course_dir):
    text = (Path(course_dir) / "TERM").read_text(encoding="utf-8").strip()
    return None if text == "book" else int(text)


def release_leaks(course_dir):
    """[(file, what)] for every expected value of the course folder's term found, at any
    precision, in a released notebook (``release/``, what students get) of its chapter."""
    from privpca_edu._coursekit import student

    term = _term_of(course_dir)
    values = expected_values(term)
    where = reg.chapter_of()
    found = []
    for path in sorted((Path(course_dir) / "release").glob("*/*.ipynb")):
        text = path.read_text(encoding="utf-8")
        found += [(str(path.relative_to(course_dir)), f"answer of {ident} ({token}): ...{ctx}...")
                  for ident, token, ctx in student.find_answers(text, path.name, values, where)]
        if "BEGIN MARK SCHEME" in text or "_privpca_grade" in text:
            found.append((str(path.relative_to(course_dir)), "a mark scheme or a hidden test"))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("course_dir", nargs="?", default=str(DEFAULT_DIR))
    parser.add_argument("--chapter", action="append", help="limit to chapters starting with this (e.g. 03)")
    parser.add_argument("--term", type=int, help="a term's seed: its own parameters and answers")
    parser.add_argument("--check-release", action="store_true",
                        help="search release/ for the term's expected values (after generate_assignment)")
    args = parser.parse_args(argv)
    if args.check_release:
        found = release_leaks(args.course_dir)
        for rel, what in found:
            print(f"[assignments] LEAK {rel}: {what}", file=sys.stderr)
        print(f"[assignments] searched {args.course_dir}/release for the term's expected values: {len(found)} found")
        return 1 if found else 0
    written = build(args.course_dir, args.chapter, args.term)
    chosen = [c for c in CELLS if assignment_name(c.notebook) in written]
    points = sum(len(c.answers) for c in chosen)
    manual = sum(s.points for s in mark_schemes.schemes() if assignment_name(s.notebook) in written)
    which = "the book's parameters" if args.term is None else f"term {args.term}'s parameters"
    print(f"[assignments] {len(written)} assignment(s) with {which}: {points} autograded point(s), "
          f"{manual} manually graded, in {args.course_dir}/source: " + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
