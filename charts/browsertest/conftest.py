"""Shared fixtures for the charts browser tests (headless Chromium, offline)."""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "browsertest"
SHOTS = ROOT / "build" / "screenshots"


def chromium_path():
    for cand in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if cand and os.path.exists(cand):
            return cand
    return None


@pytest.fixture(scope="session")
def manifest():
    """Writes the test pages with the Go generator and returns its manifest."""
    OUT.mkdir(parents=True, exist_ok=True)
    SHOTS.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["go", "run", "./charts/browsertest/genpages", "-o", str(OUT)],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    entries = json.loads((OUT / "manifest.json").read_text())
    return {e["page"]: e for e in entries}


@pytest.fixture(scope="session")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright-Python is not installed")
    exe = chromium_path()
    if exe is None:
        pytest.skip("no chromium (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--no-first-run", "--disable-sync",
            # No network at all: every host name fails to resolve.
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ])
        yield b
        b.close()


class Opened:
    """A page opened with the network blocked, recording console errors,
    page errors, dialogs (alert from injected script) and network requests."""

    def __init__(self, browser, path, init_script=None, width=1000):
        self.ctx = browser.new_context(viewport={"width": width, "height": 800}, device_scale_factor=1)
        if init_script:
            self.ctx.add_init_script(init_script)
        self.page = self.ctx.new_page()
        self.errors, self.requests, self.dialogs = [], [], []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append("pageerror: %s" % e))

        def on_dialog(d):
            self.dialogs.append(d.message)
            d.dismiss()

        self.page.on("dialog", on_dialog)

        def route(r):
            if r.request.url.startswith("file:"):
                r.continue_()
            else:
                self.requests.append(r.request.url)
                r.abort()

        self.ctx.route("**/*", route)
        self.page.on("request", lambda r: None if r.url.startswith(("file:", "data:")) else self.requests.append(r.url))
        self.page.goto(path.as_uri())

    def close(self):
        self.ctx.close()


@pytest.fixture
def opener(browser):
    opened = []

    def _open(path, init_script=None, width=1000):
        o = Opened(browser, path, init_script, width)
        opened.append(o)
        return o

    yield _open
    for o in opened:
        o.close()
