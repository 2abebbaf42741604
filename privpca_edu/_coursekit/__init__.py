"""Course kit (instructors only): the answer registry, the student edition, nbgrader assignments.

Not part of the installed wheel (see ``pyproject.toml``): it holds the exercises' solutions.
The scripts ``scripts/build_book.sh --student``, ``scripts/build_assignments.sh``,
``scripts/build_slides.sh`` and ``scripts/build_pdf.sh`` call into it from a clone of the
repository.
"""
