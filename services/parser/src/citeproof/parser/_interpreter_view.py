"""Keep the interpreter, its libraries and the checkout readable for a child that drops root.

A parsing child started as root becomes `nobody` before it reads a file, and only then imports
most of what it parses with (and loads data files, codecs and C extensions lazily while it
parses). When the interpreter or the checkout lies under a directory `nobody` cannot traverse
(pyenv's Python under a 0700 `/root`, a clone in a 0700 `mktemp -d`), every one of those reads
fails and the child dies at its first import.

We never loosen permissions on the host's directories to fix that (an earlier embedded-
PostgreSQL helper did, and that is the only reason it ever worked). Instead the child, still
root, enters a private mount namespace and covers each *blocking* directory with a small
root-owned tmpfs that holds only the entries the interpreter needs, each bind-mounted from the
original. The dropped uid can then traverse `/root` to `/root/.pyenv` but sees nothing else
there: not `.ssh`, not `.npmrc`, not the rest of the checkout's parent. Files keep their own
permissions; nothing on the host changes, and the namespace dies with the child.

`blocking_directories` decides (pure: stat and permission bits), `open_view` acts.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Final

# mount(2) flags (linux/fs.h).
MS_NOSUID: Final = 0x2
MS_NODEV: Final = 0x4
MS_BIND: Final = 0x1000
MS_REC: Final = 0x4000
MS_PRIVATE: Final = 1 << 18
CLONE_NEWNS: Final = 0x00020000
# A directory the interpreter itself lists (a sys.path entry): every entry is carried over.
EVERY_ENTRY: Final = "*"
# The covering tmpfs holds only directories, empty files and symlinks used as mount points.
_TMPFS_OPTIONS: Final = b"size=1m,nr_inodes=4096,mode=0711"
_TMPFS_LISTABLE_OPTIONS: Final = b"size=1m,nr_inodes=65536,mode=0755"


def interpreter_paths() -> list[str]:
    """Everything the child reads code or package data from: the prefixes, every import path
    and the directory of every module already imported (editable installs, namespace
    packages), each also resolved through its symlinks."""
    found: set[str] = set()
    candidates: list[str] = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix]
    candidates += [entry for entry in sys.path if entry]
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if isinstance(file, str):
            candidates.append(os.path.dirname(file))
        candidates += _package_path(module)
    for extra in ("NLTK_DATA",):
        if os.environ.get(extra):
            candidates += os.environ[extra].split(os.pathsep)
    for candidate in candidates:
        absolute = os.path.abspath(candidate)
        if not os.path.exists(absolute):
            continue
        found.add(absolute)
        found.add(os.path.realpath(absolute))
    return sorted(found)


def _package_path(module: object) -> list[str]:
    """A package's search path. Some modules answer any attribute (torch's `_classes` returns
    a namespace object for `__path__`): only a real iterable of strings counts."""
    try:
        entries = getattr(module, "__path__", None)
        return [entry for entry in entries or () if isinstance(entry, str)]
    except Exception:  # a module's __getattr__ or __iter__ may raise anything
        return []


def _may(info: os.stat_result, uid: int, gids: frozenset[int], bits: int) -> bool:
    """Whether `uid` (in `gids`) has `bits` (a combination of R=4, X=1) on a file, by its mode
    alone: the owner class, else the group class, else other (as the kernel picks the class)."""
    if uid == 0:
        return True
    if info.st_uid == uid:
        mode = info.st_mode >> 6
    elif info.st_gid in gids:
        mode = info.st_mode >> 3
    else:
        mode = info.st_mode
    return (mode & bits) == bits


def blocking_directories(
    paths: Iterable[str], uid: int, gids: Iterable[int]
) -> dict[str, set[str]]:
    """{directory `uid` cannot pass: the names below it that the paths need}, shallowest first.

    A directory on the way to a path needs search (x) permission; the path itself, when it is
    a directory the interpreter lists (an import path), needs read and search, and then every
    entry of it is needed (`EVERY_ENTRY`)."""
    groups = frozenset(gids)
    cache: dict[str, os.stat_result | None] = {}

    def info(path: str) -> os.stat_result | None:
        if path not in cache:
            try:
                cache[path] = os.stat(path)
            except OSError:
                cache[path] = None
        return cache[path]

    blocked: dict[str, set[str]] = {}
    for raw in paths:
        path = Path(os.path.abspath(raw))
        parts = path.parts
        for depth in range(1, len(parts)):
            directory = str(Path(*parts[:depth]))
            found = info(directory)
            if found is None or not stat.S_ISDIR(found.st_mode):
                break
            if not _may(found, uid, groups, 1):
                blocked.setdefault(directory, set()).add(parts[depth])
        found = info(str(path))
        if found is not None and stat.S_ISDIR(found.st_mode) and not _may(found, uid, groups, 5):
            blocked.setdefault(str(path), set()).add(EVERY_ENTRY)
    return dict(sorted(blocked.items(), key=lambda item: (item[0].count(os.sep), item[0])))


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: bytes | None):
    libc = _libc()
    result = libc.mount(
        source.encode() if source else None,
        target.encode(),
        fstype.encode() if fstype else None,
        ctypes.c_ulong(flags),
        data,
    )
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"mount {target}: {os.strerror(errno)}")


def _unshare_mounts() -> None:
    if _libc().unshare(CLONE_NEWNS) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"unshare(mount namespace): {os.strerror(errno)}")


def _cover(directory: str, names: set[str]) -> None:
    """Replace `directory`, in this mount namespace only, by a root-owned tmpfs holding `names`
    bind-mounted from the original (all of its entries for EVERY_ENTRY)."""
    # The original stays reachable through this descriptor after the tmpfs hides its path.
    handle = os.open(directory, os.O_PATH | os.O_DIRECTORY)
    try:
        original = f"/proc/self/fd/{handle}"
        listable = EVERY_ENTRY in names
        if listable:
            names = set(os.listdir(original))
        options = _TMPFS_LISTABLE_OPTIONS if listable else _TMPFS_OPTIONS
        _mount("tmpfs", directory, "tmpfs", MS_NOSUID | MS_NODEV, options)
        for name in sorted(names):
            source = f"{original}/{name}"
            target = os.path.join(directory, name)
            try:
                kind = os.lstat(source).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(kind):
                os.symlink(os.readlink(source), target)
                continue
            if stat.S_ISDIR(kind):
                os.mkdir(target, 0o755)
            else:
                os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
            _mount(source, target, None, MS_BIND | MS_REC, None)
    finally:
        os.close(handle)


def open_view(blocked: dict[str, set[str]], *, new_namespace: bool = True) -> None:
    """Make every path behind `blocked` reachable in a private mount namespace (as root, or as
    root of a fresh user namespace). Raises OSError when the kernel refuses a step; the caller
    then keeps the worker's uid rather than start a child that cannot import."""
    if new_namespace:
        _unshare_mounts()
    # Nothing done here may propagate back to the host's mount table.
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    for directory, names in blocked.items():
        _cover(directory, names)


def unreadable_summary(blocked: dict[str, set[str]], limit: int = 3) -> str:
    """ "/root, /tmp/tmp.x" for a log line."""
    shown = ", ".join(list(blocked)[:limit])
    more = len(blocked) - limit
    return shown + (f" and {more} more" if more > 0 else "")
