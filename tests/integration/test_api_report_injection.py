"""Text from documents cannot become links, images or markup in the Markdown report.

A hostile thesis or source puts Markdown in a claim, a quote, a reference entry or a file name:
`[Re-verify here](https://evil.example)`, a tracking image, an autolink, raw HTML. Rendered by a
real CommonMark renderer (markdown-it, as GitHub-like viewers do), the report has no link, no
image and no tag that came from the documents, and the text still reads as written.
"""

from __future__ import annotations

import uuid

from markdown_it import MarkdownIt

from tests.integration.api_support import (
    api_client,
    new_user,
    seed_results,
    thesis_with_sources,
)
from tests.integration.test_api_runs import start_run

INJECTION = (
    "[Re-verify here](https://evil.example/login) ![pixel](https://evil.example/p.png) "
    "[ref][1] <https://evil.example/auto> <img src=x onerror=alert(1)> `code` *loud* \\[x\\]"
    "\n\n[1]: https://evil.example/reference"
)


async def test_markdown_injection_in_every_document_field_stays_text(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        thesis = uuid.UUID(ids["thesis_id"])
        await pool.execute("UPDATE citations SET claim_text = $2 WHERE document_id = $1", thesis,
                           INJECTION)  # fmt: skip
        await pool.execute(
            'UPDATE "references" SET raw = $2, label = $3 WHERE document_id = $1',
            thesis,
            INJECTION,
            "[1](https://evil.example)",
        )
        await pool.execute("UPDATE verdicts SET quote = $1 WHERE quote IS NOT NULL", INJECTION)
        await pool.execute(
            "UPDATE documents SET title = $2, filename = $3 WHERE id = $1",
            thesis,
            "![t](https://evil.example/t.png)",
            "[thesis](https://evil.example).pdf",
        )
        response = await client.get(
            f"/v1/runs/{run_id}/report?format=markdown", headers=alice.headers
        )
    assert response.status_code == 200, response.text
    rendered = MarkdownIt("commonmark").enable("table").render(response.text)
    assert "evil.example" in rendered  # the text is there...
    assert "<a " not in rendered and "<img" not in rendered  # ...but nothing links or loads
    assert "<code>code</code>" not in rendered and "<em>loud</em>" not in rendered
    assert "Re-verify here" in rendered and "[Re-verify here]" in rendered
