#!/bin/sh
# Entrypoint of the kgviz image (Dockerfile). Binder starts the image with its own command (a `python3 -c`
# launcher that execs `jupyter lab --ip ... --port ... --ServerApp.*=...`), so this puts the venv and .bin first
# on PATH, keeps the image's Go build cache and gopls cache valid, and then runs exactly what it was given.
set -e
REPO="${KGVIZ_REPO:-$HOME/kgviz}"
PATH="$REPO/.venv/bin:$REPO/.bin:$PATH"
export PATH
# Go deletes build-cache entries unused for 5 days when its last trim (GOCACHE/trim.txt) is over a day old. Binder
# keeps serving an image for weeks: without this, the first go command of a pod started a week after the build
# trims the cache the image was warmed with, and 00's first chart cell takes a minute instead of a second.
# Saying "trimmed just now" keeps every entry for the next 24 hours; entries a session uses get fresh times.
GOCACHE_DIR="${GOCACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/go-build}"
if [ -d "$GOCACHE_DIR" ] && [ -w "$GOCACHE_DIR" ]; then
	date +%s >"$GOCACHE_DIR/trim.txt" 2>/dev/null || true
fi
# gopls (started by every GoNB kernel) deletes its cache files older than 5 days; it has no trim.txt, so its
# files (a few MB) get a fresh time instead.
GOPLS_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/gopls"
if [ -d "$GOPLS_CACHE" ] && [ -w "$GOPLS_CACHE" ]; then
	find "$GOPLS_CACHE" -type f -exec touch -c {} + 2>/dev/null || true
fi
exec "$@"
