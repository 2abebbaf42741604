#!/usr/bin/env python3
"""Set the chapters' slide metadata from their headings (idempotent; see
privpca_edu/_coursekit/slides.py).  Run after merging notebook edits:

    .venv/bin/python scripts/slide_metadata.py          # rewrite notebooks/*.ipynb in place
    .venv/bin/python scripts/slide_metadata.py --check  # exit 1 if out of date
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privpca_edu._coursekit.slides import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
