#!/usr/bin/env bash
# scripts/setup.sh — the ONE way to set up a kgviz work tree. README, `make setup`, .ci/run and the
# Dockerfile all call this script. It is idempotent: a second run checks stamps and takes seconds.
#
# What it does (each step says whether it did work or found it already done):
#   1. system packages: Debian `chromium` + `fonts-dejavu-core` (only as root with apt-get, only when missing)
#   2. Python venv at .venv/ with the exact versions of tools/requirements.txt (JupyterLab, Notebook, nbclient,
#      nbconvert, Playwright-Python (never downloads browsers: we drive /usr/bin/chromium), pytest)
#   3. gonb + goimports built into .bin/ at the versions go.mod pins (its `tool` lines)
#   4. the GoNB kernel registered INSIDE the venv (.venv/share/jupyter/kernels/gonb), never in ~/.local;
#      its kernel.json puts .bin (goimports) and go's directory on PATH, and passes --go_work=<repo root>;
#      plus venv-level Jupyter settings (no news/update/extension lookups)
#   5. Go module download + build cache warm-up (go mod download, go build ./..., test binaries compiled)
#
# Environment knobs:
#   KGVIZ_SKIP_APT=1       never call apt-get (e.g. in the Dockerfile, where apt runs in its own layer)
#   KGVIZ_FORCE_APT=1      call apt-get install even if chromium is found (to check the apt path)
#   KGVIZ_SKIP_WARM=1      skip step 5
#   PYTHON=python3.11      interpreter used to create the venv (default: python3)
set -euo pipefail

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

# ---------------------------------------------------------------------------------------------------------
# 0. Go toolchain (required: the project is Go).
command -v go >/dev/null 2>&1 || die "go is not on PATH (need Go >= $(sed -n 's/^go //p' go.mod))"
GO_BIN_DIR="$(dirname "$(command -v go)")"
GO_VERSION="$(go env GOVERSION)"
say "repo: $ROOT"
say "go:   $GO_VERSION ($GO_BIN_DIR)"

# ---------------------------------------------------------------------------------------------------------
# 1. System packages: Debian chromium (headless browser tests / screenshots) and a font for text in them.
step_begin "system packages (chromium, fonts-dejavu-core)"
need_pkgs=()
[[ -x /usr/bin/chromium ]] || need_pkgs+=(chromium)
[[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]] || need_pkgs+=(fonts-dejavu-core)
if [[ "${KGVIZ_FORCE_APT:-0}" == 1 ]]; then need_pkgs=(chromium fonts-dejavu-core); fi
if [[ ${#need_pkgs[@]} -eq 0 ]]; then
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
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
	step_end "apt" "installed ${need_pkgs[*]} ($(/usr/bin/chromium --version 2>/dev/null | head -1))"
fi

# ---------------------------------------------------------------------------------------------------------
# 2. Python venv with pinned tools.
step_begin "python venv (.venv) from tools/requirements.txt"
PYTHON="${PYTHON:-python3}"
command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found (need CPython >= 3.10 with the venv module)"
VENV="$ROOT/.venv"
VPY="$VENV/bin/python"
py_id="$("$PYTHON" -c 'import sys,platform; print(sys.version.split()[0], platform.machine())')"
want="$(hash_of tools/requirements.txt) $py_id"
SANITY='import importlib.util as u, sys
sys.exit(any(u.find_spec(m) is None for m in ("jupyterlab", "notebook", "nbclient", "nbconvert", "nbformat",
    "jupyter_server", "bleach", "anyio", "playwright", "pytest")))'
if [[ -x "$VPY" ]] && [[ "$(cat "$VENV/.kgviz-stamp" 2>/dev/null)" == "$want" ]] && "$VPY" -c "$SANITY" 2>/dev/null; then
	step_end "venv" "up to date (python $py_id)"
else
	if [[ ! -x "$VPY" ]] || ! "$VPY" -c 'pass' 2>/dev/null ||
		{ [[ -f "$VENV/.kgviz-stamp" ]] && ! "$VPY" -c "$SANITY" 2>/dev/null; }; then
		# missing, broken, or damaged under an up-to-date stamp: start over
		rm -rf "$VENV"
		"$PYTHON" -m venv "$VENV" || die "'$PYTHON -m venv' failed (on Debian: apt-get install python3-venv)"
	fi
	"$VPY" -m pip install --disable-pip-version-check --no-input -q -r tools/requirements.txt
	"$VPY" -m pip check >/dev/null || { "$VPY" -m pip check; die "pip check failed"; }
	echo "$want" >"$VENV/.kgviz-stamp"
	step_end "venv" "installed $(grep -c '==' tools/requirements.txt) pinned packages (python $py_id)"
fi

# ---------------------------------------------------------------------------------------------------------
# 3. gonb + goimports at the versions pinned by go.mod (tool lines), into .bin/.
step_begin "go tools (.bin/gonb, .bin/goimports)"
BIN="$ROOT/.bin"
mkdir -p "$BIN"
want="$(hash_of go.mod go.sum) $GO_VERSION"
if [[ -x "$BIN/gonb" && -x "$BIN/goimports" && "$(cat "$BIN/.kgviz-stamp" 2>/dev/null)" == "$want" ]]; then
	step_end "go tools" "up to date"
else
	go build -o "$BIN/gonb" github.com/janpfeifer/gonb
	go build -o "$BIN/goimports" golang.org/x/tools/cmd/goimports
	echo "$want" >"$BIN/.kgviz-stamp"
	step_end "go tools" "built $(go list -m -f '{{.Path}} {{.Version}}' github.com/janpfeifer/gonb) + goimports"
fi

# ---------------------------------------------------------------------------------------------------------
# 4. GoNB kernel inside the venv (cheap; always re-done so a moved work tree gets fixed paths).
step_begin "GoNB kernel (.venv/share/jupyter/kernels/gonb)"
KDATA="$VENV/share/jupyter"
KDIR="$KDATA/kernels/gonb"
# gonb --install looks for goimports on PATH; --force_deps because gopls (autocomplete only) is absent.
PATH="$BIN:$GO_BIN_DIR:$PATH" JUPYTER_DATA_DIR="$KDATA" \
	"$BIN/gonb" --install --force_deps --go_work="$ROOT" --logtostderr >"$VENV/.gonb-install.log" 2>&1 ||
	{ cat "$VENV/.gonb-install.log" >&2; die "gonb --install failed"; }
# Make go and goimports reachable however Jupyter was started (jupyter_client expands ${PATH}).
# Always run .bin/gonb itself: gonb --install copies its binary into the kernel dir when it lives under
# /tmp (a clone there would then keep a stale copy after go.mod moves gonb).
rm -f "$KDIR/gonb" "$KDIR/gonb~"
KGVIZ_KERNEL_PATH="$BIN:$GO_BIN_DIR" KGVIZ_GONB="$BIN/gonb" "$VPY" - "$KDIR/kernel.json" <<'PY'
import json, os, sys
p = sys.argv[1]
k = json.load(open(p))
k["argv"][0] = os.environ["KGVIZ_GONB"]
k.setdefault("env", {})["PATH"] = os.environ["KGVIZ_KERNEL_PATH"] + ":${PATH}"
k["display_name"] = "Go (gonb)"
json.dump(k, open(p, "w"), indent=1)
PY
# Server/Lab defaults for every Jupyter started from this venv (make lab, Binder's `jupyter notebook`):
# no announcement/update/extension-manager lookups on the network, no "fetch news?" prompt.
mkdir -p "$VENV/etc/jupyter/jupyter_server_config.d" "$KDATA/lab/settings"
cat >"$VENV/etc/jupyter/jupyter_server_config.d/kgviz.json" <<'JSON'
{
  "LabApp": {
    "news_url": null,
    "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
    "extension_manager": "readonly"
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
step_begin "go caches (mod download, build, test compile)"
if [[ "${KGVIZ_SKIP_WARM:-0}" == 1 ]]; then
	step_end "go warm" "skipped (KGVIZ_SKIP_WARM=1)"
else
	go mod download # every module in go.mod: notebooks' temp modules then resolve offline
	warm="ok"
	go build ./... || { warm="go build ./... FAILED (see above)"; warn "$warm"; }
	go test -run '^$' ./... >/dev/null || { warm="test compile FAILED (run 'go test ./...')"; warn "$warm"; }
	# Packages notebooks import directly (GoNB compiles every cell as a new main package): compiling them
	# now makes a fresh kernel's first chart cell take ~1 s instead of ~30 s.
	go build github.com/janpfeifer/gonb/gonbui github.com/go-echarts/go-echarts/v2/charts \
		github.com/go-echarts/go-echarts/v2/opts github.com/go-echarts/go-echarts/v2/components ||
		warn "could not pre-compile gonbui/go-echarts (are they still in go.mod?)"
	step_end "go warm" "$warm"
fi

# ---------------------------------------------------------------------------------------------------------
total=$(ms_since "$T0")
say "done in $(fmt_ms "$total")"
for line in "${SUMMARY[@]}"; do say "  $line"; done
say "next: 'make lab' (JupyterLab on notebooks/), 'make test' (everything)"
