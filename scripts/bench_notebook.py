#!/usr/bin/env python3
"""Time a kgviz demo cell against a bare `%%` cell in one GoNB kernel.

Run with the project's venv (scripts/bench.sh does):  .venv/bin/python scripts/bench_notebook.py [--repeat N]

It writes a throwaway notebook under build/bench/ whose first cell is the local-module cell of
tools/testdata/smoke.ipynb, then a warm-up cell, then N bare `%%` cells and N demo cells (a
two-member world run until Stable, printing its Assignment), interleaved. tools/nbrun.py executes
it in one GoNB kernel (--cwd build, as make test-notebooks runs the smoke notebook), nbclient
records each cell's timing, and the script prints one JSON object:

    {"bare_ms": median, "demo_ms": median, "ratio": demo/bare, "n": N, "bare_all_ms": [...], "demo_all_ms": [...]}

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
BARE = "%%"


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
        for kind, src in (("bare", BARE), ("demo", DEMO)):
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
    executed = out_dir / path.relative_to(ROOT)
    if not executed.exists():
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        print(json.dumps({"error": "nbrun did not execute the notebook: " + " | ".join(tail)}))
        return 0
    ran = json.loads(executed.read_text())
    times = {"bare": [], "demo": []}
    errors = []
    for cell, kind in zip(ran["cells"][2:], kinds):
        ex = cell.get("metadata", {}).get("execution", {})
        start, end = ex.get("iopub.execute_input"), ex.get("shell.execute_reply")
        if not start or not end:
            errors.append("no timing recorded")
            continue
        if any(o.get("output_type") == "error" for o in cell.get("outputs", [])):
            errors.append(f"{kind} cell failed")
        times[kind].append((parse_time(end) - parse_time(start)).total_seconds() * 1000)
    if errors or len(times["bare"]) < 2 or len(times["demo"]) < 2:
        print(json.dumps({"error": "; ".join(sorted(set(errors))) or "too few timed cells"}))
        return 0
    bare = statistics.median(times["bare"][1:])
    demo = statistics.median(times["demo"][1:])
    print(json.dumps({"bare_ms": round(bare, 1), "demo_ms": round(demo, 1), "ratio": round(demo / bare, 3),
                      "n": args.repeat, "bare_all_ms": [round(x, 1) for x in times["bare"]],
                      "demo_all_ms": [round(x, 1) for x in times["demo"]]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
