"""Instructor tooling of privpca_edu: the answer registry, term variants, nbgrader assignments
with hidden tests, and the mark schemes.

It lives outside the installed package, in a clone of the repository only: the wheel, the sdist
and the student edition leave this folder out.  Run its modules from the repository's root
(``python -m instructor.answers``), or through ``scripts/build_assignments.sh``.
"""
