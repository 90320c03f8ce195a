"""After `make test-notebooks` executed the course (build/executed/), every demo notebook shows its charts.

For notebooks 01-12 in both notebooks/ and solutions/: the executed copy holds at least one chart output
(display data with kgviz chart markup), carries the ECharts library at most once, and no single chart output
is larger than 60 KB once the library is left out (the charts issue's size limit).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXECUTED = ROOT / "build" / "executed"
CHART = 'class="kgviz kgviz-'
LIBRARY = "data-kgviz-library"
LIMIT = 60 * 1024

COURSE = [p for folder in ("notebooks", "solutions") for p in sorted((ROOT / folder).glob("[01][0-9]-*.ipynb"))
          if p.name[:2] != "00"]


def html_outputs(nb: dict):
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            html = (out.get("data") or {}).get("text/html")
            if html:
                yield "".join(html) if isinstance(html, list) else html


@pytest.mark.parametrize("src", COURSE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_charts_in_executed_notebook(src: Path):
    executed = EXECUTED / src.parent.name / src.name
    if not executed.is_file():
        pytest.fail(f"{executed} is missing: run tools/nbrun.py on {src} first (make test-notebooks does)")
    nb = json.loads(executed.read_text())
    charts, libraries, biggest = 0, 0, 0
    for html in html_outputs(nb):
        n = html.count(CHART)
        if not n:
            continue
        charts += n
        size = len(html.encode())
        if LIBRARY in html:
            libraries += 1
            start = html.index("<script " + LIBRARY) if ("<script " + LIBRARY) in html else html.index(LIBRARY)
            end = html.index("</script>", start) + len("</script>")
            size -= end - start
        biggest = max(biggest, size // n if n > 1 else size)
    assert charts >= 1, f"{src.name}: no chart output after execution"
    assert libraries <= 1, f"{src.name}: the ECharts library is in {libraries} outputs"
    assert biggest <= LIMIT, f"{src.name}: a chart output of {biggest} bytes (limit {LIMIT})"
