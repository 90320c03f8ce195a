#!/usr/bin/env python3
"""Time a kgviz demo cell against a bare `%%` cell in one GoNB kernel.

Run with the project's venv (scripts/bench.sh does):  .venv/bin/python scripts/bench_notebook.py [--repeat N]

It writes a throwaway notebook under build/bench/ whose first cell is the first code cell of
tools/testdata/smoke.ipynb (it imports kgviz), then a warm-up cell, then N bare `%%` cells N demo cells (a
two-member world run until Stable, printing its Assignment), interleaved with `%%`-only cells. tools/nbrun.py executes
it in one GoNB kernel (--cwd build, as make test-notebooks runs the smoke notebook) and times each
cell (its JSON report's "seconds"); the script prints one JSON object:

    {"empty_ms": m, "bare_ms": m, "demo_ms": m, "ratio": demo/bare, "n": N, "..._all_ms": [...]}

"empty" is a cell that is only `%%` (GoNB does not compile it), "bare" the smallest compiled cell
(`%%` and one Println), "demo" the demo cell; the ratio is demo over bare.

or {"error": "..."} when the venv, nbrun.py or the kernel is missing. The first cell of each kind
is left out of the medians (it compiles the imports).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "build" / "bench"
SMOKE = ROOT / "tools" / "testdata" / "smoke.ipynb"
NBRUN = ROOT / "tools" / "nbrun.py"

DEMO = """%%
w := kgviz.NewWorld().AddMember("C1").AddMember("C2").RunUntil(kgviz.Stable())
fmt.Println(w.Assignment())"""
# GoNB answers a cell that is only `%%` without compiling anything (about 15 ms), so the
# baseline is the smallest cell that is compiled and run: `%%` plus one print.
BARE = """%%
fmt.Println("ok")"""
EMPTY = "%%"
KINDS = (("empty", EMPTY), ("bare", BARE), ("demo", DEMO))


def code_cell(src: str, i: int) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": f"bench-{i}", "metadata": {}, "outputs": [], "source": src}


def parse_time(s: str) -> dt.datetime:
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=8, help="cells of each kind (default 8)")
    args = ap.parse_args()

    if not NBRUN.exists() or not SMOKE.exists():
        print(json.dumps({"error": "tools/nbrun.py or tools/testdata/smoke.ipynb missing"}))
        return 0
    smoke = json.loads(SMOKE.read_text())
    setup = next((c for c in smoke["cells"] if c["cell_type"] == "code"), None)
    if setup is None:
        print(json.dumps({"error": "no code cell in smoke.ipynb"}))
        return 0
    setup_src = "".join(setup["source"]) if isinstance(setup["source"], list) else setup["source"]

    cells = [code_cell(setup_src, 0), code_cell('import "github.com/kgviz/kgviz/kgviz"\n\n' + DEMO, 1)]
    kinds = []
    for i in range(args.repeat):
        for kind, src in KINDS:
            cells.append(code_cell(src, len(cells)))
            kinds.append(kind)
    nb = {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "Go (gonb)", "language": "go", "name": "gonb"},
                     "language_info": {"name": "go"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    BENCH.mkdir(parents=True, exist_ok=True)
    path = BENCH / "nb_bench.ipynb"
    path.write_text(json.dumps(nb, indent=1))
    out_dir = BENCH / "executed"
    proc = subprocess.run(
        [sys.executable, str(NBRUN), "--expect", "none", "--cwd", str(ROOT / "build"),
         "--out-dir", str(out_dir), "--json", str(BENCH / "nb_bench_report.json"), str(path)],
        cwd=ROOT, capture_output=True, text=True)
    report_path = BENCH / "nb_bench_report.json"
    if not report_path.exists():
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        print(json.dumps({"error": "nbrun did not execute the notebook: " + " | ".join(tail)}))
        return 0
    report = json.loads(report_path.read_text())
    nbs = report.get("results", [])
    cells_rep = nbs[0].get("cells", []) if nbs else []
    by_index = {c["index"]: c for c in cells_rep}
    times = {k: [] for k, _ in KINDS}
    errors = []
    for idx, kind in enumerate(kinds, start=2):
        c = by_index.get(idx)
        if c is None:
            errors.append(f"cell {idx} not in the report")
            continue
        if c.get("status") not in (None, "ok"):
            errors.append(f"{kind} cell {idx}: {c.get('status')}")
        times[kind].append(c["seconds"] * 1000)
    if errors or len(times["bare"]) < 2 or len(times["demo"]) < 2:
        print(json.dumps({"error": "; ".join(sorted(set(errors))) or "too few timed cells"}))
        return 0
    med = {k: statistics.median(v[1:]) for k, v in times.items()}
    out = {f"{k}_ms": round(v, 1) for k, v in med.items()}
    out["ratio"] = round(med["demo"] / med["bare"], 3)
    out["n"] = args.repeat
    out.update({f"{k}_all_ms": [round(x, 1) for x in v] for k, v in times.items()})
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
