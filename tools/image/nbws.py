"""Run a notebook through a Jupyter server the way JupyterLab does: a session from the REST API (the server starts the
kernel, in the pod, as the pod's user, in the notebook's folder), then execute_request after execute_request on
the kernel's websocket, collecting each cell's outputs and its wall time (request sent -> reply and idle).

Also: complete_request (what Lab's Tab completion sends) on the same channel.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field

import websocket  # websocket-client, a dependency of jupyter_server (in both locks)


@dataclass
class CellRun:
    index: int
    source: str
    role: str  # graded | answer | plain
    grade_id: str | None
    status: str  # ok | error | timeout
    seconds: float
    outputs: list = field(default_factory=list)
    cpu_seconds: float | None = None  # CPU time the pod used meanwhile (its cgroup), when the runner can tell

    @property
    def stderr(self) -> str:
        return "".join(o.get("text", "") for o in self.outputs if o.get("name") == "stderr")

    @property
    def failed(self) -> bool:
        return self.status != "ok" or bool(self.stderr)

    @property
    def html(self) -> str:
        return "".join(o.get("data", {}).get("text/html", "") for o in self.outputs
                       if o["output_type"] in ("display_data", "execute_result"))

    @property
    def is_chart(self) -> bool:
        return 'class="kgviz' in self.html

    def brief(self) -> str:
        text = "".join(o.get("text", "") or o.get("evalue", "") for o in self.outputs)[-300:]
        return f"cell {self.index} ({self.role}, {self.status}, {self.seconds:.1f}s): {self.source[:60]!r} -> {text!r}"


def role(cell: dict) -> tuple[str, str | None]:
    nbg = cell.get("metadata", {}).get("nbgrader") or {}
    if nbg.get("grade") and not nbg.get("solution"):
        return "graded", nbg.get("grade_id")
    if nbg.get("solution"):
        return "answer", nbg.get("grade_id")
    return "plain", None


class Kernel:
    def __init__(self, pod, path: str, kernel_name: str | None = None, start_timeout=120):
        self.pod = pod
        body = {"path": path, "type": "notebook", "name": path.rsplit("/", 1)[-1]}
        if kernel_name:
            body["kernel"] = {"name": kernel_name}
        t0 = time.monotonic()
        self.session = pod.api("POST", "sessions", body, timeout=start_timeout)
        self.kernel_id = self.session["kernel"]["id"]
        self.kernel_name = self.session["kernel"]["name"]
        ws_url = pod.http.replace("http://", "ws://") + f"api/kernels/{self.kernel_id}/channels"
        self.ws = websocket.create_connection(ws_url, header=[f"Authorization: token {pod.token}"], timeout=start_timeout)
        self.session_id = uuid.uuid4().hex
        reply = self.request("kernel_info_request", {}, timeout=start_timeout)
        self.info = reply["content"]
        self.ready_after = time.monotonic() - t0

    def _msg(self, msg_type: str, content: dict) -> dict:
        return {
            "header": {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "username": "kgviz-test",
                       "session": self.session_id, "date": "", "version": "5.3"},
            "parent_header": {}, "metadata": {}, "content": content, "buffers": [], "channel": "shell",
        }

    def request(self, msg_type: str, content: dict, timeout=60) -> dict:
        msg = self._msg(msg_type, content)
        self.ws.send(json.dumps(msg))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.ws.settimeout(max(0.1, deadline - time.monotonic()))
            m = json.loads(self.ws.recv())
            if m.get("channel") == "shell" and m["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                return m
        raise TimeoutError(f"no reply to {msg_type} within {timeout}s")

    def execute(self, code: str, timeout=300) -> tuple[str, float, list]:
        msg = self._msg("execute_request", {"code": code, "silent": False, "store_history": True,
                                             "user_expressions": {}, "allow_stdin": False, "stop_on_error": False})
        mid = msg["header"]["msg_id"]
        t0 = time.monotonic()
        self.ws.send(json.dumps(msg))
        outputs, status, reply, idle = [], "timeout", False, False
        deadline = t0 + timeout
        while not (reply and idle):
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout", time.monotonic() - t0, outputs
            self.ws.settimeout(left)
            try:
                m = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                return "timeout", time.monotonic() - t0, outputs
            if m["parent_header"].get("msg_id") != mid:
                continue
            t = m["header"]["msg_type"]
            if m.get("channel") == "shell" and t == "execute_reply":
                reply = True
                status = "ok" if m["content"].get("status") == "ok" else "error"
            elif t == "status" and m["content"].get("execution_state") == "idle":
                idle = True
            elif t in ("stream", "display_data", "execute_result", "error"):
                out = dict(m["content"], output_type=t)
                outputs.append(out)
                if t == "error":
                    status = "error"
        if any(o["output_type"] == "error" for o in outputs):
            status = "error"
        return status, time.monotonic() - t0, outputs

    def complete(self, code: str, cursor: int | None = None) -> dict:
        return self.request("complete_request", {"code": code, "cursor_pos": len(code) if cursor is None else cursor})["content"]

    def inspect(self, code: str, cursor: int) -> dict:
        return self.request("inspect_request", {"code": code, "cursor_pos": cursor, "detail_level": 0})["content"]

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            try:
                self.pod.api("DELETE", f"sessions/{self.session['id']}")
            except Exception:  # noqa: BLE001 - the pod may already be gone
                pass


def run_notebook(pod, path: str, notebook: dict, timeout_per_cell=300, cpu_probe=None) -> tuple[Kernel, list[CellRun]]:
    """Executes every code cell of `notebook` (already at `path` in the pod) in a kernel the server starts.
    cpu_probe(): the pod's CPU seconds so far, read before and after each cell."""
    k = Kernel(pod, path)
    runs = []
    try:
        for i, cell in enumerate(notebook["cells"]):
            if cell["cell_type"] != "code":
                continue
            src = "".join(cell["source"])
            r, gid = role(cell)
            cpu0 = cpu_probe() if cpu_probe else None
            status, secs, outputs = k.execute(src, timeout=timeout_per_cell)
            cpu = cpu_probe() - cpu0 if cpu_probe else None
            runs.append(CellRun(i, src, r, gid, status, secs, outputs, cpu))
    finally:
        k.close()
    return k, runs
