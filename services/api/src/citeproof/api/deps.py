"""Explicit dependency and parameter markers for route handlers (Litestar 3 style).

The names are the keys under which `create_app` registers its providers.
"""

from __future__ import annotations

import uuid

import asyncpg
from litestar.di import NamedDependency
from litestar.params import FromPath

from citeproof.api.documents.slots import UploadSlots
from citeproof.api.events import EventHub
from citeproof.api.metrics import ApiMetrics
from citeproof.api.settings import ApiSettings
from citeproof.auth import Caller
from citeproof.db.settings import DatabaseSettings

Pool = NamedDependency[asyncpg.Pool]
CallerDep = NamedDependency[Caller]
Settings = NamedDependency[ApiSettings]
StaleAfter = NamedDependency[float]
Metrics = NamedDependency[ApiMetrics]
Hub = NamedDependency[EventHub]
DbSettings = NamedDependency[DatabaseSettings]
Uploads = NamedDependency[UploadSlots]
PathId = FromPath[uuid.UUID]
