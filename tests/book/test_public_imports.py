"""The book's notebooks import public names only (no ``privpca_edu._x`` or ``privpca_edu.x._y`` module)."""

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
PRIVATE_MODULE = re.compile(r"\bprivpca_edu(\.\w+)*\._\w+|\bfrom privpca_edu(\.\w+)* import (\([^)]*)?\b_[a-z]\w*")


def test_notebooks_import_public_modules_only():
    offenders = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            for line in source.splitlines():
                if "import" in line and PRIVATE_MODULE.search(line):
                    offenders.append(f"{nb.name}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
