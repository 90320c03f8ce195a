"""After `make test-notebooks` executed the course (build/executed/): every demo notebook shows its charts, and
nothing above an exercise gives its answer away.

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


# --- Nothing above an exercise gives its answer away (issue 15) ---------------------------------------------
#
# Every exercise declares its giveaways (exercises.Exercise.Giveaways: the expected values in the form a cell would
# print them). In the executed student copy of each notebook (notebooks/), no cell above the exercise's answer
# cell may show one: neither in its outputs nor in its text.

STUDENT = sorted((ROOT / "notebooks").glob("[01][0-9]*-*.ipynb"))


@pytest.fixture(scope="module")
def giveaways() -> dict:
    import subprocess

    out = subprocess.run(["go", "run", "./exercises/giveaways"], cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def cell_texts(cell: dict):
    """The cell's own text and every text its outputs show."""
    src = cell.get("source", "")
    yield "".join(src) if isinstance(src, list) else src
    for out in cell.get("outputs", []):
        if "text" in out:
            t = out["text"]
            yield "".join(t) if isinstance(t, list) else t
        for mime, data in (out.get("data") or {}).items():
            if mime.startswith("text/") or mime == "image/svg+xml":
                yield "".join(data) if isinstance(data, list) else data


def answer_cells(nb: dict):
    """(index, exercise id) of every answer cell, by its nbgrader grade id exNN-K-answer."""
    for i, cell in enumerate(nb["cells"]):
        gid = ((cell.get("metadata") or {}).get("nbgrader") or {}).get("grade_id", "")
        if gid.endswith("-answer"):
            yield i, gid[: -len("-answer")]


def find_giveaways(nb: dict, table: dict) -> list[str]:
    found = []
    for i, ex in answer_cells(nb):
        for needle in table.get(ex) or []:
            for j, cell in enumerate(nb["cells"][:i]):
                if any(needle in t for t in cell_texts(cell)):
                    found.append(f"{ex}: {needle!r} appears in cell {j} above its answer cell {i}")
                    break
    return found


def test_giveaway_search_finds_what_it_must():
    """The search itself: a planted answer above an exercise is found, below it or in another exercise it is not."""
    md = lambda text: {"cell_type": "markdown", "source": text, "metadata": {}}
    code = lambda out, gid="": {"cell_type": "code", "source": "", "outputs": [{"output_type": "stream", "name": "stdout", "text": out}],
                                "metadata": {"nbgrader": {"grade_id": gid}} if gid else {}}
    nb = {"cells": [md("intro"), code("duplicates: [p2.3 p2.4]\n"), code("", "ex04-1-answer"), code("[p2.9]")]}
    assert find_giveaways(nb, {"ex04-1": ["[p2.3 p2.4]"]}), "an answer printed above the exercise must be found"
    assert not find_giveaways(nb, {"ex04-1": ["[p2.9]"]}), "an answer printed below the exercise is fine"
    assert not find_giveaways(nb, {"ex05-1": ["[p2.3 p2.4]"]}), "another notebook's exercise is not this one's"


@pytest.mark.parametrize("src", STUDENT, ids=lambda p: p.name)
def test_nothing_above_an_exercise_gives_it_away(src: Path, giveaways: dict):
    executed = EXECUTED / "notebooks" / src.name
    if not executed.is_file():
        pytest.fail(f"{executed} is missing: run tools/nbrun.py on {src} first (make test-notebooks does)")
    nb = json.loads(executed.read_text())
    found = find_giveaways(nb, giveaways)
    assert not found, "\n".join(found)


def test_giveaways_are_what_the_notebooks_print(giveaways: dict):
    """A giveaway that no cell ever prints is searched for in vain: at least one of each exercise's giveaways must
    appear in its executed student notebook (below its answer cell, since nothing above may show it)."""
    missing = []
    for ex, needles in sorted(giveaways.items()):
        if not needles:
            continue
        number = ex[2:].split("-")[0]  # "01", "12a"
        paths = sorted((EXECUTED / "notebooks").glob(f"{number}-*.ipynb"))
        if not paths:
            missing.append(f"{ex}: no executed notebook {number}-*.ipynb")
            continue
        nb = json.loads(paths[0].read_text())
        texts = [t for cell in nb["cells"] for t in cell_texts(cell)]
        if not any(n in t for n in needles for t in texts):
            missing.append(f"{ex}: none of {needles} appears in {paths[0].name}")
    assert not missing, "\n".join(missing)


# --- Nor anywhere in the student's notebook (issue 24) -----------------------------------------------------
#
# Some answers were given away below their exercise (ex09-2's configuration in the Java box under it) or as the
# rule the answer transcribes (ex02-1: range's arithmetic in the Idea cell). The student copies (notebooks/, as
# generated, no solutions in them) must not hold these anywhere.

NOWHERE = {
    "02-": ["partitions % members", "partitions / members", "partitions%members", "partitions/members"],
    "09-": ["TRANSACTIONAL_ID_CONFIG", "ISOLATION_LEVEL_CONFIG", "kgo.TransactionalID", "FetchIsolationLevel"],
}


def test_nowhere_search_finds_what_it_must():
    nb = {"cells": [{"cell_type": "markdown", "source": "props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id)", "metadata": {}}]}
    assert any("TRANSACTIONAL_ID_CONFIG" in t for c in nb["cells"] for t in cell_texts(c))


@pytest.mark.parametrize("prefix", sorted(NOWHERE))
def test_no_answer_anywhere_in_the_student_notebook(prefix: str):
    paths = sorted((ROOT / "notebooks").glob(f"{prefix}*.ipynb"))
    assert paths, f"no notebooks/{prefix}*.ipynb"
    nb = json.loads(paths[0].read_text())
    found = [f"{paths[0].name}: {n!r} in cell {i}" for n in NOWHERE[prefix]
             for i, c in enumerate(nb["cells"]) if any(n in t for t in cell_texts(c))]
    assert not found, "\n".join(found)
