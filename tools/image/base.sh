#!/usr/bin/env bash
# tools/image/base.sh — make the Dockerfile's base image, golang:1.26.8-bookworm, locally, under the same tag.
#
# No registry of images can be reached from here, so the image test builds the official image's equivalent from
# Debian's packages and the Go module proxy:
#   1. a bookworm rootfs: `mmdebstrap --variant=minbase` (what the official debian:bookworm image is) with the
#      packages that buildpack-deps:bookworm-curl, buildpack-deps:bookworm-scm and golang:*-bookworm add;
#      cached as a tarball keyed by its inputs (suite, mirrors, packages), so a second run takes no time;
#   2. `podman import` of it, plus the Go toolchain of the module proxy
#      (golang.org/toolchain@v0.0.1-go$GO_VERSION.linux-amd64, execute bits restored as the go command itself
#      does when it switches toolchains) at /usr/local/go, and the official image's ENV, WORKDIR and CMD;
#   3. one more layer with this machine's extra CA certificates (/usr/local/share/ca-certificates: the TLS proxy
#      in front of the registries) and a pip.conf that uses the system store. It belongs to the local base only:
#      the Dockerfile never sees a certificate, exactly as on Binder.
# The result is tagged docker.io/library/golang:$GO_VERSION-bookworm and labelled with the hash of all inputs;
# an image with the same label is reused as it is.
#
#   bash tools/image/base.sh          prints the tag; KGVIZ_IMAGE_CACHE (tools/image/podman-env.sh) holds the cache
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tools/image/podman-env.sh
source "$HERE/podman-env.sh"

GO_VERSION="${GO_VERSION:-1.26.8}"
SUITE=bookworm
TAG="docker.io/library/golang:${GO_VERSION}-${SUITE}"
ARCH=amd64
# buildpack-deps:bookworm-curl, buildpack-deps:bookworm-scm, then golang:1.26-bookworm's own (cgo) packages.
PACKAGES="ca-certificates curl gnupg netbase sq wget git mercurial openssh-client subversion procps g++ gcc libc6-dev make pkg-config"
MIRRORS=(
	"deb http://deb.debian.org/debian $SUITE main"
	"deb http://deb.debian.org/debian $SUITE-updates main"
	"deb http://deb.debian.org/debian-security $SUITE-security main"
)

log() { printf '[base] %s\n' "$*" >&2; }
hash_str() { sha256sum | cut -c1-16; }

[[ "$(dpkg --print-architecture 2>/dev/null || echo "$ARCH")" == "$ARCH" ]] || { log "only $ARCH is supported"; exit 1; }
for tool in podman mmdebstrap go; do
	command -v "$tool" >/dev/null || { log "needs $tool (apt-get install podman runc mmdebstrap uidmap; Go on PATH)"; exit 1; }
done

rootfs_key="$(printf '%s\n' "$SUITE minbase $ARCH" "$PACKAGES" "${MIRRORS[@]}" | hash_str)"
rootfs="$KGVIZ_IMAGE_CACHE/rootfs-$SUITE-$rootfs_key.tar"

# The toolchain: the module proxy's zip, verified against the checksum database by `go mod download`.
tc_json="$(go mod download -json "golang.org/toolchain@v0.0.1-go${GO_VERSION}.linux-$ARCH")"
tc_dir="$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$tc_json")"
tc_sum="$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p' <<<"$tc_json")"
[[ -x "$tc_dir/bin/go" || -f "$tc_dir/bin/go" ]] || { log "no toolchain in $tc_dir"; exit 1; }

# The machine's own additions to its CA store (none on an ordinary machine: then the layer is empty).
ca_files=()
if [[ -d /usr/local/share/ca-certificates ]]; then
	while IFS= read -r -d '' f; do ca_files+=("$f"); done < <(find /usr/local/share/ca-certificates -name '*.crt' -type f -print0 | sort -z)
fi
ca_hash="$( { [[ ${#ca_files[@]} -gt 0 ]] && cat "${ca_files[@]}"; true; } | hash_str)"
image_key="$(printf '%s\n' "$rootfs_key" "$tc_sum" "$ca_hash" "$(sha256sum "$0" | cut -c1-16)" | hash_str)"

have="$(podman image inspect --format '{{ index .Labels "org.kgviz.base.key" }}' "$TAG" 2>/dev/null || true)"
if [[ "$have" == "$image_key" ]]; then
	log "$TAG is up to date (key $image_key)"
	echo "$TAG"
	exit 0
fi

t0=$(date +%s)
# A cached rootfs is a non-empty regular file (an interrupted or older run may have left a directory there).
if [[ ! -f "$rootfs" || ! -s "$rootfs" ]]; then
	log "mmdebstrap --variant=minbase $SUITE (+ $PACKAGES) -> $rootfs"
	rm -rf "$KGVIZ_IMAGE_CACHE"/rootfs-"$SUITE"-*.tar "$rootfs.part" # keep only the current one
	# --format=tar: mmdebstrap guesses the format from the name, and "*.tar.part" would make it a directory
	nice mmdebstrap --quiet --variant=minbase --format=tar --architectures="$ARCH" --include="${PACKAGES// /,}" \
		--aptopt='Acquire::Retries "3"' "$SUITE" "$rootfs.part" "${MIRRORS[@]}"
	mv "$rootfs.part" "$rootfs"
else
	log "rootfs cached: $rootfs"
fi

ctx="$(mktemp -d "$KGVIZ_IMAGE_CACHE/tmp/base-ctx.XXXXXX")"
trap 'rm -rf "$ctx"' EXIT
rootfs_img="localhost/kgviz-rootfs:$SUITE-$rootfs_key"
podman image exists "$rootfs_img" || podman import --quiet "$rootfs" "$rootfs_img" >/dev/null

# Go at /usr/local/go with the execute bits the module zip cannot carry (bin/, pkg/tool/, lib/*/go_*_*_exec).
mkdir -p "$ctx/go"
cp -a "$tc_dir/." "$ctx/go/"
chmod -R u+w,go-w,a+rX "$ctx/go"
find "$ctx/go/bin" "$ctx/go/pkg/tool" -type f -exec chmod 0755 {} +
find "$ctx/go/lib" -type f -name 'go_?*_?*_exec' -exec chmod 0755 {} + 2>/dev/null || true
rm -f "$ctx/go/go.mod" "$ctx/go/.info" 2>/dev/null || true # module-zip artefacts, not part of a Go release

mkdir -p "$ctx/ca"
[[ ${#ca_files[@]} -gt 0 ]] && cp "${ca_files[@]}" "$ctx/ca/"
cat >"$ctx/Containerfile" <<EOF
FROM $rootfs_img
# golang:$GO_VERSION-$SUITE (docker-library/golang): ENV, /usr/local/go, GOPATH=/go, WORKDIR /go
ENV PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
    GOLANG_VERSION=$GO_VERSION \\
    GOTOOLCHAIN=local \\
    GOPATH=/go
COPY go/ /usr/local/go/
# debian:$SUITE's apt settings (debuerreotype): no .deb files or package caches left in a layer, no translations
RUN printf '%s\\n' \\
      'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };' \\
      'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };' \\
      'Dir::Cache::pkgcache "";' 'Dir::Cache::srcpkgcache "";' >/etc/apt/apt.conf.d/docker-clean \\
 && echo 'Acquire::Languages "none";' >/etc/apt/apt.conf.d/docker-no-languages \\
 && echo 'Acquire::GzipIndexes "true";' >/etc/apt/apt.conf.d/docker-gzip-indexes \\
 && mkdir -p "\$GOPATH/src" "\$GOPATH/bin" && chmod -R 1777 "\$GOPATH" && go version
WORKDIR /go
CMD ["bash"]
# Local only (never in the project's Dockerfile): this machine's CA certificates, for its TLS proxy.
COPY ca/ /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null && printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >/etc/pip.conf
LABEL org.kgviz.base.key=$image_key
EOF
log "building $TAG (toolchain go$GO_VERSION $tc_sum, ${#ca_files[@]} extra CA file(s))"
old_id="$(podman image inspect --format '{{.Id}}' "$TAG" 2>/dev/null || true)"
podman build --quiet --pull=never --network=host --layers=false -t "$TAG" "$ctx" >/dev/null
if [[ -n "$old_id" && "$old_id" != "$(podman image inspect --format '{{.Id}}' "$TAG")" ]]; then
	podman rmi "$old_id" >/dev/null 2>&1 || true # the previous base, now untagged
fi
log "done in $(($(date +%s) - t0)) s: $(podman image inspect --format '{{.Size}}' "$TAG" | awk '{printf "%.0f MB", $1/1e6}')"
echo "$TAG"
