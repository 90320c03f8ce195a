"""Colours at a glance, read from the live charts of the standalone report (`kgviz report`): no two legend entries
of a chart share a colour (the timeline's "group Reconciling" and "group Assigning" were one grey), and a world keeps
its colour whatever its place (the report of Demo 3 lists cooperative-sticky first and gave it notebook 00's range
blue). ECharts draws the charts; the colours are those it gives each legend entry's series.

Run: .venv/bin/python -m pytest charts/browsertest/test_palette.py -q
"""
import subprocess

import pytest

from conftest import OUT, ROOT
from test_charts import CHECK_JS, wait_drawn

# Notebook 00: charts.PauseMeter(charts.Named("range", w), charts.Named("cooperative-sticky", coop)): range is drawn
# in the first Okabe-Ito colour, cooperative-sticky in the second (charts/palette.go, world/...).
RANGE_BLUE, COOP_ORANGE = "#0072B2", "#E69F00"

# For every chart: its legend entries with the colour ECharts drew each one's series in.
LEGEND_JS = """() => Array.from(document.querySelectorAll('.kgviz [_echarts_instance_]')).map(box => {
  const inst = echarts.getInstanceByDom(box), model = inst.getModel(), opt = inst.getOption();
  const items = [];
  (opt.legend || []).forEach(l => (l.data || []).forEach(d => items.push(typeof d === 'string' ? {name: d} : d)));
  const entries = items.map(d => {
    const s = model.getSeriesByName(d.name)[0];
    if (!s) return {name: d.name, color: null};
    const st = s.getData().getVisual('style') || {};
    // An outlined swatch (white, a 2 px border: "seen twice by the reader") is told apart by its border.
    const outline = d.itemStyle && d.itemStyle.borderWidth >= 2 ? d.itemStyle.borderColor : null;
    const c = outline || st.fill || st.stroke;
    return {name: d.name, color: (c || '').toString().toUpperCase()};
  });
  return {id: box.closest('.kgviz').id, kind: Array.from(box.closest('.kgviz').classList).find(c => c.startsWith('kgviz-')), entries};
})"""


@pytest.fixture(scope="module")
def kgviz_bin():
    OUT.mkdir(parents=True, exist_ok=True)
    exe = OUT / "kgviz"
    proc = subprocess.run(["go", "build", "-o", str(exe), "./cmd/kgviz"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def report(kgviz_bin, demo):
    path = OUT / ("palette-report-%s.html" % demo)
    proc = subprocess.run([str(kgviz_bin), "report", "-demo", demo, "-o", str(path)], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("wrote %s (" % path), proc.stdout
    return path


def legends(opener, path):
    o = opener(path)
    ids = o.page.evaluate("Array.from(document.querySelectorAll('.kgviz:not(.kgviz-assignments)')).map(e => e.id)")
    wait_drawn(o.page, ids)
    for r in o.page.evaluate(CHECK_JS, ids):
        assert r["drawn"] and r["ink"] > 2000, r
    out = o.page.evaluate(LEGEND_JS)
    assert o.errors == [] and o.requests == [], (o.errors, o.requests)
    return out


@pytest.mark.parametrize("demo", [str(n) for n in range(1, 13)])
def test_report_legend_colours_distinct(opener, kgviz_bin, demo):
    charts = legends(opener, report(kgviz_bin, demo))
    assert len(charts) == 6, charts
    for chart in charts:
        entries = chart["entries"]
        assert entries, ("no legend", chart)
        assert all(e["color"] for e in entries), ("a legend entry without a series colour", chart)
        seen = {}
        for e in entries:
            assert e["color"] not in seen, "%s: legend entries %r and %r share %s" % (
                chart["id"], seen[e["color"]], e["name"], e["color"])
            seen[e["color"]] = e["name"]


def test_pause_meter_colours_match_notebook_00(opener, kgviz_bin):
    """Demo 2's report shows range first, Demo 3's cooperative-sticky first: both draw range blue and
    cooperative-sticky orange, as notebook 00 does."""
    for demo, mine, other in (("2", "range", "cooperative-sticky"), ("3", "cooperative", "range")):
        charts = legends(opener, report(kgviz_bin, demo))
        meter = next(c for c in charts if c["kind"] == "kgviz-pausemeter")
        colours = {e["name"].rsplit(" (", 1)[0]: e["color"] for e in meter["entries"]}
        want = {"range": RANGE_BLUE, "cooperative": COOP_ORANGE, "cooperative-sticky": COOP_ORANGE}
        assert colours == {mine: want[mine], other: want[other]}, (demo, colours)
