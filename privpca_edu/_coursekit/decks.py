"""Lecture slide decks from ``slides/weekN.md``: reveal.js at 1280×720, offline.

    python -m privpca_edu._coursekit.decks [--student] [--out DIR] [--week N ...]
    (scripts/build_slides.sh)

One deck per lecture of the five-week plan on the instructors page (two chapters each).  The
decks are written in Markdown by hand, as slides (the chapters are pages to read, not slides);
``slides/README.md`` documents the small syntax:

* a line ``---`` separates two slides; the first slide is the title slide (``# Title``);
* ``Note:`` on a line of its own starts the speaker notes (to the end of the slide); every slide
  has them, with a ``Time:`` line (minutes) and an ``Ask:`` line (the question for the room);
* a slide whose heading starts with ``Your turn`` is an exercise; ``Solution:`` on a line of its
  own starts its solution, which goes to the instructor-only appendix at the end of the deck;
* ``![caption](fig:3.1)`` is Figure 3.1 of the book, taken from its executed chapter (the image
  output of the cell just before the figure's caption; a dashboard gives its static figure);
* a line ``|||`` splits a slide's body into two columns;
* ``$...$`` and ``$$...$$`` are maths (typeset by MathJax 3, the book's vendored copy).

``--student`` leaves out the speaker notes and the appendix of solutions, and checks that no
solution marker or exercise answer (:mod:`.student`) is in what it wrote.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .answers import ROOT

SLIDES_SRC = ROOT / "slides"
OUT = ROOT / "_build" / "slides"
EXECUTED = ROOT / "_build" / "jupyter_execute" / "notebooks"
CACHE = ROOT / "_build" / "slides_executed"
WIDTH, HEIGHT = 1280, 720
# the lectures of the five-week plan (book/instructors.md): week -> its chapters
WEEK_CHAPTERS = {1: (1, 2), 2: (3, 4), 3: (5, 6), 4: (7, 8), 5: (9, 10)}

SEPARATOR = re.compile(r"^---[ \t]*$", re.M)
NOTE = re.compile(r"^Note:[ \t]*$", re.M)
SOLUTION = re.compile(r"^Solution:[ \t]*$", re.M)
COLUMNS = re.compile(r"^\|\|\|[ \t]*$", re.M)
FIGURE = re.compile(r"!\[([^\]]*)\]\(fig:(\d+)\.(\d+)\)")
HEADING = re.compile(r"^(#{1,2}) +(.+)$", re.M)
TIME = re.compile(r"^Time:\s*(\d+(?:\.\d+)?)\s*min", re.M)
ASK = re.compile(r"^Ask:.*\?", re.M)


class DeckError(ValueError):
    """A slide source that breaks the syntax or the rules above (named file and slide)."""


# --------------------------------------------------------------------------- parsing
def parse(text, name="deck"):
    """The slides of one source: [{'kind', 'title', 'body', 'notes', 'solution'}]."""
    slides = []
    for i, raw in enumerate(SEPARATOR.split(text)):
        if not raw.strip():
            continue
        body, notes = raw, ""
        m = NOTE.search(body)
        if m:
            body, notes = body[:m.start()], body[m.end():].strip()
        solution = ""
        m = SOLUTION.search(body)
        head = HEADING.search(body)
        title = head.group(2).strip() if head else ""
        kind = "title" if not slides else ("section" if head and head.group(1) == "#" else "content")
        if title.lower().startswith("your turn"):
            kind = "exercise"
        if m:
            if kind != "exercise":
                raise DeckError(f"{name}, slide {len(slides) + 1} ({title!r}): 'Solution:' outside a 'Your turn' slide")
            body, solution = body[:m.start()], body[m.end():].strip()
        if kind == "exercise" and not solution:
            raise DeckError(f"{name}, slide {len(slides) + 1} ({title!r}): a 'Your turn' slide needs a 'Solution:'")
        if not notes:
            raise DeckError(f"{name}, slide {len(slides) + 1} ({title!r}): no speaker notes ('Note:')")
        if not TIME.search(notes) or not ASK.search(notes):
            raise DeckError(f"{name}, slide {len(slides) + 1} ({title!r}): the notes need a 'Time: N min' "
                            "line and an 'Ask: ...?' line")
        slides.append({"kind": kind, "title": title, "body": body.strip(), "notes": notes,
                       "solution": solution})
    if not slides:
        raise DeckError(f"{name}: no slides")
    return slides


def sources():
    return sorted(SLIDES_SRC.glob("week*.md"))


# --------------------------------------------------------------------------- figures
def executed_notebook(chapter):
    """The executed notebook of chapter ``chapter`` (int): the last book build's when newer than
    the source, else one executed here (cached in _build/slides_executed/)."""
    src = next((ROOT / "notebooks").glob(f"{chapter:02d}_*.ipynb"), None)
    if src is None:
        raise DeckError(f"no chapter {chapter} in notebooks/")
    for folder in (EXECUTED, CACHE):
        done = folder / src.name
        if done.exists() and done.stat().st_mtime >= src.stat().st_mtime:
            return done
    CACHE.mkdir(parents=True, exist_ok=True)
    print(f"[slides] executing {src.name} for its figures (no newer book build)")
    subprocess.run([str(Path(sys.executable).parent / "jupyter"), "nbconvert", "--to", "notebook",
                    "--execute", "--ExecutePreprocessor.timeout=900", "--output-dir", str(CACHE),
                    "--log-level=WARN", str(src)], check=True, cwd=src.parent)
    return CACHE / src.name


def figure_png(chapter, number):
    """PNG bytes of Figure ``chapter.number``: the first image output of the code cell before
    the markdown cell that holds its caption ``**Figure c.n.**``."""
    import base64

    nb = json.loads(executed_notebook(chapter).read_text(encoding="utf-8"))
    mark = f"**Figure {chapter}.{number}.**"
    cells = nb["cells"]
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "markdown" and mark in "".join(cell["source"]):
            for prev in reversed(cells[:i]):
                if prev["cell_type"] != "code":
                    continue
                for out in prev.get("outputs", []):
                    png = out.get("data", {}).get("image/png")
                    if png:
                        return base64.b64decode("".join(png) if isinstance(png, list) else png)
                break
            raise DeckError(f"Figure {chapter}.{number}: no image output in the cell before its caption")
    raise DeckError(f"Figure {chapter}.{number}: no caption '{mark}' in chapter {chapter}")


# --------------------------------------------------------------------------- rendering
def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name

    def code(src, lang, attrs):
        try:
            lexer = get_lexer_by_name(lang or "text")
        except Exception:  # noqa: BLE001 - an unknown language is shown as plain text
            lexer = get_lexer_by_name("text")
        return highlight(src, lexer, HtmlFormatter(nowrap=True))

    def maths(content, options):
        tex = html.escape(content)
        return f"\\[{tex}\\]" if options.get("display_mode") else f"\\({tex}\\)"

    md = MarkdownIt("commonmark", {"html": True, "highlight": code}).enable("table")
    md.use(dollarmath_plugin, double_inline=True, renderer=maths)
    return md


def _figures(body, figures):
    def swap(m):
        chapter, number = int(m.group(2)), int(m.group(3))
        name = f"fig-{chapter}.{number}.png"
        figures[name] = (chapter, number)
        caption = m.group(1).strip()
        alt = html.escape(f"Figure {chapter}.{number}. {caption}", quote=True)
        return (f'<figure class="fig"><img src="figures/{name}" alt="{alt}">'
                f'<figcaption>Figure {chapter}.{number}. {html.escape(caption)}</figcaption></figure>')
    return FIGURE.sub(swap, body)


def render_body(md, body, figures):
    body = _figures(body, figures)
    parts = COLUMNS.split(body)
    if len(parts) == 1:
        return md.render(body)
    head = HEADING.match(parts[0].lstrip())
    first = parts[0]
    title_html = ""
    if head:
        first = parts[0].lstrip()[head.end():]
        title_html = md.render(head.group(0))
    cols = "".join(f'<div class="col">{md.render(p)}</div>' for p in [first] + parts[1:])
    return f'{title_html}<div class="cols">{cols}</div>'


def render_deck(slides, *, student, md, figures, name):
    out = []
    exercises = []
    for i, s in enumerate(slides):
        classes = {"title": "title-slide", "section": "section-slide", "content": "",
                   "exercise": "your-turn"}[s["kind"]]
        if FIGURE.search(s["body"]) and not HEADING.sub("", FIGURE.sub("", s["body"])).strip():
            classes += " figure-only"
        body = render_body(md, s["body"], figures)
        if s["kind"] == "exercise":
            exercises.append((i, s))
            if not student:
                body += f'<p class="see-appendix">Solution: appendix, slide A{len(exercises)}</p>'
        notes = "" if student else f'<aside class="notes">{md.render(s["notes"])}</aside>'
        out.append(f'<section id="s{i + 1}" class="{classes}" data-kind="{s["kind"]}">{body}{notes}</section>')
    if not student and exercises:
        out.append('<section class="section-slide appendix" data-kind="appendix"><h1>Appendix: solutions</h1>'
                   '<p>For the instructor only: <code>build_slides.sh --student</code> leaves it out.</p></section>')
        for n, (i, s) in enumerate(exercises, 1):
            body = render_body(md, f"## A{n}. {s['title']}\n\n{s['solution']}", figures)
            out.append(f'<section id="a{n}" class="appendix solution" data-kind="solution">{body}'
                       f'<p class="see-appendix"><a href="#/{i}">back to the exercise</a></p></section>')
    return "\n".join(out)


PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="_vendor/reveal.js/dist/reveal.css">
<link rel="stylesheet" href="_vendor/reveal.js/dist/theme/white.css">
<link rel="stylesheet" href="_vendor/deck.css">
<script>
window.MathJax = {{ tex: {{ inlineMath: [['\\\\(', '\\\\)']], displayMath: [['\\\\[', '\\\\]']] }},
                   chtml: {{ scale: 1 }} }};
</script>
<script defer src="_vendor/mathjax/es5/tex-mml-chtml.js"></script>
</head>
<body>
<div class="reveal"><div class="slides">
{slides}
</div></div>
<script src="_vendor/reveal.js/dist/reveal.js"></script>
{notes_js}
<script>
Reveal.initialize({{ width: {width}, height: {height}, margin: 0, minScale: 0.2, maxScale: 2,
  center: false, hash: true, slideNumber: 'c/t', controls: false, progress: true, transition: 'none',
  plugins: [{plugins}] }});
</script>
</body>
</html>
"""

CSS = """
.reveal { font-size: 30px; }
.reveal .slides > section { box-sizing: border-box; width: 1280px; height: 720px; padding: 34px 64px 40px !important;
  text-align: left; }
.reveal h1 { font-size: 2.0em; text-transform: none; }
.reveal h2 { font-size: 1.45em; text-transform: none; margin: 0 0 0.45em; color: #1a3a6b; }
.reveal p, .reveal li { line-height: 1.35; }
.reveal ul, .reveal ol { display: block; margin-left: 1.1em; }
.reveal li { margin: 0.25em 0; }
.reveal .title-slide { display: flex !important; flex-direction: column; justify-content: center; }
.reveal .title-slide h1 { font-size: 1.9em; margin-bottom: 0.4em; }
.reveal .title-slide p { color: #444; }
.reveal .section-slide { display: flex !important; flex-direction: column; justify-content: center;
  background: #eef3fa; }
.reveal .your-turn h2 { color: #8a3b00; }
.reveal .your-turn h2::before { content: "\\270E\\00a0"; }
.reveal .your-turn { border-left: 14px solid #e69f00; }
.reveal .solution h2 { color: #305c20; }
.reveal .see-appendix { font-size: 0.6em; color: #666; position: absolute; bottom: 14px; right: 64px; margin: 0; }
.reveal pre { width: 100%; box-shadow: none; font-size: 0.62em; margin: 0.4em 0; }
.reveal pre code { white-space: pre-wrap; overflow-wrap: anywhere; max-height: none; overflow: visible;
  padding: 10px 14px; background: #f5f6f8; border-radius: 6px; line-height: 1.35; }
.reveal code { font-size: 0.9em; }
.reveal figure.fig { margin: 0.2em 0 0; text-align: center; }
.reveal figure.fig img { display: block; margin: 0 auto; max-width: 100%; max-height: 470px;
  width: auto; height: auto; object-fit: contain; }
.reveal figure.fig figcaption { font-size: 0.55em; color: #555; margin-top: 0.2em; }
.reveal .figure-only figure.fig img { max-height: 548px; }
.reveal .cols { display: flex; gap: 40px; align-items: flex-start; }
.reveal .cols > .col { flex: 1 1 0; min-width: 0; }
.reveal .cols figure.fig img { max-height: 540px; }
.reveal table { font-size: 0.75em; border-collapse: collapse; }
.reveal table th, .reveal table td { padding: 0.2em 0.6em; border-bottom: 1px solid #ccc; }
.reveal blockquote { width: auto; margin: 0.5em 0; padding: 0.4em 0.8em; font-style: normal;
  background: #f6f7fb; box-shadow: none; border-left: 6px solid #0072b2; }
.reveal mjx-container[display="true"] { margin: 0.4em 0 !important; }
.reveal .small { font-size: 0.75em; }
"""


def _vendor(out):
    """reveal.js (npm, fetched by scripts/fetch_vendor.sh slides) and the book's MathJax 3."""
    vendor = out / "_vendor"
    reveal = ROOT / "_vendor" / "slides" / "reveal.js"
    mathjax = ROOT / "book" / "_vendor" / "mathjax"
    for need in (reveal / "dist" / "reveal.js", mathjax / "es5" / "tex-mml-chtml.js"):
        if not need.exists():
            raise DeckError(f"{need} is missing: run bash scripts/fetch_vendor.sh (and 'slides')")
    shutil.rmtree(vendor, ignore_errors=True)
    (vendor / "reveal.js").mkdir(parents=True)
    shutil.copytree(reveal / "dist", vendor / "reveal.js" / "dist")
    shutil.copy2(reveal / "LICENSE", vendor / "reveal.js" / "LICENSE")
    (vendor / "mathjax").mkdir()
    shutil.copytree(mathjax / "es5", vendor / "mathjax" / "es5")
    for extra in ("LICENSE",):
        if (mathjax / extra).exists():
            shutil.copy2(mathjax / extra, vendor / "mathjax" / extra)
    (vendor / "deck.css").write_text(CSS, encoding="utf-8")


def _notes_plugin(out):
    dist = out / "_vendor" / "reveal.js" / "dist"
    for rel in ("plugin/notes.js", "plugin/notes/notes.js"):
        if (dist / rel).exists():
            return rel
    raise DeckError("reveal.js has no notes plugin in dist/")


def build(*, student=False, out=None, weeks=None):
    """Write the decks; returns {deck name: (slides, speaker notes)}."""
    out = Path(out) if out else (OUT / "student" if student else OUT)
    out.mkdir(parents=True, exist_ok=True)
    _vendor(out)
    md = _markdown()
    notes_rel = _notes_plugin(out)
    counts = {}
    figures = {}
    for path in sources():
        week = int(re.search(r"\d+", path.stem).group(0))
        if weeks and week not in weeks:
            continue
        slides = parse(path.read_text(encoding="utf-8"), path.name)
        body = render_deck(slides, student=student, md=md, figures=figures, name=path.stem)
        title = re.sub(r"[*_`$]", "", slides[0]["title"])
        page = PAGE.format(title=html.escape(title), slides=body, width=WIDTH, height=HEIGHT,
                           notes_js="" if student else f'<script src="_vendor/reveal.js/dist/{notes_rel}"></script>',
                           plugins="" if student else "RevealNotes")
        (out / f"{path.stem}.html").write_text(page, encoding="utf-8")
        n_notes = 0 if student else len(slides)
        n_slides = len(slides) + (0 if student else
                                  (1 + sum(s["kind"] == "exercise" for s in slides)))
        counts[path.stem] = (n_slides, n_notes)
    (out / "figures").mkdir(exist_ok=True)
    for name, (chapter, number) in sorted(figures.items()):
        (out / "figures" / name).write_bytes(figure_png(chapter, number))
    if student:
        found = leaks(out)
        if found:
            raise DeckError("the student decks give solutions away: " + "; ".join(found[:5]))
    return counts


def leaks(folder):
    """What in the decks of ``folder`` is only for the instructor: notes, the appendix, a
    solution marker or an exercise answer (:func:`.student.find_answers`)."""
    from . import student as st

    found = []
    for path in sorted(Path(folder).glob("week*.html")):
        text = path.read_text(encoding="utf-8")
        if 'class="notes"' in text:
            found.append(f"{path.name}: speaker notes")
        if 'data-kind="solution"' in text or "Appendix: solutions" in text:
            found.append(f"{path.name}: the appendix of solutions")
        if st.SOLUTION_MARK.search(text):
            found.append(f"{path.name}: a solution block")
        week = int(re.search(r"\d+", path.stem).group(0))
        for chapter in WEEK_CHAPTERS.get(week, ()):
            nb = next((ROOT / "notebooks").glob(f"{chapter:02d}_*.ipynb")).name
            found += [f"{path.name}: answer of {ident} ({token})"
                      for ident, token, _ in st.find_answers(text, nb)]
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--student", action="store_true", help="no speaker notes, no solutions")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--week", type=int, action="append", help="only this week's deck (repeatable)")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    try:
        counts = build(student=args.student, out=args.out, weeks=args.week)
    except DeckError as exc:
        print(f"[slides] {exc}", file=sys.stderr)
        return 1
    out = args.out or (OUT / "student" if args.student else OUT)
    for name, (n, notes) in counts.items():
        print(f"[slides] {name}.html: {n} slides, {notes} with speaker notes")
    print(f"[slides] {len(counts)} deck(s) in {time.monotonic() - t0:.0f} s: {out}/")
    return 0 if counts else 1


if __name__ == "__main__":
    sys.exit(main())
