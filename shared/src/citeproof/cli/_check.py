"""`citeproof check THESIS [SOURCE|DIR ...] [--bib LIBRARY]`: check a thesis's citations in one
command.

Without --api it runs the whole pipeline on this machine (embedded PostgreSQL in the person's
data directory, the four services as child processes) and stops everything afterwards; with
--api URL --token T it uses a deployed instance. `verify` is the same command.

Exit codes: 0 nothing --fail-on selects (with --baseline: nothing new); 1 problems
(--fail-on: by default error findings, contradicted or unsupported verdicts, likely problems);
2 usage or runtime error; 3 nothing could be examined (no citation, a judge outage, or below
--min-coverage; the sentence says why); 130 interrupted. `citeproof.cli._outcome` defines them.

Rules are configured per project in `[tool.citeproof]` of a pyproject.toml or a citeproof.toml
found next to the thesis, up to the repository root, or in the current directory (`_project`),
and by flags; `--write-baseline`/`--baseline` make CI fail only on new findings (`_baseline`).

With --bib (or a Zotero export folder, or a .bib/.ris/.rdf among the sources) the library goes
up as the bibliography and the PDFs its entries attach as sources (`_library`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from citeproof.cli import _judge, _library, _project
from citeproof.cli._api_client import API_RENDERED_FORMATS, ApiClient, ApiError
from citeproof.cli._baseline import Baseline, BaselineError, read_baseline, write_baseline
from citeproof.cli._failon import DEFAULT, accepted_names, parse_fail_on
from citeproof.cli._local import LocalStack, default_data_dir
from citeproof.cli._outcome import (
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_MIN_COVERAGE,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    ExitPolicy,
    Outcome,
    citation_label,
    coverage,
    decide,
)
from citeproof.cli._outputs import FORMATS, Output, OutputError, plan_outputs, to_csv, to_json
from citeproof.cli._progress import Progress
from citeproof.cli._sarif import to_sarif
from citeproof.cli._summary import print_summary
from citeproof.pipeline import SEVERITIES
from citeproof.version import version

API_URL_ENV = "CITEPROOF_API_URL"
# `--token` alone means an API on this machine (e.g. a running `citeproof dev`).
DEFAULT_API_URL = "http://127.0.0.1:8000"
TOKEN_ENV = "CITEPROOF_TOKEN"
DEFAULT_TIMEOUT_S = 1800.0
# What a source folder contributes: the formats the parser reads.
SOURCE_SUFFIXES = frozenset({".pdf", ".docx", ".html", ".htm", ".xhtml", ".md", ".markdown",
                             ".txt", ".text"})  # fmt: skip


class UsageError(Exception):
    pass


@dataclass(frozen=True)
class CheckPlan:
    thesis: Path
    sources: list[Path]
    outputs: list[Output]
    policy: ExitPolicy
    timeout_s: float
    libraries: _library.LibraryInputs
    # Turn the account's open-access lookup on or off first (None: leave it as it is).
    open_access: bool | None = None
    # The same for reference verification against scholarly indexes (ADR 0024).
    verify_references: bool | None = None
    # The thesis as the person named it (a LaTeX project folder, not the zip made of it):
    # SARIF locations point there.
    thesis_arg: Path | None = None
    # Rules disabled or re-levelled (configuration file, then flags).
    overrides: _project.RuleOverrides = _project.NO_OVERRIDES
    # The baseline the exit code is relative to (read before the run: a bad file fails fast),
    # and the file to write this run's findings and problem verdicts to.
    baseline: Baseline | None = None
    write_baseline: Path | None = None
    # The configuration file used (None: none found, or --no-config).
    config_path: Path | None = None


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "check",
        aliases=["verify"],
        help="check a thesis's citations against its sources (runs everything locally, or "
        "uses --api)",
        description=__doc__.split("\n\n")[1],
    )
    parser.add_argument(
        "thesis", type=Path,
        help="the thesis (PDF, DOCX, Markdown, HTML, text; LaTeX .tex, .zip or project folder)",
    )  # fmt: skip
    parser.add_argument(
        "sources", type=Path, nargs="*",
        help="the cited sources: files, or folders to search; a Zotero export folder (a "
        ".bib/.ris/.rdf with files/) or a .bib/.ris/.rdf file counts as --bib",
    )  # fmt: skip
    library = parser.add_argument_group("reference library")
    library.add_argument(
        "--bib", dest="bib", type=Path, action="append", default=[], metavar="LIBRARY",
        help="your library export (.bib, .ris, CSL .json, Zotero .rdf, or an Export "
        "Collection… folder): citations link by its keys and DOIs, its attached PDFs are "
        "uploaded as sources (repeatable)",
    )  # fmt: skip
    library.add_argument(
        "--attachments", dest="attachments", type=Path, action="append", default=[],
        metavar="DIR", help="also look here (by file name) for the PDFs the library attaches",
    )  # fmt: skip
    library.add_argument(
        "--open-access", action=argparse.BooleanOptionalAction, default=None,
        help="turn the open-access lookup of references with a DOI and no PDF on or off for "
        "your account (the server must allow it: CITEPROOF_OPEN_ACCESS_ENABLED)",
    )  # fmt: skip
    library.add_argument(
        "--verify-references", action=argparse.BooleanOptionalAction, default=None,
        help="turn reference verification on or off for your account: every entry is looked up "
        "in Crossref and OpenAlex (only its identifiers, title, first author and year are sent) "
        "and in the imported Retraction Watch data (the server must allow it: "
        "CITEPROOF_VERIFY_ENABLED)",
    )  # fmt: skip
    out = parser.add_argument_group("output")
    out.add_argument(
        "--format", "-f", dest="formats", action="append", choices=FORMATS, default=None,
        help="report format, repeatable (default html, or from the -o extension)",
    )  # fmt: skip
    out.add_argument(
        "-o", "--output", "--out", dest="output", default=None,
        help="report file; with several formats PATH.<format> each; '-' for stdout",
    )  # fmt: skip
    gate = parser.add_argument_group("exit code")
    gate.add_argument(
        "--fail-on", default=None, metavar="NAMES",
        help=f"exit 1 on what these select, {accepted_names()} (default {DEFAULT.text})",
    )  # fmt: skip
    gate.add_argument(
        "--min-coverage", type=float, default=None,
        help="exit 3 when fewer than this share of citations could be examined (content rules "
        f"ran or the judge gave a label other than judge_error; default {DEFAULT_MIN_COVERAGE})",
    )  # fmt: skip
    gate.add_argument(
        "--min-confidence", type=float, default=None,
        help="verdicts below this confidence count as needs_review "
        f"(default {DEFAULT_MIN_CONFIDENCE})",
    )  # fmt: skip
    gate.add_argument(
        "--baseline", type=Path, default=None, metavar="FILE",
        help="fail only on findings and verdicts this baseline does not hold (also "
        "`baseline` in the configuration)",
    )  # fmt: skip
    gate.add_argument(
        "--write-baseline", type=Path, default=None, metavar="FILE",
        help="write every finding and problem verdict of this run to FILE (then exit as if "
        "checked against it)",
    )  # fmt: skip
    rules = parser.add_argument_group("rules")
    rules.add_argument(
        "--disable", action="append", default=[], metavar="RULE",
        help="turn a rule off (code or slug, e.g. quote-verified; repeatable)",
    )  # fmt: skip
    rules.add_argument(
        "--severity", action="append", default=[], metavar="RULE=LEVEL",
        help=f"re-level a rule: LEVEL is {', '.join(SEVERITIES)} (repeatable)",
    )  # fmt: skip
    rules.add_argument(
        "--config", type=Path, default=None, metavar="FILE",
        help=f"read this configuration (a {_project.CONFIG_FILE}, or a {_project.PYPROJECT_FILE} "
        f"with [tool.{_project.TOOL_TABLE}]) instead of the one found next to the thesis, up to "
        "the repository root, or in the current directory",
    )  # fmt: skip
    rules.add_argument("--no-config", action="store_true", help="ignore configuration files")
    _judge.register(parser)
    where = parser.add_argument_group("where to run")
    where.add_argument(
        "--api", default=None, help=f"a deployed API's URL (default ${API_URL_ENV}); else local"
    )
    where.add_argument("--token", default=None, help=f"API token for --api (default ${TOKEN_ENV})")
    where.add_argument(
        "--data-dir", type=Path, default=None,
        help=f"local data: database, logs (default {default_data_dir()})",
    )  # fmt: skip
    where.add_argument(
        "--database-url", default=None, help="run locally on this PostgreSQL instead of embedded"
    )
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="give up after this many s"
    )
    parser.set_defaults(handler=run, absorb_extra=_more_sources)


def _more_sources(args: argparse.Namespace, extra: list[str]) -> bool:
    """Words after an option (`check thesis.pdf --bib lib.bib sources/`) are more sources."""
    if any(word.startswith("-") for word in extra):
        return False
    args.sources = [*args.sources, *map(Path, extra)]
    return True


def _fail(message: str) -> int:
    print(f"citeproof check: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def _expand_sources(paths: list[Path], allow_empty: frozenset[Path] = frozenset()) -> list[Path]:
    """Files as given; folders searched recursively (Zotero keeps one folder per item)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p for p in path.rglob("*")
                if p.is_file() and p.suffix.lower() in SOURCE_SUFFIXES
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )  # fmt: skip
            if not found and path not in allow_empty:
                raise UsageError(f"{path}: no PDF, DOCX, HTML, Markdown or text files in it")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"{path}: no such file or folder")
    # The same file named twice (a file and its folder) is uploaded once.
    return list(dict.fromkeys(p.resolve() for p in files))


def _plan(args: argparse.Namespace, scratch: Path) -> CheckPlan:
    thesis = args.thesis
    if thesis.is_dir():
        # A LaTeX project folder goes up as the zip the server reads.
        try:
            thesis = _library.zip_latex_project(args.thesis, scratch)
        except _library.LibraryUsageError as exc:
            raise UsageError(str(exc)) from None
    elif not thesis.is_file():
        raise UsageError(f"{args.thesis}: no such file")
    # A library among the sources (a file or a Zotero export folder) is a --bib.
    exports = [p for p in args.sources if _library.is_library_file(p)]
    exports += [p for p in args.sources if _library.is_export_folder(p)]
    plain = [p for p in args.sources if p not in exports]
    # An export folder's other files are sources too (besides the PDFs its entries attach).
    folders = frozenset(p for p in exports if p.is_dir())
    sources = _expand_sources(plain + list(folders), allow_empty=folders)
    try:
        libraries = _library.LibraryInputs(
            libraries=_library.load([*args.bib, *exports], args.attachments),
            project_libraries=_library.project_libraries(args.thesis, args.attachments),
        )
    except _library.LibraryUsageError as exc:
        raise UsageError(str(exc)) from None
    sources = list(dict.fromkeys([*sources, *libraries.pdfs]))
    sources = [p for p in sources if p != thesis.resolve()]
    try:
        outputs = plan_outputs(args.formats, args.output)
    except OutputError as exc:
        raise UsageError(str(exc)) from None
    config = _configuration(args)
    try:
        fail_on = parse_fail_on(args.fail_on) if args.fail_on is not None else config.fail_on
        policy = ExitPolicy(
            fail_on=fail_on or DEFAULT,
            min_coverage=_first(args.min_coverage, config.min_coverage, DEFAULT_MIN_COVERAGE),
            min_confidence=_first(
                args.min_confidence, config.min_confidence, DEFAULT_MIN_CONFIDENCE
            ),
        )
        policy.validate()
        flags = _project.parse_overrides(args.disable, args.severity, "--disable/--severity")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.api and args.database_url:
        raise UsageError("--api uses a deployed instance; --database-url runs locally: pick one")
    baseline = None
    baseline_path = args.baseline or config.baseline
    if baseline_path is not None and args.write_baseline is None:
        try:
            baseline = read_baseline(baseline_path)
        except BaselineError as exc:
            raise UsageError(str(exc)) from None
    return CheckPlan(
        thesis, sources, outputs, policy, args.timeout, libraries, args.open_access,
        thesis_arg=args.thesis,
        verify_references=getattr(args, "verify_references", None),
        overrides=config.overrides.then(flags),
        baseline=baseline,
        write_baseline=args.write_baseline,
        config_path=config.path,
    )  # fmt: skip


def _first(*values: float | None) -> float:
    return next(v for v in values if v is not None)


def _configuration(args: argparse.Namespace) -> _project.ProjectConfig:
    """The project's configuration file: --config, else the one found, else none."""
    if args.no_config:
        if args.config is not None:
            raise UsageError("--config names a configuration file; --no-config ignores them")
        return _project.ProjectConfig()
    path = args.config
    if path is not None and not path.is_file():
        raise UsageError(f"{path}: no such configuration file")
    path = path or _project.discover(args.thesis)
    if path is None:
        return _project.ProjectConfig()
    try:
        return _project.load(path)
    except _project.ConfigError as exc:
        raise UsageError(str(exc)) from None


class _Interrupted(BaseException):
    """SIGINT/SIGTERM, raised once: a second signal must not cut the drain short."""


def _on_signal(signum: int, frame: object) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise _Interrupted


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    # Signal handlers can only be installed from the main thread (tests call us elsewhere).
    if threading.current_thread() is threading.main_thread():
        previous = {s: signal.signal(s, _on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    else:
        previous = {}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="citeproof-check-") as scratch:
        try:
            plan = _plan(args, Path(scratch))
        except UsageError as exc:
            return _fail(str(exc))
        return _run(args, plan)


def _run(args: argparse.Namespace, plan: CheckPlan) -> int:
    api = args.api or os.environ.get(API_URL_ENV)
    token = args.token or os.environ.get(TOKEN_ENV)
    try:
        judge_env = _judge.judge_env(args, dict(os.environ), remote=bool(api or args.token))
    except _judge.JudgeOptionsError as exc:
        return _fail(str(exc))
    progress = Progress()
    client: ApiClient | None = None
    try:
        with _interruptible():
            if api or args.token:
                if not token:
                    return _fail(f"no API token: pass --token or set {TOKEN_ENV}")
                client = ApiClient(api or DEFAULT_API_URL, token, progress.message)
                return _check_or_cancel(client, plan, progress)
            local = LocalStack(
                data_dir=args.data_dir or default_data_dir(),
                status=progress.message,
                database_url=args.database_url,
                fast=_fast_requested(),
                env=judge_env,
            )
            try:
                with local:
                    client = ApiClient(local.api_url, local.token, progress.message)
                    return _check_or_cancel(client, plan, progress)
            except (RuntimeError, TimeoutError) as exc:
                return _fail(f"{exc}; the service logs are in {local.log_dir}")
    except _Interrupted as interrupted:
        # The handler already ignores further signals; the `with` blocks have drained and
        # stopped whatever was started.
        cancelled = interrupted.args[0] if interrupted.args else None
        suffix = f"; run {cancelled} cancelled" if cancelled else ""
        print(f"citeproof check: interrupted{suffix}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ApiError as exc:
        return _fail(str(exc))
    except httpx.HTTPError as exc:
        return _fail(f"cannot reach the API at {api or DEFAULT_API_URL}: {exc}")
    finally:
        if client is not None:
            client.close()


def _fast_requested() -> bool:
    from citeproof.db.settings import DatabaseSettings
    from citeproof.settings import load

    return load(DatabaseSettings).embedded_pg_fast


def _check_or_cancel(client: ApiClient, plan: CheckPlan, progress: Progress) -> int:
    try:
        return _check(client, plan, progress)
    except _Interrupted:
        # Cancelled here, while the API is still up (a local stack stops right after).
        raise _Interrupted(client.cancel_active_run()) from None


def _open_access_status(preferences: dict) -> str:
    if not preferences.get("open_access_lookup"):
        return "open-access lookup: off for this account"
    # The server's own switch is not visible to a client; the docs say where it is.
    return ("open-access lookup: on for this account (runs look up references with a DOI and "
            "no PDF where the server enables CITEPROOF_RETRIEVER_OPEN_ACCESS_ENABLED)")  # fmt: skip


def _verify_status(preferences: dict) -> str:
    if not preferences.get("verify_references"):
        return "reference verification: off for this account"
    return ("reference verification: on for this account (entries are looked up in scholarly "
            "indexes where the server enables CITEPROOF_VERIFY_ENABLED)")  # fmt: skip


def _check(client: ApiClient, plan: CheckPlan, progress: Progress) -> int:
    try:
        me = client.me()
    except httpx.HTTPError as exc:
        raise ApiError(f"cannot reach the API: {exc}") from None
    session_id = client.create_session(plan.thesis.name)
    progress.message(f"signed in as {me['name']}; session {session_id}")
    if plan.config_path is not None:
        progress.message(f"configuration: {plan.config_path}")
    if plan.baseline is not None:
        progress.message(f"baseline: {plan.baseline.path} ({plan.baseline.total} entries)")
    if plan.open_access is not None:
        switched = client.set_open_access(plan.open_access)
        progress.message(_open_access_status(switched))
    if plan.verify_references is not None:
        switched = client.set_verify_references(plan.verify_references)
        progress.message(_verify_status(switched))
    plan.libraries.report(progress.message)
    thesis_docs = client.upload(session_id, "thesis", [plan.thesis])
    if plan.sources:
        client.upload(session_id, "source", plan.sources)
    elif not plan.libraries.libraries:
        progress.message("no sources given: every citation will be reported source_missing")
    if plan.libraries.exports:
        client.upload(session_id, "bibliography", plan.libraries.exports)
    run_id = client.start_run(session_id, thesis_docs[0]["id"])
    progress.message(f"run {run_id} started")
    try:
        status = client.wait(run_id, plan.timeout_s, progress.update)
    except ApiError:
        client.cancel_active_run()
        raise
    progress.finish()
    if status["status"] != "completed":
        raise ApiError(f"run {run_id} {status['status']}: {status.get('message') or ''}")
    report = plan.overrides.apply(client.report(run_id, plan.overrides.query_params()))
    baseline = plan.baseline
    outcome = decide(report, plan.policy, baseline)
    if plan.write_baseline is not None:
        written = write_baseline(plan.write_baseline, outcome.items, plan.thesis.name, version())
        progress.message(f"baseline: wrote {written} finding(s) and verdict(s) to "
                         f"{plan.write_baseline}")  # fmt: skip
        # The run is then judged against what it just wrote (exit 0 unless nothing could be
        # examined); reading it back also proves the file.
        baseline = read_baseline(plan.write_baseline)
        outcome = decide(report, plan.policy, baseline)
    to_stdout = any(o.path is None for o in plan.outputs)
    summary_stream = sys.stderr if to_stdout else sys.stdout
    covered = _coverage(report, plan)
    _write_outputs(client, run_id, report, outcome, plan, covered)
    print_summary(
        report, outcome, plan.policy, covered,
        lambda line: print(line, file=summary_stream),
        [o.path.resolve() for o in plan.outputs if o.path is not None],
        plan.config_path,
    )  # fmt: skip
    return outcome.exit_code


def _coverage(report: dict, plan: CheckPlan) -> dict:
    citations = report["citations"]
    return coverage(citations, [citation_label(c, plan.policy) for c in citations])


def _configuration_json(plan: CheckPlan) -> dict:
    return {
        "file": str(plan.config_path) if plan.config_path else None,
        **plan.overrides.as_json(),
    }


def _write_outputs(
    client: ApiClient, run_id: str, report: dict, outcome: Outcome, plan: CheckPlan,
    covered: dict,
) -> None:  # fmt: skip
    effective = [plan.policy.effective_label(c["verdict"]) for c in report["citations"]]
    for output in plan.outputs:
        if output.format in API_RENDERED_FORMATS:
            text = client.rendered_report(run_id, output.format, plan.overrides.query_params())
        elif output.format == "json":
            text = to_json(report, covered, outcome.as_json(plan.policy),
                           _configuration_json(plan))  # fmt: skip
        elif output.format == "csv":
            text = to_csv(report, effective)
        else:
            sarif = to_sarif(
                outcome, plan.policy.fail_on, plan.thesis_arg or plan.thesis, version(),
                covered, plan.overrides.as_json(),
            )  # fmt: skip
            text = json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"
        if output.path is None:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            output.path.parent.mkdir(parents=True, exist_ok=True)
            output.path.write_text(text, encoding="utf-8")
