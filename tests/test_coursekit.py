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
