#!/bin/sh
# Entrypoint of the kgviz image (Dockerfile). Binder starts the image as `jupyter notebook --ip ... --port ...`
# with its own arguments, so this only makes sure the venv and .bin come first on PATH and then runs
# exactly what it was given.
set -e
REPO="${KGVIZ_REPO:-$HOME/kgviz}"
PATH="$REPO/.venv/bin:$REPO/.bin:$PATH"
export PATH
exec "$@"
