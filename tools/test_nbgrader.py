"""The course notebooks carry valid nbgrader metadata, so a course that already uses nbgrader can import them.

Checks (nbformat from the venv): every notebook in notebooks/ and solutions/ is valid nbformat 4 with the GoNB
kernelspec and no outputs; answer cells are nbgrader solution cells ("<id>-answer", unlocked, not graded); check
cells are autograder tests (grade, locked, points > 0, schema_version 3, unique grade_id, after their answer cell);
explain cells are manually graded answers (Markdown, grade and solution, points > 0); a practice exercise
(ex00-1) has plain code cells marked {"kgviz": {"practice": id}} and no nbgrader metadata at all;
notebooks/ and solutions/ have the same cells apart from answer cells; solution cells in solutions/ carry
`// BEGIN SOLUTION` / `// END SOLUTION` (for nbgrader's ClearSolutions with a Go code_stub); at least 24 graded
exercises in all and at least two per demo (01-12).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = sorted((ROOT / "notebooks").glob("*.ipynb"))
SOLUTIONS = ROOT / "solutions"


def nbg(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader") or {}


@pytest.mark.parametrize("path", EXERCISES + sorted(SOLUTIONS.glob("*.ipynb")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_metadata(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "gonb"
    ids, answers = set(), set()
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: committed with outputs"
            assert cell.execution_count is None
        md = nbg(cell)
        if not md:
            continue
        assert md["schema_version"] == 3
        gid = md["grade_id"]
        assert gid not in ids, f"{path.name}: grade_id {gid} twice"
        ids.add(gid)
        if md["solution"] and md["grade"]:
            # a manually graded answer (=== explain): a Markdown cell the student writes in, with points
            assert cell.cell_type == "markdown" and not md["locked"] and md["points"] > 0, gid
            assert re.fullmatch(r"ex\d\d[a-z]?-\d+", gid), gid
            continue
        if md["solution"]:
            assert cell.cell_type == "code" and not md["grade"] and not md["locked"], gid
            assert gid.endswith("-answer"), gid
            answers.add(gid[: -len("-answer")])
            marked = "// BEGIN SOLUTION" in cell.source and "// END SOLUTION" in cell.source
            assert marked == (path.parent == SOLUTIONS), f"{path.name} {gid}: solution delimiters only in solutions/"
        else:
            assert md["grade"] and md["locked"] and md["points"] > 0, gid
            assert cell.cell_type == "code", gid
            assert re.fullmatch(r"ex\d\d[a-z]?-\d+", gid), gid
            assert gid in answers, f"{path.name}: check {gid} comes before its answer cell {gid}-answer"


def test_solutions_match_exercises():
    for ex in EXERCISES:
        sol = SOLUTIONS / ex.name
        assert sol.is_file(), f"solutions/{ex.name} is missing"
        a, b = nbformat.read(ex, as_version=4), nbformat.read(sol, as_version=4)
        assert len(a.cells) == len(b.cells), ex.name
        for ca, cb in zip(a.cells, b.cells):
            assert nbg(ca) == nbg(cb), ex.name
            assert ca.get("metadata", {}).get("kgviz") == cb.get("metadata", {}).get("kgviz"), ex.name
            practice = (ca.get("metadata", {}).get("kgviz") or {}).get("practice")
            if not nbg(ca).get("solution") and not (practice and ca.cell_type == "code"):
                assert ca.source == cb.source, f"{ex.name}: only answer cells may differ"


def test_enough_exercises():
    per_demo = {}
    for ex in EXERCISES:
        nn = ex.name[:2]
        nb = nbformat.read(ex, as_version=4)
        per_demo[nn] = sum(1 for c in nb.cells if nbg(c).get("grade"))
    demos = {k: v for k, v in per_demo.items() if k != "00"}
    assert {f"{i:02d}" for i in range(1, 14)} <= set(demos), sorted(demos)  # 01-12 (12a, 12b), 13 (KIP-848), then 14
    assert all(v >= 2 for v in demos.values()), demos
    assert sum(demos.values()) >= 24, demos


def test_practice_is_not_graded():
    """ex00-1 is practice: no nbgrader metadata on its cells (nbgrader gives it no points), both cells marked."""
    for folder in (ROOT / "notebooks", SOLUTIONS):
        nb = nbformat.read(folder / "00-start-here.ipynb", as_version=4)
        practice = [c for c in nb.cells if (c.get("metadata", {}).get("kgviz") or {}).get("practice") == "ex00-1"]
        assert len(practice) == 2, f"{folder.name}: {len(practice)} practice cells"
        assert all(not nbg(c) for c in practice), "a practice cell carries nbgrader metadata"
        assert not any(nbg(c).get("grade") for c in nb.cells), "00 has a graded cell"
