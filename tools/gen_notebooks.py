#!/usr/bin/env python3
"""Generate the kgviz notebooks from their sources.

    python3 tools/gen_notebooks.py           # write notebooks/, solutions/ and solutions/answers_gen_test.go
    python3 tools/gen_notebooks.py --check   # exit 1 if any generated file is out of date (CI)

Sources: course/NN-name.txt, one per notebook. A source is a list of cells, each starting with a
marker line:

    === markdown                 a Markdown cell
    === code                     a plain code cell
    === answer ex04-1            an answer cell: the stub the learner replaces (notebooks/)
    === solution                 the same answer cell as the teacher writes it (solutions/); follows its answer
    === check ex04-1 [points=N]  a graded check cell (locked)
    === answer ex00-1 practice   a practice exercise (not graded): its answer and check cells are plain code
    === check ex00-1 practice    cells marked {"kgviz": {"practice": "ex00-1"}}, with no nbgrader metadata
    === explain ex04-3 [points=N] a manually graded answer (a Markdown cell the student writes in; nbgrader
                                 "manually graded answer"; its rubric is in docs/instructor-guide.md)
    === model                    the teacher's model answer of the explain cell before it (solutions/)

From each source the script writes
    notebooks/NN-name.ipynb      the exercise version: answer cells hold the stubs
    solutions/NN-name.ipynb      the teacher's copy: answer cells hold the solutions; nothing else differs
and, for the Go tests, solutions/answers_gen_test.go with every stub and solution as Go functions (renamed
stubNN_name / solNN_name), so that `go test ./solutions` checks the very code the notebooks contain against the
exercises' registry. It lives in solutions/ with the answers, so that a student image without solutions/ carries
no answer at all.

Cells carry nbgrader metadata (answer cells: solution, grade_id "exNN-K-answer"; check cells: grade,
grade_id "exNN-K", points), and notebooks are written without outputs (execution_count null).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "course"
OUT_EXERCISE = ROOT / "notebooks"
OUT_SOLUTION = ROOT / "solutions"
GO_TEST = ROOT / "solutions" / "answers_gen_test.go"

# There is no setup cell: the GoNB kernel that scripts/setup.sh installs (locally, in the Docker image and on
# Binder) runs with --go_work=<repo root>, so kgviz, charts and exercises import from a notebook in any folder
# (a student's copy in ~/mywork/ included). The first code cell of every notebook used to be
# `!*go mod edit -replace=...="${GONB_DIR}/.."`, which broke every later cell of a notebook moved elsewhere
# (issue 10); a source that still has `=== setup` is rejected with this message.
SETUP_REMOVED = (
    "'=== setup' is gone: delete that line. The kernel's --go_work makes kgviz importable from any folder, "
    "and a go mod edit cell broke every notebook moved out of notebooks/ (issue 10)"
)

MARKER = re.compile(r"^=== (markdown|setup|code|answer|solution|check|explain|model)\b(.*)$")
KERNELSPEC = {"name": "gonb", "display_name": "Go (gonb)", "language": "go"}


class SourceError(Exception):
    pass


def parse(path: Path) -> list[dict]:
    cells: list[dict] = []
    cur = None
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        m = MARKER.match(line)
        if m:
            kind, rest = m.group(1), m.group(2).split()
            cur = {"kind": kind, "args": rest, "lines": [], "line": lineno}
            if kind in ("solution", "model"):
                parent = "answer" if kind == "solution" else "explain"
                if not cells or cells[-1]["kind"] != parent or "solution" in cells[-1]:
                    raise SourceError(f"{path.name}:{lineno}: '=== {kind}' must follow an '=== {parent}' cell")
                cells[-1]["solution"] = cur
            else:
                cells.append(cur)
            continue
        if cur is None:
            if line.strip():
                raise SourceError(f"{path.name}:{lineno}: text before the first '=== ' marker")
            continue
        cur["lines"].append(line)
    for c in cells + [c["solution"] for c in cells if "solution" in c]:
        while c["lines"] and not c["lines"][-1].strip():
            c["lines"].pop()
        while c["lines"] and not c["lines"][0].strip():
            c["lines"].pop(0)
        c["text"] = "\n".join(c["lines"])
    for c in cells:
        if c["kind"] in ("answer", "check", "explain") and not c["args"]:
            raise SourceError(f"{path.name}:{c['line']}: '=== {c['kind']}' needs an exercise id, e.g. ex04-1")
        if c["kind"] == "answer" and "solution" not in c:
            raise SourceError(f"{path.name}:{c['line']}: answer {c['args'][0]} has no '=== solution'")
        if c["kind"] == "explain" and "solution" not in c:
            raise SourceError(f"{path.name}:{c['line']}: explain {c['args'][0]} has no '=== model' answer")
        if c["kind"] == "setup":
            raise SourceError(f"{path.name}:{c['line']}: {SETUP_REMOVED}")
    answers = {c["args"][0] for c in cells if c["kind"] == "answer"}
    checks = [c["args"][0] for c in cells if c["kind"] == "check"]
    for gid in checks:
        if gid not in answers:
            raise SourceError(f"{path.name}: check {gid} has no answer cell")
    for c in cells:
        if c["kind"] == "check" and practice(c) != any(practice(a) for a in cells if a["kind"] == "answer" and a["args"][0] == c["args"][0]):
            raise SourceError(f"{path.name}: {c['args'][0]}: its answer and check cells must both be practice, or neither")
    explains = [c["args"][0] for c in cells if c["kind"] == "explain"]
    if len(set(checks + explains)) != len(checks + explains):
        raise SourceError(f"{path.name}: an exercise id is used twice")
    return cells


def source_lines(text: str) -> list[str]:
    lines = text.split("\n")
    return [ln + "\n" for ln in lines[:-1]] + [lines[-1]] if text else []


def nbgrader_regions(text: str) -> str:
    """Marks the body of every top-level func with nbgrader's solution delimiters
    (`// BEGIN SOLUTION` ... `// END SOLUTION`), so that `nbgrader generate_assignment`
    can turn the teacher's copy into stubs with ClearSolutions.code_stub["go"]."""
    out, inside = [], False
    for line in text.split("\n"):
        if not inside and line.startswith("func ") and line.rstrip().endswith("{"):
            out += [line, "\t// BEGIN SOLUTION"]
            inside = True
            continue
        if inside and line == "}":
            out += ["\t// END SOLUTION", line]
            inside = False
            continue
        out.append(line)
    return "\n".join(out)


def practice(c: dict) -> bool:
    """A practice exercise's cell ("=== answer ex00-1 practice"): plain code, no nbgrader grade."""
    return "practice" in c["args"][1:]


def points_of(c: dict) -> int:
    points = 1
    for a in c["args"][1:]:
        if a.startswith("points="):
            points = int(a.split("=", 1)[1])
    return points


def number(stem: str) -> str:
    """The notebook's number: "04" of 04-commit-..., "12a" of 12a-fencing-..."""
    return stem.split("-", 1)[0]


def notebook(cells: list[dict], stem: str, solution: bool) -> dict:
    out = []
    for i, c in enumerate(cells):
        cid = f"{number(stem)}-{i:02d}"
        kind = c["kind"]
        if kind == "markdown":
            out.append({"cell_type": "markdown", "id": cid, "metadata": {}, "source": source_lines(c["text"])})
            continue
        if kind == "explain":
            text = c["solution"]["text"] if solution else c["text"]
            meta = {"nbgrader": {"grade": True, "grade_id": c["args"][0], "locked": False, "points": points_of(c),
                                 "schema_version": 3, "solution": True, "task": False}}
            out.append({"cell_type": "markdown", "id": cid, "metadata": meta, "source": source_lines(text)})
            continue
        meta: dict = {}
        text = c["text"]
        if kind in ("answer", "check") and practice(c):
            meta = {"kgviz": {"practice": c["args"][0]}}
            if kind == "answer" and solution:
                text = c["solution"]["text"]
        elif kind == "answer":
            gid = c["args"][0]
            meta = {"nbgrader": {"grade": False, "grade_id": f"{gid}-answer", "locked": False,
                                 "schema_version": 3, "solution": True}}
            if solution:
                text = nbgrader_regions(c["solution"]["text"])
        elif kind == "check":
            gid = c["args"][0]
            points = points_of(c)
            meta = {"nbgrader": {"grade": True, "grade_id": gid, "locked": True, "points": points,
                                 "schema_version": 3, "solution": False}}
        out.append({"cell_type": "code", "execution_count": None, "id": cid, "metadata": meta,
                    "outputs": [], "source": source_lines(text)})
    return {
        "cells": out,
        "metadata": {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "go"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


FUNC = re.compile(r"^func\s+([A-Za-z_]\w*)\s*[\[(]", re.M)
IMPORTS = {"fmt": "fmt", "sort": "sort", "strings": "strings", "slices": "slices", "maps": "maps",
           "kgviz": "github.com/kgviz/kgviz/kgviz", "exercises": "github.com/kgviz/kgviz/exercises",
           "strconv": "strconv"}


def go_answers(sources: list[tuple[str, list[dict]]]) -> str:
    """Every answer cell's stub and solution as Go, renamed per notebook so that they can live side by side."""
    body = []
    used = set()
    for stem, cells in sources:
        nn = number(stem)
        answers = [c for c in cells if c["kind"] == "answer"]
        if not answers:
            continue
        names = set()
        for c in answers:
            names |= set(FUNC.findall(c["text"])) | set(FUNC.findall(c["solution"]["text"]))
        for c in answers:
            gid = c["args"][0]
            for prefix, text in ((f"stub{nn}_", c["text"]), (f"sol{nn}_", c["solution"]["text"])):
                for n in sorted(names, key=len, reverse=True):
                    text = re.sub(rf"(?<![\w.]){re.escape(n)}\b", prefix + n, text)
                kind = "stub" if prefix.startswith("stub") else "solution"
                body.append(f"// {gid} {kind} (course/{stem}.txt)\n{text}\n")
                for pkg in IMPORTS:
                    if re.search(rf"\b{pkg}\.", text):
                        used.add(pkg)
    std = [f'\t"{IMPORTS[p]}"' for p in sorted(used) if "." not in IMPORTS[p]]
    mod = [f'\t"{IMPORTS[p]}"' for p in sorted(used) if "." in IMPORTS[p]]
    imports = "\n".join(std + ([""] if std and mod else []) + mod)
    return (
        "// Code generated by tools/gen_notebooks.py from course/*.txt; DO NOT EDIT.\n\n"
        "package solutions_test\n\n"
        f"import (\n{imports}\n)\n\n" + "\n".join(body)
    )


def gofmt(text: str) -> str:
    """Format Go source with gofmt when it is available (it is wherever Go is)."""
    import shutil
    import subprocess
    if not shutil.which("gofmt"):
        return text
    r = subprocess.run(["gofmt"], input=text, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"gen_notebooks: gofmt failed on the generated Go:\n{r.stderr}", file=sys.stderr)
        return text
    return r.stdout


def dump(nb: dict) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="only check that the generated files are up to date")
    args = p.parse_args(argv)
    sources = []
    try:
        for path in sorted(SRC.glob("*.txt")):
            sources.append((path.stem, parse(path)))
    except SourceError as e:
        print(f"gen_notebooks: {e}", file=sys.stderr)
        return 2
    if not sources:
        print(f"gen_notebooks: no sources in {SRC}", file=sys.stderr)
        return 2
    files: dict[Path, str] = {}
    for stem, cells in sources:
        files[OUT_EXERCISE / f"{stem}.ipynb"] = dump(notebook(cells, stem, solution=False))
        files[OUT_SOLUTION / f"{stem}.ipynb"] = dump(notebook(cells, stem, solution=True))
    files[GO_TEST] = gofmt(go_answers(sources))
    stale = [f for f, text in files.items() if not f.exists() or f.read_text() != text]
    if args.check:
        for f in stale:
            print(f"gen_notebooks: {f.relative_to(ROOT)} is out of date; run python3 tools/gen_notebooks.py", file=sys.stderr)
        return 1 if stale else 0
    for f in stale:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(files[f])
    print(f"gen_notebooks: {len(sources)} notebooks, {len(stale)} file(s) written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
