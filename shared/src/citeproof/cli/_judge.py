"""`citeproof check`'s judge options: which judge a local run uses, without environment variables.

    citeproof check thesis.pdf sources/ --judge llm --llm-url http://127.0.0.1:8080/v1 --llm-model m
    citeproof check thesis.pdf sources/ --ollama llama3.1        (a local Ollama, its /v1 API)

They become the judge service's settings (``CITEPROOF_JUDGE_*``) for the services this run
starts; a deployed API (``--api``) judges with its own configuration, so they are refused there.
The shared package cannot import the judge service, so the variable names are written here once.
"""

from __future__ import annotations

import argparse
from typing import Final

LOCAL: Final = "local"
LLM: Final = "llm"
JUDGES: Final = (LOCAL, LLM)
# Ollama's OpenAI-compatible API on its default port; it needs no key and takes the JSON schema.
OLLAMA_URL: Final = "http://127.0.0.1:11434/v1"
BACKEND_ENV: Final = "CITEPROOF_JUDGE_BACKEND"
LLM_URL_ENV: Final = "CITEPROOF_JUDGE_LLM_BASE_URL"
LLM_MODEL_ENV: Final = "CITEPROOF_JUDGE_LLM_MODEL"
LLM_KEY_ENV: Final = "CITEPROOF_JUDGE_LLM_API_KEY"


class JudgeOptionsError(ValueError):
    """A combination of judge options that cannot be honoured, with the reason."""


def register(parser: argparse.ArgumentParser) -> None:
    judge = parser.add_argument_group("judge (local runs)")
    judge.add_argument(
        "--judge", choices=JUDGES, default=None,
        help="local: the offline judge (default); llm: an OpenAI-compatible endpoint",
    )  # fmt: skip
    judge.add_argument(
        "--llm-url", default=None,
        help="the endpoint's API base URL up to /v1, e.g. http://127.0.0.1:8080/v1",
    )  # fmt: skip
    judge.add_argument("--llm-model", default=None, help="model name sent to the endpoint")
    judge.add_argument(
        "--llm-key-env", default=None, metavar="VAR",
        help="name of an environment variable holding the endpoint's API key (never the key)",
    )  # fmt: skip
    judge.add_argument(
        "--ollama", default=None, metavar="MODEL",
        help=f"shorthand for --judge llm --llm-url {OLLAMA_URL} --llm-model MODEL",
    )  # fmt: skip


def judge_env(args: argparse.Namespace, environ: dict[str, str], *, remote: bool) -> dict[str, str]:
    """The judge settings the options ask for, as the services' environment (empty: none)."""
    judge, url, model = args.judge, args.llm_url, args.llm_model
    if args.ollama:
        if judge == LOCAL or url:
            raise JudgeOptionsError("--ollama cannot be combined with --judge local or --llm-url")
        judge, url, model = LLM, OLLAMA_URL, model or args.ollama
    if judge is None and (url or model or args.llm_key_env):
        judge = LLM
    if judge is None:
        return {}
    if remote:
        raise JudgeOptionsError(
            "--judge, --llm-url, --llm-model and --ollama choose the judge of a local run; "
            "a deployed API (--api) judges with its own configuration"
        )
    if judge == LOCAL:
        if url or model:
            raise JudgeOptionsError("--llm-url and --llm-model need --judge llm")
        return {BACKEND_ENV: LOCAL}
    if not url or not url.startswith(("http://", "https://")):
        raise JudgeOptionsError("--judge llm needs --llm-url http(s)://HOST:PORT/v1")
    if not model or not model.strip():
        raise JudgeOptionsError("--judge llm needs --llm-model NAME")
    env = {BACKEND_ENV: LLM, LLM_URL_ENV: url.rstrip("/"), LLM_MODEL_ENV: model.strip()}
    if args.llm_key_env:
        key = environ.get(args.llm_key_env)
        if not key:
            raise JudgeOptionsError(f"--llm-key-env: ${args.llm_key_env} is not set")
        env[LLM_KEY_ENV] = key
    return env
