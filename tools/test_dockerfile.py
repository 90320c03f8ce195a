"""Static checks of the Dockerfile (no Docker engine on the dev/CI machines): the properties Binder
(repo2docker) needs, and that the image is set up by the same scripts/setup.sh as everything else.
Also: no absolute path of this work tree is baked into any project file (fresh clones live elsewhere)."""

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    out, buf = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # comment inside a continued instruction
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        word, _, rest = buf.partition(" ")
        out.append((word.upper(), rest.strip()))
        buf = ""
    assert not buf, "Dockerfile ends inside a continued line"
    return out


@pytest.fixture(scope="module")
def ins():
    return instructions(DOCKERFILE.read_text())


def args_defaults(ins):
    d = {}
    for k, v in ins:
        if k == "ARG" and "=" in v:
            name, _, val = v.partition("=")
            d[name] = val
    return d


def expand(s: str, env: dict) -> str:
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: env.get(m.group(1) or m.group(2), m.group(0)), s)


def test_known_instructions_only(ins):
    known = {"FROM", "ARG", "ENV", "RUN", "COPY", "ADD", "USER", "WORKDIR", "EXPOSE", "ENTRYPOINT", "CMD",
             "LABEL", "SHELL", "VOLUME", "HEALTHCHECK", "STOPSIGNAL", "ONBUILD"}
    assert {k for k, _ in ins} <= known


def test_base_image_is_tagged_not_latest(ins):
    froms = [v for k, v in ins if k == "FROM"]
    assert froms, "no FROM"
    image = froms[0].split()[0]
    assert "@sha256:" in image or re.search(r":[\w][\w.-]*$", image), f"untagged base image {image}"
    assert not image.endswith(":latest"), "Binder refuses :latest"


def test_user_jovyan_uid_1000(ins):
    a = args_defaults(ins)
    assert a.get("NB_USER") == "jovyan" and a.get("NB_UID") == "1000"
    runs = " ".join(v for k, v in ins if k == "RUN")
    assert re.search(r"(useradd|adduser)[^&;]*--uid \$\{NB_UID\}[^&;]*\$\{NB_USER\}", runs), "no user with NB_UID"
    users = [expand(v, a) for k, v in ins if k == "USER"]
    assert users and users[-1] == "jovyan", f"the last USER must be jovyan, not {users[-1:]}"


def test_repo_copied_and_owned_by_the_user(ins):
    a = args_defaults(ins)
    copies = [v for k, v in ins if k == "COPY" and [p for p in v.split() if not p.startswith("--")][0] == "."]
    assert copies, "the repo is not COPY'd"
    # COPY --chown (a `RUN chown -R` would copy the whole tree, venv included, into one more layer)
    assert all("--chown=${NB_UID}:${NB_UID}" in c for c in copies), copies
    users = [expand(v, a) for k, v in ins if k == "USER"]
    assert users[-1] == "jovyan"


def test_no_answers_in_the_image(ins):
    """issue 12 item 4, issue 23: the class's image is built from a release (`kgviz release`); built in the course
    repository, .dockerignore keeps the answers out (the full list is cmd/kgviz/release.go's teacherOnly, compared
    with .dockerignore and this guard by TestTeacherOnlyEverywhere), grading output included."""
    ignored = {l.strip() for l in (ROOT / ".dockerignore").read_text().splitlines() if l.strip() and not l.startswith("#")}
    assert {"solutions", "course", "docs/instructor-guide.md", "submissions", "grades"} <= ignored
    runs = " ".join(v for k, v in ins if k == "RUN")
    assert "${KGVIZ_REPO}/solutions" in runs and "exit 1" in runs, "the build must fail if answers got in"
    assert "${KGVIZ_REPO}/docs/instructor-guide.md" in runs, "the rubrics and expected outputs stay with the teachers"


def test_setup_script_is_the_setup_path(ins):
    runs = [v for k, v in ins if k == "RUN"]
    assert any("scripts/setup.sh" in r and "KGVIZ_PROFILE=image" in r for r in runs), "Dockerfile must run scripts/setup.sh"
    # ... and setup.sh registers the kernel with --go_work=<repo root>, which the Dockerfile verifies
    setup = (ROOT / "scripts/setup.sh").read_text()
    gonb_install = [l for l in setup.splitlines() if '/gonb" --install' in l]
    assert gonb_install and all("--go_work=" in l and "--force_deps" in l for l in gonb_install)
    assert any("-go_work=" in r and "kernel.json" in r for r in runs)


def test_image_installs_the_students_lock_only(ins):
    text = DOCKERFILE.read_text()
    assert "tools/requirements-image.txt" in text
    apt = " ".join(v for k, v in ins if k == "RUN" and "apt-get install" in v)
    assert "chromium" not in apt and "python3" in apt


def test_build_cache_warmed_by_executing_a_notebook(ins):
    runs = [v for k, v in ins if k == "RUN"]
    assert any("tools/nbrun.py" in r and ".ipynb" in r for r in runs)


def test_no_jupyter_trust_of_notebooks_without_outputs(ins):
    """Trusting a notebook signs its outputs; the course notebooks are committed without any, so a trust step
    would do nothing (the outputs a student produces are trusted by the session that made them)."""
    assert not any("jupyter trust" in v for k, v in ins if k == "RUN")
    for nb in [*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("exercises/*.ipynb")]:
        cells = json.loads(nb.read_text())["cells"]
        assert all(not c.get("outputs") for c in cells), f"{nb.name} is committed with outputs"


def test_entrypoint_execs_its_arguments(ins):
    eps = [v for k, v in ins if k == "ENTRYPOINT"]
    assert len(eps) == 1
    ep = json.loads(eps[0])  # exec form, so Binder's command arrives as "$@"
    script = ROOT / "scripts/docker-entrypoint.sh"
    runs = " ".join(v for k, v in ins if k == "RUN")
    assert ep[0] == "/usr/local/bin/kgviz-entrypoint" and "scripts/docker-entrypoint.sh /usr/local/bin/kgviz-entrypoint" in runs
    text = script.read_text()
    assert text.startswith("#!/bin/sh") and os.access(script, os.X_OK)
    last = [l.strip() for l in text.splitlines() if l.strip() and not l.strip().startswith("#")][-1]
    assert last == 'exec "$@"'
    # behaviour: runs the given command with the venv first on PATH
    out = subprocess.run(["sh", str(script), "sh", "-c", 'echo "$1|$PATH"', "_", "arg with space"],
                         env={"HOME": "/home/x", "PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("arg with space|/home/x/kgviz/.venv/bin:")


def test_entrypoint_refreshes_the_go_build_cache_trim_time(tmp_path):
    """Go trims cache entries unused for 5 days once its last trim (trim.txt) is a day old: the entrypoint says
    "trimmed now" on every start (tools/image/test_image.py shows what happens without it)."""
    cache = tmp_path / ".cache" / "go-build"
    cache.mkdir(parents=True)
    (cache / "trim.txt").write_text("1000000000")
    gopls = tmp_path / ".cache" / "gopls" / "ab" / "entry"  # gopls deletes its files older than 5 days
    gopls.parent.mkdir(parents=True)
    gopls.write_text("x")
    os.utime(gopls, (1000000000, 1000000000))
    script = ROOT / "scripts/docker-entrypoint.sh"
    out = subprocess.run(["sh", str(script), "true"], env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    import time
    assert out.returncode == 0 and abs(int((cache / "trim.txt").read_text()) - time.time()) < 60
    assert abs(gopls.stat().st_mtime - time.time()) < 60


def test_default_command_is_jupyter_lab(ins):
    cmd = json.loads([v for k, v in ins if k == "CMD"][-1])
    assert cmd[:2] == ["jupyter", "lab"] and "--ip=0.0.0.0" in cmd


def test_dockerignore_keeps_machine_state_out():
    ignored = {l.strip() for l in (ROOT / ".dockerignore").read_text().splitlines() if l.strip() and not l.startswith("#")}
    assert {".venv", ".bin", "build"} <= ignored


def test_no_absolute_work_tree_paths_in_project_files():
    """A fresh clone lives in another folder: nothing may name this one."""
    try:
        files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git work tree")
    needle = str(ROOT).encode()
    bad = []
    for f in files:
        p = ROOT / f
        if p.is_file() and p.stat().st_size < 5_000_000 and needle in p.read_bytes():
            bad.append(f)
    assert not bad, f"{needle.decode()} is baked into {bad}"
