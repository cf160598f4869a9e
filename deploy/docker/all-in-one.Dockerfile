# syntax=docker/dockerfile:1.7
# citeproof on one box (a single Coolify service): the API and the parser, retriever and judge
# workers under one supervisor (`citeproof serve`), each still its own process. PostgreSQL stays
# outside (DATABASE_URL). The four per-service images remain the way to scale stages apart.
# Build from the repository root:
#   docker build -f deploy/docker/all-in-one.Dockerfile -t citeproof-all-in-one .

ARG PYTHON_IMAGE=python:3.11-slim-bookworm
ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

FROM ${PYTHON_IMAGE} AS build
ARG TORCH_VERSION
ARG TORCH_INDEX_URL
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH
# CPU-only torch first, from the PyTorch CPU index alone (the default index would pull the
# CUDA build); everything installed after it sees torch as satisfied.
RUN python -m venv /opt/venv \
    && pip install --index-url "${TORCH_INDEX_URL}" "torch==${TORCH_VERSION}"
WORKDIR /src
COPY requirements/constraints.txt requirements/parser-extra.txt requirements/
COPY shared/ shared/
COPY services/api/ services/api/
COPY services/parser/ services/parser/
COPY services/retriever/ services/retriever/
COPY services/judge/ services/judge/
# Non-editable installs: the runtime stage copies only /opt/venv. unstructured-inference goes in
# with --no-deps next to the packages its import needs, as in the parser image.
RUN pip install --constraint requirements/constraints.txt ./shared ./services/api \
        ./services/parser ./services/retriever ./services/judge \
        --requirement requirements/parser-extra.txt \
    && pip install --constraint requirements/constraints.txt --no-deps unstructured-inference

FROM ${PYTHON_IMAGE} AS runtime
# tini is PID 1: it forwards SIGTERM to the supervisor, which drains every service.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini=0.19.0-1+b3 \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 citeproof \
    && useradd --system --uid 10001 --gid citeproof --home-dir /home/citeproof \
       --create-home --shell /usr/sbin/nologin citeproof \
    && install -d -o citeproof -g citeproof -m 0700 /var/spool/citeproof
COPY --from=build /opt/venv /opt/venv
COPY migrations/ /app/migrations/
COPY deploy/docker/healthcheck.py /app/healthcheck.py
# The int8 ONNX embedding model is built once here, not at every start.
RUN /opt/venv/bin/python -m citeproof.embeddings.onnx_build --cache-dir /opt/citeproof/onnx
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
    CITEPROOF_API_HOST=0.0.0.0 \
    CITEPROOF_API_PORT=8000
WORKDIR /app
USER 10001:10001
EXPOSE 8000
# /readyz: the API answers, the migrations are applied and a worker of every stage is alive.
HEALTHCHECK --interval=15s --timeout=5s --start-period=120s --retries=4 \
    CMD ["python", "/app/healthcheck.py", "http://127.0.0.1:8000/readyz"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["citeproof", "serve"]
