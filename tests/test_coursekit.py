"""The course kit: answer keys that hide the expected values, and the exercise cells using them."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from privpca_edu._coursekit import answers
from privpca_edu.widgets import exercises

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _code_cells(path):
    return ["".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
            if c["cell_type"] == "code"]


def test_answer_key_file_matches_the_registry():
    """A changed solution or tolerance (or package result) must come with regenerated keys."""
    assert answers.KEYS_PATH.read_text(encoding="utf-8") == answers.render_keys(), (
        "privpca_edu/widgets/answer_keys.json is stale: python -m privpca_edu._coursekit.answers --write")


def test_every_solution_passes_and_answers_twice_the_tolerance_off_fail(capsys):
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


def test_key_file_does_not_contain_the_values():
    text = answers.KEYS_PATH.read_text(encoding="utf-8")
    for value in answers.expected_values().values():
        for digits in (3, 4, 6):
            token = f"{value:.{digits}g}"
            if len(token.replace(".", "").replace("-", "")) >= 3:
                assert not re.search(rf"(?<![\d.]){re.escape(token)}(?!\d)", text), token


def test_notebooks_check_by_exercise_id_only():
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


def test_student_sources_have_no_solutions_and_no_answers(tmp_path):
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


def test_strip_markdown_removes_indented_answers_and_keeps_the_question():
    text = ("1. Why?\n\n   <details>\n   <summary>Answer</summary>\n\n   Because.\n\n   </details>\n\n"
            "2. Next question.\n<details>\n<summary>Solution 2</summary>\n\nx = 1\n\n</details>\n"
            "<details><summary>More about it</summary>kept</details>\n")
    from privpca_edu._coursekit.notebooks import strip_markdown

    out = strip_markdown(text)
    assert "Because" not in out and "x = 1" not in out
    assert "1. Why?" in out and "2. Next question." in out and "kept" in out


@pytest.mark.parametrize("edition,must_have", [("html", True), ("student/html", False)])
def test_built_editions(edition, must_have):
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
