"""The book's sources speak of their subject only (the built pages are checked by the browser tests)."""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
PROCESS_WORDS = ("garbled", "our copy", "the text we had", "reachable", "workplace", "spec §", "shared/spec",
                 "reconstructed from", "lost in", "lost from")
SOURCES = sorted(ROOT.glob("notebooks/*.ipynb")) + sorted(ROOT.glob("book/*.md"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_source_talks_about_how_the_book_was_made(path):
    if path.suffix == ".ipynb":
        text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    else:
        text = path.read_text(encoding="utf-8")
    found = [w for w in PROCESS_WORDS if re.search(r"\b" + re.escape(w), text, re.IGNORECASE)]
    assert not found, (path.name, found)


FIGURE_SOURCES = sorted((ROOT / "privpca_edu" / "plotting").glob("*.py")) + sorted(
    (ROOT / "privpca_edu" / "widgets").glob("*.py"))


@pytest.mark.parametrize("path", FIGURE_SOURCES, ids=lambda p: p.parent.name + "/" + p.name)
def test_no_figure_or_caption_talks_about_how_the_book_was_made(path):
    """Figure labels, alt text and dashboard captions are part of the pages too."""
    text = path.read_text(encoding="utf-8")
    words = PROCESS_WORDS + ("reconstructed",)
    found = [w for w in words if re.search(r"\b" + re.escape(w) + r"\b", text, re.IGNORECASE)]
    assert not found, (path.name, found)


# --- one apparatus: prerequisites with the notation link, and the estimated time ----------------

CHAPTERS = sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb"))
INSTRUCTORS = ROOT / "book" / "instructors.md"
NOTATION_LINK = "[notation](../book/notation.md)"


def _markdown(path):
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")


def _paragraph(text, label):
    """The paragraph that starts with **label.** (or **label:**), or None."""
    match = re.search(r"\*\*" + label + r"[.:]\*\*", text)
    return None if match is None else text[match.start():].split("\n\n", 1)[0]


def _estimated_minutes(paragraph):
    """'About 90 minutes: 45 to read, 45 for ...' -> 90; 'About 60 minutes to read ..., and 30 more
    for the exercises' -> 90 (the parts add up)."""
    total = re.search(r"[Aa]bout (\d+) minutes:", paragraph)
    if total:
        return int(total.group(1))
    return sum(int(m) for m in re.findall(r"(\d+) (?:minutes|min\b|more)", paragraph))


def _timing_table():
    """chapter number -> (lecture, alone) minutes, from the instructors page's timing table."""
    rows = re.findall(r"^\| (\d+)\. [^|]+\| (\d+) min \| (\d+) min \|", INSTRUCTORS.read_text(encoding="utf-8"), re.M)
    return {int(ch): (int(lecture), int(alone)) for ch, lecture, alone in rows}


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_chapter_prerequisites_link_the_notation_page(path):
    paragraph = _paragraph(_markdown(path), "Prerequisites")
    assert paragraph is not None, f"{path.name}: no '**Prerequisites.**' paragraph"
    assert NOTATION_LINK in paragraph, f"{path.name}: the prerequisites do not link {NOTATION_LINK}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_chapter_estimated_time_matches_the_instructors_page(path):
    """The timing table and the lecture plan of book/instructors.md use the chapters' own times."""
    paragraph = _paragraph(_markdown(path), "Estimated time")
    assert paragraph is not None, f"{path.name}: no '**Estimated time.**' paragraph"
    minutes = _estimated_minutes(paragraph)
    table = _timing_table()
    assert int(path.name[:2]) in table, f"{path.name} is missing from the timing table"
    assert minutes == table[int(path.name[:2])][1], (
        f"{path.name} says {minutes} min ({paragraph!r}); the instructors' timing table says "
        f"{table[int(path.name[:2])][1]} min")


def test_lecture_plan_uses_the_timing_table():
    """Every 'Chapter N (M min' of the five-week plan is the chapter's lecture time or its time alone."""
    text = INSTRUCTORS.read_text(encoding="utf-8")
    plan = text[text.index("## A five-week module"):text.index("## Notes on chapters")]
    table = _timing_table()
    assert sorted(table) == list(range(1, len(CHAPTERS) + 1))
    mentions = re.findall(r"[Cc]hapter (\d+) \((\d+) min", plan)
    assert {int(ch) for ch, _ in mentions} == set(table), "every chapter appears in the plan"
    wrong = [(ch, m) for ch, m in mentions if int(m) not in table[int(ch)]]
    assert not wrong, wrong


def test_notation_page_links_every_chapter():
    text = (ROOT / "book" / "notation.md").read_text(encoding="utf-8")
    targets = set(re.findall(r"\]\(\.\./notebooks/([^)#]+)\)", text))
    assert all((ROOT / "notebooks" / t).exists() for t in targets), targets
    assert targets == {p.name for p in CHAPTERS}, sorted({p.name for p in CHAPTERS} - targets)
