"""Browser tests of the charts package: every view's standalone page, the
same with RequireJS loaded first, and pages that insert outputs the way
JupyterLab, classic Notebook/nbconvert and sanitizers do. Each page is opened
in headless Chromium with the network blocked; every live chart must have
drawn (a canvas with non-blank pixels, the static picture replaced), the
console must show no error and nothing may be fetched. Screenshots go to
build/screenshots/.

Run: .venv/bin/python -m pytest charts/browsertest -q
"""
import subprocess

import pytest

from conftest import OUT, ROOT, SHOTS

VIEWS = ["timeline", "sequence", "heatmap", "topiclog", "pausemeter", "outcomes", "assignments"]
PAGES = [v + ".html" for v in VIEWS] + [v + "-requirejs.html" for v in VIEWS] + [
    "notebook.html", "notebook-requirejs.html", "jupyterlab.html", "classic.html", "untrusted.html"]

# For every live chart: is it drawn, how many non-blank canvas pixels, is the
# static picture gone.
CHECK_JS = """ids => ids.map(id => {
  const el = document.getElementById(id);
  if (!el) return {id, found: false};
  const cv = Array.from(el.querySelectorAll('canvas'));
  let ink = 0;
  for (const c of cv) {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245)) ink++;
  }
  return {id, found: true, drawn: el.getAttribute('data-kgviz-drawn') === '1', canvases: cv.length, ink,
          img: el.querySelectorAll('img').length, echarts: !!window.echarts};
})"""

STATIC_JS = """ids => ids.map(id => {
  const el = document.getElementById(id);
  if (!el) return {id, found: false};
  const img = el.querySelector('img');
  return {id, found: true, table: el.querySelectorAll('table tr').length,
          img: !!img, decoded: !!img && img.complete && img.naturalWidth > 0};
})"""


def wait_drawn(page, ids, timeout=20000):
    if ids:
        page.wait_for_function(
            "ids => ids.every(id => { const el = document.getElementById(id); return el && el.getAttribute('data-kgviz-drawn') === '1' && el.querySelector('canvas'); })",
            arg=ids, timeout=timeout)
        page.wait_for_timeout(300)  # let ECharts finish its first frame


@pytest.mark.parametrize("name", PAGES)
def test_page(opener, manifest, name):
    entry = manifest[name]
    o = opener(OUT / name)
    page = o.page
    page.wait_for_load_state("load")
    page.wait_for_function("document.readyState === 'complete' && (!document.getElementById('nb') || document.body.getAttribute('data-done') === '1')")
    wait_drawn(page, entry["live"])
    page.screenshot(path=str(SHOTS / name.replace(".html", ".png")), full_page=True)
    for r in page.evaluate(CHECK_JS, entry["live"]):
        assert r["found"], r
        assert r["drawn"] and r["canvases"] >= 1, r
        assert r["ink"] > 2000, ("chart looks blank", r)
        assert r["img"] == 0, ("static picture not replaced", r)
    static = page.evaluate(STATIC_JS, entry["static"])
    pictures = set(entry.get("pictures", []))
    for r in static:
        assert r["found"], r
        if r["id"] in pictures:
            assert r["img"] and r["decoded"], ("static SVG picture missing or broken", r)
        elif r["table"] == 0:
            assert r["img"] and r["decoded"], r
    if name == "untrusted.html":
        assert not page.evaluate("!!window.echarts")
    assert o.errors == [], o.errors
    assert o.requests == [], ("network requests", o.requests)
    assert o.dialogs == [], ("injected script ran", o.dialogs)


def test_hostile_names_are_text(opener, manifest):
    """Member names with markup appear as text in the DOM, not as elements."""
    o = opener(OUT / "notebook.html")
    page = o.page
    wait_drawn(page, manifest["notebook.html"]["live"])
    # No element was injected, and the names are visible as text in the table.
    assert page.evaluate("document.querySelectorAll('#h-assignments script, #h-assignments b').length") == 0
    text = page.evaluate("document.getElementById('h-assignments').textContent")
    assert "<script>alert(1)</script>" in text
    assert o.dialogs == [] and o.errors == []


def test_report_command(opener):
    """The report command writes an offline page whose charts all draw."""
    demos = subprocess.run(["go", "run", "./cmd/kgviz", "report", "-list"], cwd=ROOT, capture_output=True, text=True)
    assert demos.returncode == 0, demos.stdout + demos.stderr
    names = demos.stdout.split()
    assert names, "no demos"
    for demo in names[:3]:
        path = OUT / ("report-%s.html" % demo)
        proc = subprocess.run(["go", "run", "./cmd/kgviz", "report", "-demo", demo, "-o", str(path)],
                              cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        html = path.read_text()
        assert html.count('data-kgviz-library="echarts') == 1
        o = opener(path)
        ids = o.page.evaluate("Array.from(document.querySelectorAll('.kgviz:not(.kgviz-assignments)')).map(e => e.id)")
        assert len(ids) == 6, ids
        wait_drawn(o.page, ids)
        o.page.screenshot(path=str(SHOTS / ("report-%s.png" % demo)), full_page=True)
        for r in o.page.evaluate(CHECK_JS, ids):
            assert r["drawn"] and r["ink"] > 2000 and r["img"] == 0, r
        assert o.errors == [] and o.requests == [], (o.errors, o.requests)
