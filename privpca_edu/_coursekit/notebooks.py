"""Reading, writing and stripping the book's notebooks (shared by the course-kit builders)."""

from __future__ import annotations

import json
import re
from pathlib import Path

# A collapsed solution: <details> whose <summary> starts with "Solution" or "Answer", up to its
# </details>, with the blank lines around it (also when indented inside a list item).
SOLUTION_BLOCK = re.compile(
    r"\n?[ \t]*<details>\s*<summary>\s*(?:Solution|Answer)\b.*?</details>[ \t]*\n?", re.S)
# A code cell that only checks a solution (e.g. Chapter 5's hidden "# Solution check" cell).
SOLUTION_CODE = re.compile(r"\A\s*#\s*Solution\b")


def read(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write(path, nb):
    """Write in the repository's own format (indent 1, UTF-8, final newline), so that
    rewriting an unchanged notebook is byte-identical."""
    Path(path).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def source(cell):
    src = cell.get("source", "")
    return src if isinstance(src, str) else "".join(src)


def set_source(cell, text):
    parts = text.split("\n")
    cell["source"] = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def is_solution_cell(cell):
    tags = cell.get("metadata", {}).get("tags", [])
    return "solution" in tags or (cell["cell_type"] == "code" and bool(SOLUTION_CODE.match(source(cell))))


def strip_markdown(text):
    """``text`` without its collapsed solutions."""
    out = SOLUTION_BLOCK.sub("\n", text)
    return re.sub(r"\n{3,}", "\n\n", out)


def strip_solutions(nb, *, keep_outputs=False):
    """A copy of notebook ``nb`` with no solution: collapsed solutions removed from markdown,
    solution(-check) cells dropped, outputs cleared (unless ``keep_outputs``: an executed
    notebook whose outputs are the chapter's figures).  Returns (notebook, n_removed)."""
    nb = json.loads(json.dumps(nb))
    removed = 0
    cells = []
    for cell in nb["cells"]:
        if is_solution_cell(cell):
            removed += 1
            continue
        if cell["cell_type"] == "markdown":
            text = source(cell)
            stripped = strip_markdown(text)
            if stripped != text:
                removed += len(SOLUTION_BLOCK.findall(text))
                if not stripped.strip():
                    continue
                set_source(cell, stripped)
        if cell["cell_type"] == "code" and not keep_outputs:
            cell["outputs"] = []
            cell["execution_count"] = None
        cells.append(cell)
    nb["cells"] = cells
    return nb, removed
