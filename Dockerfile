# kgviz on JupyterLab with the GoNB Go kernel: the students' image. Binder (repo2docker) builds this file as it
# is; locally:
#   docker build -t kgviz . && docker run --rm -p 8888:8888 kgviz
# It sets the repo up with the same scripts/setup.sh as a developer machine and CI (KGVIZ_PROFILE=image: JupyterLab,
# Notebook, the GoNB kernel and gopls only; no test tools, no browser).
# Binder's rules it follows: a tagged base image, user jovyan with uid 1000 runs the server, the repo is COPY'd and
# owned by that user, and the ENTRYPOINT execs the command Binder passes (its `python3 -c` launcher, which runs
# `jupyter lab --ip=0.0.0.0 --port=... --ServerApp.token=...`).
# The class builds it from the students' repository that `kgviz release` writes (no answers in it: no solutions/,
# course/ or instructor guide); built in the course repository, .dockerignore keeps those out, and the build
# fails if one got in. The same image runs as a JupyterHub single-user server (`jupyterhub-singleuser`, Zero to
# JupyterHub: docs/deploy-jupyterhub.md). `make test-image` builds it from a release and runs it both ways.

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

# System packages (root): Debian's Python 3.11 for the venv; bubblewrap for `kgviz grade` run inside the image (the
# teachers' route on macOS/Windows). Nothing for tests: browsers stay on the dev machines.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv bubblewrap \
 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid ${NB_UID} --shell /bin/bash ${NB_USER} \
 && mkdir -p ${KGVIZ_REPO} && chown -R ${NB_UID}:${NB_UID} ${HOME}

USER ${NB_USER}
WORKDIR ${KGVIZ_REPO}
ENV PATH=${KGVIZ_REPO}/.venv/bin:${KGVIZ_REPO}/.bin:${GOPATH}/bin:/usr/local/go/bin:${PATH}

# The one setup path (scripts/setup.sh, image profile), in two layers. First what depends only on the locks and
# go.mod: the venv from tools/requirements-image.txt, gonb/goimports (go.mod) and gopls (tools/gopls/go.mod), built
# with throw-away Go caches. A change anywhere else in the repo reuses this layer.
COPY --chown=${NB_UID}:${NB_UID} scripts/setup.sh scripts/progress.sh ${KGVIZ_REPO}/scripts/
COPY --chown=${NB_UID}:${NB_UID} go.mod go.sum ${KGVIZ_REPO}/
COPY --chown=${NB_UID}:${NB_UID} tools/requirements-image.txt ${KGVIZ_REPO}/tools/
COPY --chown=${NB_UID}:${NB_UID} tools/gopls/go.mod tools/gopls/go.sum ${KGVIZ_REPO}/tools/gopls/
RUN KGVIZ_SKIP_APT=1 KGVIZ_PROFILE=image KGVIZ_STOP_AFTER=gotools bash scripts/setup.sh

# Then the repo, owned by the user (COPY --chown: a `chown -R` would copy the whole tree into one more layer).
COPY --chown=${NB_UID}:${NB_UID} . ${KGVIZ_REPO}
USER root
RUN install -m 0755 ${KGVIZ_REPO}/scripts/docker-entrypoint.sh /usr/local/bin/kgviz-entrypoint \
 && if [ -e ${KGVIZ_REPO}/solutions ] || [ -e ${KGVIZ_REPO}/course ] || [ -e ${KGVIZ_REPO}/docs/instructor-guide.md ] \
       || [ -e ${KGVIZ_REPO}/kgviz/listener_example_test.go ]; then \
        echo "the image must not carry answers: build it from a release (kgviz release), or keep .dockerignore's answers out" >&2; exit 1; \
    fi
USER ${NB_USER}

# The rest of setup: the GoNB kernel registered in the venv with --go_work=<repo> (kgviz imports from a notebook
# in any folder), gonb the default kernel, and only the Go modules notebooks build.
RUN KGVIZ_SKIP_APT=1 KGVIZ_PROFILE=image bash scripts/setup.sh \
 && grep -q -- "-go_work=${KGVIZ_REPO}" .venv/share/jupyter/kernels/gonb/kernel.json

# Warm the Go build cache the way a student does: execute 00-start-here (its untouched exercise fails, as it
# must), then drop the executed copy. The entrypoint keeps this cache valid however old the image gets.
RUN .venv/bin/python tools/nbrun.py notebooks/00-start-here.ipynb \
 && rm -rf build ${HOME}/.local/share/jupyter/runtime

EXPOSE 8888
ENTRYPOINT ["/usr/local/bin/kgviz-entrypoint"]
CMD ["jupyter", "lab", "--ip=0.0.0.0", "--port=8888", "--no-browser", "--ServerApp.default_url=/lab/tree/notebooks"]
USER ${NB_USER}
