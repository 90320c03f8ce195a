#!/usr/bin/env bash
# scripts/clean-caches.sh — `make clean-caches`: removes kgviz's own caches, outside the work tree, and nothing else.
#
#   ~/.cache/kgviz        Go tools built by scripts/setup.sh (gonb, goimports, gopls), reused by the next clone
#                         ($KGVIZ_CACHE)
#   ~/.cache/kgviz-grade  the grader's sandbox Go cache (kgviz grade)
#   /var/tmp/kgviz-image  make test-image's podman store, base image and bookworm rootfs ($KGVIZ_IMAGE_CACHE)
#
# Not touched: this work tree's .venv/, .bin/ and build/ (`make clean` removes build/; delete .venv and .bin by
# hand), and Go's own caches, shared with every other Go project (`go env GOCACHE GOMODCACHE`; `go clean -cache`
# and `go clean -modcache` empty them). A path that does not end in a kgviz-named folder is refused.
set -euo pipefail
cache_home="${XDG_CACHE_HOME:-$HOME/.cache}"
dirs=(
	"${KGVIZ_CACHE:-$cache_home/kgviz}"
	"$cache_home/kgviz-grade"
	"${KGVIZ_IMAGE_CACHE:-/var/tmp/kgviz-image}"
)
for d in "${dirs[@]}"; do # all checked before anything is removed
	case "$(basename "$d")" in
	kgviz | kgviz-*) ;;
	*)
		echo "clean-caches: refusing $d: not a kgviz cache (its folder must be named kgviz or kgviz-...); nothing removed" >&2
		exit 2
		;;
	esac
done
freed=0
for d in "${dirs[@]}"; do
	if [[ ! -e "$d" ]]; then
		echo "clean-caches: $d: not there"
		continue
	fi
	kb=$(du -sk "$d" 2>/dev/null | cut -f1 || echo 0)
	chmod -R u+w "$d" 2>/dev/null || true # Go module caches are read-only
	if rm -rf -- "$d"; then
		echo "clean-caches: removed $d ($((kb / 1024)) MB)"
		freed=$((freed + kb))
	else
		echo "clean-caches: could not remove all of $d (a podman mount still in use? run it again as root)" >&2
		exit 1
	fi
done
echo "clean-caches: $((freed / 1024)) MB freed. Go's shared caches: $(go env GOCACHE 2>/dev/null || echo '?'), $(go env GOMODCACHE 2>/dev/null || echo '?') (not touched)"
