"""Self-tests of tools/nbrun.py: real GoNB kernel runs of tools/testdata notebooks (pure Go, no kgviz)."""

import json
import shutil
from pathlib import Path

import nbformat
import pytest

import nbrun

TD = Path(__file__).resolve().parent / "testdata"
EXERCISE = TD / "exercises" / "double.ipynb"
SOLUTION = TD / "solutions" / "double.ipynb"

pytestmark = pytest.mark.skipif(
    not (nbrun.VENV_JUPYTER / "kernels" / "gonb" / "kernel.json").is_file(),
    reason="GoNB kernel not installed in .venv (run scripts/setup.sh)",
)


def run(tmp_path, *args):
    report = tmp_path / "report.json"
    rc = nbrun.main([*map(str, args), "--out-dir", str(tmp_path / "out"), "--json", str(report)])
    return rc, json.loads(report.read_text())


def test_auto_modes_exercise_and_solution(tmp_path):
    rc, rep = run(tmp_path, EXERCISE, SOLUTION)
    assert rc == 0, rep
    ex, sol = rep["results"]
    assert (ex["mode"], sol["mode"]) == ("exercise", "solution")
    # untouched exercise: both graded checks (a panicking %% cell and a failing %test) fail, as they must
    assert sorted(ex["checks_failed"]) == ["double-1", "double-2"] and ex["checks_passed"] == []
    assert sorted(sol["checks_passed"]) == ["double-1", "double-2"] and sol["checks_failed"] == []
    roles = {c["check"] or c["role"]: c["role"] for c in ex["cells"]}
    assert roles["double-impl"] == "solution" and roles["double-1"] == roles["double-2"] == "graded"
    # the plain cell after the failing checks still ran
    assert ex["cells"][-1]["status"] == "ok" and ex["cells"][-1]["seconds"] > 0
    assert rep["summary"]["solution_checks_passed"] == 2 and rep["summary"]["exercise_checks_failed"] == 2
    # executed copies and the kernel log are written
    assert (tmp_path / "out" / "tools/testdata/exercises/double.ipynb").is_file()
    assert Path(nbrun.ROOT / ex["kernel_log"]).is_file() or (tmp_path / "out" / "tools/testdata/exercises/double.kernel.log").is_file()
    # the panic's text is kept for the report
    failing = next(c for c in ex["cells"] if c["check"] == "double-1")
    assert failing["status"] == "error" and "not implemented" in failing["stderr"]


def test_wrong_expectations_fail(tmp_path):
    rc, rep = run(tmp_path, "--expect", "solution", EXERCISE)
    assert rc == 1 and any("graded check failed" in p for p in rep["results"][0]["problems"])
    rc, rep = run(tmp_path, "--expect", "exercise", SOLUTION)
    assert rc == 1 and any("PASSED in an untouched exercise" in p for p in rep["results"][0]["problems"])
    rc, rep = run(tmp_path, "--allow-errors", EXERCISE)
    assert rc == 0 and rep["results"][0]["mode"] == "none"


def test_compile_error_in_plain_cell_is_reported(tmp_path):
    nb = nbformat.v4.new_notebook(metadata=nbformat.read(SOLUTION, 4).metadata)
    nb.cells = [
        nbformat.v4.new_code_cell('%%\nfmt.Println("before")'),
        nbformat.v4.new_code_cell("%%\nvar x int = \"not an int\"\nfmt.Println(x)"),
        nbformat.v4.new_code_cell('%%\nfmt.Fprintln(os.Stderr, "a warning")'),
    ]
    path = tmp_path / "broken.ipynb"
    nbformat.write(nb, path)
    rc, rep = run(tmp_path, "--expect", "ok", path)
    r = rep["results"][0]
    assert rc == 1 and [c["status"] for c in r["cells"]] == ["ok", "error", "stderr"]
    err = r["cells"][1]["errors"][0]
    assert "cannot use" in (err.get("details", "") + err["evalue"]), err  # the Go compiler's message
    assert any("wrote to stderr" in w for w in r["warnings"])  # stderr in a plain cell: warning only
    rc, rep = run(tmp_path, "--expect", "ok", "--strict-stderr", path)
    assert any("wrote to stderr" in p for p in rep["results"][0]["problems"])


def test_missing_notebook_is_usage_error(tmp_path):
    assert nbrun.main([str(tmp_path / "nope.ipynb")]) == 2
