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
import re
import shutil
import sys
from pathlib import Path

from . import notebooks as nbio
from .answers import ROOT, chapter_of, expected_values

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
    if strip:
        for path in sorted((dest / "notebooks").glob("*.ipynb")):
            nb, n = nbio.strip_solutions(nbio.read(path), keep_outputs=use_executed)
            nbio.write(path, nb)
            removed += n
        for path in sorted((dest / "book").glob("*.md")):
            text = path.read_text(encoding="utf-8")
            removed += len(nbio.SOLUTION_BLOCK.findall(text))
            path.write_text(nbio.strip_markdown(text), encoding="utf-8")
    return removed


def _significant(value):
    digits = re.sub(r"[^0-9]", "", f"{abs(value):.12g}".split("e")[0]).strip("0")
    return len(digits)


def answer_tokens():
    """{id: [strings that would give the answer away]}, and the ids too short to search."""
    tokens, unsearchable = {}, {}
    for ident, value in expected_values().items():
        if _significant(value) < 3:
            unsearchable[ident] = value
            continue
        # "#": keep trailing zeros (77.98 to 3 figures is "78.0", not "78")
        forms = {f"{value:#.{p}g}".rstrip(".") for p in (3, 4, 5)}
        forms = {f for f in forms if "e" not in f} or {f"{value:.4g}"}
        if value == round(value):
            forms.add(str(int(round(value))))
        tokens[ident] = sorted(forms)
    return tokens, unsearchable


SOLUTION_MARK = re.compile(r"<summary>\s*(?:Solution|Answer)\b|\(Answer:")


@functools.lru_cache(maxsize=1)
def _patterns():
    tokens, _ = answer_tokens()
    return {ident: re.compile("|".join(rf"(?<![\w.]){re.escape(t)}(?!\w)" for t in forms))
            for ident, forms in tokens.items()}


DATA_URI = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=\s\\n\"]+")


def find_answers(text, chapter=None):
    """[(id, token, context)] for every expected value found in ``text``.  ``chapter`` (a
    notebook file name): search only for its exercises."""
    text = DATA_URI.sub("data:", text)       # embedded images are not text
    found = []
    where = chapter_of()
    for ident, pattern in _patterns().items():
        if chapter is not None and where[ident] != chapter:
            continue
        for m in pattern.finditer(text):
            before = text[max(0, m.start() - 80):m.start()]
            context = (before[-60:] + m.group(0) + text[m.end():m.end() + 20]).replace("\n", " ")
            found.append((ident, m.group(0), context))
    return found


def leaks(html_dir):
    """[(file, what)] for every solution marker or expected value found under ``html_dir``."""
    html_dir = Path(html_dir)
    found = []
    chapters = set(chapter_of().values())
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
