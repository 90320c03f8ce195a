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

VIEWS = ["timeline", "sequence", "heatmap", "topiclog", "pausemeter", "outcomes", "assignments", "sharepartition"]
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
            "ids => ids.every(id => { const el = document.getElementById(id); return el && el.getAttribute('data-kgviz-drawn') === '1' && el.querySelector('canvas, [_echarts_instance_] svg'); })",
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
    names = [line.split()[1] for line in demos.stdout.splitlines() if line.strip()]  # "2   range   Demo 2: ..."
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


# The worlds of charts/internal/worlds: one page each with every view.
WORLDS = ["commit-after", "commit-before", "cooperative", "empty", "fencing", "idempotent", "incomplete", "leaving",
          "lso", "range", "rebalance", "reprocessing", "share", "stopped", "switch", "transactions", "zombie"]
SVG_RENDERER = "window.kgvizRenderer = 'svg';"

# Every visible text of a chart drawn by ECharts' SVG renderer, with its box.
TEXTS_JS = """id => { const el = document.getElementById(id); const out = [];
  el.querySelectorAll('[_echarts_instance_] svg text').forEach(t => { const r = t.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && t.getAttribute('opacity') !== '0')
      out.push({t: t.textContent, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}); });
  return out; }"""


def overlaps(texts):
    bad = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if a["x0"] < b["x1"] - 1 and b["x0"] < a["x1"] - 1 and a["y0"] < b["y1"] - 1 and b["y0"] < a["y1"] - 1:
                bad.append((a["t"], b["t"]))
    return bad


def test_world_pages_listed(manifest):
    pages = sorted(p[len("world-"):-len(".html")] for p in manifest if p.startswith("world-"))
    assert pages == WORLDS, "keep WORLDS in step with charts/internal/worlds"


@pytest.mark.parametrize("name", ["world-%s.html" % w for w in WORLDS])
def test_world_page(opener, manifest, name):
    """Every view of every world draws, with no console error and nothing fetched."""
    entry = manifest[name]
    o = opener(OUT / name)
    wait_drawn(o.page, entry["live"])
    o.page.screenshot(path=str(SHOTS / name.replace(".html", ".png")), full_page=True)
    for r in o.page.evaluate(CHECK_JS, entry["live"]):
        assert r["drawn"] and r["ink"] > 2000 and r["img"] == 0, r
    assert o.errors == [] and o.requests == [] and o.dialogs == [], (o.errors, o.requests, o.dialogs)


@pytest.mark.parametrize("name,width", [(n, 1000) for n in ["sequence.html", "timeline.html", "topiclog.html"] +
                                        ["world-%s.html" % w for w in WORLDS]] +
                         [(n, 640) for n in ["world-fencing.html", "world-stopped.html", "world-incomplete.html", "world-commit-after.html"]])
def test_no_text_overlaps(opener, manifest, name, width):
    """Drawn by ECharts' own SVG renderer, no text of a live chart overlaps another: sequence labels (the
    AddPartitionsToTxn/AddOffsetsToTxn pair, FindCoordinator at tick 0), the ✕ of lost messages, mark labels,
    glyphs on lanes, topic log cells and their ✗, legends, banners, at a wide and a narrow output."""
    entry = manifest[name]
    o = opener(OUT / name, SVG_RENDERER, width)
    wait_drawn(o.page, entry["live"])
    counted = 0
    for cid in entry["live"]:
        texts = o.page.evaluate(TEXTS_JS, cid)
        counted += len(texts)
        assert overlaps(texts) == [], (cid, width, overlaps(texts)[:10])
    assert counted > 10 * len(entry["live"]), "too few texts: is the SVG renderer on?"
    assert o.errors == [], o.errors


def chart_texts(page, cid):
    return [t["t"] for t in page.evaluate(TEXTS_JS, cid)]


def test_rough_edges_in_live_charts(opener, manifest):
    """What the rough-edge worlds must show, read from the live charts (ECharts' SVG renderer)."""
    def open_world(w):
        o = opener(OUT / ("world-%s.html" % w), SVG_RENDERER)
        wait_drawn(o.page, manifest["world-%s.html" % w]["live"])
        return o.page

    page = open_world("stopped")
    for cid in manifest["world-stopped.html"]["live"]:
        assert any("The world stopped at tick" in t or "World stopped stopped at tick" in t for t in chart_texts(page, cid)), cid
    page = open_world("empty")
    for cid in manifest["world-empty.html"]["live"]:
        assert any("Nothing to show" in t or "nothing written yet" in t for t in chart_texts(page, cid)), cid
    page = open_world("switch")
    for view in ("timeline", "heatmap", "sequence"):
        texts = chart_texts(page, "w-switch-" + view)
        assert "assignor → cooperative-sticky" in texts and "isolation → read_committed" in texts, (view, texts)
    page = open_world("incomplete")
    texts = chart_texts(page, "w-incomplete-heatmap")
    assert "⚠ unassigned g1" in texts and "unassigned by the assignor" in texts, texts
    page = open_world("transactions")
    texts = chart_texts(page, "w-transactions-topiclog")
    assert "inv(p2.3)" in texts and not any("…" in t for t in texts), texts


def test_share_partition_chart(opener, manifest):
    """The share group's in-flight window (KIP-932) drawn live, screenshot in build/screenshots/share-partition.png:
    every record state in the legend, the holders and delivery counts on the acquired stretches (S2's crash, S4's
    redeliveries of the poison record j1.2), the glyphs of the lock timeout and the delivery limit; and the heatmap
    of the same world shows partitions held by several members."""
    o = opener(OUT / "world-share.html", SVG_RENDERER)
    wait_drawn(o.page, manifest["world-share.html"]["live"])
    o.page.locator("#w-share-sharepartition").screenshot(path=str(SHOTS / "share-partition.png"))
    o.page.locator("#w-share-heatmap").screenshot(path=str(SHOTS / "share-heatmap.png"))
    texts = chart_texts(o.page, "w-share-sharepartition")
    for want in ["AVAILABLE", "ACQUIRED", "ACKNOWLEDGED", "ARCHIVED", "S2 #1", "S4 #5", "◷", "⊘", "j1.2"]:
        assert want in texts, (want, texts)
    assert "several members (share group)" in chart_texts(o.page, "w-share-heatmap")
    assert o.errors == [] and o.requests == [], (o.errors, o.requests)


def test_sequence_opens_readable(opener, manifest):
    """A long live sequence diagram opens on its first ticks at the picture's scale (the whole run of 140+ ticks
    squeezed into 1100 px overlapped its arrows); its axis and slider span the whole run, so the rest is a drag away."""
    o = opener(OUT / "world-fencing.html")
    wait_drawn(o.page, manifest["world-fencing.html"]["live"])
    z = o.page.evaluate("""() => { const box = document.querySelector('#w-fencing-sequence [_echarts_instance_]');
      const inst = echarts.getInstanceByDom(box), opt = inst.getOption();
      const ax = inst.getModel().getComponent('yAxis', 0).axis;
      return {dz: opt.dataZoom.map(d => [d.startValue, d.endValue]), y: [opt.yAxis[0].min, opt.yAxis[0].max],
              extent: ax.scale.getExtent(), pxTick: Math.abs(ax.dataToCoord(1) - ax.dataToCoord(0)),
              sub: opt.title[0].subtext}; }""")
    assert z["y"][0] == 0 and z["y"][1] > 140, z
    start, end = z["dz"][0]
    assert start == 0 and 12 <= end < z["y"][1], z
    assert all(d == [start, end] for d in z["dz"]), z
    assert z["extent"] == [start, end], z
    assert abs(z["pxTick"] - 18) < 0.5, z
    assert ("opens on ticks 0–%d" % end) in z["sub"], z
    # The rest is reachable: the slider moved to the end shows the last ticks.
    last = o.page.evaluate("""() => { const box = document.querySelector('#w-fencing-sequence [_echarts_instance_]');
      const inst = echarts.getInstanceByDom(box); inst.dispatchAction({type: 'dataZoom', dataZoomIndex: 0, start: 60, end: 100});
      return inst.getModel().getComponent('yAxis', 0).axis.scale.getExtent(); }""")
    assert last[1] == z["y"][1], last


def test_tooltip_in_a_scaled_chart(opener, manifest):
    """In an output narrower than the chart, the live chart scales down like its picture and the mouse still
    finds the right cell."""
    o = opener(OUT / "heatmap.html", None, 640)
    wait_drawn(o.page, ["heatmap"])
    info = o.page.evaluate("""() => { const el = document.getElementById('heatmap'); const box = el.querySelector('[_echarts_instance_]');
      const p = echarts.getInstanceByDom(box).convertToPixel({gridIndex: 0}, ['10', 'o2']);
      const r = box.getBoundingClientRect(); return {p, left: r.left, top: r.top, s: r.width / 960, el: el.clientWidth,
      w: r.width}; }""")
    assert info["w"] <= info["el"] + 1 and info["s"] < 0.8, info
    x, y = info["left"] + info["p"][0] * info["s"], info["top"] + info["p"][1] * info["s"]
    o.page.mouse.move(x, y)
    o.page.mouse.move(x + 1, y)
    o.page.wait_for_timeout(500)
    tips = o.page.evaluate("() => Array.from(document.querySelectorAll('#heatmap div')).map(d => d.innerText).filter(t => t && t.indexOf('tick') >= 0)")
    assert any(t.startswith("o2 · tick 10") for t in tips), tips
    assert o.errors == [], o.errors
