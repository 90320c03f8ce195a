#!/usr/bin/env bash
# scripts/lab.sh — JupyterLab from the project's venv, with the project's GoNB kernel. `make lab` runs it
# after scripts/setup.sh. Extra arguments go to `jupyter lab`.
#   LAB_IP   (default 127.0.0.1; use 0.0.0.0 to reach it from another machine — then keep the token!)
#   LAB_PORT (default 8888)   LAB_ROOT (default: the repo)   LAB_OPEN (default notebooks: folder shown first)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LAB_IP="${LAB_IP:-127.0.0.1}"
LAB_PORT="${LAB_PORT:-8888}"
LAB_ROOT="${LAB_ROOT:-$ROOT}"
LAB_OPEN="${LAB_OPEN:-notebooks}"
[[ -x "$ROOT/.venv/bin/jupyter" ]] || { echo "lab: no .venv yet; run 'make setup' (scripts/setup.sh) first" >&2; exit 1; }

# The kernel installed in .venv wins over a user-wide 'gonb' kernelspec; goimports is in .bin.
export JUPYTER_PATH="$ROOT/.venv/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
export PATH="$ROOT/.venv/bin:$ROOT/.bin:$PATH"

args=(--no-browser --ip="$LAB_IP" --port="$LAB_PORT" --ServerApp.port_retries=0 --ServerApp.root_dir="$LAB_ROOT")
if [[ -d "$LAB_ROOT/$LAB_OPEN" ]]; then args+=(--LabApp.default_url="/lab/tree/$LAB_OPEN"); fi
if [[ "$(id -u)" == 0 ]]; then args+=(--allow-root); fi
echo "lab: JupyterLab on http://$LAB_IP:$LAB_PORT/ serving $LAB_ROOT (open the URL with ?token=... printed below)"
exec "$ROOT/.venv/bin/jupyter" lab "${args[@]}" "$@"
