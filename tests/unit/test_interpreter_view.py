"""Which directories keep a dropped uid from its interpreter (`_interpreter_view`), by mode bits:
only the directories on the way, only the names below them that a path needs, shallowest first."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from citeproof.parser._interpreter_view import (
    EVERY_ENTRY,
    blocking_directories,
    interpreter_paths,
    unreadable_summary,
)

NOBODY = 65534


@pytest.fixture
def tmp_path():
    """A folder anyone may pass (pytest's own lies under a 0700 one)."""
    folder = Path(tempfile.mkdtemp(prefix="citeproof-view-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_private_folder_blocks_only_the_name_on_the_way(tmp_path):
    private = tmp_path / "home"
    (private / "pyenv" / "lib").mkdir(parents=True)
    (private / "secrets").mkdir()
    private.chmod(0o700)
    blocked = blocking_directories([str(private / "pyenv" / "lib")], NOBODY, [NOBODY])
    assert blocked == {str(private): {"pyenv"}}


def test_nested_private_folders_come_shallowest_first(tmp_path):
    outer = tmp_path / "outer"
    inner = outer / "checkout" / "inner"
    (inner / "site-packages").mkdir(parents=True)
    outer.chmod(0o700)
    inner.chmod(0o700)
    blocked = blocking_directories([str(inner / "site-packages")], NOBODY, [NOBODY])
    assert list(blocked) == [str(outer), str(inner)]
    assert blocked[str(outer)] == {"checkout"} and blocked[str(inner)] == {"site-packages"}


def test_an_import_path_that_cannot_be_listed_needs_every_entry(tmp_path):
    unlisted = tmp_path / "lib"
    unlisted.mkdir()
    unlisted.chmod(0o711)  # passable, not listable: the import system lists it
    assert blocking_directories([str(unlisted)], NOBODY, [NOBODY]) == {str(unlisted): {EVERY_ENTRY}}


@pytest.mark.skipif(os.geteuid() != 0, reason="changes owners")
def test_group_and_owner_classes_count_as_the_kernel_counts_them(tmp_path):
    shared = tmp_path / "shared"
    (shared / "lib").mkdir(parents=True)
    shared.chmod(0o710)  # group may pass, others may not
    os.chown(shared, 0, 4242)
    assert blocking_directories([str(shared / "lib")], NOBODY, [4242]) == {}
    assert str(shared) in blocking_directories([str(shared / "lib")], NOBODY, [NOBODY])
    # Owner bits, not other bits, decide for the owner (the kernel never falls through).
    os.chown(shared, NOBODY, 4242)
    shared.chmod(0o071)
    assert str(shared) in blocking_directories([str(shared / "lib")], NOBODY, [4242])
    # Root passes everything.
    assert blocking_directories([str(shared / "lib")], 0, [0]) == {}


def test_readable_trees_block_nothing_and_missing_paths_are_ignored(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert blocking_directories([str(tmp_path / "a" / "b")], NOBODY, [NOBODY]) == {}
    assert blocking_directories([str(tmp_path / "missing" / "x")], NOBODY, [NOBODY]) == {}


def test_the_interpreter_paths_hold_the_prefixes_and_this_package():
    import sys

    import citeproof.parser

    paths = interpreter_paths()
    assert os.path.realpath(sys.base_prefix) in paths
    assert os.path.dirname(os.path.realpath(citeproof.parser.__file__)) in paths


def test_the_summary_names_a_few_and_counts_the_rest():
    blocked = {f"/d{i}": {"x"} for i in range(5)}
    assert unreadable_summary(blocked) == "/d0, /d1, /d2 and 2 more"


def test_a_module_whose_path_is_not_a_list_of_strings_is_skipped(monkeypatch):
    """torch._classes answers every attribute with a namespace object that cannot be iterated
    (the fresh-machine CI run imported it before this test and `interpreter_paths` raised)."""
    import sys
    import types

    class Answers(types.ModuleType):
        def __getattr__(self, name):
            return object()

    class Raises(types.ModuleType):
        @property
        def __path__(self):
            raise RuntimeError("no path")

    monkeypatch.setitem(sys.modules, "citeproof_test_answers", Answers("citeproof_test_answers"))
    monkeypatch.setitem(sys.modules, "citeproof_test_raises", Raises("citeproof_test_raises"))
    assert os.path.realpath(sys.base_prefix) in interpreter_paths()
