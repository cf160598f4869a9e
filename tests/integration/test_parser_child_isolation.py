"""The parsing child is isolated, tried with the attack itself: code running inside the child
(as a code-execution bug in pdfium, lxml or unstructured would) cannot open a TCP connection to
a listener on the host, runs as another uid when the worker is root, cannot reach the
PostgreSQL socket, and cannot read the worker's environment.

The "exploit" is a `sitecustomize` on the child's PYTHONPATH: it replaces `parse_bytes` after
the child has isolated itself and imported its libraries, exactly where a hostile file's code
would run, and answers with what it managed to do.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from citeproof.parser._interpreter_view import blocking_directories, interpreter_paths, open_view
from citeproof.parser.errors import ParseFailure
from citeproof.parser.isolation import (
    NETWORK_NAMESPACE,
    UID_SWITCHED,
    container_memory_limit,
    derive_child_memory_mb,
)
from citeproof.parser.sandbox import ParseSandbox, child_memory_mb
from citeproof.parser.settings import ParserSettings

EXPLOIT = textwrap.dedent(
    """
    import json, os, socket

    import citeproof.parser.sandbox as sandbox

    def attack(request):
        done = {}
        if "connect" in request:
            host, port = request["connect"]
            try:
                socket.create_connection((host, port), timeout=3).close()
                done["connect"] = "connected"
            except OSError as exc:
                done["connect"] = f"{type(exc).__name__}: {exc.strerror or exc}"
        if "unix" in request:
            probe = socket.socket(socket.AF_UNIX)
            try:
                probe.connect(request["unix"])
                done["unix"] = "connected"
            except OSError as exc:
                done["unix"] = f"{type(exc).__name__}: {exc.strerror or exc}"
            finally:
                probe.close()
        if "read" in request:
            try:
                with open(request["read"], "rb") as handle:
                    done["read"] = handle.read().decode(errors="replace")
            except OSError as exc:
                done["read"] = f"{type(exc).__name__}: {exc.strerror or exc}"
        if "allocate_mb" in request:
            block = bytearray(request["allocate_mb"] * 1024 * 1024)
            done["allocate_mb"] = len(block) // (1024 * 1024)
        done["uid"] = os.getuid()
        done["ppid"] = os.getppid()
        return done

    _limit_memory = sandbox._limit_memory

    def _after_imports(megabytes):
        _limit_memory(megabytes)
        from citeproof.parser import extract
        from citeproof.parser.errors import ParseFailure

        real = extract.parse_bytes

        def parse_bytes(data, filename, *args, **kwargs):
            if filename != "exploit.json":
                return real(data, filename, *args, **kwargs)
            raise ParseFailure("exploited", json.dumps(attack(json.loads(data))))

        extract.parse_bytes = parse_bytes

    sandbox._limit_memory = _after_imports
    """
)


@pytest.fixture
def exploitable(tmp_path, monkeypatch) -> Path:
    (tmp_path / "sitecustomize.py").write_text(EXPLOIT)
    existing = os.environ.get("PYTHONPATH")
    monkeypatch.setenv(
        "PYTHONPATH", f"{tmp_path}{os.pathsep}{existing}" if existing else str(tmp_path)
    )
    monkeypatch.setenv("DATABASE_URL", "postgresql://citeproof:hunter2@db/citeproof")
    return tmp_path


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[tuple[str, int]] = []

    def serve() -> None:
        while True:
            try:
                conn, peer = server.accept()
            except OSError:
                return
            accepted.append(peer)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        server.close()


def wait_for_accepts(accepted: list, count: int) -> None:
    deadline = time.monotonic() + 5
    while len(accepted) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(accepted) == count


async def exploit(sandbox: ParseSandbox, request: dict) -> dict:
    with pytest.raises(ParseFailure) as failure:
        await sandbox.parse(json.dumps(request).encode(), "exploit.json", None, "source")
    assert failure.value.code == "exploited", failure.value.detail
    return json.loads(failure.value.detail)


def _postgres_socket(database_url: str) -> str | None:
    parts = urlsplit(database_url)
    host = parse_qs(parts.query).get("host", [parts.hostname or ""])[0]
    if not host.startswith("/"):
        return None
    return f"{host}/.s.PGSQL.{parts.port or parse_qs(parts.query).get('port', ['5432'])[0]}"


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid switch and netns as root")
async def test_code_in_the_child_reaches_no_network_no_database_and_no_secret(
    exploitable, listener, database_url
):
    port, accepted = listener
    # The control: from the worker's side the listener answers.
    socket.create_connection(("127.0.0.1", port), timeout=3).close()
    wait_for_accepts(accepted, 1)
    request = {"connect": ["127.0.0.1", port], "read": f"/proc/{os.getpid()}/environ"}
    pg_socket = _postgres_socket(database_url)
    if pg_socket:
        request["unix"] = pg_socket
    sandbox = ParseSandbox(ParserSettings())
    try:
        await sandbox.warm_up()
        assert sandbox.isolation is not None
        assert (sandbox.isolation.network, sandbox.isolation.user) == (
            NETWORK_NAMESPACE,
            UID_SWITCHED,
        )
        done = await exploit(sandbox, request)
        # An ordinary file still parses in the same child.
        parsed = await sandbox.parse(b"Plain text of a source.", "a.txt", "text/plain", "source")
    finally:
        sandbox.close()
    assert done["connect"].startswith("OSError: Network is unreachable"), done
    assert len(accepted) == 1, "the child reached the host's listener"
    assert done["uid"] != os.getuid() and done["uid"] == 65534
    assert done["read"].startswith("PermissionError"), "the child read the worker's environ"
    if pg_socket:
        assert done["unix"].startswith("PermissionError"), done["unix"]
    assert parsed.text.startswith("Plain text")


async def test_with_isolation_off_the_same_exploit_connects(exploitable, listener):
    """The test can tell: without the namespace the child's connection goes through."""
    port, accepted = listener
    sandbox = ParseSandbox(ParserSettings(child_isolation=False))
    try:
        done = await exploit(sandbox, {"connect": ["127.0.0.1", port]})
    finally:
        sandbox.close()
    assert done["connect"] == "connected"
    wait_for_accepts(accepted, 1)
    assert done["uid"] == os.getuid()


async def test_the_derived_memory_cap_holds_in_the_child(exploitable):
    sandbox = ParseSandbox(ParserSettings(child_memory_mb=1280))
    try:
        with pytest.raises(ParseFailure) as failure:
            await sandbox.parse(
                json.dumps({"allocate_mb": 1536}).encode(), "exploit.json", None, "source"
            )
        assert failure.value.code == "too_large"
        done = await exploit(sandbox, {"allocate_mb": 256})
    finally:
        sandbox.close()
    assert done["allocate_mb"] == 256


def test_the_container_limit_is_read_from_cgroup_v2_then_v1(tmp_path):
    v2, v1 = tmp_path / "memory.max", tmp_path / "memory.limit_in_bytes"
    nowhere = tmp_path / "own" / "memory.max"
    assert container_memory_limit(v2, v1, nowhere) is None  # no cgroup files at all
    v1.write_text("9223372036854771712\n")  # v1's "no limit"
    assert container_memory_limit(v2, v1, nowhere) is None
    v1.write_text(f"{2 * 1024**3}\n")
    assert container_memory_limit(v2, v1, nowhere) == 2 * 1024**3
    v2.write_text("max\n")
    assert container_memory_limit(v2, v1, nowhere) is None
    v2.write_text(f"{3 * 1024**3}\n")
    assert container_memory_limit(v2, v1, nowhere) == 3 * 1024**3
    # A process's own cgroup (systemd service, no cgroup namespace) comes first.
    nowhere.parent.mkdir()
    nowhere.write_text(f"{1024**3}\n")
    assert container_memory_limit(v2, v1, nowhere) == 1024**3


def test_the_child_cap_is_derived_from_the_container_limit_and_concurrency():
    three_gib = 3 * 1024**3
    # The deployed parser: 3 GiB, two children. Before: 2 x 4096 MiB in 3072 MiB.
    cap, source = child_memory_mb(ParserSettings(), 2, three_gib)
    assert cap == derive_child_memory_mb(three_gib, 2) == (3072 - 1024) // 2 + 512
    assert source.startswith("container limit 3072 MiB / 2")
    assert derive_child_memory_mb(4 * 1024**3, 2) == 2048
    # More children, smaller caps; never below what a child needs to import its libraries.
    assert derive_child_memory_mb(three_gib, 4) < cap
    assert derive_child_memory_mb(1024**3, 8) == 1024
    # No container limit: the fixed default; an explicit setting always wins.
    assert child_memory_mb(ParserSettings(), 2, None)[0] == 4096
    assert child_memory_mb(ParserSettings(child_memory_mb=2000), 2, three_gib) == (2000, "setting")
    assert child_memory_mb(ParserSettings(child_memory_mb=0), 2, three_gib)[0] == 0


SAME_UID_WORKER = textwrap.dedent(
    """
    import asyncio, json, os
    from citeproof.parser.errors import ParseFailure
    from citeproof.parser.sandbox import ParseSandbox
    from citeproof.parser.settings import ParserSettings

    async def main():
        sandbox = ParseSandbox(ParserSettings(), concurrency=1)
        request = {"read": f"/proc/{os.getpid()}/environ", "connect": ["127.0.0.1", PORT]}
        try:
            await sandbox.parse(json.dumps(request).encode(), "exploit.json", None, "source")
        except ParseFailure as failure:
            print(json.dumps({"done": json.loads(failure.detail),
                              "isolation": sandbox.isolation.mode, "worker_uid": os.getuid()}))
        finally:
            sandbox.close()

    asyncio.run(main())
    """
)


_BLOCKED_FOR_NOBODY: dict[str, set[str]] = {}


def _become_nobody_with_the_interpreter_reachable() -> None:
    """(In the forked child, before exec.) Make the interpreter reachable, then drop to 65534."""
    if _BLOCKED_FOR_NOBODY:
        open_view(_BLOCKED_FOR_NOBODY)
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


@pytest.mark.skipif(os.geteuid() != 0, reason="starts an unprivileged worker from root")
@pytest.mark.parametrize(
    ("isolation", "protected"),
    [(True, True), (False, True), (False, False)],
    ids=["namespaces", "shared-network", "control-dumpable-worker"],
)
def test_an_unprivileged_worker_isolates_its_same_uid_child_too(listener, isolation, protected):
    """The pod case: worker and child share a uid. The child still gets a network namespace
    where the kernel allows a user namespace to carry one; with or without it, the child
    cannot read the worker's environment because the worker is non-dumpable (the control,
    a dumpable worker, shows the test can tell)."""
    port, accepted = listener
    worker = SAME_UID_WORKER.replace("PORT", str(port))
    worker = worker.replace("ParserSettings()", f"ParserSettings(child_isolation={isolation})")
    if not protected:
        worker = worker.replace(
            "from citeproof.parser.sandbox import ParseSandbox",
            "import citeproof.parser.sandbox as sb\nsb.protect_worker = lambda: None\n"
            "from citeproof.parser.sandbox import ParseSandbox",
        )
    hook_dir = Path(tempfile.mkdtemp(prefix="citeproof-exploit-"))
    _BLOCKED_FOR_NOBODY.clear()
    _BLOCKED_FOR_NOBODY.update(blocking_directories(interpreter_paths(), 65534, [65534]))
    try:
        hook_dir.chmod(0o755)
        (hook_dir / "sitecustomize.py").write_text(EXPLOIT)
        (hook_dir / "worker.py").write_text(worker)
        environment = {
            "PATH": os.environ["PATH"],
            "HOME": "/tmp",
            "PYTHONPATH": f"{hook_dir}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
            "DATABASE_URL": "postgresql://citeproof:hunter2@db/citeproof",
            "HF_HUB_OFFLINE": "1",
            "DO_NOT_TRACK": "1",
        }
        done = subprocess.run(
            [sys.executable, str(hook_dir / "worker.py")],
            # As a pod's worker would: uid 65534 from the start, its interpreter readable
            # (this machine's may sit under a 0700 /root; the same view the child uses).
            preexec_fn=_become_nobody_with_the_interpreter_reachable,
            env=environment,
            cwd="/tmp",
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        shutil.rmtree(hook_dir, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["worker_uid"] == 65534 and result["done"]["uid"] == 65534
    if not protected:
        assert "hunter2" in result["done"]["read"]
        return
    assert result["done"]["read"].startswith("PermissionError"), result
    if isolation and result["isolation"].startswith(NETWORK_NAMESPACE):
        assert result["done"]["connect"].startswith("OSError: Network is unreachable")
        assert not accepted
