"""A worker running as root whose interpreter the parsing child's uid cannot read.

On a fresh machine pyenv's Python sits under a 0700 `/root` and CI clones into a 0700
`mktemp -d`: a child that drops to `nobody` and then imports the rest of the standard library
died at `import argparse`, and nothing parsed. Here the tree is built on purpose, whatever this
machine's `/root` looks like: a copy of the interpreter's executable with its standard library
reached through a symlink, and a virtual environment on it, all inside a 0700 temporary folder.
A worker started from that interpreter parses a PDF in its child, and code in the same child (a
`sitecustomize` standing in for a hostile file's exploit) still reaches neither the network nor
the database, as `nobody`.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
from pathlib import Path

import pytest

from citeproof.devkit.pdfgen.plain import make_pdf
from citeproof.parser._interpreter_view import blocking_directories
from citeproof.parser.isolation import FILES_VIEW, NETWORK_NAMESPACE, UID_SWITCHED
from tests.integration.test_parser_child_isolation import EXPLOIT, _postgres_socket

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="drops root to nobody")

WORKER = textwrap.dedent(
    """
    import asyncio, json, os, sys
    from citeproof.parser.errors import ParseFailure
    from citeproof.parser.sandbox import ParseSandbox
    from citeproof.parser.settings import ParserSettings

    async def main(request, pdf_path):
        sandbox = ParseSandbox(ParserSettings(), concurrency=1)
        try:
            await sandbox.warm_up()
            try:
                await sandbox.parse(json.dumps(request).encode(), "exploit.json", None, "source")
                done = None
            except ParseFailure as failure:
                done = json.loads(failure.detail)
            with open(pdf_path, "rb") as handle:
                parsed = await sandbox.parse(handle.read(), "paper.pdf", None, "source")
            print(json.dumps({
                "prefix": sys.prefix, "base_prefix": sys.base_prefix,
                "isolation": {"network": sandbox.isolation.network,
                              "user": sandbox.isolation.user,
                              "uid": sandbox.isolation.uid,
                              "files": sandbox.isolation.files,
                              "notes": sandbox.isolation.notes},
                "done": done, "text": parsed.text, "pages": parsed.pages,
            }))
        finally:
            sandbox.close()

    asyncio.run(main(json.loads(sys.argv[1]), sys.argv[2]))
    """
)


def _private_interpreter(private: Path) -> Path:
    """`private`/python: a copy of this interpreter's executable whose prefix is `private`
    (its standard library a symlink to the real one), and a venv on it that sees this
    checkout's packages through a .pth file. Returns the venv's python."""
    prefix = private / "prefix"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib").mkdir()
    real_executable = Path(sys.executable).resolve()
    shutil.copy2(real_executable, prefix / "bin" / version)
    (prefix / "lib" / version).symlink_to(sysconfig.get_paths()["stdlib"])
    venv = private / "venv"
    subprocess.run(
        [str(prefix / "bin" / version), "-m", "venv", "--without-pip", str(venv)],
        check=True,
        capture_output=True,
    )
    site_packages = venv / "lib" / version / "site-packages"
    stdlib = sysconfig.get_paths()["stdlib"]
    project_paths = [p for p in sys.path if p and not p.startswith(os.path.dirname(stdlib))]
    (site_packages / "checkout.pth").write_text("\n".join(project_paths) + "\n")
    return venv / "bin" / "python"


@pytest.fixture
def private_dir():
    private = Path(tempfile.mkdtemp(prefix="citeproof-private-"))
    private.chmod(0o700)
    try:
        yield private
    finally:
        shutil.rmtree(private, ignore_errors=True)


def test_a_child_of_a_private_interpreter_parses_as_nobody_without_network_or_database(
    private_dir, database_url
):
    python = _private_interpreter(private_dir)
    # The premise: nobody cannot pass the folder that holds the interpreter's prefix.
    assert str(private_dir) in blocking_directories([str(python.parent)], 65534, [65534])
    hooks = Path(tempfile.mkdtemp(prefix="citeproof-hooks-"))
    hooks.chmod(0o755)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(0.2)
    try:
        (hooks / "sitecustomize.py").write_text(EXPLOIT)
        (hooks / "worker.py").write_text(WORKER)
        pdf = hooks / "paper.pdf"
        pdf.write_bytes(
            make_pdf(
                [
                    ["Vaccination reduced hospital admissions by 43 percent in the cohort."],
                    ["The effect held across all age groups studied."],
                ]
            )
        )
        pdf.chmod(0o644)
        request: dict = {"connect": ["127.0.0.1", server.getsockname()[1]]}
        pg_socket = _postgres_socket(database_url)
        if pg_socket:
            request["unix"] = pg_socket
        environment = {
            "PATH": os.environ["PATH"],
            "HOME": "/root",
            "PYTHONPATH": str(hooks),
            "DATABASE_URL": database_url,
            "HF_HUB_OFFLINE": "1",
            "DO_NOT_TRACK": "1",
        }
        done = subprocess.run(
            [str(python), str(hooks / "worker.py"), json.dumps(request), str(pdf)],
            env=environment,
            cwd=private_dir,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        result = json.loads(done.stdout.strip().splitlines()[-1])
        with pytest.raises(TimeoutError):
            server.accept()  # nothing ever connected
    finally:
        server.close()
        shutil.rmtree(hooks, ignore_errors=True)
    assert result["prefix"].startswith(str(private_dir))
    assert result["base_prefix"].startswith(str(private_dir))
    isolation = result["isolation"]
    assert (isolation["network"], isolation["user"], isolation["uid"]) == (
        NETWORK_NAMESPACE,
        UID_SWITCHED,
        65534,
    ), isolation
    assert isolation["files"] == FILES_VIEW, isolation
    assert "43 percent" in result["text"] and result["pages"] == 2
    attack = result["done"]
    assert attack["uid"] == 65534
    assert attack["connect"].startswith("OSError: Network is unreachable"), attack
    if pg_socket:
        assert attack["unix"].startswith("PermissionError"), attack


REFUSED_VIEW = textwrap.dedent(
    """
    import json
    import citeproof.parser.isolation as isolation

    def refused(blocked):
        raise PermissionError(1, "Operation not permitted")

    isolation.blocking_directories = lambda paths, uid, gids: {"/private": {"python"}}
    isolation.open_view = refused
    print(json.dumps(isolation.msgspec.to_builtins(isolation.isolate("nobody"))))
    """
)


def test_where_no_view_can_be_made_the_child_keeps_its_uid_and_says_why():
    """Root without CAP_SYS_ADMIN: dropping to nobody would kill the child at its first import,
    so it keeps the worker's uid, and the note (logged, in /readyz's mode) says why."""
    done = subprocess.run(
        [sys.executable, "-c", REFUSED_VIEW], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["user"] == "same-uid" and result["uid"] == 0
    assert result["network"] == NETWORK_NAMESPACE
    (note,) = result["notes"]
    assert "nobody cannot reach the interpreter (/private)" in note and "kept uid 0" in note
