"""Typed settings loaded from environment variables.

Every setting is a field of a msgspec Struct with a default (a named constant in the
module that owns the component) and a description; `citeproof config` prints them all as
the README's configuration table, so the documentation cannot drift from the code.

Environment variable names are `<prefix><FIELD_NAME>` upper-cased, where the prefix is the
struct's `ENV_PREFIX` class variable. A field may name its variable explicitly through
`ENV_NAMES` (used for the conventional `DATABASE_URL`).
"""

from __future__ import annotations

import os
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import msgspec

T = TypeVar("T", bound=msgspec.Struct)


class SettingsError(ValueError):
    """A setting has a value that cannot be used; the message names the variable."""


def env_name(cls: type[msgspec.Struct], field: str, prefix: str | None = None) -> str:
    explicit: Mapping[str, str] = getattr(cls, "ENV_NAMES", {})
    if field in explicit and prefix is None:
        return explicit[field]
    base = prefix if prefix is not None else getattr(cls, "ENV_PREFIX", "CITEPROOF_")
    return f"{base}{field}".upper()


def load(
    cls: type[T], env: Mapping[str, str] | None = None, *, prefixes: tuple[str, ...] = ()
) -> T:
    """Build `cls` from the environment.

    `prefixes` are tried before the struct's own prefix, so a stage can override a queue
    setting (`CITEPROOF_PARSE_CONCURRENCY`) while sharing the general one
    (`CITEPROOF_CONCURRENCY`).
    """
    source = os.environ if env is None else env
    raw: dict[str, Any] = {}
    hints = typing.get_type_hints(cls, include_extras=True)
    for field in msgspec.structs.fields(cls):
        candidates = [env_name(cls, field.name, p) for p in prefixes]
        candidates.append(env_name(cls, field.name))
        for name in candidates:
            value = _value(source, name)
            if value is not None and value != "":
                raw[field.name] = _coerce(value, hints.get(field.name, field.type))
                break
    try:
        return msgspec.convert(raw, cls, strict=False)
    except msgspec.ValidationError as exc:
        raise SettingsError(f"invalid setting for {cls.__name__}: {exc}") from exc


# `NAME_FILE=/run/secrets/x` reads NAME from a file (Docker and Kubernetes secrets), so a
# secret need not sit in the environment; NAME itself wins when both are set.
FILE_SUFFIX = "_FILE"


def _value(source: Mapping[str, str], name: str) -> str | None:
    value = source.get(name)
    if value is not None and value != "":
        return value
    path = source.get(name + FILE_SUFFIX)
    if not path:
        return value
    try:
        # One trailing newline is the file's, not the secret's.
        return Path(path).read_text(encoding="utf-8").removesuffix("\n")
    except OSError as exc:
        raise SettingsError(f"{name}{FILE_SUFFIX}={path}: cannot read it ({exc})") from exc


def _coerce(value: str, annotation: Any) -> Any:
    """Turn an environment string into what the field's real type expects.

    The type is inspected structurally (Annotated and Optional unwrapped); matching on the
    annotation's text would also match words in the field's description.
    """
    kinds = _base_types(annotation)
    if kinds & {list, tuple, set, frozenset}:
        return [part.strip() for part in value.split(",") if part.strip()]
    if bool in kinds:
        return value.strip().lower() in {"1", "true", "yes", "on"}
    return value


def _base_types(annotation: Any) -> set[Any]:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _base_types(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        found: set[Any] = set()
        for arg in typing.get_args(annotation):
            found |= _base_types(arg)
        return found
    if origin is not None:
        return {origin}
    return {annotation}


def describe(cls: type[msgspec.Struct]) -> list[tuple[str, str, str]]:
    """(variable, default, description) for every field of `cls`."""
    rows = []
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)  # `cls` is a Struct class
    for field in info.fields:
        description = ""
        typ = field.type
        if isinstance(typ, msgspec.inspect.Metadata):
            description = (typ.extra_json_schema or {}).get("description", "") or ""
        default = field.default if field.default is not msgspec.NODEFAULT else ""
        if field.default_factory is not msgspec.NODEFAULT:
            default = field.default_factory()
        if isinstance(default, (list, tuple)):
            default = ",".join(str(x) for x in default)
        rows.append(
            (env_name(cls, field.name), "" if default is None else str(default), description)
        )
    return rows


def doc(description: str, **constraints: Any) -> msgspec.Meta:
    """Shorthand for a documented field: `Annotated[int, doc("...", ge=1)]`."""
    return msgspec.Meta(description=description, **constraints)


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Base class so that settings structs share configuration."""

    ENV_PREFIX: ClassVar[str] = "CITEPROOF_"
    # Fields holding credentials: `citeproof config --env` offers their NAME_FILE form.
    SECRET_FIELDS: ClassVar[frozenset[str]] = frozenset()
