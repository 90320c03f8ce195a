"""The GoNB kernel that scripts/setup.sh installs writes nothing to Jupyter's log when nothing fails: gonb v0.11.4
logs at INFO to stderr by default, with three self-test lines at every start ("Info message", "Warning message",
"Error message") and a goroutine stack trace at every shutdown ("killing gopls:"), none of them a failure.

The kernel is started from the venv's kernelspec with jupyter_client (as JupyterLab starts it), runs a cell,
and is shut down as Lab shuts it down (a shutdown_request); its stderr is what Lab's log would show.
"""

import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KDIR = ROOT / ".venv/share/jupyter/kernels/gonb"

pytestmark = pytest.mark.skipif(not (KDIR / "kernel.json").is_file(), reason="needs scripts/setup.sh (the venv's kernel)")

# Lines that look like failures in a log: klog's warning/error/fatal headers, Go stack traces, gonb's self-test.
ALARMING = re.compile(r"^[WEF]\d{4} |goroutine \d+ \[|killing gopls|(Warning|Error) message|panic:", re.M)


def test_kernel_flags_keep_info_out_of_the_log():
    spec = json.loads((KDIR / "kernel.json").read_text())
    argv = spec["argv"]
    for flag in ("-logtostderr=false", "-alsologtostderr=false", "-stderrthreshold=ERROR", "-log_file=/dev/null"):
        assert flag in argv, argv
    assert not any(a in ("-logtostderr=true", "-alsologtostderr=true") for a in argv), argv
    assert argv[0] == str(ROOT / ".bin/kernel/gonb") and "--kernel" in argv, argv


def test_filter_drops_only_the_self_test():
    """The wrapper's filter drops gonb's self-test lines and keeps every other error."""
    wrapper = (ROOT / ".bin/kernel/gonb").read_text()
    pattern = re.search(r"grep --line-buffered -v -E '([^']+)'", wrapper).group(1)
    lines = [
        "E1202 00:28:21.233101   28691 main.go:191] \x1b[7;39;32m[553bd300]\x1b[0m Error message",
        "W1202 00:28:21.233096   28691 main.go:190] \x1b[7;39;32m[553bd300]\x1b[0m Warning message",
        "E1202 00:28:21.233101   28691 exec.go:96] \x1b[7;39;32m[553bd300]\x1b[0m gopls failed: Error message",
        "E1202 00:28:21.233101   28691 main.go:230] \x1b[7;39;32m[553bd300]\x1b[0m Failed to create go executor: x",
        "F1202 00:28:21.233101   28691 main.go:225] Failed to start kernel: y",
    ]
    out = subprocess.run(["grep", "-v", "-E", pattern], input="\n".join(lines) + "\n", capture_output=True,
                         text=True).stdout.splitlines()
    assert out == lines[2:], out


def test_kernel_start_and_stop_are_quiet(tmp_path):
    jc = pytest.importorskip("jupyter_client.manager")
    import os

    env = dict(os.environ, JUPYTER_PATH=str(ROOT / ".venv/share/jupyter"))
    km = jc.KernelManager(kernel_name="gonb")
    err = open(tmp_path / "stderr.txt", "w+")
    km.start_kernel(cwd=str(tmp_path), env=env, stderr=err)
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=180)
        outputs = []
        reply = kc.execute_interactive('%%\nfmt.Println("quiet")', timeout=300,
                                       output_hook=lambda m: outputs.append(m))
        assert reply["content"]["status"] == "ok", reply["content"]
        assert any("quiet" in m["content"].get("text", "") for m in outputs), outputs
        kc.stop_channels()
    finally:
        km.shutdown_kernel(now=False)
    err.seek(0)
    log = err.read()
    assert not ALARMING.search(log), log[:3000]
