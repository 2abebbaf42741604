"""Docstrings, comments and prose cite the papers, never the project's working notes or how it was made.

The package (``privpca_edu/``), the tests, the benchmarks, the notebooks and the book are scanned:
in Python files the strings and comments, in notebooks every cell's source, in the book's pages
(Markdown, YAML, HTML, JavaScript, CSS, BibTeX) the whole text.
"""

import io
import json
import pathlib
import re
import tokenize

import privpca_edu

PACKAGE = pathlib.Path(privpca_edu.__file__).parent
ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTES = re.compile(r"\bspec's\b|\bspec\b\s*(?:§|\(|[a-z_]+\.md)|\bspec\s|shared/spec|\.md\s*§|\bour copy|workplace|garbled|"
                   r"could not be recovered|November 2026", re.IGNORECASE)
#: The trees scanned besides the package (paths relative to the repository root).
TREES = ("tests", "benchmarks", "notebooks", "book")
TEXT_SUFFIXES = {".md", ".ipynb", ".yml", ".yaml", ".txt", ".html", ".js", ".css", ".tex", ".bib", ".rst"}
SKIP_PARTS = {"_build", "_vendor", "__pycache__", ".ipynb_checkpoints", "node_modules"}
#: Lint tests whose job is to list the forbidden words (relative to the repository root).
LINTS = {"tests/test_no_notes_references.py", "tests/book/test_book_text.py", "tests/bounds/test_bound_formulas.py",
         "tests/reproduce/test_reproduce.py", "tests/browser/test_static_book.py"}
# Modules other engineers are still editing; remove an entry once its file is clean.
PENDING = set()


def _text_tokens(path):
    yield from _text_tokens_of(path.read_text(encoding="utf-8"))


def _notebook_text(path):
    for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
        source = "".join(cell.get("source", ""))
        if cell.get("cell_type") == "code":
            try:  # strings and comments only: `spec` may be a variable's name in code
                yield from ((f"cell {index} line {line}", text) for line, text in _text_tokens_of(source))
                continue
            except (tokenize.TokenError, IndentationError, SyntaxError):  # IPython magics
                pass
        yield f"cell {index}", source


def _text_tokens_of(source):
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.STRING, tokenize.COMMENT) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            yield tok.start[0], tok.string


def _offenders(path, label):
    if path.suffix == ".py":
        chunks = _text_tokens(path)
    elif path.suffix == ".ipynb":
        chunks = _notebook_text(path)
    else:
        chunks = [(1, path.read_text(encoding="utf-8", errors="replace"))]
    for where, text in chunks:
        for m in NOTES.finditer(text):
            yield f"{label}:{where}: ...{text[max(0, m.start() - 30):m.end() + 30]!r}"


def test_no_working_notes_in_docstrings_or_comments():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel not in PENDING:
            offenders += _offenders(path, rel)
    assert not offenders, "\n".join(offenders)


def _tree_files():
    for tree in TREES:
        for path in sorted((ROOT / tree).rglob("*")):
            rel = path.relative_to(ROOT)
            if (path.is_file() and not SKIP_PARTS.intersection(rel.parts)
                    and (path.suffix == ".py" or path.suffix in TEXT_SUFFIXES)):
                yield path, rel.as_posix()


def test_no_working_notes_in_tests_benchmarks_notebooks_or_book():
    scanned, offenders = 0, []
    for path, rel in _tree_files():
        if rel in LINTS:
            continue
        scanned += 1
        offenders += _offenders(path, rel)
    assert scanned > 50, f"only {scanned} files scanned: wrong root {ROOT}?"
    assert not offenders, "\n".join(offenders)


def test_the_pattern_catches_what_it_should():
    for bad in ["(spec §5.3)", "spec dps_pca.md §2.2", "shared/spec/auditing.md", "g_dppca.md §10.1",
                "the spec's table", "unreadable in our copy", "Spec target 13", "# spec prototype"]:
        assert NOTES.search(bad), bad
    for fine in ["spectral norm", "unspecified constant", "special.log_ndtr", "format(value, spec)",
                 "only in your copy", "kernelspec"]:
        assert not NOTES.search(fine), fine


def test_the_tree_scan_sees_notebook_prose_and_skips_code_names(tmp_path):
    nb = {"cells": [{"cell_type": "markdown", "source": ["As the spec §2 says"]},
                    {"cell_type": "code", "source": ["spec = 1  # fine\n", "x = 'spec dps_pca.md'\n"]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    found = list(_offenders(path, "n.ipynb"))
    assert len(found) == 2 and "cell 0" in found[0] and "cell 1 line 2" in found[1], found
