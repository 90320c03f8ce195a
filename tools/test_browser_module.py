"""Tests of tools/browser.py itself: Debian Chromium through Playwright, errors collected, network closed."""

import pytest

import browser
from browser import Browser, serve_dir

pytestmark = pytest.mark.skipif(not browser.chromium_available(), reason=f"{browser.CHROMIUM} not installed")


def test_file_page_errors_and_blocked_cdn(tmp_path):
    page = tmp_path / "p.html"
    page.write_text(
        "<html><head><title>p</title>"
        '<script src="https://cdn.jsdelivr.net/npm/echarts@6/dist/echarts.min.js"></script></head>'
        '<body><div id="x">hello</div><script>console.error("boom"); console.log("fine");'
        'setTimeout(() => { throw new Error("late") }, 5)</script></body></html>'
    )
    with Browser() as b:
        assert b.version.split(".")[0].isdigit()
        r = b.open(page, wait_for="#x", wait_ms=100, screenshot="test-browser-module")
    assert r.title == "p"
    assert r.blocked == ["https://cdn.jsdelivr.net/npm/echarts@6/dist/echarts.min.js"]
    assert any("boom" in e for e in r.errors), r.errors
    assert any("uncaught" in e and "late" in e for e in r.errors), r.errors
    assert not any("ERR_BLOCKED_BY_CLIENT" in e for e in r.errors), "blocked requests are reported in .blocked only"
    assert {"type": "log", "text": "fine"}.items() <= next(c for c in r.console if c["type"] == "log").items()
    with open(r.screenshot, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_loopback_http_allowed(tmp_path):
    (tmp_path / "app.js").write_text("window.kgvizReady = true; document.title = 'served';")
    (tmp_path / "index.html").write_text('<html><body><p>x</p><script src="app.js"></script></body></html>')
    with serve_dir(tmp_path) as base:
        assert base.startswith("http://127.0.0.1:")
        with Browser() as b:
            r = b.open(base + "index.html", wait_for_function="() => window.kgvizReady === true", keep_html=True)
    assert r.errors == [] and r.blocked == []
    assert r.title == "served" and "<p>x</p>" in r.html


def test_url_guard():
    ok = browser.is_allowed_url
    assert ok("file:///tmp/x.html") and ok("data:text/html,hi") and ok("about:blank")
    assert ok("http://127.0.0.1:8888/lab") and ok("ws://localhost:1/api") and ok("http://[::1]:80/")
    assert not ok("https://cdn.jsdelivr.net/x.js") and not ok("http://example.com/")
    assert not ok("http://10.0.0.1/") and not ok("https://192.168.1.1/")


def test_command_line_flags_have_fresh_profile():
    flags = browser.chromium_flags()
    for f in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"):
        assert f in flags
    assert any(f.startswith("--user-data-dir=") for f in flags)
    assert browser.chromium_flags() != flags  # a new profile every time
