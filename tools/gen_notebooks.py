#!/usr/bin/env python3
"""Generate the kgviz notebooks from their sources.

    python3 tools/gen_notebooks.py           # write notebooks/, solutions/ and exercises/answers_gen_test.go
    python3 tools/gen_notebooks.py --check   # exit 1 if any generated file is out of date (CI)

Sources: notebooks/src/NN-name.txt, one per notebook. A source is a list of cells, each starting with a
marker line:

    === markdown                 a Markdown cell
    === setup [bare]             the standard first code cell (its body must be empty), after a one-line
                                 explanation unless "bare" (00-start-here explains it at length)
    === code                     a plain code cell
    === answer ex04-1            an answer cell: the stub the learner replaces (notebooks/)
    === solution                 the same answer cell as the teacher writes it (solutions/); follows its answer
    === check ex04-1 [points=N]  a graded check cell (locked)

From each source the script writes
    notebooks/NN-name.ipynb      the exercise version: answer cells hold the stubs
    solutions/NN-name.ipynb      the teacher's copy: answer cells hold the solutions; nothing else differs
and, for the Go tests, exercises/answers_gen_test.go with every stub and solution as Go functions (renamed
stubNN_name / solNN_name), so that `go test ./exercises` checks the very code the notebooks contain.

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
SRC = ROOT / "notebooks" / "src"
OUT_EXERCISE = ROOT / "notebooks"
OUT_SOLUTION = ROOT / "solutions"
GO_TEST = ROOT / "exercises" / "answers_gen_test.go"

# The first code cell of every notebook: it points GoNB's scratch module at this repository (the folder above
# the notebook) and reuses the repository's go.sum, so nothing is looked up on the network. Checked by
# tools/testdata/smoke.ipynb.
SETUP = (
    '!*go mod edit -require=github.com/kgviz/kgviz@v0.0.0-00010101000000-000000000000 '
    '-replace=github.com/kgviz/kgviz="${GONB_DIR}/.." && cp "${GONB_DIR}/../go.sum" .'
)

# The sentence put before the setup cell in every notebook but 00, which explains it at length.
SETUP_NOTE = (
    "The next cell is the only plumbing in this notebook: it points the Go kernel at the kgviz module in the "
    "folder above this notebook (your checkout, the Docker image or Binder alike) and reuses the project's "
    "`go.sum`, so nothing is downloaded. Run it first; `00-start-here` explains it."
)

MARKER = re.compile(r"^=== (markdown|setup|code|answer|solution|check)\b(.*)$")
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
            if kind == "solution":
                if not cells or cells[-1]["kind"] != "answer" or "solution" in cells[-1]:
                    raise SourceError(f"{path.name}:{lineno}: '=== solution' must follow an '=== answer' cell")
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
        if c["kind"] in ("answer", "check") and not c["args"]:
            raise SourceError(f"{path.name}:{c['line']}: '=== {c['kind']}' needs an exercise id, e.g. ex04-1")
        if c["kind"] == "answer" and "solution" not in c:
            raise SourceError(f"{path.name}:{c['line']}: answer {c['args'][0]} has no '=== solution'")
        if c["kind"] == "setup" and c["text"]:
            raise SourceError(f"{path.name}:{c['line']}: '=== setup' takes no body")
    answers = {c["args"][0] for c in cells if c["kind"] == "answer"}
    checks = [c["args"][0] for c in cells if c["kind"] == "check"]
    for gid in checks:
        if gid not in answers:
            raise SourceError(f"{path.name}: check {gid} has no answer cell")
    if len(set(checks)) != len(checks):
        raise SourceError(f"{path.name}: a check id is used twice")
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


def notebook(cells: list[dict], stem: str, solution: bool) -> dict:
    out = []
    for i, c in enumerate(cells):
        cid = f"{stem[:2]}-{i:02d}"
        kind = c["kind"]
        if kind == "markdown":
            out.append({"cell_type": "markdown", "id": cid, "metadata": {}, "source": source_lines(c["text"])})
            continue
        meta: dict = {}
        text = c["text"]
        if kind == "setup":
            text = SETUP
            if "bare" not in c["args"]:
                out.append({"cell_type": "markdown", "id": f"{cid}-note", "metadata": {}, "source": source_lines(SETUP_NOTE)})
        elif kind == "answer":
            gid = c["args"][0]
            meta = {"nbgrader": {"grade": False, "grade_id": f"{gid}-answer", "locked": False,
                                 "schema_version": 3, "solution": True}}
            if solution:
                text = nbgrader_regions(c["solution"]["text"])
        elif kind == "check":
            gid = c["args"][0]
            points = 1
            for a in c["args"][1:]:
                if a.startswith("points="):
                    points = int(a.split("=", 1)[1])
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
           "kgviz": "github.com/kgviz/kgviz/kgviz", "strconv": "strconv"}


def go_answers(sources: list[tuple[str, list[dict]]]) -> str:
    """Every answer cell's stub and solution as Go, renamed per notebook so that they can live side by side."""
    body = []
    used = set()
    for stem, cells in sources:
        nn = stem[:2]
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
                body.append(f"// {gid} {kind} (notebooks/src/{stem}.txt)\n{text}\n")
                for pkg in IMPORTS:
                    if re.search(rf"\b{pkg}\.", text):
                        used.add(pkg)
    std = [f'\t"{IMPORTS[p]}"' for p in sorted(used) if "." not in IMPORTS[p]]
    mod = [f'\t"{IMPORTS[p]}"' for p in sorted(used) if "." in IMPORTS[p]]
    imports = "\n".join(std + ([""] if std and mod else []) + mod)
    return (
        "// Code generated by tools/gen_notebooks.py from notebooks/src/*.txt; DO NOT EDIT.\n\n"
        "package exercises\n\n"
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
