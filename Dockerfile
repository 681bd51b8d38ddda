# The muggins image: every process of the site (muggins.cluster.topology)
# runs from it, `muggins serve` by default and `muggins project NAME` for a
# projector.  Build from the repository root:
#
#     docker build -t muggins:latest .
#
# deploy/compose.yaml and deploy/kubernetes/ run it; tests/deploy lints this
# file with hadolint and checks the facts below.  In containers the server
# URLs are always configured, so the embedded PostgreSQL and NATS that
# `pip install` brings along are never started.
#
# Both stages start from the same base so that the virtual environment built
# in the first runs unchanged in the second (same Python, same paths).  Pin
# it by digest (python:3.11-slim-bookworm@sha256:...) in a release pipeline.

FROM python:3.11-slim-bookworm AS builder

# mypyc compiles the rules engine (hatch_build.py) with the C compiler; the
# base image's own Python already carries its headers (Debian's python3-dev
# would be the headers of Debian's Python, not of this one).  DL3008 (pin
# apt versions) is ignored on purpose: a Debian security update replaces the
# pinned version and the build would break, and this stage is thrown away:
# the compiler never reaches the image that runs.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*

# A missing compiler fails the build instead of quietly installing the slower
# pure-Python engine.
ENV MUGGINS_REQUIRE_COMPILED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1

WORKDIR /src
COPY pyproject.toml hatch_build.py README.md ./
COPY shared/ shared/
COPY services/ services/
COPY replays/ replays/

# The wheel first (the build hook puts the compiled engine into it), then the
# wheel and its dependencies into the virtual environment the image runs.
RUN python -m venv /opt/muggins \
    && /opt/muggins/bin/pip wheel --no-deps --wheel-dir /tmp/wheels /src \
    && /opt/muggins/bin/pip install /tmp/wheels/muggins-*.whl \
    && rm -rf /tmp/wheels
# Refuse an image whose engine would run as pure Python after all.
RUN /opt/muggins/bin/python -I -c \
    "import sys; from muggins.infra.compiled import engine_is_compiled; sys.exit(0 if engine_is_compiled() else 'the rules engine is not compiled')"


FROM python:3.11-slim-bookworm AS runtime

# A fixed uid and gid, so that Kubernetes' runAsNonRoot can check it and
# volumes can be given to it (deploy/kubernetes uses 10001 too).
RUN groupadd --gid 10001 muggins \
    && useradd --uid 10001 --gid muggins --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin muggins

# Only the virtual environment: no compiler, no sources, no build tools.
COPY --from=builder /opt/muggins /opt/muggins

# Listen on every interface of the container, on the port the deploy files
# expect (topology.CONTAINER_PORT); log JSON lines for the log collector.
ENV PATH=/opt/muggins/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    MUGGINS_LISTEN_HOST=0.0.0.0 \
    MUGGINS_LISTEN_PORT=8000 \
    MUGGINS_LOG_FORMAT=json

USER 10001:10001
EXPOSE 8000

# Alive, not ready: /readyz also needs PostgreSQL and NATS, which the
# orchestrator checks itself.  Python, because the slim image has no curl.
# A projector serves no HTTP: compose turns this check off for it.
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"]

ENTRYPOINT ["muggins"]
CMD ["serve"]
