#!/usr/bin/env bash
# tools/image/install-deps.sh — Debian packages the image test needs (make test-image, .ci/run): podman with runc
# (crun refuses this machine's cgroup setup), mmdebstrap for the base rootfs, uidmap. Installs only what is
# missing, as root with apt-get; otherwise says what to install and exits 0 (test_image.py then falls back).
set -euo pipefail
pkgs=(podman runc mmdebstrap uidmap)
need=()
for p in "${pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p"); done
if [[ ${#need[@]} -eq 0 ]]; then
	echo "image deps: ${pkgs[*]} installed"
	exit 0
fi
if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
	echo "image deps: missing ${need[*]} (not root or no apt-get): install them to build the image" >&2
	exit 0
fi
echo "image deps: apt-get install ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
