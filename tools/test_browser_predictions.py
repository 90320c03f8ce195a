"""Predictions that are predictions, end to end in JupyterLab (exercises/firstanswer.go).

test_first_answer_is_kept: JupyterLab started by scripts/lab.sh WITHOUT --LabApp.expose_app_in_browser on the
command line (the venv's jupyter_server_config.json, written by scripts/setup.sh, is what exposes the app the
check's script needs), a copy of the students' notebook 02, headless Debian chromium. ex02-1 is answered wrongly
and checked (✘), then rightly and checked (✔): the first check says the answer is recorded, the second that it is
feedback only, and the notebook's metadata (kgviz.predictions.ex02-1) keeps the wrong first answer with two
attempts. The notebook is saved, the page reloaded on the same running kernel and checked a third time: still the
first answer. Then, when bubblewrap is there, `kgviz grade` on the saved file gives ex02-1 no point although the
answer cell holds the right answer. Screenshot: build/screenshots/e2e-lab-prediction.png.
"""

import csv
import json
import os
import secrets
import shutil
import subprocess
from pathlib import Path

import pytest

import browser
from test_browser_lab import KERNEL_CONNECTED_JS, running_lab

ROOT = Path(__file__).resolve().parent.parent
NB = "02-range-eager-stop-the-world.ipynb"
WRONG = 'func rangeOwner(partition, partitions, members int) string {\n\treturn "C1" // kgviz-e2e-first-guess\n}\n'

pytestmark = pytest.mark.skipif(
    not browser.chromium_available() or not (ROOT / ".venv/bin/jupyter").exists(),
    reason="needs scripts/setup.sh (venv) and /usr/bin/chromium",
)


def right_answer() -> str:
    nb = json.loads((ROOT / "solutions" / NB).read_text())
    for c in nb["cells"]:
        if (c.get("metadata", {}).get("nbgrader") or {}).get("grade_id") == "ex02-1-answer":
            return "".join(c["source"])
    raise AssertionError("no ex02-1 answer in solutions/" + NB)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    state = tmp_path_factory.mktemp("lab")
    # No --LabApp.expose_app_in_browser here: the venv's configuration must provide it.
    with running_lab(state, [ROOT / "notebooks" / NB], expose_app=False,
                     env_extra={"XDG_CACHE_HOME": str(state / "cache")}) as lab:  # the kernel's store of first answers (os.UserCacheDir)
        yield lab.base, lab.token, lab.work


# Runs the code cells from index `start` to `stop` (inclusive) one at a time, waiting for each.
RUN_JS = """async ([start, stop]) => {
  const app = window.jupyterapp, w = app.shell.currentWidget;
  for (let i = start; i <= stop; i++) {
    if (w.content.widgets[i].model.type !== 'code') continue;
    w.content.activeCellIndex = i;
    w.content.deselectAll();
    await app.commands.execute('notebook:run-cell');
  }
  return true;
}"""
INDEX_JS = """gid => window.jupyterapp.shell.currentWidget.content.widgets.findIndex(
  c => ((c.model.getMetadata('nbgrader') || {}).grade_id) === gid)"""
SET_SOURCE_JS = """([i, src]) => { window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel.setSource(src); }"""
OUTPUT_JS = """i => window.jupyterapp.shell.currentWidget.content.widgets[i].model.outputs.toJSON()
  .map(o => o.output_type === 'stream' ? [].concat(o.text).join('') : '').join('')"""
RECORD_JS = """() => { const m = window.jupyterapp.shell.currentWidget.content.model.getMetadata('kgviz');
  return m && m.predictions ? m.predictions['ex02-1'] : null; }"""


def test_first_answer_is_kept(lab, tmp_path):
    base, token, work = lab
    got: dict = {}

    def wait_record(page, n):
        page.wait_for_function(f"() => {{ const r = ({RECORD_JS})(); return r && r.attempts.length === {n}; }}",
                               timeout=30_000)
        return page.evaluate(RECORD_JS)

    def first_visit(page):
        page.wait_for_function(KERNEL_CONNECTED_JS, timeout=90_000)
        answer = page.evaluate(INDEX_JS, "ex02-1-answer")
        check = page.evaluate(INDEX_JS, "ex02-1")
        assert 0 < answer < check, (answer, check)
        page.evaluate(SET_SOURCE_JS, [answer, WRONG])
        page.evaluate(RUN_JS, [0, check])
        got["out1"] = page.evaluate(OUTPUT_JS, check)
        got["rec1"] = wait_record(page, 1)
        page.evaluate(SET_SOURCE_JS, [answer, right_answer()])
        page.evaluate(RUN_JS, [answer, check])
        got["out2"] = page.evaluate(OUTPUT_JS, check)
        got["rec2"] = wait_record(page, 2)
        page.evaluate("async () => { await window.jupyterapp.commands.execute('docmanager:save'); }")
        page.wait_for_timeout(500)

    def second_visit(page):  # the page reloaded, the same kernel still running
        page.wait_for_function(KERNEL_CONNECTED_JS, timeout=90_000)
        check = page.evaluate(INDEX_JS, "ex02-1")
        page.evaluate(RUN_JS, [check, check])
        got["out3"] = page.evaluate(OUTPUT_JS, check)
        got["rec3"] = wait_record(page, 3)
        page.evaluate("async () => { await window.jupyterapp.commands.execute('docmanager:save'); }")
        page.wait_for_timeout(500)

    url = f"{base}lab/workspaces/e2e-pred/tree/{NB}?token={token}"
    with browser.Browser(viewport=(1280, 1000)) as b:
        r = b.open(url, wait_for=".jp-Notebook", action=first_visit, timeout_ms=60_000)
        assert r.blocked == [], r.blocked
        r = b.open(url, wait_for=".jp-Notebook", action=second_visit, screenshot="e2e-lab-prediction",
                   full_page=False, timeout_ms=60_000)
        assert r.blocked == [], r.blocked

    assert "✘ ex02-1" in got["out1"] and "first answer to this prediction: it is recorded" in got["out1"], got["out1"]
    assert "✔ ex02-1 passed" in got["out2"] and "Feedback only" in got["out2"] and "✘ not passed" in got["out2"], got["out2"]
    assert "Feedback only" in got["out3"] and "try 3" in got["out3"], got["out3"]
    for key in ("rec1", "rec2", "rec3"):
        first = got[key]["attempts"][0]
        assert "kgviz-e2e-first-guess" in first["source"] and first["passed"] is False, (key, got[key])
    assert [a["passed"] for a in got["rec3"]["attempts"]] == [False, True, True], got["rec3"]

    saved = json.loads((work / NB).read_text())
    rec = saved["metadata"]["kgviz"]["predictions"]["ex02-1"]
    assert rec == got["rec3"], rec
    answer = [c for c in saved["cells"] if (c.get("metadata", {}).get("nbgrader") or {}).get("grade_id") == "ex02-1-answer"]
    assert "kgviz-e2e-first-guess" not in "".join(answer[0]["source"])  # the cell holds the right answer now

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed: kgviz grade cannot make its sandbox (checked in JupyterLab only)")
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copy(work / NB, subs / NB)
    out = tmp_path / "grades"
    p = subprocess.run(["go", "run", "./cmd/kgviz", "grade", "-course", "notebooks", "-out", str(out), str(subs)],
                       cwd=ROOT, env=dict(os.environ, KGVIZ_GRADE_KEY=secrets.token_hex(8)),
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    with open(out / "gradebook.csv", newline="") as f:
        rows = {r["exercise"]: r for r in csv.DictReader(f)}
    assert "ex02-1" in rows, rows
    row = rows["ex02-1"]
    assert row["points"] == "0" and row["max_points"] == "1", row
    assert "graded the first answer" in row["message"] and "2 later tries gave feedback only" in row["message"], row
