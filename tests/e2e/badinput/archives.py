"""Generators of hostile archives and PDFs that target the parsers' decoders.

Everything is built in code at test time (nothing large is committed): DOCX files whose XML
declares entities (XXE, billion laughs), a DOCX of many tiny members that the ratio guard
exempts, zips whose central directory lies or whose entries overlap, a PDF whose one content
stream inflates to far more than it weighs, and a PDF whose page tree points back at itself.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib

import pikepdf

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
    'package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats'
    '.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.'
    'openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="word/document.xml"/></Relationships>'
)


def _document(body_xml: str, doctype: str = "") -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>{doctype}<w:document xmlns:w="{_W}"><w:body>'
        f"{body_xml}</w:body></w:document>"
    ).encode()


def _paragraph(text: str) -> str:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>"


def docx(document: bytes, extra: dict[str, bytes] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", RELS)
        archive.writestr("word/document.xml", document)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return out.getvalue()


def docx_xxe(visible: str, secret_path: str) -> bytes:
    """document.xml declares external entities (a local file, a URL) and uses them."""
    doctype = (
        f'<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file://{secret_path}">'
        '<!ENTITY net SYSTEM "http://127.0.0.1:9/xxe">]>'
    )
    return docx(_document(_paragraph(visible) + _paragraph("&xxe;") + _paragraph("&net;"), doctype))


def docx_billion_laughs(levels: int = 10) -> bytes:
    """The classic: ten levels of ten references each, 10^9 copies of 'lol' if expanded."""
    entities = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{n} "{("&lol" + str(n - 1) + ";") * 10}">' for n in range(1, levels)
    ]
    doctype = "<!DOCTYPE w:document [" + "".join(entities) + "]>"
    return docx(_document(_paragraph(f"&lol{levels - 1};"), doctype))


def docx_many_small_members(members: int = 250, member_bytes: int = 1_000_000) -> bytes:
    """Thousands of members each under the per-member ratio guard's size floor, under 1 MiB
    compressed in all: the total inflated size is what must stop it."""
    filler = b"<x>" + b" " * member_bytes + b"</x>"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", RELS)
        archive.writestr("word/document.xml", _document(_paragraph("Small parts.")))
        for n in range(members):
            archive.writestr(f"word/media/part{n}.xml", filler)
    return out.getvalue()


def _patch_central_sizes(data: bytes, name: bytes, file_size: int, compress_size: int) -> bytes:
    """Rewrite the sizes the central directory (only) declares for `name`."""
    buf = bytearray(data)
    at = buf.find(b"PK\x01\x02")
    while at != -1:
        name_len = struct.unpack_from("<H", buf, at + 28)[0]
        if bytes(buf[at + 46 : at + 46 + name_len]) == name:
            struct.pack_into("<I", buf, at + 20, compress_size)
            struct.pack_into("<I", buf, at + 24, file_size)
        at = buf.find(b"PK\x01\x02", at + 4)
    return bytes(buf)


def docx_lying_sizes(real_bytes: int = 80 * 1024 * 1024) -> bytes:
    """document.xml inflates to 80 MiB, but the central directory says 2 KiB from 1 KiB (so a
    guard reading the directory sees nothing wrong)."""
    body = _paragraph("Lying sizes.") + "<w:p><w:r><w:t>" + " " * real_bytes + "</w:t></w:r></w:p>"
    whole = docx(_document(body))
    return _patch_central_sizes(whole, b"word/document.xml", 2048, 1024)


def docx_overlapping_entries(copies: int = 2000) -> bytes:
    """One compressed 1 MiB member referenced by thousands of central-directory entries (the
    overlapping-file zip bomb): small on disk, ~2 GiB if every entry is inflated."""
    member = _document("<w:p><w:r><w:t>" + " " * (1024 * 1024) + "</w:t></w:r></w:p>")
    base = docx(member)
    buf = bytearray(base)
    eocd = buf.rfind(b"PK\x05\x06")
    cd_offset = struct.unpack_from("<I", buf, eocd + 16)[0]
    central = bytes(buf[cd_offset:eocd])
    # The central record of word/document.xml, to be repeated under new names.
    at = central.find(b"word/document.xml") - 46
    name_len, extra_len, comment_len = struct.unpack_from("<HHH", central, at + 28)
    record = central[at : at + 46 + name_len + extra_len + comment_len]
    clones = []
    for n in range(copies):
        clone = bytearray(record[:46]) + f"word/c{n:05}.xml".encode().ljust(name_len, b"_")
        struct.pack_into("<H", clone, 28, name_len)
        struct.pack_into("<H", clone, 30, 0)
        struct.pack_into("<H", clone, 32, 0)
        clones.append(bytes(clone))
    new_central = central + b"".join(clones)
    entries = struct.unpack_from("<H", buf, eocd + 10)[0] + copies
    end = bytearray(buf[eocd : eocd + 22])
    struct.pack_into("<H", end, 8, entries)
    struct.pack_into("<H", end, 10, entries)
    struct.pack_into("<I", end, 12, len(new_central))
    return bytes(buf[:cd_offset]) + new_central + bytes(end)


def pdf_flate_bomb(inflated: int = 1024 * 1024 * 1024, visible: str = "") -> bytes:
    """One page whose content stream weighs ~1 MiB and inflates to `inflated` bytes (spaces
    between two text operators)."""
    head = b"BT /F1 12 Tf 72 720 Td (" + visible.encode("latin-1") + b") Tj ET\n"
    compressor = zlib.compressobj(9)
    parts = [compressor.compress(head)]
    chunk = b" " * (16 * 1024 * 1024)
    for _ in range(inflated // len(chunk)):
        parts.append(compressor.compress(chunk))
    parts.append(compressor.compress(b"\nBT /F1 12 Tf 72 700 Td (end) Tj ET\n"))
    parts.append(compressor.flush())
    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(595, 842))
    font = pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica
    )
    page.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
    stream = pikepdf.Stream(pdf, b"".join(parts))
    stream.Filter = pikepdf.Name.FlateDecode
    page.Contents = pdf.make_indirect(stream)
    out = io.BytesIO()
    pdf.save(out, compress_streams=False, stream_decode_level=pikepdf.StreamDecodeLevel.none)
    return out.getvalue()


def pdf_cyclic_page_tree() -> bytes:
    """A page tree whose /Pages node lists itself as a kid (and claims a billion pages)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 1000000000 >>",
        b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 3 0 R] /Count 1000000000 >>",
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)
