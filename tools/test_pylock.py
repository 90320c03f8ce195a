"""Every Python lock resolves, complete and unchanged, on every Python the README accepts (tools/pylock.py).

The README accepts Python 3.11 from Debian 12's 3.11.2 on; the machine's own python3 is newer, so a lock made by
installing with it can pin a package that 3.11.2 cannot install (soupsieve 4.1.3 needs >= 3.11.5: the image build
failed on it). pip resolves each lock for the target version (--python-version), from PyPI.
A real 3.11.2 is checked too: the image build installs the image lock with the image's Python, and
tools/image/test_image.py resolves the dev lock there (make test-image).
"""

import subprocess
import sys
from pathlib import Path

import pylock

ROOT = Path(__file__).resolve().parent.parent


def test_locks_resolve_on_every_accepted_python():
    bad = pylock.problems(verbose=True)
    assert bad == [], "\n".join(bad)


def test_image_lock_is_the_students_set_only():
    image = pylock.read_lock(pylock.LOCKS[0][1])
    assert {"jupyterlab", "notebook"} <= set(image)
    for dev_only in ("playwright", "pytest", "greenlet", "pyee"):
        assert dev_only not in image, f"{dev_only} is a test tool: not in the students' image"
    dev = pylock.read_lock(pylock.LOCKS[1][1])
    assert {"playwright", "pytest", "nbclient", "nbconvert"} <= set(dev)


def test_readme_names_the_accepted_pythons():
    readme = (ROOT / "README.md").read_text()
    assert "Python 3.11" in readme and pylock.ACCEPTED[0] in readme


def test_lock_files_are_generated_not_edited():
    for _, lock, _ in pylock.LOCKS:
        head = lock.read_text().splitlines()[:3]
        assert any("make lock-python" in l for l in head), lock.name
    r = subprocess.run([sys.executable, str(ROOT / "tools/pylock.py"), "--help"], capture_output=True, text=True)
    assert r.returncode == 0
