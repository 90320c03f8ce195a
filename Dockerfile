# kgviz on JupyterLab with the GoNB Go kernel. Binder (repo2docker) builds this file as it is; locally:
#   docker build -t kgviz . && docker run --rm -p 8888:8888 kgviz
# It sets the repo up with the same scripts/setup.sh as a developer machine and CI.
# Binder's rules it follows: a tagged base image, user jovyan with uid 1000 runs the server, the repo is
# COPY'd and owned by that user, and the ENTRYPOINT execs the command Binder passes.

# Debian bookworm (as on the dev/CI machines) with Go 1.26 (go.mod: go 1.26).
FROM golang:1.26.8-bookworm

ARG NB_USER=jovyan
ARG NB_UID=1000
ENV USER=${NB_USER} \
    NB_UID=${NB_UID} \
    HOME=/home/${NB_USER} \
    KGVIZ_REPO=/home/${NB_USER}/kgviz \
    GOPATH=/home/${NB_USER}/go \
    GOTOOLCHAIN=local \
    GOFLAGS=-buildvcs=false \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SHELL=/bin/bash

# System packages (root): Python for the venv; Chromium + a font for browser tests and screenshots.
# scripts/setup.sh would install chromium itself as root, but runs as jovyan below (KGVIZ_SKIP_APT=1).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        python3 python3-venv make chromium fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid ${NB_UID} --shell /bin/bash ${NB_USER}

COPY . ${KGVIZ_REPO}
RUN chown -R ${NB_UID}:${NB_UID} ${HOME} \
 && install -m 0755 ${KGVIZ_REPO}/scripts/docker-entrypoint.sh /usr/local/bin/kgviz-entrypoint

USER ${NB_USER}
WORKDIR ${KGVIZ_REPO}
ENV PATH=${KGVIZ_REPO}/.venv/bin:${KGVIZ_REPO}/.bin:${GOPATH}/bin:/usr/local/go/bin:${PATH}

# The one setup path: venv + pinned Jupyter tools, gonb/goimports from go.mod, the GoNB kernel registered
# in the venv by `gonb --install --force_deps --go_work=<repo>`, Go module and build caches.
RUN KGVIZ_SKIP_APT=1 bash scripts/setup.sh \
 && grep -q -- "-go_work=${KGVIZ_REPO}" .venv/share/jupyter/kernels/gonb/kernel.json

# Warm the Go build cache the way a notebook does: execute one notebook (the smoke notebook, from build/,
# i.e. one level below the repo root like notebooks/), then drop the executed copy.
RUN mkdir -p build \
 && .venv/bin/python tools/nbrun.py --cwd build tools/testdata/smoke.ipynb \
 && rm -rf build

# Trust the course notebooks so their HTML/JS outputs (charts) render when opened.
RUN for d in notebooks exercises solutions; do \
        if ls "$d"/*.ipynb >/dev/null 2>&1; then jupyter trust "$d"/*.ipynb; fi; \
    done

EXPOSE 8888
ENTRYPOINT ["/usr/local/bin/kgviz-entrypoint"]
CMD ["jupyter", "lab", "--ip=0.0.0.0", "--port=8888", "--no-browser", "--ServerApp.default_url=/lab/tree/notebooks"]
USER ${NB_USER}
