"""Conversion of asyncpg records into response structs."""

from __future__ import annotations

from typing import TypeVar

import asyncpg
import msgspec

T = TypeVar("T", bound=msgspec.Struct)


def to_struct(cls: type[T], row: asyncpg.Record) -> T:
    return msgspec.convert(dict(row), cls)


def to_structs(cls: type[T], rows: list[asyncpg.Record]) -> list[T]:
    return [to_struct(cls, row) for row in rows]
