"""Build the students' image and start it the way Binder does; talk to the Jupyter server inside.

Used by tools/image/test_image.py (`make test-image`). Two runners do the same steps:

- PodmanRunner: Debian's podman (root, no daemon, runc, a containers.conf and an image store of the test's own:
  tools/image/podman-env.sh). The base image golang:1.26.8-bookworm is made locally (tools/image/base.sh), the
  project's Dockerfile is built as it is, and a "pod" is a container started as BinderHub starts one: the image's
  ENTRYPOINT with BinderHub's command (a `python3 -c` launcher that execs jupyter-lab) and its arguments
  (`--ip=0.0.0.0 --port=8888 --NotebookApp.base_url=... --NotebookApp.token=...`, each repeated as
  `--ServerApp.*`), as uid 1000, with Binder's memory limit, its port published on 127.0.0.1 only.
- LocalRunner, where podman cannot run: the Dockerfile's steps (scripts/setup.sh, image profile; the warm-up
  notebook) as uid 1000 with HOME=<scratch>/home/jovyan and Debian's own python3 (the base image's Python,
  3.11.2 on bookworm), and a pod is the same entrypoint + launcher started as uid 1000 (1 CPU via taskset).
"""

from __future__ import annotations

import fnmatch
import json
import os
import secrets
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
UID = 1000
BASE_URL = "/user/kgviz-test/"  # BinderHub serves every pod under /user/<name>/
MEMORY = "2g"  # mybinder.org's limit per user
CACHE_TAG = "localhost/kgviz-image-cache:venv-and-tools"  # the Dockerfile's venv + Go tools layer, kept between runs

# BinderHub's pod command (helm chart singleuser.cmd): start JupyterLab if it is installed (major >= 3), else the
# classic notebook server, with the arguments the spawner appends. Re-stated here, same behaviour.
BINDER_LAUNCHER = """\
import os, sys
try:
    import jupyterlab
    lab = int(jupyterlab.__version__.split(".", 1)[0]) >= 3
except Exception:
    lab = False
exe = "jupyter-lab" if lab else "jupyter-notebook"
print("launching", exe, file=sys.stderr)
os.execvp(exe, sys.argv)
"""


def binder_args(port: int, token: str, default_url: str) -> list[str]:
    """The arguments BinderHub's spawner gives the pod command (auth disabled, as on mybinder.org)."""
    args = [
        "--ip=0.0.0.0",
        f"--port={port}",
        f"--NotebookApp.base_url={BASE_URL}",
        f"--NotebookApp.token={token}",
        "--NotebookApp.trust_xheaders=True",
        f"--NotebookApp.default_url={default_url}",
    ]
    return args + [a.replace("--NotebookApp.", "--ServerApp.") for a in args if a.startswith("--NotebookApp.")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(cmd, *, env=None, check=True, timeout=None, log=None, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, env=env, text=True, capture_output=log is None, stdout=log, stderr=log,
                       timeout=timeout, stdin=subprocess.DEVNULL, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))[:300]} -> exit {r.returncode}\n{(r.stdout or '')[-3000:]}\n{(r.stderr or '')[-3000:]}")
    return r


@dataclass
class Pod:
    """A running Jupyter server of the image (a container, or the local fallback's process)."""
    runner: "Runner"
    name: str
    port: int
    token: str
    handle: object = None  # the runner's own (container name / Popen)
    started: float = 0.0
    answered_after: float = 0.0

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}{BASE_URL}"

    def api(self, method: str, path: str, body=None, timeout=60):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"{self.http}api/{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json",
                                              "Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read() or b"null")

    def get(self, path: str, timeout=30) -> str:
        req = urllib.request.Request(f"{self.http}{path}", headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.read().decode()

    def wait_ready(self, timeout=120) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.api("GET", "status", timeout=5)
                self.answered_after = time.monotonic() - self.started
                return
            except (OSError, urllib.error.URLError):
                if not self.runner.alive(self) or time.monotonic() > deadline:
                    raise RuntimeError(f"the pod's server did not answer:\n{self.runner.logs(self)[-4000:]}")
                time.sleep(0.2)

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by the pod's server, kernel and the kernel's reaped children (go build, the cell's
        program), gopls excluded (None where the runner cannot tell)."""
        return self.runner.cpu_seconds(self)

    def sh(self, script: str, check=True, timeout=600) -> subprocess.CompletedProcess:
        """A shell command inside the pod, as uid 1000 in the repo folder."""
        return self.runner.exec(self, script, check=check, timeout=timeout)


class Runner:
    kind = "?"
    figures: dict

    def alive(self, pod: Pod) -> bool: ...
    def logs(self, pod: Pod) -> str: ...
    def exec(self, pod: Pod, script: str, check=True, timeout=600) -> subprocess.CompletedProcess: ...
    def cpu_seconds(self, pod: Pod) -> float | None: return None


# --------------------------------------------------------------------------------------------------------------
class PodmanRunner(Runner):
    kind = "podman"

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.env = self._env()
        self.run_id = uuid.uuid4().hex[:8]
        self.image = f"localhost/kgviz-image-test:{self.run_id}"
        self.images: list[str] = []
        self.containers: list[str] = []
        self.keep_ids: set[str] = set()
        self.figures = {}

    @staticmethod
    def _env() -> dict:
        out = run(["bash", "-c", f"source {HERE / 'podman-env.sh'} && env -0"]).stdout
        return dict(kv.split("=", 1) for kv in out.split("\0") if "=" in kv)

    def podman(self, *args, check=True, timeout=None, log=None) -> subprocess.CompletedProcess:
        return run(["podman", *args], env=self.env, check=check, timeout=timeout, log=log)

    @classmethod
    def usable(cls, workdir: Path) -> tuple[bool, str]:
        if not shutil.which("podman") or not shutil.which("runc"):
            return False, "podman/runc not installed (apt-get install podman runc mmdebstrap uidmap)"
        if os.geteuid() != 0:
            return False, "podman here runs as root only"
        try:
            r = cls(workdir).podman("info", "--format", "{{.Host.OCIRuntime.Name}}", check=False, timeout=60)
        except Exception as e:  # noqa: BLE001
            return False, f"podman info failed: {e}"
        if r.returncode != 0:
            return False, f"podman info failed: {r.stderr[-500:]}"
        return True, "podman " + run(["podman", "--version"]).stdout.split()[-1] + " with " + r.stdout.strip()

    def build(self, src: Path = ROOT) -> None:
        """Builds src/Dockerfile with src as the context: the students' repository that `kgviz release` wrote."""
        t0 = time.monotonic()
        base_log = self.workdir / "base.log"
        with open(base_log, "w") as log:
            run(["bash", str(HERE / "base.sh")], env=self.env, log=log, timeout=1800)
        self.figures["base_image_s"] = round(time.monotonic() - t0, 1)
        t1 = time.monotonic()
        build_log = self.workdir / "build.log"
        with open(build_log, "w") as log:
            r = self.podman("build", "--pull=never", "--layers", "--network=host", "-t", self.image, "-f",
                            str(src / "Dockerfile"), str(src), check=False, log=log, timeout=3600)
        self.build_log = build_log.read_text()
        if r.returncode != 0:
            raise RuntimeError(f"podman build failed (exit {r.returncode}):\n{self.build_log[-6000:]}")
        self.images.append(self.image)
        self.figures["build_s"] = round(time.monotonic() - t1, 1)
        self.figures["image_bytes"] = int(self.podman("image", "inspect", "--format", "{{.Size}}", self.image).stdout)
        self._remember_cache_layers()

    def _remember_cache_layers(self) -> None:
        """The layers worth keeping between runs: the base, the apt layer and the venv + Go tools layer (they
        change only with the locks, go.mod or setup.sh). Every other image of this store goes at cleanup."""
        lines = self.build_log.splitlines()
        step_id = None
        for i, line in enumerate(lines):
            if line.startswith("STEP") and "KGVIZ_STOP_AFTER=gotools" in line:
                for nxt in lines[i + 1:]:
                    if nxt.startswith("-->"):
                        step_id = nxt.split()[-1]
                        break
                    if nxt.startswith("STEP"):
                        break
        ids = [step_id] if step_id else []
        if step_id:
            # A name keeps it (and its parents: the apt and user layers) from `podman image prune`; podman build
            # finds cached steps among all images, named or not.
            self.podman("tag", step_id, CACHE_TAG)
        ids.append(self.podman("image", "inspect", "--format", "{{.Id}}", "docker.io/library/golang:1.26.8-bookworm").stdout.strip())
        for start in ids:
            cur = start
            while cur:
                r = self.podman("image", "inspect", "--format", "{{.Id}} {{.Parent}}", cur, check=False)
                if r.returncode != 0:
                    break
                full, _, parent = r.stdout.strip().partition(" ")
                self.keep_ids.add(full)
                cur = parent.strip()

    def start(self, *, image: str | None = None, cpus: float | None = None, name: str = "pod",
              default_url="/lab/tree/notebooks/00-start-here.ipynb", extra_args=()) -> Pod:
        port, token = free_port(), secrets.token_hex(16)
        cname = f"kgviz-{name}-{self.run_id}"
        args = ["run", "-d", "--name", cname, "--user", str(UID), f"--memory={MEMORY}",
                "-p", f"127.0.0.1:{port}:8888", "-e", "BINDER_REPO_URL=https://example.invalid/kgviz"]
        if cpus:
            args.append(f"--cpus={cpus}")
        pod = Pod(self, cname, port, token, handle=cname)
        pod.started = time.monotonic()
        self.podman(*args, image or self.image, "python3", "-c", BINDER_LAUNCHER,
                    *binder_args(8888, token, default_url), *extra_args)
        self.containers.append(cname)
        pod.wait_ready()
        return pod

    def start_singleuser(self, *, env: dict, port: int, token: str, cmd: list[str], uid: int,
                         mounts=(), name: str = "hub") -> Pod:
        """A container as a JupyterHub spawner (KubeSpawner) starts one: the image's ENTRYPOINT with `cmd` as its
        arguments, the JUPYTERHUB_* environment, as `uid`, volumes at their mount paths. On the host's network, so
        that it reaches the test's Hub API on 127.0.0.1 (in a cluster the Hub is a Service)."""
        cname = f"kgviz-{name}-{self.run_id}"
        args = ["run", "-d", "--name", cname, "--user", str(uid), f"--memory={MEMORY}", "--network=host"]
        for k, v in env.items():
            args += ["-e", f"{k}={v}"]
        for src, dst in mounts:
            args += ["-v", f"{src}:{dst}:Z"]
        pod = Pod(self, cname, port, token, handle=cname)
        pod.started = time.monotonic()
        self.podman(*args, self.image, *cmd)
        self.containers.append(cname)
        pod.wait_ready()
        return pod

    def alive(self, pod: Pod) -> bool:
        r = self.podman("container", "inspect", "--format", "{{.State.Running}}", pod.handle, check=False)
        return r.stdout.strip() == "true"

    def logs(self, pod: Pod) -> str:
        r = self.podman("logs", pod.handle, check=False)
        return (r.stdout or "") + (r.stderr or "")

    def cpu_seconds(self, pod: Pod) -> float | None:
        # Every live process of the pod but gopls (GoNB's background helper, at nice 19): its own CPU time plus
        # that of the children it has reaped (go build, goimports, the cell's program are reaped by GoNB).
        r = self.podman("exec", pod.handle, "sh", "-c",
                        "getconf CLK_TCK; for f in /proc/[0-9]*/stat; do cat $f 2>/dev/null; echo; done", check=False)
        lines = [l for l in r.stdout.splitlines() if l.strip()]
        if not lines or not lines[0].isdigit():
            return None
        tck, total = int(lines[0]), 0
        for line in lines[1:]:
            comm = line[line.find("(") + 1:line.rfind(")")]
            f = line[line.rfind(")") + 2:].split()
            if comm.startswith("gopls") or len(f) < 15:
                continue
            total += sum(int(x) for x in f[11:15])
        return total / tck

    def exec(self, pod: Pod, script: str, check=True, timeout=600):
        return self.podman("exec", "--user", str(UID), "-w", "/home/jovyan/kgviz", pod.handle, "bash", "-c", script,
                           check=check, timeout=timeout)

    def run_in_image(self, script: str, *, image: str | None = None, entrypoint: bool = True, user=UID,
                     mounts=(), check=True, timeout=600, network: str | None = None):
        """A one-off container (removed at exit); entrypoint=False bypasses the image's ENTRYPOINT."""
        args = ["run", "--rm", "--user", str(user)]
        for src, dst in mounts:
            args += ["-v", f"{src}:{dst}:ro,Z"]
        if network:
            args.append(f"--network={network}")
        if not entrypoint:
            args += ["--entrypoint", "bash", image or self.image, "-c", script]
        else:
            args += [image or self.image, "bash", "-c", script]
        return self.podman(*args, check=check, timeout=timeout)

    def aged_image(self, days: int) -> str:
        """The built image as it is `days` later: every file of ~/.cache (Go's build cache, gopls's cache) and Go's
        trim.txt set back `days` days, committed as a new image (what Binder serves a week after the build)."""
        cname = f"kgviz-aging-{self.run_id}"
        script = (f'old=$(( $(date +%s) - {days} * 86400 )); c="$HOME/.cache/go-build"; '
                  'find "$HOME/.cache" -exec touch -h -d "@$old" {} + && printf %s "$old" >"$c/trim.txt" && '
                  'find "$c" -type f | wc -l')
        self.podman("run", "--name", cname, "--user", str(UID), "--entrypoint", "bash", self.image, "-c", script)
        self.containers.append(cname)
        aged = f"{self.image}-aged{days}d"
        # The container ran with another entrypoint and command: the aged image gets the built image's back.
        cfg = json.loads(self.podman("image", "inspect", "--format", "{{json .Config}}", self.image).stdout)
        self.podman("commit", "--quiet", "--change", f"ENTRYPOINT {json.dumps(cfg.get('Entrypoint') or [])}",
                    "--change", f"CMD {json.dumps(cfg.get('Cmd') or [])}", cname, aged)
        self.images.append(aged)
        self.podman("rm", "-f", cname, check=False)
        return aged

    def stop(self, pod: Pod) -> None:
        self.podman("rm", "-f", "-t", "5", pod.handle, check=False)

    def cleanup(self) -> None:
        for c in self.containers:
            self.podman("rm", "-f", "-t", "2", c, check=False)
        for img in reversed(self.images):
            self.podman("rmi", "-f", img, check=False)
        # Intermediate images of this and earlier runs, except the cache layers (the store is the test's own).
        out = self.podman("images", "-a", "--no-trunc", "--format", "{{.Id}} {{.Repository}}:{{.Tag}}", check=False).stdout
        drop = []
        for line in out.splitlines():
            iid, _, ref = line.partition(" ")
            iid = iid.removeprefix("sha256:")
            if iid in self.keep_ids or ref.startswith(("localhost/kgviz-rootfs", CACHE_TAG)) or "golang:" in ref:
                continue
            drop.append(iid)
        for _ in range(3):  # children before parents: retry until nothing more goes
            left = []
            for iid in drop:
                if self.podman("rmi", "-f", iid, check=False).returncode != 0:
                    left.append(iid)
            drop = left
            if not drop:
                break
        self.podman("image", "prune", "-f", check=False)


# --------------------------------------------------------------------------------------------------------------
def dockerignore(src: Path) -> list[str]:
    f = src / ".dockerignore"
    return [l.strip() for l in f.read_text().splitlines() if l.strip() and not l.startswith("#")] if f.exists() else []


def ignored(rel: str, patterns: list[str]) -> bool:
    parts = rel.split("/")
    for pat in patterns:
        pat = pat.removeprefix("**/")
        for i in range(len(parts)):
            if fnmatch.fnmatch("/".join(parts[: i + 1]), pat) or fnmatch.fnmatch(parts[i], pat):
                return True
    return False


class LocalRunner(Runner):
    """The Dockerfile's steps as uid 1000 on this machine, with Debian's python3 (the base image's Python)."""
    kind = "local-uid-1000"

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.figures = {}
        self.home = workdir / "home" / "jovyan"
        self.repo = self.home / "kgviz"
        self.procs: list[subprocess.Popen] = []
        self.python = "/usr/bin/python3"

    @classmethod
    def usable(cls) -> tuple[bool, str]:
        if os.geteuid() != 0 or not shutil.which("setpriv"):
            return False, "needs root and setpriv to act as uid 1000"
        if not Path("/usr/bin/python3").exists():
            return False, "no Debian /usr/bin/python3"
        return True, "setpriv --reuid 1000 with " + run(["/usr/bin/python3", "--version"]).stdout.strip()

    def env(self) -> dict:
        go = shutil.which("go") or "/usr/local/go/bin/go"
        return {
            "HOME": str(self.home), "USER": "jovyan", "NB_UID": str(UID), "KGVIZ_REPO": str(self.repo),
            "GOPATH": str(self.home / "go"), "GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false",
            "PIP_NO_CACHE_DIR": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "SHELL": "/bin/bash", "LANG": "C.UTF-8",
            "PATH": f"{self.repo}/.venv/bin:{self.repo}/.bin:{self.home}/go/bin:{Path(go).parent}:/usr/sbin:/usr/bin:/sbin:/bin",
            "PYTHON": self.python,
            **{k: v for k, v in os.environ.items() if k in ("PIP_CERT", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "PIP_DEFAULT_TIMEOUT")},
        }

    def as_user(self, cmd: list[str]) -> list[str]:
        return ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups", "--", *cmd]

    def sh(self, script: str, check=True, timeout=3600, log=None):
        return run(self.as_user(["bash", "-c", script]), env=self.env(), cwd=self.repo, check=check,
                   timeout=timeout, log=log)

    def build(self, src: Path = ROOT) -> None:
        """The Dockerfile's steps on a copy of src (the release) without what its .dockerignore names."""
        t0 = time.monotonic()
        if self.workdir.exists():
            shutil.rmtree(self.workdir / "home", ignore_errors=True)
        self.repo.mkdir(parents=True)
        patterns = dockerignore(src)
        for f in sorted(src.rglob("*")):
            rel = f.relative_to(src).as_posix()
            if ignored(rel, patterns) or not f.is_file():
                continue
            dst = self.repo / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dst)
        run(["chown", "-R", f"{UID}:{UID}", str(self.workdir / "home")])
        os.chmod(self.workdir, 0o755)
        with open(self.workdir / "build.log", "w") as log:
            self.sh("KGVIZ_SKIP_APT=1 KGVIZ_PROFILE=image bash scripts/setup.sh && "
                    ".venv/bin/python tools/nbrun.py notebooks/00-start-here.ipynb && rm -rf build", log=log)
        self.figures["build_s"] = round(time.monotonic() - t0, 1)
        self.figures["image_bytes"] = int(run(["du", "-sb", str(self.home)]).stdout.split()[0])
        self.entrypoint = str(ROOT / "scripts/docker-entrypoint.sh")

    def start(self, *, cpus=None, name="pod", default_url="/lab/tree/notebooks/00-start-here.ipynb", extra_args=(),
              **_) -> Pod:
        port, token = free_port(), secrets.token_hex(16)
        # `python3` as Binder gives it: the entrypoint's PATH makes it the venv's. No container network here, so
        # the server listens on loopback only.
        args = [a if a != "--ip=0.0.0.0" else "--ip=127.0.0.1" for a in binder_args(port, token, default_url)]
        cmd = self.as_user(["sh", self.entrypoint, "python3", "-c", BINDER_LAUNCHER, *args, *extra_args])
        if cpus:
            cmd = ["taskset", "-c", "0", *cmd]
        log = open(self.workdir / f"{name}.log", "wb")
        p = subprocess.Popen(cmd, env=self.env(), cwd=self.repo, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(p)
        pod = Pod(self, name, port, token, handle=p)
        pod.started = time.monotonic()
        pod.wait_ready()
        return pod

    def start_singleuser(self, *, env: dict, port: int, token: str, cmd: list[str], uid: int,
                         mounts=(), name: str = "hub") -> Pod:
        """The entrypoint with `cmd` as uid 1000 with the JUPYTERHUB_* environment; a mount's folder is made in
        place (no volumes here)."""
        assert uid == UID, f"the local runner acts as uid {UID} only, not {uid}"
        for _, dst in mounts:
            local = self.home / Path(dst).relative_to("/home/jovyan")
            local.mkdir(parents=True, exist_ok=True)
            run(["chown", f"{UID}:{UID}", str(local)])
        log = open(self.workdir / f"{name}.log", "wb")
        p = subprocess.Popen(self.as_user(["sh", self.entrypoint, *cmd]), env={**self.env(), **env}, cwd=self.repo,
                             stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(p)
        pod = Pod(self, name, port, token, handle=p)
        pod.started = time.monotonic()
        pod.wait_ready()
        return pod

    def alive(self, pod: Pod) -> bool:
        return pod.handle.poll() is None

    def cpu_seconds(self, pod: Pod) -> float | None:
        """utime+stime of the server's process tree, plus the children each live process has reaped."""
        procs = {}
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    f = (d / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                procs[int(d.name)] = (int(f[1]), sum(int(x) for x in f[11:15]))  # ppid, u+s+cu+cs ticks
        tree, frontier = set(), {pod.handle.pid}
        while frontier:
            tree |= frontier
            frontier = {p for p, (pp, _) in procs.items() if pp in frontier and p not in tree}
        comm = {}
        for p in tree:
            try:
                comm[p] = (Path("/proc") / str(p) / "comm").read_text().strip()
            except OSError:
                comm[p] = ""
        return sum(procs[p][1] for p in tree if p in procs and not comm[p].startswith("gopls")) / os.sysconf("SC_CLK_TCK")

    def logs(self, pod: Pod) -> str:
        return (self.workdir / f"{pod.name}.log").read_text(errors="replace")

    def exec(self, pod: Pod, script: str, check=True, timeout=600):
        return self.sh(script, check=check, timeout=timeout)

    def aged_image(self, days: int) -> None:
        old = int(time.time()) - days * 86400
        cache = self.home / ".cache" / "go-build"
        for p in (self.home / ".cache").rglob("*"):
            os.utime(p, (old, old), follow_symlinks=False)
        (cache / "trim.txt").write_text(str(old))
        return None

    def stop(self, pod: Pod) -> None:
        import signal
        try:
            os.killpg(pod.handle.pid, signal.SIGTERM)
            pod.handle.wait(15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(pod.handle.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def cleanup(self) -> None:
        import signal
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        shutil.rmtree(self.workdir / "home", ignore_errors=True)
