"""`citeproof check --bib`: which files a check uploads for a library, found the ways Zotero,
Better BibTeX and RIS exports name them; missing attachments are reported per entry."""

from __future__ import annotations

import argparse
import shutil
import zipfile
from pathlib import Path

import pytest

from citeproof.cli import _check
from citeproof.cli._library import is_export_folder

REPO = Path(__file__).resolve().parents[2]
LIBRARY = REPO / "samples" / "library"
NAMES = ["1-street-trees.pdf", "2-green-roofs.pdf", "3-cool-pavements.pdf",
         "4-heat-mortality.pdf", "5-rotterdam-network.pdf"]  # fmt: skip


def _pdf(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"%PDF-1.4\n" + path.name.encode() + b"\n%%EOF\n")
    return path


def _export(root: Path, library: Path, skip: tuple[int, ...] = ()) -> Path:
    """A Zotero "Export Collection… with Files" folder: the export and files/<n>/<name>.pdf."""
    root.mkdir(parents=True)
    shutil.copy(library, root / library.name)
    for n, name in enumerate(NAMES, start=1):
        if n not in skip:
            _pdf(root / "files" / str(n) / name)
    return root


def _args(thesis: Path, *sources: Path, bib=(), attachments=(), open_access=None):
    return argparse.Namespace(
        thesis=thesis, sources=list(sources), bib=list(bib), attachments=list(attachments),
        open_access=open_access, formats=None, output=str(thesis.parent / "r.html"),
        fail_on="contradicted", min_coverage=0.5, min_confidence=0.0, api=None,
        database_url=None, timeout=10.0, config=None, no_config=True, disable=[], severity=[],
        baseline=None, write_baseline=None,
    )  # fmt: skip


@pytest.fixture
def thesis(tmp_path: Path) -> Path:
    return _pdf(tmp_path / "thesis.pdf")


def _messages(plan: _check.CheckPlan) -> list[str]:
    said: list[str] = []
    plan.libraries.report(said.append)
    return said


def test_export_folder_as_one_argument_uploads_library_and_attached_pdfs(
    tmp_path: Path, thesis: Path
) -> None:
    export = _export(tmp_path / "MyExport", LIBRARY / "latex" / "library.bib", skip=(2,))
    assert is_export_folder(export)
    plan = _check._plan(_args(thesis, export), tmp_path)
    assert plan.libraries.exports == [(export / "library.bib").resolve()]
    assert sorted(p.name for p in plan.sources) == sorted(n for n in NAMES if n != NAMES[1])
    said = _messages(plan)
    assert said[0].startswith("library library.bib (BibTeX): 7 entries, 4 of 5 attached PDFs")
    # The missing attachment is named with its entry; the rest goes ahead.
    assert any("hofer2020: attachment not found (files/2/2-green-roofs.pdf)" in s for s in said)


def test_ris_l1_paths_found_in_attachments_folder(tmp_path: Path, thesis: Path) -> None:
    # The .ris alone, its PDFs elsewhere: found by file name in --attachments.
    ris = tmp_path / "lib" / "library.ris"
    ris.parent.mkdir()
    shutil.copy(LIBRARY / "library.ris", ris)
    pdfs = tmp_path / "pdfs"
    for name in NAMES:
        _pdf(pdfs / name)
    plan = _check._plan(_args(thesis, bib=[ris], attachments=[pdfs]), tmp_path)
    assert sorted(p.name for p in plan.sources) == NAMES
    assert plan.libraries.exports == [ris.resolve()]
    assert not [s for s in _messages(plan) if "not found" in s]


def test_absolute_zotero_storage_paths_are_followed_locally(tmp_path: Path, thesis: Path) -> None:
    storage = tmp_path / "Zotero" / "storage"
    bib = (LIBRARY / "latex" / "library.bib").read_text()
    for n, name in enumerate(NAMES, start=1):
        target = _pdf(storage / f"ABC{n}" / name)
        bib = bib.replace(f"files/{n}/{name}", f"Full Text PDF:{target}:application/pdf")
    library = tmp_path / "zotero.bib"
    library.write_text(bib)
    plan = _check._plan(_args(thesis, bib=[library]), tmp_path)
    assert sorted(p.name for p in plan.sources) == NAMES
    assert all(storage in p.parents for p in plan.sources)


def test_library_file_among_sources_counts_as_bib(tmp_path: Path, thesis: Path) -> None:
    export = _export(tmp_path / "export", LIBRARY / "latex" / "library.bib")
    other = _pdf(tmp_path / "other" / "unrelated.pdf")
    plan = _check._plan(_args(thesis, export / "library.bib", other), tmp_path)
    assert plan.libraries.exports == [(export / "library.bib").resolve()]
    assert sorted(p.name for p in plan.sources) == sorted([*NAMES, "unrelated.pdf"])


def test_malformed_entries_are_named_by_line_and_the_rest_is_used(
    tmp_path: Path, thesis: Path
) -> None:
    text = (LIBRARY / "latex" / "library.bib").read_text()
    broken = text.replace("@article{hofer2020,\n", "@article{hofer2020,\n  title = {unclosed,\n")
    export = _export(tmp_path / "export", LIBRARY / "latex" / "library.bib")
    (export / "library.bib").write_text(broken)
    plan = _check._plan(_args(thesis, export), tmp_path)
    said = _messages(plan)
    assert any("library.bib, line 15: this entry could not be read" in s for s in said), said
    assert len(plan.sources) >= 4


def test_unreadable_library_and_missing_folder_are_usage_errors(
    tmp_path: Path, thesis: Path
) -> None:
    junk = tmp_path / "notes.bib"
    junk.write_text("no entries here at all")
    with pytest.raises(_check.UsageError, match=r"notes\.bib"):
        _check._plan(_args(thesis, bib=[junk]), tmp_path)
    with pytest.raises(_check.UsageError, match="--attachments"):
        _check._plan(_args(thesis, bib=[LIBRARY / "library.ris"],
                           attachments=[tmp_path / "nope"]), tmp_path)  # fmt: skip
    big = tmp_path / "big.bib"
    with big.open("wb") as handle:
        handle.truncate(_check._library.MAX_FILE_BYTES + 1)
    with pytest.raises(_check.UsageError, match="file cap"):
        _check._plan(_args(thesis, bib=[big]), tmp_path)


def test_latex_project_folder_is_zipped_and_its_bib_attachments_uploaded(
    tmp_path: Path,
) -> None:
    project = tmp_path / "thesis-project"
    shutil.copytree(LIBRARY / "latex", project)
    for n, name in enumerate(NAMES, start=1):
        _pdf(project / "files" / str(n) / name)
    (project / "main.pdf").write_bytes(b"%PDF-1.4 a build output, not uploaded")
    plan = _check._plan(_args(project), tmp_path)
    assert plan.thesis.name == "thesis-project.zip"
    names = zipfile.ZipFile(plan.thesis).namelist()
    assert "main.tex" in names and "chapters/2-1.tex" in names and "library.bib" in names
    assert "main.pdf" not in names
    # The project's own .bib is in the zip; its attached PDFs go up as sources.
    assert plan.libraries.exports == []
    assert sorted(p.name for p in plan.sources) == NAMES


def test_sources_after_options_are_sources_too() -> None:
    from citeproof.cli import parse

    args = parse(["check", "thesis.pdf", "--bib", "lib.bib", "sources/", "more.pdf", "-f", "json"])
    assert args.bib == [Path("lib.bib")]
    assert args.sources == [Path("sources/"), Path("more.pdf")]
    with pytest.raises(SystemExit):
        parse(["check", "thesis.pdf", "--no-such-option"])
