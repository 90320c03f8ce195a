#!/usr/bin/env bash
# scripts/setup.sh — the ONE way to set up a kgviz work tree. README, `make setup`, .ci/run and the
# Dockerfile all call this script. It is idempotent: a second run checks stamps and takes seconds.
#
# What it does (each step says what it is doing, how long it usually takes on a 2-core machine, prints a
# heartbeat line every 20 s while a long command runs (scripts/progress.sh), and says whether it did work or
# found it already done; a summary of the times ends the run):
#   1. system packages: Debian `chromium` + `fonts-dejavu-core` (only as root with apt-get, only when missing)
#   2. Python venv at .venv/ with the exact versions of tools/requirements.txt (JupyterLab, Notebook, nbclient,
#      nbconvert, Playwright-Python (never downloads browsers: we drive /usr/bin/chromium), pytest);
#      the image profile installs tools/requirements-image.txt instead (JupyterLab and Notebook only)
#   3. gonb + goimports built into .bin/ at the versions go.mod pins (its `tool` lines), and gopls (completion
#      and hover in Go cells) at the version tools/gopls/go.mod pins. No registry has them prebuilt (the Go module
#      proxy serves source), so the dev profile builds them once into ~/.cache/kgviz/tools/<key> ($KGVIZ_CACHE;
#      key: go.mod, go.sum, tools/gopls/go.*, Go version, OS/arch) and the next clone copies them from there
#   4. the GoNB kernel registered INSIDE the venv (.venv/share/jupyter/kernels/gonb), never in ~/.local;
#      its kernel.json puts .bin (goimports, gopls) and go's directory on PATH, passes --go_work=<repo root>
#      (kgviz imports from a notebook in any folder) and resolves Go modules from the local module cache only;
#      plus venv-level Jupyter settings: gonb the default kernel, no news/update lookups, a read-only
#      extension manager
#   5. Go module download + build cache warm-up (go mod download, go build ./..., test binaries compiled);
#      the image profile downloads only what notebooks build and warms the cache by executing 00-start-here
#
# Profiles (KGVIZ_PROFILE):
#   dev (default)          developers and CI: everything above
#   image                  the student image (Dockerfile): no test tools, no browser, no test binaries, Go tools
#                          built with throw-away caches, module zips and gonb's docs dropped (see docs in Dockerfile)
#
# Environment knobs:
#   KGVIZ_SKIP_APT=1       never call apt-get (e.g. in the Dockerfile, where apt runs in its own layer)
#   KGVIZ_FORCE_APT=1      call apt-get install even if chromium is found (to check the apt path)
#   KGVIZ_SKIP_WARM=1      skip step 5
#   KGVIZ_CACHE=DIR        the Go tools cache (default ~/.cache/kgviz; `make clean-caches` removes it)
#   KGVIZ_HEARTBEAT=20     seconds between "still working" lines
#   KGVIZ_STOP_AFTER=gotools  run steps 1-3 only (the Dockerfile's venv + tools layer)
#   PYTHON=python3.11      interpreter used to create the venv (default: python3)
set -euo pipefail
PROFILE="${KGVIZ_PROFILE:-dev}"
case "$PROFILE" in dev | image) ;; *) printf '[setup] ERROR: KGVIZ_PROFILE=%s (dev or image)\n' "$PROFILE" >&2; exit 1 ;; esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

T0=$(date +%s%N)
STEP_T0=$T0
declare -a SUMMARY=()

ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
fmt_ms() { printf '%d.%02ds' $(($1 / 1000)) $((($1 % 1000) / 10)); }
say() { printf '[setup] %s\n' "$*"; }
warn() { printf '[setup] WARNING: %s\n' "$*" >&2; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }
step_begin() { STEP_T0=$(date +%s%N); say "── $*"; }
# step_end "<name>" "<what happened>"
step_end() {
	local ms
	ms=$(ms_since "$STEP_T0")
	SUMMARY+=("$(printf '%-18s %8s  %s' "$1" "$(fmt_ms "$ms")" "$2")")
}
hash_of() { cat "$@" 2>/dev/null | sha256sum | cut -c1-16; }
# shellcheck source=progress.sh
source "$ROOT/scripts/progress.sh" # long "<what>" "<usual duration>" cmd...: heartbeat while cmd runs

# ---------------------------------------------------------------------------------------------------------
# 0. Go toolchain (required: the project is Go).
command -v go >/dev/null 2>&1 || die "go is not on PATH (need Go >= $(sed -n 's/^go //p' go.mod))"
GO_BIN_DIR="$(dirname "$(command -v go)")"
GO_VERSION="$(go env GOVERSION)"
say "repo: $ROOT"
say "go:   $GO_VERSION ($GO_BIN_DIR)"
say "profile: $PROFILE"

# ---------------------------------------------------------------------------------------------------------
# 1. System packages: Debian chromium (headless browser tests / screenshots) and a font for text in them.
step_begin "1/5 system packages (chromium, fonts-dejavu-core, bubblewrap): checked in a second; installing takes 20 s-2 min"
need_pkgs=()
[[ -x /usr/bin/chromium ]] || need_pkgs+=(chromium)
[[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]] || need_pkgs+=(fonts-dejavu-core)
command -v bwrap >/dev/null 2>&1 || need_pkgs+=(bubblewrap) # kgviz grade's sandbox
if [[ "${KGVIZ_FORCE_APT:-0}" == 1 ]]; then need_pkgs=(chromium fonts-dejavu-core); fi
if [[ "$PROFILE" == image ]]; then
	step_end "apt" "not needed (image profile: no browser tests in the student image)"
elif [[ ${#need_pkgs[@]} -eq 0 ]]; then
	step_end "apt" "already installed ($(/usr/bin/chromium --version 2>/dev/null | head -1))"
elif [[ "${KGVIZ_SKIP_APT:-0}" == 1 ]]; then
	warn "missing ${need_pkgs[*]}; KGVIZ_SKIP_APT=1 so not installing (browser tests need /usr/bin/chromium)"
	step_end "apt" "skipped (KGVIZ_SKIP_APT=1), missing: ${need_pkgs[*]}"
elif [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
	warn "missing ${need_pkgs[*]}; not root or no apt-get, so not installing."
	warn "install them yourself (e.g. 'sudo apt-get install chromium fonts-dejavu-core'); browser tests need /usr/bin/chromium"
	step_end "apt" "skipped (not root / no apt-get), missing: ${need_pkgs[*]}"
else
	say "apt-get update + install ${need_pkgs[*]}"
	export DEBIAN_FRONTEND=noninteractive
	long "apt-get update" "10-30 s" apt-get update -qq
	long "apt-get install ${need_pkgs[*]}" "20 s-2 min" apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
	step_end "apt" "installed ${need_pkgs[*]} ($(/usr/bin/chromium --version 2>/dev/null | head -1))"
fi

# ---------------------------------------------------------------------------------------------------------
# 2. Python venv with pinned tools.
REQS=tools/requirements.txt
[[ "$PROFILE" == image ]] && REQS=tools/requirements-image.txt
step_begin "2/5 python venv (.venv) from $REQS: 1-4 min the first time (pip, ~430 MB; up to 9 min on a busy machine), seconds after"
PYTHON="${PYTHON:-python3}"
command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (need CPython >= 3.10 with the venv module)"
VENV="$ROOT/.venv"
VPY="$VENV/bin/python"
py_id="$("$PYTHON" -c 'import sys,platform; print(sys.version.split()[0], platform.machine())')"
want="$REQS $(hash_of "$REQS") $py_id"
MODULES='"jupyterlab", "notebook", "nbclient", "nbconvert", "nbformat", "jupyter_server", "bleach", "anyio"'
[[ "$PROFILE" == dev ]] && MODULES="$MODULES"', "playwright", "pytest"'
SANITY="import importlib.util as u, sys
sys.exit(any(u.find_spec(m) is None for m in ($MODULES)))"
if [[ -x "$VPY" ]] && [[ "$(cat "$VENV/.kgviz-stamp" 2>/dev/null)" == "$want" ]] && "$VPY" -c "$SANITY" 2>/dev/null; then
	step_end "venv" "up to date (python $py_id)"
else
	stamp="$(cat "$VENV/.kgviz-stamp" 2>/dev/null || true)"
	if [[ ! -x "$VPY" ]] || ! "$VPY" -c 'pass' 2>/dev/null ||
		{ [[ -n "$stamp" ]] && ! "$VPY" -c "$SANITY" 2>/dev/null; } || { [[ -n "$stamp" && "${stamp%% *}" != "$REQS" ]]; }; then
		# missing, broken, damaged under an up-to-date stamp, or made from the other lock: start over
		rm -rf "$VENV"
		"$PYTHON" -m venv "$VENV" || die "'$PYTHON -m venv' failed (on Debian: apt-get install python3-venv)"
	fi
	long "pip install -r $REQS ($(grep -c '==' "$REQS") pinned packages)" "1-4 min on 2 cores, up to 9 when busy" \
		"$VPY" -m pip install --disable-pip-version-check --no-input -q -r "$REQS"
	"$VPY" -m pip check >/dev/null || { "$VPY" -m pip check; die "pip check failed"; }
	echo "$want" >"$VENV/.kgviz-stamp"
	step_end "venv" "installed $(grep -c '==' "$REQS") pinned packages (python $py_id)"
fi

# ---------------------------------------------------------------------------------------------------------
# 3. gonb + goimports at the versions pinned by go.mod (tool lines), into .bin/.
step_begin "3/5 go tools (.bin/gonb, .bin/goimports, .bin/gopls): 10-14 min the first time on 2 cores, seconds from the tools cache"
BIN="$ROOT/.bin"
mkdir -p "$BIN"
want="$(hash_of go.mod go.sum tools/gopls/go.mod tools/gopls/go.sum) $GO_VERSION"
# The tools cache (dev profile): the binaries of these exact versions, built once for every clone on this machine.
TOOLS_CACHE=""
if [[ "$PROFILE" == dev ]]; then
	key="$(printf '%s %s\n' "$want" "$(go env GOOS GOARCH | tr '\n' ' ')" | sha256sum | cut -c1-16)"
	TOOLS_CACHE="${KGVIZ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kgviz}/tools/$key"
fi
TOOLS=(gonb goimports gopls)
cached() { [[ -n "$TOOLS_CACHE" ]] && for t in "${TOOLS[@]}"; do [[ -x "$TOOLS_CACHE/$t" ]] || return 1; done; }
build_go_tools() (
	if [[ "$PROFILE" == image ]]; then
		# The tools' own dependencies (x/tools, zmq4, staticcheck, ...) never enter the image's caches.
		scratch="$(mktemp -d)"
		trap 'chmod -R u+w "$scratch"; rm -rf "$scratch"' EXIT
		export GOMODCACHE="$scratch/mod" GOCACHE="$scratch/cache"
	fi
	go build -o "$BIN/gonb" github.com/janpfeifer/gonb
	go build -o "$BIN/goimports" golang.org/x/tools/cmd/goimports
	go build -C tools/gopls -o "$BIN/gopls" golang.org/x/tools/gopls
)
if [[ -x "$BIN/gonb" && -x "$BIN/goimports" && -x "$BIN/gopls" && "$(cat "$BIN/.kgviz-stamp" 2>/dev/null)" == "$want" ]]; then
	step_end "go tools" "up to date"
elif cached; then
	for t in "${TOOLS[@]}"; do cp -f "$TOOLS_CACHE/$t" "$BIN/$t"; done
	echo "$want" >"$BIN/.kgviz-stamp"
	step_end "go tools" "copied from the tools cache ${TOOLS_CACHE/#"$HOME"/\~} (built by an earlier clone)"
else
	long "building gonb, goimports and gopls from source (go build; gopls is most of it)" \
		"10-14 min on 2 cores with cold Go caches, 1-3 min with warm ones" build_go_tools
	echo "$want" >"$BIN/.kgviz-stamp"
	kept=""
	if [[ -n "$TOOLS_CACHE" ]] && mkdir -p "$(dirname "$TOOLS_CACHE")" && tmp="$(mktemp -d "$TOOLS_CACHE.tmp.XXXXXX")"; then
		for t in "${TOOLS[@]}"; do cp "$BIN/$t" "$tmp/$t"; done
		if mv -T "$tmp" "$TOOLS_CACHE" 2>/dev/null; then kept=", kept in ${TOOLS_CACHE/#"$HOME"/\~} for the next clone"; else rm -rf "$tmp"; fi
	fi
	step_end "go tools" "built $(go list -m -f '{{.Path}} {{.Version}}' github.com/janpfeifer/gonb) + goimports + gopls $(go list -C tools/gopls -m -f '{{.Version}}' golang.org/x/tools/gopls)$kept"
fi

summary() {
	say "done in $(fmt_ms "$(ms_since "$T0")")"
	for line in "${SUMMARY[@]}"; do say "  $line"; done
}
# The Dockerfile makes steps 1-3 a layer of their own (they depend only on the locks, go.mod and go.sum), so that
# a change elsewhere in the repo does not rebuild the venv and the Go tools.
if [[ "${KGVIZ_STOP_AFTER:-}" == gotools ]]; then
	summary
	say "stopped after the go tools (KGVIZ_STOP_AFTER=gotools)"
	exit 0
fi

# ---------------------------------------------------------------------------------------------------------
# 4. GoNB kernel inside the venv (cheap; always re-done so a moved work tree gets fixed paths).
step_begin "4/5 GoNB kernel (.venv/share/jupyter/kernels/gonb): under a second"
KDATA="$VENV/share/jupyter"
KDIR="$KDATA/kernels/gonb"
# gonb --install looks for goimports and gopls on PATH (--force_deps: install even if one is missing).
PATH="$BIN:$GO_BIN_DIR:$PATH" JUPYTER_DATA_DIR="$KDATA" \
	"$BIN/gonb" --install --force_deps --go_work="$ROOT" --logtostderr >"$VENV/.gonb-install.log" 2>&1 ||
	{ cat "$VENV/.gonb-install.log" >&2; die "gonb --install failed"; }
# Make go and goimports reachable however Jupyter was started (jupyter_client expands ${PATH}).
# Always run .bin/gonb itself: gonb --install copies its binary into the kernel dir when it lives under
# /tmp (a clone there would then keep a stale copy after go.mod moves gonb).
rm -f "$KDIR/gonb" "$KDIR/gonb~"
# Go modules come from the local module cache only (a file:// GOPROXY; GOSUMDB off because everything in it was
# verified when setup downloaded it): a cell importing go-echarts or gonbui directly resolves the versions go.mod
# pins, offline, instead of asking the network for the newest ones.
# GoNB starts gopls with every kernel, and gopls loads the whole workspace (the repo) in the background: it runs at
# the lowest CPU priority, so that on a 1-CPU pod the first cells do not wait for it.
mkdir -p "$BIN/kernel"
printf '#!/bin/sh\n# gopls for the GoNB kernel (scripts/setup.sh), at the lowest CPU priority.\nexec nice -n 19 "%s" "$@"\n' \
	"$BIN/gopls" >"$BIN/kernel/gopls"
chmod 0755 "$BIN/kernel/gopls"
# gonb v0.11.4 logs every step of a kernel at INFO to stderr, which Jupyter shows in its log: three self-test lines
# at every start ("Info message", "Warning message", "Error message": main.go setUpKlog passes a nil *os.File as
# an io.Writer, so it thinks --extra_log is set) and a goroutine stack trace at every shutdown ("killing gopls:",
# an INFO line). None is a failure. The kernel logs to stderr only at ERROR and above (-logtostderr=false
# -stderrthreshold=ERROR; the rest goes to -log_file=/dev/null), and this wrapper drops the self-test's one
# ERROR line; real errors still reach Jupyter's log. tools/test_kernel_log.py checks a start, a cell and a shutdown.
printf '%s\n' '#!/usr/bin/env bash' \
	'# gonb for Jupyter (scripts/setup.sh): its start-up self-test line "Error message" (gonb main.go:191) is not an error.' \
	"exec \"$BIN/gonb\" \"\$@\" 2> >(exec grep --line-buffered -v -E 'main\\.go:19[01]\\] .*(Warning|Error) message\$' >&2)" \
	>"$BIN/kernel/gonb"
chmod 0755 "$BIN/kernel/gonb"
KGVIZ_KERNEL_PATH="$BIN/kernel:$BIN:$GO_BIN_DIR" KGVIZ_GONB="$BIN/kernel/gonb" KGVIZ_GOPROXY="file://$(go env GOMODCACHE)/cache/download" \
	"$VPY" - "$KDIR/kernel.json" <<'PY'
import json, os, sys
p = sys.argv[1]
k = json.load(open(p))
k["argv"][0] = os.environ["KGVIZ_GONB"]
# gonb's log: to stderr (Jupyter's log) only at ERROR and above; see the wrapper above.
quiet = {"-logtostderr": "false", "-alsologtostderr": "false", "-stderrthreshold": "ERROR", "-log_file": "/dev/null"}
k["argv"] = [a for a in k["argv"] if a.split("=", 1)[0] not in quiet] + [f"{f}={v}" for f, v in quiet.items()]
env = k.setdefault("env", {})
env["PATH"] = os.environ["KGVIZ_KERNEL_PATH"] + ":${PATH}"
env["GOPROXY"] = os.environ["KGVIZ_GOPROXY"]
env["GOSUMDB"] = "off"
k["display_name"] = "Go (gonb)"
json.dump(k, open(p, "w"), indent=1)
PY
# Server/Lab defaults for every Jupyter started from this venv (make lab, Binder's `jupyter lab`/`notebook`):
# gonb is the default kernel ("New notebook" opens Go), no announcement/update lookups, no "fetch news?" prompt,
# and a read-only extension manager (nothing to install from PyPI in a class). They must be in
# jupyter_server_config.json itself: traitlets reads no jupyter_server_config.d/*.json (only the server's
# extension switches come from there), so settings put there never took effect.
# expose_app_in_browser (Lab and Notebook 7): window.jupyterapp, through which a prediction's check cell writes
# the first answer into the notebook's metadata (exercises/firstanswer.go; scripts of outputs the kernel sent in
# this session run anyway, with the page's rights: exposing the app gives them nothing they could not reach).
mkdir -p "$VENV/etc/jupyter" "$KDATA/lab/settings"
rm -f "$VENV/etc/jupyter/jupyter_server_config.d/kgviz.json"
cat >"$VENV/etc/jupyter/jupyter_server_config.json" <<'JSON'
{
  "MappingKernelManager": {
    "default_kernel_name": "gonb"
  },
  "LabApp": {
    "news_url": null,
    "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
    "extension_manager": "readonly",
    "expose_app_in_browser": true
  },
  "JupyterNotebookApp": {
    "expose_app_in_browser": true
  }
}
JSON
cat >"$KDATA/lab/settings/overrides.json" <<'JSON'
{
  "@jupyterlab/apputils-extension:notification": { "fetchNews": "false", "checkForUpdates": false }
}
JSON
step_end "kernel" "gonb -> ${KDIR#"$ROOT"/} (--go_work=$ROOT)"

# ---------------------------------------------------------------------------------------------------------
# 5. Go module cache + build cache warm-up. Compile problems here are reported, not fatal: setup's job is
# the environment; `make test-go` is where the code is judged.
step_begin "5/5 go caches (mod download, build, test compile): 3-5 min the first time on 2 cores (up to 10 when busy), 10-30 s after"
if [[ "${KGVIZ_SKIP_WARM:-0}" == 1 ]]; then
	step_end "go warm" "skipped (KGVIZ_SKIP_WARM=1)"
elif [[ "$PROFILE" == image ]]; then
	# Only what a notebook builds: the go.mod files of the whole module graph (the kernel's `go get` reads
	# them, offline) and the sources of the packages notebooks import; no test binaries. Then the module zips
	# (the extracted sources are what builds read) and gonb's 64 MB of docs go. The Dockerfile then executes
	# a notebook, which fills the build cache with exactly what a kernel needs.
	long "go list -m all" "under a minute" go list -m all >/dev/null
	long "compiling what notebooks import" "1-3 min" go build ./kgviz ./charts ./exercises github.com/janpfeifer/gonb/gonbui github.com/go-echarts/go-echarts/v2/...
	modcache="$(go env GOMODCACHE)"
	find "$modcache/cache/download" -name '*.zip' -delete
	gonb_dir="$(go list -m -f '{{.Dir}}' github.com/janpfeifer/gonb)"
	chmod -R u+w "$gonb_dir" && rm -rf "$gonb_dir/docs"
	step_end "go warm" "module cache $(du -sh "$modcache" | cut -f1), build cache $(du -sh "$(go env GOCACHE)" | cut -f1)"
else
	# every module in go.mod: notebooks' temp modules then resolve offline
	long "go mod download" "under a minute" go mod download
	warm="ok"
	long "go build ./..." "1-2 min the first time" go build ./... || { warm="go build ./... FAILED (see above)"; warn "$warm"; }
	long "compiling the test binaries (go test -run '^\$' ./...)" "2-3 min the first time" go test -run '^$' ./... >/dev/null ||
		{ warm="test compile FAILED (run 'go test ./...')"; warn "$warm"; }
	# Packages notebooks import directly (GoNB compiles every cell as a new main package): compiling them
	# now makes a fresh kernel's first chart cell take ~1 s instead of ~30 s.
	long "compiling gonbui and go-echarts (a kernel's first chart)" "under a minute" \
		go build github.com/janpfeifer/gonb/gonbui github.com/go-echarts/go-echarts/v2/charts \
		github.com/go-echarts/go-echarts/v2/opts github.com/go-echarts/go-echarts/v2/components ||
		warn "could not pre-compile gonbui/go-echarts (are they still in go.mod?)"
	step_end "go warm" "$warm"
fi

# ---------------------------------------------------------------------------------------------------------
summary
if [[ "$PROFILE" == dev ]]; then
	say "disk: .venv $(du -sh "$VENV" 2>/dev/null | cut -f1), .bin $(du -sh "$BIN" 2>/dev/null | cut -f1); caches outside the work tree:" \
		"Go tools ${TOOLS_CACHE%/tools/*} ('make clean-caches' removes kgviz's own), Go's shared build and module caches $(go env GOCACHE) and $(go env GOMODCACHE)"
fi
say "next: 'make lab' (JupyterLab on notebooks/), 'make test' (everything)"
