"""Every parser regex against 64 KiB hostile inputs (minutes of CPU, so `make test-hostile`).

The patterns in KNOWN_SUPERLINEAR_AT_64KIB are skipped, each with its reason; an entry that no
longer names a pattern fails, so the list cannot silently outlive a rewrite.
"""

from __future__ import annotations

import pytest

from tests.unit.redos_attacks import KNOWN_SUPERLINEAR_AT_64KIB, untrusted_patterns
from tests.unit.test_redos import assert_no_slow_patterns

pytestmark = pytest.mark.timeout(3600)


def test_the_known_superlinear_list_names_existing_patterns() -> None:
    names = {where for where, _, _ in untrusted_patterns()}
    assert set(KNOWN_SUPERLINEAR_AT_64KIB) <= names


def test_no_other_regex_is_superlinear_on_64_kib(hostile_record) -> None:
    try:
        assert_no_slow_patterns(64 * 1024)
    except AssertionError as failure:
        hostile_record.add("redos_64kib", None, str(failure).splitlines()[0][:200], False)
        raise
    hostile_record.add("redos_64kib", None, None, True)
