# syntax=docker/dockerfile:1.7
# citeproof API image: HTTP API, web UI, reports, queue gauges. No torch, no unstructured.
# Build from the repository root:  docker build -f deploy/docker/api.Dockerfile -t citeproof-api .

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH
RUN python -m venv /opt/venv
WORKDIR /src
COPY requirements/constraints.txt requirements/constraints.txt
COPY shared/ shared/
COPY services/api/ services/api/
# Non-editable installs: the runtime stage copies only /opt/venv, never the sources.
RUN pip install --constraint requirements/constraints.txt ./shared ./services/api

FROM ${PYTHON_IMAGE} AS runtime
# tini is PID 1: it forwards SIGTERM so the service can drain, and reaps zombies.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini=0.19.0-1+b3 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 citeproof \
    && useradd --system --uid 10001 --gid citeproof --home-dir /home/citeproof \
       --create-home --shell /usr/sbin/nologin citeproof \
    # Upload spool (CITEPROOF_API_UPLOAD_SPOOL_DIR in compose): a volume mounted here inherits
    # this owner, so the non-root API can write it under a read-only root filesystem.
    && install -d -o citeproof -g citeproof -m 0700 /var/spool/citeproof
COPY --from=build /opt/venv /opt/venv
COPY migrations/ /app/migrations/
COPY deploy/docker/healthcheck.py /app/healthcheck.py
# Caches go to /tmp so the root filesystem can be mounted read-only. The API binds to
# 127.0.0.1 by default (safe on a laptop); in a container it must listen on every interface.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    XDG_CACHE_HOME=/tmp/cache \
    CITEPROOF_MIGRATIONS_DIR=/app/migrations \
    CITEPROOF_LOG_FORMAT=json \
    CITEPROOF_API_HOST=0.0.0.0 \
    CITEPROOF_API_PORT=8000
WORKDIR /app
USER 10001:10001
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=4 \
    CMD ["python", "/app/healthcheck.py", "http://127.0.0.1:8000/healthz"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["citeproof-api"]
