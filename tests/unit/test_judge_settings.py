"""Judge settings: defaults, env parsing and clear errors."""

from __future__ import annotations

import pytest

from citeproof.judge.settings import (
    DEFAULT_LLM_CONCURRENCY,
    DEFAULT_LOCAL_MODEL_PATH,
    load_judge_settings,
)
from citeproof.settings import SettingsError


def test_defaults_are_the_offline_judge() -> None:
    settings = load_judge_settings({})
    assert settings.backend == "local"
    assert settings.llm_concurrency == DEFAULT_LLM_CONCURRENCY
    assert settings.resolved_local_model_path() == DEFAULT_LOCAL_MODEL_PATH
    assert DEFAULT_LOCAL_MODEL_PATH.is_file()


def test_env_values_are_parsed() -> None:
    settings = load_judge_settings(
        {
            "CITEPROOF_JUDGE_BACKEND": "llm",
            "CITEPROOF_JUDGE_LLM_BASE_URL": "https://api.example.org/v1",
            "CITEPROOF_JUDGE_LLM_TIMEOUT_S": "12.5",
            "CITEPROOF_JUDGE_LLM_MAX_RETRIES": "0",
            "CITEPROOF_JUDGE_LLM_SYSTEM_IN_USER": "yes",
            "CITEPROOF_JUDGE_LOCAL_ABSTAIN_BELOW": "0.6",
        }
    )
    assert settings.backend == "llm"
    assert settings.llm_timeout_s == 12.5 and settings.llm_max_retries == 0
    assert settings.llm_system_in_user is True and settings.local_abstain_below == 0.6


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"CITEPROOF_JUDGE_BACKEND": "gpt"}, "backend"),
        ({"CITEPROOF_JUDGE_LLM_CONCURRENCY": "0"}, "llm_concurrency"),
        ({"CITEPROOF_JUDGE_LLM_TIMEOUT_S": "soon"}, "llm_timeout_s"),
        (
            {"CITEPROOF_JUDGE_BACKEND": "llm", "CITEPROOF_JUDGE_LLM_BASE_URL": "localhost:8080"},
            "CITEPROOF_JUDGE_LLM_BASE_URL",
        ),
        ({"CITEPROOF_JUDGE_LOCAL_ABSTAIN_BELOW": "1.5"}, "CITEPROOF_JUDGE_LOCAL_ABSTAIN_BELOW"),
        (
            {"CITEPROOF_JUDGE_LLM_BACKOFF_BASE_S": "10", "CITEPROOF_JUDGE_LLM_BACKOFF_MAX_S": "1"},
            "CITEPROOF_JUDGE_LLM_BACKOFF_MAX_S",
        ),
    ],
)
def test_bad_values_are_rejected_with_the_variable_named(env: dict, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_judge_settings(env)
