"""The student edition of the book: the same pages with no solutions and no expected values.

    python -m privpca_edu._coursekit.student prepare DEST   # copy the book's sources, stripped
    python -m privpca_edu._coursekit.student check HTML_DIR # fail if a solution or answer leaks

``scripts/build_book.sh --student`` runs ``prepare`` into a temporary folder, builds the book
there and runs ``check`` on the result (``_build/student/html``).  ``check`` searches every
text file of the built site (pages, search index, the notebooks offered for download) for

* a collapsed solution (``<summary>Solution`` / ``<summary>Answer``), and
* every exercise's expected value, as printed with 3, 4 and 5 significant figures (and as an
  integer when it is one), matched as a whole number (not as part of a longer one), in its
  chapter's page and downloadable notebook and on every page that is not a chapter.  Other
  chapters legitimately compute the same numbers as results of their own (√2 = 1.4142, the
  random-guess level 2.23); those are not answers there.  No exercise asks for a number its
  chapter prints (a table, a printout, a caption): an exercise that builds on one asks for the
  same computation in another setting, so every appearance of an answer on its page is a leak.

Values with fewer than three significant figures (``0``, ``1``, ``2``, ``4``, ``0.02``, ``5000``, ...) occur
all over a book about PCA (slider options, axis ticks) and cannot be searched for meaningfully;
``check`` lists them as not searchable rather than pretending.  Their solutions are still
removed, and the check cells never contain them.
"""

from __future__ import annotations

import argparse
import functools
import math
import re
import shutil
import sys
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal
from pathlib import Path

from . import notebooks as nbio
from .answers import ROOT, registry

# What the book build reads (see _config.yml / _toc.yml), plus the fetched JavaScript.
SOURCES = ("_config.yml", "_toc.yml", "book", "notebooks")
SKIP = shutil.ignore_patterns("_vendor", ".ipynb_checkpoints", "__pycache__", "_build")
TEXT_SUFFIXES = {".html", ".js", ".ipynb", ".md", ".txt", ".json", ".py"}


def prepare(dest, *, strip=True, executed=None):
    """Copy the book's sources to ``dest``, with every solution stripped unless ``strip`` is
    false.  ``executed``: a folder of already executed chapters (``_build/jupyter_execute/
    notebooks`` of the last book build); when it holds every chapter, newer than its source,
    those are copied instead (outputs kept) and ``dest/_config.yml`` turns execution off.
    Returns the number of solution blocks and cells removed."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for name in SOURCES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=SKIP, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dest / name)
    vendor = ROOT / "book" / "_vendor"
    if vendor.is_dir():
        shutil.copytree(vendor, dest / "book" / "_vendor", dirs_exist_ok=True)
    chapters = sorted((ROOT / "notebooks").glob("*.ipynb"))
    use_executed = executed is not None and all(
        (Path(executed) / p.name).exists()
        and (Path(executed) / p.name).stat().st_mtime >= p.stat().st_mtime for p in chapters)
    if use_executed:
        for p in chapters:
            shutil.copy2(Path(executed) / p.name, dest / "notebooks" / p.name)
        config = (dest / "_config.yml").read_text(encoding="utf-8")
        config, n = re.subn(r"(?m)^(\s*execute_notebooks:\s*)\S+", r"\g<1>'off'", config)
        if n != 1:
            raise ValueError("_config.yml has no single execute_notebooks setting to turn off")
        (dest / "_config.yml").write_text(config, encoding="utf-8")
    removed = 0
    schemes = ROOT / "instructor" / "mark_schemes.md"
    if not strip and schemes.exists():
        # the instructors' page includes the mark schemes of the open exercises
        (dest / "instructor").mkdir(exist_ok=True)
        shutil.copy2(schemes, dest / "instructor" / schemes.name)
    if strip:
        remove_instructors_page(dest)
        for path in sorted((dest / "notebooks").glob("*.ipynb")):
            nb, n = nbio.strip_solutions(nbio.read(path), keep_outputs=use_executed)
            nbio.write(path, nb)
            removed += n
        for path in sorted((dest / "book").glob("*.md")):
            text = path.read_text(encoding="utf-8")
            removed += len(nbio.SOLUTION_BLOCK.findall(text))
            path.write_text(nbio.strip_markdown(text), encoding="utf-8")
    return removed


INSTRUCTORS_PAGE = "book/instructors"
# A Markdown link to the instructors' page, from a page in book/ or from a chapter.
INSTRUCTORS_LINK = re.compile(r"\[([^\]\[\n\x22]*)\]\((?:\.\./book/)?instructors\.md(?:#[\w-]*)?\)")


def remove_instructors_page(dest):
    """The student edition has no instructors' page (it describes the answers, the assessment
    and the exam): drop it from ``_toc.yml``, delete it, and turn links to it into text that says
    where the page is."""
    dest = Path(dest)
    toc = (dest / "_toc.yml").read_text(encoding="utf-8")
    toc, n = re.subn(rf"(?m)^\s*- file: {re.escape(INSTRUCTORS_PAGE)}\s*\n", "", toc)
    if n != 1:
        raise ValueError(f"_toc.yml has no single '- file: {INSTRUCTORS_PAGE}' entry to remove")
    (dest / "_toc.yml").write_text(toc, encoding="utf-8")
    (dest / (INSTRUCTORS_PAGE + ".md")).unlink()
    for path in [*sorted((dest / "book").glob("*.md")), *sorted((dest / "notebooks").glob("*.ipynb"))]:
        text = path.read_text(encoding="utf-8")
        new = INSTRUCTORS_LINK.sub(lambda m: f"*{m.group(1)}* (in the instructors' edition)", text)
        if new != text:
            path.write_text(new, encoding="utf-8")


def _significant(value):
    digits = re.sub(r"[^0-9]", "", f"{abs(value):.12g}".split("e")[0]).strip("0")
    return len(digits)


def _token_significant(token):
    """Significant digits of a printed number: '0.0137' -> 3, '13.70' -> 4, '16500' -> 3."""
    if "." in token:
        return len(token.replace(".", "").lstrip("0"))
    return len(token.lstrip("0").rstrip("0"))


SHIFTS = range(-6, 7)          # × or ÷ a power of ten (a percentage is ×100)
MIN_FIGURES = 3                # as printed
MIN_FIGURES_SHIFTED = 4        # ×/÷ 10^k: 13 shifts of a 3-figure number match a book's spreads by chance


def value_forms(value):
    """Every way ``value`` could be printed: at 3 to 17 significant figures, rounded (or cut, from 4 figures on), with
    or without trailing zeros, ×/÷ 10^k for |k| <= 6 (a percentage, a unit), as an integer when
    it is one.  Only forms with at least three significant figures (fewer match everywhere), and
    four for the shifted forms (with thirteen shifts, three figures match some unrelated number
    of every chapter: chapter 9's spread 0.194 is exercise 9.1's 0.01938 × 10)."""
    forms, found = set(), set()
    if not math.isfinite(value) or value == 0:
        return found
    exact = Decimal(repr(abs(float(value))))
    for k in SHIFTS:
        x = exact.scaleb(k)
        if x >= Decimal("1e13") or x < Decimal("1e-10"):
            continue
        e = x.adjusted()
        for p in range(MIN_FIGURES, 18):
            dec = p - 1 - e
            if dec < 0:
                continue
            q = Decimal(1).scaleb(-dec)
            # rounded; cut (digits copied, not rounded) from four figures on
            for rounding in (ROUND_HALF_EVEN, ROUND_DOWN) if p >= 4 else (ROUND_HALF_EVEN,):
                text = format(x.quantize(q, rounding=rounding), "f")
                forms.add(text)
                if "." in text:
                    forms.add(text.rstrip("0").rstrip("."))
        if x == x.to_integral_value():
            forms.add(str(int(x)))
        least = MIN_FIGURES if k == 0 else MIN_FIGURES_SHIFTED
        found |= {f for f in forms if _token_significant(f) >= least}
        forms = set()
    return found


def answer_tokens(values=None):
    """{id: [strings that would give the answer away]}, and the ids too short to search.
    ``values``: {id: expected value} (default: the book's, from the instructors' registry)."""
    values = registry().expected_values() if values is None else values
    tokens, unsearchable = {}, {}
    for ident, value in values.items():
        if value is None or _significant(value) < MIN_FIGURES:
            unsearchable[ident] = value
            continue
        tokens[ident] = sorted(value_forms(value))
    return tokens, unsearchable


SOLUTION_MARK = re.compile(r"<summary>\s*(?:Solution|Answer)\b|\(Answer:")
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)")


@functools.lru_cache(maxsize=4)
def _index(values_key=None):
    values = None if values_key is None else dict(values_key)
    tokens, _ = answer_tokens(values)
    index = {}
    for ident, forms in tokens.items():
        for form in forms:
            index.setdefault(form, []).append(ident)
    return index


DATA_URI = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=\s\\n\"]+")


def find_answers(text, chapter=None, values=None, chapters=None):
    """[(id, token, context)] for every expected value found in ``text``, at any precision and
    ×/÷ a power of ten.  ``chapter`` (a notebook file name): search only for its exercises.
    ``values``/``chapters``: {id: value} and {id: notebook} of a term (default: the book's).
    This is the check every student artefact runs (site, PDF text, slides, assignments)."""
    text = DATA_URI.sub("data:", text)       # embedded images are not text
    found = []
    reg = registry()
    where = chapters or reg.chapter_of()
    index = _index(None if values is None else tuple(sorted(values.items())))
    for m in NUMBER.finditer(text):
        for ident in index.get(m.group(0), ()):
            if chapter is not None and where[ident] != chapter:
                continue
            before = text[max(0, m.start() - 80):m.start()]
            context = (before[-60:] + m.group(0) + text[m.end():m.end() + 20]).replace("\n", " ")
            found.append((ident, m.group(0), context))
    return found


def leaks(html_dir):
    """[(file, what)] for every solution marker or expected value found under ``html_dir``."""
    html_dir = Path(html_dir)
    found = []
    chapters = set(registry().chapter_of().values())
    for path in sorted(html_dir.rglob("*")):
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES or "_static" in path.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = str(path.relative_to(html_dir))
        if SOLUTION_MARK.search(text):
            found.append((rel, "solution block"))
        # a chapter's page and its download: that chapter's answers; the search index repeats
        # the pages' words (checked there); any other page: every answer
        if path.name.startswith("searchindex"):
            continue
        chapter = path.stem + ".ipynb" if path.stem + ".ipynb" in chapters else None
        found += [(rel, f"answer of {ident} ({token}): ...{context}...")
                  for ident, token, context in find_answers(text, chapter)]
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="copy the book's sources to DEST without solutions")
    p.add_argument("dest")
    c = sub.add_parser("check", help="fail if a solution or an expected value is in HTML_DIR")
    c.add_argument("html_dir")
    args = parser.parse_args(argv)
    if args.command == "prepare":
        n = prepare(args.dest)
        print(f"[student] sources copied to {args.dest}; {n} solution block(s)/cell(s) removed")
        return 0
    html_dir = Path(args.html_dir)
    if not (html_dir / "index.html").exists():
        print(f"[student] {html_dir} holds no built book (no index.html)", file=sys.stderr)
        return 2
    found = leaks(html_dir)
    tokens, unsearchable = answer_tokens()
    for rel, what in found:
        print(f"[student] LEAK {rel}: {what}", file=sys.stderr)
    print(f"[student] searched {html_dir} for {len(tokens)} expected values and for solution blocks: "
          f"{len(found)} found")
    if unsearchable:
        print("[student] too short to search for (fewer than 3 significant figures): "
              + ", ".join(f"{k} ({v:g})" for k, v in unsearchable.items()))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
