"""Check-COVID's corpus keeps some characters as raw HTML entities ("&#8805;85 years"); a
printed abstract never shows them, so the seeded generator's cited documents must read "≥85"."""

from __future__ import annotations

import json
from pathlib import Path

from citeproof.devkit.seeded.material import (
    CHECKCOVID_CORPUS,
    CHECKCOVID_TRAIN,
    load_checkcovid,
)


def test_checkcovid_sentences_have_their_html_entities_decoded(tmp_path: Path) -> None:
    abstract = {
        "cord_id": "abc123",
        "title": "Mortality of the oldest patients &amp; their care",
        "abstract": [
            "Abstract: Patients aged &#8805;85 years died more often.",
            "Those &#8804;40 years rarely did.",
        ],
    }
    claim = {
        "claim": "Patients aged 85 years and older died more often than younger ones.",
        "cord_id": "abc123",
        "label": "SUPPORT",
        "evidence_set": [{"sent_index": 0, "type": "PRIMARY"}],
    }
    (tmp_path / CHECKCOVID_CORPUS).write_text(json.dumps(abstract) + "\n")
    (tmp_path / CHECKCOVID_TRAIN).write_text(json.dumps(claim) + "\n")

    [document] = load_checkcovid(tmp_path)

    assert document.sentences == (
        "Patients aged ≥85 years died more often.",
        "Those ≤40 years rarely did.",
    )
    assert document.title == "Mortality of the oldest patients & their care"
