"""Headless Debian Chromium for kgviz's browser tests, driven by Playwright-Python.

Playwright never downloads a browser here: we launch Debian's /usr/bin/chromium (`apt-get install chromium`,
done by scripts/setup.sh as root) through `executable_path`. Every launch gets a fresh profile, and the
network is closed except loopback: requests to anything but file:, data:, blob:, about: and
http(s)/ws(s) on 127.0.0.1 / localhost / [::1] are aborted (and recorded), and the host resolver maps
every other name to NOTFOUND, so nothing leaves the machine.

Typical use in a pytest file (tools/test_browser_*.py, or test_*.py under charts/; `make test-browser`
runs them with tools/ on PYTHONPATH):

    from browser import Browser, serve_dir

    def test_chart_draws(tmp_path):
        (tmp_path / "index.html").write_text(html)
        with Browser() as b:
            r = b.open(tmp_path / "index.html", wait_for="canvas, svg", screenshot="chart")
        assert r.errors == [], r.errors          # console errors, page exceptions, failed requests
        assert r.blocked == []                   # nothing tried to reach a CDN

    with serve_dir(some_dir) as base:            # http://127.0.0.1:PORT/
        with Browser() as b:
            r = b.open(base + "page.html")

Screenshots go to build/screenshots/<name>.png (r.screenshot is the path).

Command line:  .venv/bin/python tools/browser.py FILE_OR_URL [--screenshot NAME] [--wait-for CSS]
prints the result as JSON; exit status 1 if the page logged errors.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT_DIR = ROOT / "build" / "screenshots"
CHROMIUM = os.environ.get("KGVIZ_CHROMIUM", "/usr/bin/chromium")

# The flags that are known to work for Debian chromium as root on a closed network (see
# shared/notes/TOOLING.md). Use them as they are for `chromium --screenshot`/`--dump-dom` command lines.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
# Any name but localhost resolves to nothing: a page cannot reach a CDN even through a path Playwright's
# router does not see (service workers, WebSockets, prefetch).
HOST_RESOLVER_RULES = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1 , EXCLUDE [::1]"
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
LOCAL_SCHEMES = {"file", "data", "blob", "about", "chrome-error", "devtools"}


def chromium_available() -> bool:
    return os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)


def chromium_flags(user_data_dir: str | None = None) -> list[str]:
    """Flags for a plain command-line run, with a fresh --user-data-dir."""
    d = user_data_dir or tempfile.mkdtemp(prefix="kgviz-chromium-")
    return [*CHROMIUM_FLAGS, HOST_RESOLVER_RULES, f"--user-data-dir={d}"]


def is_allowed_url(url: str, extra_hosts: set[str] = frozenset()) -> bool:
    parts = urlsplit(url)
    if parts.scheme in LOCAL_SCHEMES:
        return True
    if parts.scheme in ("http", "https", "ws", "wss"):
        host = (parts.hostname or "").lower()
        return host in LOOPBACK_HOSTS or host.startswith("127.") or host in extra_hosts
    return False


def to_url(target: str | os.PathLike) -> str:
    s = str(target)
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", s) and not os.path.exists(s):
        return s
    return Path(s).resolve().as_uri()


@dataclass
class PageResult:
    url: str
    title: str = ""
    console: list[dict] = field(default_factory=list)  # every console message: {type, text, location}
    errors: list[str] = field(default_factory=list)  # console errors, uncaught exceptions, failed requests
    blocked: list[str] = field(default_factory=list)  # URLs the network guard aborted
    screenshot: str | None = None
    html: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)


class Browser:
    """A Chromium process (launched on enter, closed on exit); each open() gets a fresh context."""

    def __init__(self, *, viewport=(1280, 800), extra_args: list[str] | None = None, allow_hosts=()):
        self.viewport = {"width": viewport[0], "height": viewport[1]}
        self.extra_args = list(extra_args or [])
        self.allow_hosts = {h.lower() for h in allow_hosts}
        self._pw = None
        self._browser = None
        self._profile = None

    def __enter__(self) -> "Browser":
        if not chromium_available():
            raise RuntimeError(
                f"{CHROMIUM} not found: run scripts/setup.sh as root, or `apt-get install chromium`"
            )
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self._profile = tempfile.mkdtemp(prefix="kgviz-chromium-")
        # Playwright adds its own --headless and a fresh profile dir; the rest are ours.
        args = [a for a in CHROMIUM_FLAGS if a != "--headless"] + [HOST_RESOLVER_RULES] + self.extra_args
        self._browser = self._pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=args, chromium_sandbox=False
        )
        return self

    def __exit__(self, *exc) -> None:
        with contextlib.suppress(Exception):
            self._browser.close()
        with contextlib.suppress(Exception):
            self._pw.stop()
        if self._profile:
            shutil.rmtree(self._profile, ignore_errors=True)

    @property
    def version(self) -> str:
        return self._browser.version

    def open(
        self,
        target: str | os.PathLike,
        *,
        wait_for: str | None = None,
        wait_for_function: str | None = None,
        wait_ms: int = 0,
        screenshot: str | None = None,
        full_page: bool = True,
        timeout_ms: int = 30_000,
        keep_html: bool = False,
        action=None,
    ) -> PageResult:
        """Opens a file path, file:// or http://127.0.0.1 URL; waits; collects errors; screenshots.

        wait_for: CSS selector that must become visible; wait_for_function: JS expression that must
        become truthy (e.g. "() => window.kgvizReady === true"); wait_ms: extra settle time;
        action(page): optional callback to click/type before the screenshot.
        """
        url = to_url(target)
        res = PageResult(url=url)
        ctx = self._browser.new_context(viewport=self.viewport, service_workers="block")
        try:
            ctx.set_default_timeout(timeout_ms)

            def guard(route):
                u = route.request.url
                if is_allowed_url(u, self.allow_hosts):
                    route.continue_()
                else:
                    res.blocked.append(u)
                    route.abort("blockedbyclient")

            ctx.route("**/*", guard)
            page = ctx.new_page()

            def on_console(msg):
                loc = msg.location or {}
                entry = {"type": msg.type, "text": msg.text, "location": f"{loc.get('url', '')}:{loc.get('lineNumber', '')}"}
                res.console.append(entry)
                if msg.type == "error":
                    res.errors.append(f"console.error: {msg.text} ({entry['location']})")

            page.on("console", on_console)
            page.on("pageerror", lambda exc: res.errors.append(f"uncaught: {exc}"))
            page.on(
                "requestfailed",
                lambda req: None
                if req.url in res.blocked
                else res.errors.append(f"request failed: {req.url} ({req.failure})"),
            )
            page.goto(url, wait_until="load", timeout=timeout_ms)
            if wait_for:
                page.wait_for_selector(wait_for, state="visible", timeout=timeout_ms)
            if wait_for_function:
                page.wait_for_function(wait_for_function, timeout=timeout_ms)
            if action:
                action(page)
            if wait_ms:
                page.wait_for_timeout(wait_ms)
            res.title = page.title()
            if keep_html:
                res.html = page.content()
            if screenshot:
                SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
                path = SCREENSHOT_DIR / (screenshot if screenshot.endswith(".png") else screenshot + ".png")
                page.screenshot(path=str(path), full_page=full_page)
                res.screenshot = str(path)
        finally:
            ctx.close()
        # A blocked request also shows up as a console error ("net::ERR_BLOCKED_BY_CLIENT"); keep it in
        # `blocked` only, so tests can assert on each separately.
        res.errors = [e for e in res.errors if "ERR_BLOCKED_BY_CLIENT" not in e]
        return res


def open_page(target, **kw) -> PageResult:
    """One-shot: launch, open one page, close."""
    with Browser() as b:
        return b.open(target, **kw)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output clean
        pass


@contextlib.contextmanager
def serve_dir(directory: str | os.PathLike, host: str = "127.0.0.1"):
    """Serves `directory` over HTTP on host:<free port> in a thread; yields the base URL ('.../')."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    httpd = http.server.ThreadingHTTPServer((host, 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    try:
        yield f"http://{host}:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(description="Open a page in headless Debian Chromium and report errors.")
    p.add_argument("target", help="file path, file:// or http://127.0.0.1 URL")
    p.add_argument("--screenshot", help="name for build/screenshots/NAME.png")
    p.add_argument("--wait-for", help="CSS selector to wait for")
    p.add_argument("--wait-ms", type=int, default=0)
    a = p.parse_args(argv)
    r = open_page(a.target, wait_for=a.wait_for, wait_ms=a.wait_ms, screenshot=a.screenshot)
    print(r.to_json())
    return 1 if r.errors else 0


if __name__ == "__main__":
    sys.exit(main())
