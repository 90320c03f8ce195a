#!/usr/bin/env python3
"""Execute Jupyter notebooks with the GoNB kernel and check them.

Run it with the project's venv:  .venv/bin/python tools/nbrun.py [options] NOTEBOOK...
(`make test-notebooks` does, after scripts/setup.sh.)

Every notebook is executed top to bottom by nbclient in a fresh kernel (the `gonb` kernelspec that
scripts/setup.sh installed into .venv, which wins over any user-wide one), with the notebook's own
folder as the kernel's working directory (so GoNB's $GONB_DIR is that folder). All cells run even after
an error, then the outputs are judged:

A code cell's status is
    ok      no error output, no error reply, no stderr stream
    stderr  ran, but wrote to stderr (nbgrader gives such a test cell 0 points)
    error   an error output / error reply (compile error, panic, failed %test, timeout)

Cell roles (from cell metadata):
    graded    {"nbgrader": {"grade": true, "solution": false, "grade_id": "ex04-1", "points": 2}}
              or {"kgviz": {"graded": "ex04-1", "points": 2}}            -> a check; passes iff status == ok
    solution  {"nbgrader": {"solution": true}} or {"kgviz": {"solution": true}}
              -> where the learner writes code; in an untouched exercise it may fail
    expected-error   tag "raises-exception" or {"kgviz": {"expect": "error"}} -> may fail in any mode
    plain     everything else

--expect MODE (default auto):
    ok        every cell ok (stderr in non-graded cells is a warning unless --strict-stderr); all checks pass
    solution  same as ok (used for solutions/)
    exercise  untouched exercise: every graded check must FAIL, solution cells may fail, plain cells ok
    none      execute and report only; never fails (same as --allow-errors)
    auto      by the notebook's folder: solutions/ -> solution, notebooks/ and exercises/ -> exercise,
              anything else -> ok

Executed copies are written to build/executed/<path relative to the repo>, a JSON report to
build/executed/report.json (or --json PATH). The last line is "nbrun: N passed, N failed".
Exit status: 0 if every notebook met its expectation, 1 otherwise, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import html as htmllib
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_JUPYTER = ROOT / ".venv" / "share" / "jupyter"

# Make the kernel installed by scripts/setup.sh (.venv/share/jupyter/kernels/gonb) win over a user-wide
# or system-wide kernelspec of the same name. Must happen before jupyter_client is imported.
if VENV_JUPYTER.is_dir():
    _jp = os.environ.get("JUPYTER_PATH", "")
    if str(VENV_JUPYTER) not in _jp.split(os.pathsep):
        os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(VENV_JUPYTER), _jp) if p)

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellExecutionError, DeadKernelError  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
TAGS = re.compile(r"<[^>]+>")
MODES = ("auto", "ok", "solution", "exercise", "none")


def clean(text: str, limit: int = 4000) -> str:
    text = ANSI.sub("", text)
    if len(text) > limit:
        text = text[:limit] + f"\n... ({len(text) - limit} more characters)"
    return text


def cell_role(cell) -> tuple[str, str | None, float | None]:
    """Returns (role, check id, points) for a code cell."""
    md = cell.get("metadata", {})
    nbg = md.get("nbgrader") or {}
    kg = md.get("kgviz") or {}
    tags = md.get("tags") or []
    if kg.get("graded"):
        gid = kg["graded"] if isinstance(kg["graded"], str) else kg.get("id") or cell.get("id")
        return "graded", gid, float(kg.get("points", 1))
    if nbg.get("grade") and not nbg.get("solution"):
        return "graded", nbg.get("grade_id") or cell.get("id"), float(nbg.get("points", 0) or 0)
    if "raises-exception" in tags or kg.get("expect") == "error":
        return "expected-error", None, None
    if nbg.get("solution") or kg.get("solution"):
        return "solution", nbg.get("grade_id") or (kg["solution"] if isinstance(kg.get("solution"), str) else None), None
    return "plain", None, None


def mode_for(path: Path, requested: str) -> str:
    if requested != "auto":
        return requested
    parts = {p.lower() for p in path.resolve().parent.parts[-1:]}
    if "solutions" in parts:
        return "solution"
    if parts & {"notebooks", "exercises"}:
        return "exercise"
    return "ok"


def rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def html_error_text(markup: str) -> str:
    """Plain text of GoNB's HTML error report (compile errors, `go get` failures)."""
    text = re.sub(r"<style>.*?</style>", "", markup, flags=re.S)
    text = htmllib.unescape(TAGS.sub("", text))
    return "\n".join(ln.rstrip() for ln in text.splitlines() if ln.strip())


def analyse_cell(cell, reply_status: str | None) -> dict:
    errors, stderr, stdout_len, details = [], [], 0, []
    for out in cell.get("outputs", []):
        ot = out.get("output_type")
        markup = (out.get("data") or {}).get("text/html", "") if ot == "display_data" else ""
        if isinstance(markup, list):
            markup = "".join(markup)
        if markup and "gonb-err" in markup:
            details.append(html_error_text(markup))
        if ot == "error":
            errors.append(
                {
                    "ename": out.get("ename", ""),
                    "evalue": clean(out.get("evalue", ""), 2000),
                    "traceback": clean("\n".join(out.get("traceback", [])), 4000),
                }
            )
        elif ot == "stream" and out.get("name") == "stderr":
            stderr.append(out.get("text", ""))
        elif ot == "stream":
            stdout_len += len(out.get("text", ""))
    if details:
        for e in errors:
            e["details"] = clean("\n".join(details), 4000)
    if reply_status == "error" and not errors:
        errors.append({"ename": "error reply", "evalue": "kernel replied status=error", "traceback": ""})
    if reply_status is None and not errors and cell.get("execution_count") is None:
        status = "not-run"
    elif errors:
        status = "error"
    elif stderr:
        status = "stderr"
    else:
        status = "ok"
    return {
        "status": status,
        "errors": errors,
        "stderr": clean("".join(stderr)),
        "stdout_chars": stdout_len,
    }


def run_notebook(path: Path, args) -> dict:
    mode = mode_for(path, args.expect)
    nb = nbformat.read(path, as_version=4)
    kernel = args.kernel or nb.metadata.get("kernelspec", {}).get("name") or "gonb"
    cwd = Path(args.cwd).resolve() if args.cwd else path.resolve().parent

    timings: dict[int, float] = {}
    replies: dict[int, str] = {}
    starts: dict[int, float] = {}

    def on_execute(cell, cell_index, **_):
        starts[cell_index] = time.monotonic()

    def on_executed(cell, cell_index, execute_reply, **_):
        timings[cell_index] = time.monotonic() - starts.get(cell_index, time.monotonic())
        if execute_reply is not None:
            replies[cell_index] = execute_reply.get("content", {}).get("status")

    client = NotebookClient(
        nb,
        kernel_name=kernel,
        timeout=args.timeout,
        startup_timeout=args.startup_timeout,
        allow_errors=not args.stop_on_error,
        interrupt_on_timeout=True,
        error_on_timeout={
            "ename": "CellTimeoutError",
            "evalue": f"cell did not finish within {args.timeout}s (per-cell timeout)",
            "traceback": [],
        },
        record_timing=True,
        resources={"metadata": {"path": str(cwd)}},
        on_cell_execute=on_execute,
        on_cell_executed=on_executed,
    )
    r_path = rel(path)
    out_path = Path(args.out_dir) / (r_path if not os.path.isabs(r_path) else path.name)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    log_path = out_path.with_suffix(".kernel.log")
    t0 = time.monotonic()
    fatal = None
    try:
        # The kernel's own log (GoNB's klog lines) goes to a file, not to our output.
        with open(log_path, "wb") as log:
            client.execute(stdout=log, stderr=log)
    except CellExecutionError as e:  # only with --stop-on-error
        fatal = f"stopped at first error: {clean(str(e), 1500)}"
    except DeadKernelError as e:
        fatal = f"kernel died: {e}"
    except Exception as e:  # kernel would not start, timeout during startup, ...
        fatal = f"{type(e).__name__}: {clean(str(e), 1500)}"
    seconds = time.monotonic() - t0

    nbformat.write(nb, out_path)

    cells, problems, warnings = [], [], []
    checks = {"passed": [], "failed": []}
    for idx, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        role, gid, points = cell_role(cell)
        info = analyse_cell(cell, replies.get(idx))
        first_line = next((ln for ln in cell.source.splitlines() if ln.strip()), "")[:100]
        rec = {
            "index": idx,
            "id": cell.get("id"),
            "role": role,
            "check": gid,
            "points": points,
            "seconds": round(timings.get(idx, 0.0), 3),
            "first_line": first_line,
            **info,
        }
        cells.append(rec)
        st = info["status"]
        where = f"cell {idx}" + (f" [{gid}]" if gid else "") + f" ({role}): {first_line!r}"
        if role == "graded" and st != "not-run":
            checks["passed" if st == "ok" else "failed"].append(gid)
        if mode == "none" or st == "not-run":
            continue
        if role == "graded":
            if mode == "exercise" and st == "ok":
                problems.append(f"{where}: graded check PASSED in an untouched exercise (it must fail)")
            elif mode != "exercise" and st != "ok":
                problems.append(f"{where}: graded check failed ({st})")
        elif role == "expected-error":
            continue
        elif role == "solution" and mode == "exercise":
            continue
        elif st == "error":
            problems.append(f"{where}: error")
        elif st == "stderr":
            (problems if args.strict_stderr else warnings).append(f"{where}: wrote to stderr")
    not_run = [c["index"] for c in cells if c["status"] == "not-run"]
    if fatal:
        problems.insert(0, fatal)
    if not_run and mode != "none":
        problems.append(f"{len(not_run)} code cells never ran: {not_run[:10]}")
    if args.min_checks and len(checks["passed"]) + len(checks["failed"]) < args.min_checks:
        problems.append(f"only {len(checks['passed']) + len(checks['failed'])} graded checks, want >= {args.min_checks}")

    return {
        "notebook": rel(path),
        "executed": rel(out_path),
        "kernel_log": rel(log_path),
        "mode": mode,
        "kernel": kernel,
        "cwd": rel(cwd),
        "seconds": round(seconds, 2),
        "ok": not problems,
        "problems": problems,
        "warnings": warnings,
        "checks_passed": checks["passed"],
        "checks_failed": checks["failed"],
        "cells": cells,
    }


def print_result(r: dict, verbose: bool) -> None:
    verdict = "PASS" if r["ok"] else "FAIL"
    np_, nf = len(r["checks_passed"]), len(r["checks_failed"])
    errs = sum(1 for c in r["cells"] if c["status"] == "error")
    print(
        f"{verdict} {r['notebook']}  mode={r['mode']}  {r['seconds']:.1f}s  "
        f"cells={len(r['cells'])} errors={errs}  checks: {np_} passed, {nf} failed",
        flush=True,
    )
    slow = sorted(r["cells"], key=lambda c: -c["seconds"])[:3]
    if verbose:
        for c in r["cells"]:
            print(f"    cell {c['index']:>3} {c['status']:<7} {c['seconds']:7.2f}s  {c['role']:<14} {c['first_line']}")
    elif slow:
        print("    slowest cells: " + ", ".join(f"#{c['index']} {c['seconds']:.2f}s" for c in slow))
    for w in r["warnings"]:
        print(f"    warning: {w}")
    for p in r["problems"]:
        print(f"    PROBLEM: {p}")
    if r["problems"]:
        print(f"    executed copy: {r['executed']}  kernel log: {r['kernel_log']}")
    if r["problems"]:
        bad = {c["index"] for c in r["cells"] if c["status"] in ("error", "stderr")}
        for c in r["cells"]:
            if c["index"] in bad and any(f"cell {c['index']}" in p for p in r["problems"]):
                for e in c["errors"][:2]:
                    text = (e.get("details") or e["evalue"] or e["traceback"]).strip()
                    print("      " + f"{e['ename']}: {text}".replace("\n", "\n      ")[:1500])
                if c["stderr"].strip():
                    print("      stderr: " + c["stderr"].strip().replace("\n", "\n      ")[:1500])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog="See the module docstring for details.")
    p.add_argument("notebooks", nargs="+", type=Path)
    p.add_argument("--expect", choices=MODES, default="auto", help="what the notebooks must do (default: auto)")
    p.add_argument("--allow-errors", action="store_true", help="report only, never fail (= --expect none)")
    p.add_argument("--stop-on-error", action="store_true", help="stop a notebook at its first error")
    p.add_argument("--strict-stderr", action="store_true", help="stderr in any cell is a failure")
    p.add_argument("--timeout", type=int, default=int(os.environ.get("NBRUN_TIMEOUT", 300)), help="per-cell seconds (default 300)")
    p.add_argument("--startup-timeout", type=int, default=120, help="kernel start seconds (default 120)")
    p.add_argument("--kernel", help="kernelspec name (default: the notebook's, else gonb)")
    p.add_argument("--cwd", help="kernel working directory (default: the notebook's folder)")
    p.add_argument("--min-checks", type=int, default=0, help="fail a notebook with fewer graded checks")
    p.add_argument("--out-dir", default=str(ROOT / "build" / "executed"), help="where executed copies go")
    p.add_argument("--json", help="report path (default: OUT_DIR/report.json)")
    p.add_argument("-v", "--verbose", action="store_true", help="print every cell")
    args = p.parse_args(argv)
    if args.allow_errors:
        args.expect = "none"
    missing = [str(n) for n in args.notebooks if not n.is_file()]
    if missing:
        print(f"nbrun: no such notebook: {', '.join(missing)}", file=sys.stderr)
        return 2

    results = []
    t0 = time.monotonic()
    for path in args.notebooks:
        r = run_notebook(path, args)
        results.append(r)
        print_result(r, args.verbose)

    total = time.monotonic() - t0
    summary = {
        "notebooks": len(results),
        "passed": sum(r["ok"] for r in results),
        "failed": sum(not r["ok"] for r in results),
        "seconds": round(total, 2),
        "solution_checks_passed": sum(len(r["checks_passed"]) for r in results if r["mode"] in ("ok", "solution")),
        "solution_checks_failed": sum(len(r["checks_failed"]) for r in results if r["mode"] in ("ok", "solution")),
        "exercise_checks_failed": sum(len(r["checks_failed"]) for r in results if r["mode"] == "exercise"),
        "exercise_checks_passed": sum(len(r["checks_passed"]) for r in results if r["mode"] == "exercise"),
        "seconds_per_notebook": {r["notebook"]: r["seconds"] for r in results},
    }
    report = Path(args.json) if args.json else Path(args.out_dir) / "report.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps({"summary": summary, "results": results}, indent=1))

    print(
        f"nbrun: {summary['notebooks']} notebooks in {total:.1f}s; "
        f"solution checks passed {summary['solution_checks_passed']}"
        f"/{summary['solution_checks_passed'] + summary['solution_checks_failed']}; "
        f"untouched-exercise checks failed (as they must) {summary['exercise_checks_failed']}"
        f"/{summary['exercise_checks_failed'] + summary['exercise_checks_passed']}; report {rel(report)}"
    )
    print(f"nbrun: {summary['passed']} passed, {summary['failed']} failed")
    return 0 if summary["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
