"""What separates a parsing child from everything else on the host: its own empty network
namespace, another uid, no secrets, and a memory cap sized to the container.

A code-execution bug in pdfium, lxml or unstructured runs with whatever the child has. The
child therefore enters a new network namespace (nothing but a down loopback: no PostgreSQL,
no LLM, no metadata service, no other pod) and, when it starts as root, becomes an
unprivileged user before it reads a byte of the file. Both steps happen first thing in the
child, while it is still one thread (a user namespace can only be entered single-threaded).

When the uid it drops to cannot traverse the directories around the interpreter or the
checkout (pyenv's Python under a 0700 `/root`, a clone in a 0700 `mktemp -d`), the child first
enters a private mount namespace that makes exactly those paths reachable
(`_interpreter_view`, file mode `view`); where the kernel refuses that, it keeps the worker's
uid rather than start without its interpreter, and says so.

Where the process may do neither (an unprivileged pod under the RuntimeDefault seccomp
profile), the child runs as the worker's uid in the pod's network: the egress NetworkPolicy of
the parser (deploy/k8s/overlays/production/networkpolicy.yaml) is then the network boundary,
and the worker makes itself non-dumpable so that a same-uid child cannot read its memory or
`/proc/<pid>/environ`. The mode in force is logged at boot (`parser.isolation`) and
registered with the worker (capability `parse:sandbox=<mode>`, listed by the API's /readyz).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import os
import pwd
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import msgspec

from citeproof.parser._interpreter_view import (
    blocking_directories,
    interpreter_paths,
    open_view,
    unreadable_summary,
)

CLONE_NEWNET: Final = 0x40000000
CLONE_NEWUSER: Final = 0x10000000
PR_SET_DUMPABLE: Final = 4
PR_SET_NO_NEW_PRIVS: Final = 38

# Network of the child: its own empty namespace, or the worker's (a NetworkPolicy must bound it).
NETWORK_NAMESPACE: Final = "netns"
NETWORK_SHARED: Final = "shared-network"
# User of the child: switched away from root, or the worker's own (non-root) uid.
UID_SWITCHED: Final = "uid"
UID_SAME: Final = "same-uid"
# How the child reaches its interpreter's files: as they are, or through a private mount
# namespace that makes the directories blocking the dropped uid passable (`_interpreter_view`).
FILES_DIRECT: Final = "direct"
FILES_VIEW: Final = "view"

# Container memory limits, cgroup v2 then v1 (a v1 "no limit" is a huge number).
CGROUP_V2_MEMORY_MAX: Final = Path("/sys/fs/cgroup/memory.max")
CGROUP_V1_MEMORY_LIMIT: Final = Path("/sys/fs/cgroup/memory/memory.limit_in_bytes")
_CGROUP_V1_UNLIMITED: Final = 1 << 60
# What the parser worker itself holds next to its children: the interpreter and the embedding
# model (measured 120 MiB RSS with the default int8 ONNX runtime; torch is several times that),
# and per running item a claimed row with its upload (up to 50 MiB), the copy sent to the
# child and the parsed result coming back.
WORKER_RESERVE_MB: Final = 1024
# Address space a child maps but does not keep resident (shared libraries, arenas): measured
# after imports, VmSize 746 MiB against VmRSS 292 MiB. RLIMIT_AS counts it, RAM does not.
CHILD_MAPPED_ALLOWANCE_MB: Final = 512
# Below this a child cannot even import its libraries; a container too small for it gets this.
MIN_CHILD_MEMORY_MB: Final = 1024


class Isolation(msgspec.Struct, frozen=True):
    """What a parsing child achieved, reported in its greeting."""

    network: str
    user: str
    uid: int
    # Why a step was not taken ("unshare: Operation not permitted"), for the boot log.
    notes: list[str] = []
    files: str = FILES_DIRECT

    @property
    def mode(self) -> str:
        view = f"+{FILES_VIEW}" if self.files == FILES_VIEW else ""
        return f"{self.network}+{self.user}{view}"


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def _unshare(flags: int) -> str | None:
    """None on success, else the reason."""
    if _libc().unshare(flags) == 0:
        return None
    return f"unshare: {os.strerror(ctypes.get_errno())}"


def _prctl(option: int, value: int) -> None:
    with contextlib.suppress(Exception):
        _libc().prctl(option, value, 0, 0, 0)


def _map_own_ids(uid: int, gid: int) -> None:
    """Inside a new user namespace, be the same uid/gid as outside (files created stay ours)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/setgroups").write_text("deny")
    Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
    Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")


def _user_entry(user: str) -> pwd.struct_passwd | None:
    try:
        return pwd.getpwuid(int(user)) if user.isdigit() else pwd.getpwnam(user)
    except (KeyError, ValueError):
        return None


def _reach_interpreter(entry: pwd.struct_passwd) -> tuple[str, str | None]:
    """Make the interpreter's files reachable for `entry` before root is dropped: (file mode,
    reason when the uid must not be dropped because its interpreter would be out of reach)."""
    blocked = blocking_directories(interpreter_paths(), entry.pw_uid, [entry.pw_gid])
    if not blocked:
        return FILES_DIRECT, None
    try:
        open_view(blocked)
    except OSError as exc:
        return FILES_DIRECT, (
            f"{entry.pw_name} cannot reach the interpreter ({unreadable_summary(blocked)}) "
            f"and no private view could be made ({exc.strerror or exc}); kept uid {os.getuid()}"
        )
    return FILES_VIEW, None


def _drop_root(user: str) -> tuple[int, str | None]:
    """Become `user` (name or number); (uid now, reason when it did not happen)."""
    entry = _user_entry(user)
    if entry is None:
        return os.getuid(), f"no user {user!r}"
    try:
        os.setgroups([])
        os.setgid(entry.pw_gid)
        os.setuid(entry.pw_uid)
    except OSError as exc:
        return os.getuid(), f"setuid: {exc.strerror}"
    return entry.pw_uid, None


def isolate(user: str, enabled: bool = True) -> Isolation:
    """Isolate the calling process (a parsing child, still single-threaded).

    As root: a new network namespace (CAP_SYS_ADMIN), then, if `user` cannot reach the
    interpreter's files, a private mount namespace where it can, then the unprivileged `user`. Not
    root, or root without the capability: a user namespace carrying a network namespace,
    where the kernel and the seccomp profile allow one. Never raises: what could not be done
    is reported, and the worker logs it.
    """
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    if not enabled:
        return Isolation(NETWORK_SHARED, UID_SAME, os.getuid(), ["isolation turned off"])
    notes: list[str] = []
    network = NETWORK_SHARED
    if os.geteuid() == 0:
        reason = _unshare(CLONE_NEWNET)
        if reason is None:
            network = NETWORK_NAMESPACE
        else:
            notes.append(reason)
    user_mode = UID_SAME
    files = FILES_DIRECT
    if os.geteuid() == 0 and user:
        entry = _user_entry(user)
        kept = None
        if entry is not None:
            # Before the switch: after it, the mounts that keep the interpreter reachable
            # can no longer be made.
            files, kept = _reach_interpreter(entry)
        if kept is not None:
            notes.append(kept)
        else:
            _, reason = _drop_root(user)
            if reason is None:
                user_mode = UID_SWITCHED
            else:
                notes.append(reason)
    if network != NETWORK_NAMESPACE and os.geteuid() != 0:
        uid, gid = os.getuid(), os.getgid()
        reason = _unshare(CLONE_NEWUSER | CLONE_NEWNET)
        if reason is None:
            network = NETWORK_NAMESPACE
            try:
                _map_own_ids(uid, gid)
            except OSError as exc:
                notes.append(f"uid_map: {exc.strerror}")
        else:
            notes.append(reason)
    return Isolation(network, user_mode, os.getuid(), notes, files)


@functools.cache
def probe(user: str, enabled: bool, environment: tuple[tuple[str, str], ...]) -> Isolation:
    """The isolation a parsing child will get, found out at boot by a short-lived process that
    runs `isolate` the way a child does (fresh interpreter, the child's environment)."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "citeproof.parser.isolation", user, str(int(enabled))],
            env=dict(environment),
            capture_output=True,
            timeout=60,
            check=True,
            stdin=subprocess.DEVNULL,
        )
        return msgspec.json.decode(done.stdout, type=Isolation)
    except (OSError, subprocess.SubprocessError, msgspec.DecodeError) as exc:
        return Isolation(NETWORK_SHARED, UID_SAME, -1, [f"probe failed: {type(exc).__name__}"])


def probe_for(user: str, enabled: bool, environment: Mapping[str, str]) -> Isolation:
    return probe(user, enabled, tuple(sorted(environment.items())))


def protect_worker() -> None:
    """Make the worker non-dumpable: a child of the same uid can then neither read its
    `/proc/<pid>/environ` (DATABASE_URL, API keys) nor its memory, nor ptrace it."""
    _prctl(PR_SET_DUMPABLE, 0)


def _own_cgroup_v2_memory_max(proc_cgroup: Path = Path("/proc/self/cgroup")) -> Path | None:
    """memory.max of this process's own cgroup when the cgroup tree is not namespaced (a
    systemd service); in a container the root of /sys/fs/cgroup is the container's."""
    try:
        for line in proc_cgroup.read_text().splitlines():
            if line.startswith("0::/") and line != "0::/":
                return CGROUP_V2_MEMORY_MAX.parent / line[4:] / "memory.max"
    except OSError:
        pass
    return None


def container_memory_limit(
    v2: Path = CGROUP_V2_MEMORY_MAX, v1: Path = CGROUP_V1_MEMORY_LIMIT, own: Path | None = None
) -> int | None:
    """The container's memory limit in bytes, None when there is none (or no cgroup)."""
    candidates = [own or _own_cgroup_v2_memory_max(), v2, v1]
    for path in filter(None, candidates):
        try:
            raw = path.read_text().strip()
        except OSError:
            continue
        if raw == "max":
            return None
        with contextlib.suppress(ValueError):
            value = int(raw)
            return None if value >= _CGROUP_V1_UNLIMITED else value
    return None


def derive_child_memory_mb(limit_bytes: int, concurrency: int) -> int:
    """Each child's address-space cap when `concurrency` children share a container of
    `limit_bytes` with the worker: an equal share of what the worker leaves, plus the mapped
    but not resident part RLIMIT_AS counts. So N children at their caps stay inside the
    container's limit and a memory bomb ends in the child's MemoryError, not in the kernel's
    OOM killer taking the whole pod."""
    share = (limit_bytes // (1024 * 1024) - WORKER_RESERVE_MB) // max(1, concurrency)
    return max(MIN_CHILD_MEMORY_MB, share + CHILD_MAPPED_ALLOWANCE_MB)


if __name__ == "__main__":  # the boot probe (`probe`)
    sys.stdout.write(msgspec.json.encode(isolate(sys.argv[1], sys.argv[2] == "1")).decode())
