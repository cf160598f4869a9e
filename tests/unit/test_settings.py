from typing import Annotated, ClassVar

import pytest

from citeproof.settings import Settings, SettingsError, doc, load


class Example(Settings, frozen=True, kw_only=True):
    ENV_PREFIX: ClassVar[str] = "EX_"

    host: Annotated[str, doc("Address the API listens on; a list of words in a description.")] = (
        "127.0.0.1"
    )
    port: Annotated[int, doc("Port.", ge=1)] = 8000
    enabled: Annotated[bool, doc("A flag.")] = False
    names: Annotated[list[str], doc("Comma-separated.")] = []
    maybe: Annotated[float | None, doc("Optional number.")] = None


def test_values_are_coerced_by_type_not_by_description() -> None:
    got = load(
        Example,
        {"EX_HOST": "0.0.0.0", "EX_PORT": "9000", "EX_ENABLED": "yes", "EX_NAMES": "a, b",
         "EX_MAYBE": "2.5"},
    )  # fmt: skip
    assert (got.host, got.port, got.enabled, got.names, got.maybe) == (
        "0.0.0.0", 9000, True, ["a", "b"], 2.5,
    )  # fmt: skip


def test_invalid_value_names_the_struct() -> None:
    with pytest.raises(SettingsError, match="Example"):
        load(Example, {"EX_PORT": "0"})


def test_stage_prefix_overrides_general_value() -> None:
    got = load(Example, {"EX_PORT": "1", "STAGE_PORT": "2"}, prefixes=("STAGE_",))
    assert got.port == 2
