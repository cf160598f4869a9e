"""`citeproof check --judge/--llm-url/--llm-model/--ollama`: the judge of a local run without
environment variables, refused where it cannot be honoured."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from citeproof.cli import _judge


def parse(*words: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    _judge.register(parser)
    return parser.parse_args(list(words))


def test_no_option_changes_nothing() -> None:
    assert _judge.judge_env(parse(), {}, remote=False) == {}
    assert _judge.judge_env(parse(), {}, remote=True) == {}


def test_an_llm_endpoint() -> None:
    args = parse("--judge", "llm", "--llm-url", "http://127.0.0.1:8080/v1/", "--llm-model", "g")
    assert _judge.judge_env(args, {}, remote=False) == {
        "CITEPROOF_JUDGE_BACKEND": "llm",
        "CITEPROOF_JUDGE_LLM_BASE_URL": "http://127.0.0.1:8080/v1",
        "CITEPROOF_JUDGE_LLM_MODEL": "g",
    }
    # The URL and model alone imply the llm judge.
    implied = parse("--llm-url", "https://api.example.org/v1", "--llm-model", "m")
    assert _judge.judge_env(implied, {}, remote=False)["CITEPROOF_JUDGE_BACKEND"] == "llm"


def test_ollama_short_form() -> None:
    env = _judge.judge_env(parse("--ollama", "llama3.1"), {}, remote=False)
    assert env == {
        "CITEPROOF_JUDGE_BACKEND": "llm",
        "CITEPROOF_JUDGE_LLM_BASE_URL": _judge.OLLAMA_URL,
        "CITEPROOF_JUDGE_LLM_MODEL": "llama3.1",
    }


def test_the_key_comes_from_a_named_variable_never_the_command_line() -> None:
    args = parse("--ollama", "m", "--llm-key-env", "MY_KEY")
    env = _judge.judge_env(args, {"MY_KEY": "sk-1"}, remote=False)
    assert env["CITEPROOF_JUDGE_LLM_API_KEY"] == "sk-1"
    with pytest.raises(_judge.JudgeOptionsError, match=r"\$MY_KEY is not set"):
        _judge.judge_env(args, {}, remote=False)


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (("--judge", "llm"), "needs --llm-url"),
        (("--judge", "llm", "--llm-url", "127.0.0.1:8080"), "needs --llm-url"),
        (("--judge", "llm", "--llm-url", "http://h/v1"), "needs --llm-model"),
        (("--judge", "local", "--llm-model", "m"), "need --judge llm"),
        (("--ollama", "m", "--llm-url", "http://h/v1"), "cannot be combined"),
        (("--ollama", "m", "--judge", "local"), "cannot be combined"),
    ],
)
def test_contradictory_or_incomplete_options_are_refused(
    words: tuple[str, ...], message: str
) -> None:
    with pytest.raises(_judge.JudgeOptionsError, match=message):
        _judge.judge_env(parse(*words), {}, remote=False)


def test_a_deployed_api_keeps_its_own_judge() -> None:
    with pytest.raises(_judge.JudgeOptionsError, match="--api"):
        _judge.judge_env(parse("--ollama", "m"), {}, remote=True)
    assert _judge.judge_env(parse("--judge", "local"), {}, remote=False) == {
        "CITEPROOF_JUDGE_BACKEND": "local"
    }


def test_the_check_command_refuses_bad_judge_options_before_starting_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from citeproof.cli import main

    thesis = tmp_path / "thesis.md"
    thesis.write_text("A claim [1].\n\n# References\n\n1. A. Author. A title. 2020.\n")
    data_dir = tmp_path / "data"
    code = main(["check", str(thesis), "--judge", "llm", "--data-dir", str(data_dir)])
    assert code == 2
    assert "--judge llm needs --llm-url" in capsys.readouterr().err
    # Nothing was started: no database, no logs.
    assert not data_dir.exists()
    code = main(
        ["check", str(thesis), "--ollama", "m", "--api", "http://127.0.0.1:9", "--token", "t"]
    )
    assert code == 2
    assert "a deployed API (--api) judges with its own configuration" in capsys.readouterr().err
