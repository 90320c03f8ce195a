"""End to end: scripts/lab.sh starts JupyterLab from the venv, the GoNB kernel installed by setup.sh is the
one it offers, and a notebook run from the browser (headless Debian chromium) executes Go cells.
The server listens on 127.0.0.1 only; the browser reaches nothing else."""

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

import browser

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(
    not browser.chromium_available() or not (ROOT / ".venv/bin/jupyter").exists(),
    reason="needs scripts/setup.sh (venv) and /usr/bin/chromium",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    work = tmp_path_factory.mktemp("lab")
    (work / "notebooks").mkdir()
    shutil.copy(ROOT / "tools/testdata/solutions/double.ipynb", work / "notebooks" / "double.ipynb")
    port, token = free_port(), secrets.token_hex(16)
    env = dict(
        os.environ,
        LAB_PORT=str(port),
        LAB_ROOT=str(work),
        # keep the user's own Jupyter state (settings, runtime files, trusted notebooks) out of it
        JUPYTER_DATA_DIR=str(work / ".jupyter-data"),
        JUPYTER_CONFIG_DIR=str(work / ".jupyter-config"),
        JUPYTER_RUNTIME_DIR=str(work / ".jupyter-runtime"),
    )
    log = open(work / "lab.log", "wb")
    proc = subprocess.Popen(
        ["bash", str(ROOT / "scripts/lab.sh"), f"--IdentityProvider.token={token}",
         "--LabApp.expose_app_in_browser=True"],
        env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                get_json(f"{base}api/status?token={token}")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("JupyterLab did not start:\n" + (work / "lab.log").read_text()[-3000:])
                time.sleep(0.3)
        yield base, token, work
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


def test_lab_offers_the_venv_gonb_kernel(lab):
    base, token, _ = lab
    specs = get_json(f"{base}api/kernelspecs?token={token}")["kernelspecs"]
    assert "gonb" in specs, list(specs)
    spec = specs["gonb"]["spec"]
    assert spec["argv"][0] == str(ROOT / ".bin" / "gonb")
    assert f"-go_work={ROOT}" in spec["argv"]
    assert spec["env"]["PATH"].startswith(str(ROOT / ".bin") + ":")


def test_notebook_runs_in_the_browser(lab):
    base, token, _ = lab

    def run_all(page):
        # Wait for the kernel connection, then Run > Run All Cells. (Not for status 'idle': GoNB publishes
        # no unparented status at start and JupyterLab 4.6 ignores the status of kernel_info requests, so
        # the status bar says "Unknown" until the first cell runs.)
        page.wait_for_function(
            "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
            " const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;"
            " return k && k.connectionStatus === 'connected'; }",
            timeout=90_000,
        )
        page.evaluate("async () => { await window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.info; }")
        page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        page.wait_for_function(
            "() => document.body.innerText.includes('still running after the checks')", timeout=120_000
        )

    with browser.Browser(viewport=(1280, 900)) as b:
        r = b.open(
            f"{base}lab/tree/notebooks/double.ipynb?token={token}",
            wait_for=".jp-Notebook",
            action=run_all,
            wait_ms=500,
            screenshot="jupyterlab-gonb",
            keep_html=True,
            timeout_ms=120_000,
        )
    assert r.blocked == [], f"JupyterLab tried to reach the network: {r.blocked}"
    assert "--- PASS: TestDouble" in r.html
    assert r.errors == [], r.errors
