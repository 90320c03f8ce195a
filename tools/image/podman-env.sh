# tools/image/podman-env.sh — sourced by the image scripts: a podman of the test's own (no daemon, root).
#
# Everything podman keeps lives under $KGVIZ_IMAGE_CACHE (default /var/tmp/kgviz-image, outside the work tree
# so that fresh clones share it): its own containers.conf (runc, cgroupfs, explicit ulimits: this machine's
# hard limits cannot be raised and crun refuses its cgroup setup), its own image store, and the cached
# bookworm rootfs tarballs. Nothing here touches the machine's default podman configuration or storage.
KGVIZ_IMAGE_CACHE="${KGVIZ_IMAGE_CACHE:-/var/tmp/kgviz-image}"
export KGVIZ_IMAGE_CACHE
mkdir -p "$KGVIZ_IMAGE_CACHE/conf" "$KGVIZ_IMAGE_CACHE/storage" "$KGVIZ_IMAGE_CACHE/run" "$KGVIZ_IMAGE_CACHE/tmp"
cat >"$KGVIZ_IMAGE_CACHE/conf/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
log_driver = "k8s-file"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$KGVIZ_IMAGE_CACHE/run/events.log"
image_parallel_copies = 2
[network]
network_backend = "cni"
CONF
cat >"$KGVIZ_IMAGE_CACHE/conf/storage.conf" <<CONF
[storage]
driver = "overlay"
graphroot = "$KGVIZ_IMAGE_CACHE/storage"
runroot = "$KGVIZ_IMAGE_CACHE/run/storage"
CONF
export CONTAINERS_CONF="$KGVIZ_IMAGE_CACHE/conf/containers.conf"
export CONTAINERS_STORAGE_CONF="$KGVIZ_IMAGE_CACHE/conf/storage.conf"
# podman build keeps its scratch here (not in a small /var/tmp or /tmp of another user)
export TMPDIR="$KGVIZ_IMAGE_CACHE/tmp"
