"""The local judge's cross-encoder: MiniLM-L6 fine-tuned to read a claim and one evidence text
together (``make train-judge`` makes it). Two heads of three outputs each (``HEADS``): what
Citation-Integrity's experts would say of a real citation (accurate / irrelevant / not accurate as
written), and what an NLI reader would say (supported / not settled / contradicted).

It runs on ONNX Runtime from the int8 graph shipped in this package; nothing is fetched. One pair
per call: dynamically quantised activations are scaled per input tensor, so a padded batch would
make a pair's scores depend on its neighbours (the same reason the embedder embeds one text per
call), and a verdict must depend on its own claim and evidence alone.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import msgspec
import numpy as np

from citeproof.embeddings.onnx_session import cpu_session_options
from citeproof.pipeline import CONTRADICTED, SUPPORTED, UNSUPPORTED

MODELS_DIR: Final = Path(__file__).parent / "models"
DEFAULT_MODEL_PATH: Final = MODELS_DIR / "cross_encoder_int8.onnx"
DEFAULT_TOKENIZER_PATH: Final = MODELS_DIR / "cross_encoder_tokenizer.json"
# Word pieces per pair, special tokens included; the evidence side is cut, never the claim.
# A cited document of Citation-Integrity (five sentences, median 228 word pieces) fits whole
# beside a median claim (44).
MAX_TOKENS: Final = 320
# [CLS] claim [SEP] evidence [SEP].
SPECIAL_TOKENS: Final = 3
# A claim that leaves the evidence at least one word piece is read whole (as it always was).
# A longer one — real citing sentences run to several hundred word pieces — is read from its
# start up to this many word pieces, cut back to a word boundary, so the evidence keeps
# about three fifths of the window; the verdict's rationale says so.
SHORTENED_CLAIM_TOKENS: Final = 128


class ClaimRead(msgspec.Struct, frozen=True):
    """The part of a claim the cross-encoder reads."""

    text: str
    words_read: int
    words: int

    @property
    def shortened(self) -> bool:
        return self.words_read < self.words


def cut_claim(
    measure,
    claim: str,
    *,
    max_tokens: int = MAX_TOKENS,
    shortened_tokens: int = SHORTENED_CLAIM_TOKENS,
) -> ClaimRead:
    """The claim whole when a window of ``max_tokens`` leaves its evidence a word piece, else
    its start up to ``shortened_tokens`` word pieces, cut back to a word boundary. ``measure``:
    a tokenizer without truncation (training cuts its claims with this same function)."""
    words = len(claim.split())
    pieces = measure.encode(claim, add_special_tokens=False)
    if len(pieces.ids) + SPECIAL_TOKENS < max_tokens:
        return ClaimRead(claim, words, words)
    cut = pieces.offsets[shortened_tokens][0]
    boundary = claim.rfind(" ", 0, cut + 1)
    text = claim[: boundary if boundary > 0 else cut].rstrip()
    return ClaimRead(text, len(text.split()), words)


# Output order of each classifier head (the training labels).
LABELS: Final = (SUPPORTED, UNSUPPORTED, CONTRADICTED)
# The heads, in output order: six outputs, ``LABELS`` for each.
HEADS: Final = ("citint", "nli")
OUTPUTS: Final = len(HEADS) * len(LABELS)

# The second reader: the judge's earlier cross-encoder, MiniLM-L6 fine-tuned on Check-COVID claims
# against single abstract sentences (with mined negatives and negation / direction / number
# counterfactuals), one NLI head. It sees the minimal edits of a claim (another number, a
# negation) that the reader above, trained mostly on real citing sentences, does not; it reads
# a claim against one or two sentences at a time in a shorter window. Same vocabulary and
# tokenizer file as the reader above.
SENTENCE_READER_PATH: Final = MODELS_DIR / "sentence_reader_int8.onnx"
SENTENCE_READER_MAX_TOKENS: Final = 160
SENTENCE_READER_SHORTENED_CLAIM_TOKENS: Final = 104
SENTENCE_READER_HEADS: Final = ("nli",)


class CrossEncoder:
    """Scores (claim, evidence) pairs; thread-safe (ONNX Runtime sessions are)."""

    def __init__(
        self,
        model_path: Path = DEFAULT_MODEL_PATH,
        tokenizer_path: Path = DEFAULT_TOKENIZER_PATH,
        *,
        threads: int = 1,
        max_tokens: int = MAX_TOKENS,
        shortened_claim_tokens: int = SHORTENED_CLAIM_TOKENS,
        heads: Sequence[str] = HEADS,
    ) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        if not 0 < shortened_claim_tokens < max_tokens - SPECIAL_TOKENS:
            raise ValueError(
                f"a shortened claim ({shortened_claim_tokens} word pieces) must leave room for "
                f"evidence in a window of {max_tokens}"
            )
        self.max_tokens = max_tokens
        self._shortened_claim_tokens = shortened_claim_tokens
        self.heads = tuple(heads)
        self.outputs = len(self.heads) * len(LABELS)
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens, strategy="only_second")
        # Measures a claim alone, untruncated (the pair tokenizer above would cut it).
        self._measure = Tokenizer.from_file(str(tokenizer_path))
        self._measure.no_padding()
        self._measure.no_truncation()
        options = cpu_session_options(threads)
        self._session = onnxruntime.InferenceSession(
            str(model_path), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        # The tokenizer object is not documented as thread-safe; encoding is microseconds.
        self._lock = threading.Lock()

    def claim_to_read(self, claim: str) -> ClaimRead:
        """The claim whole when the window leaves its evidence a word piece, else its start."""
        with self._lock:
            return cut_claim(
                self._measure,
                claim,
                max_tokens=self.max_tokens,
                shortened_tokens=self._shortened_claim_tokens,
            )

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text`` alone (no special tokens)."""
        with self._lock:
            return len(self._measure.encode(text, add_special_tokens=False).ids)

    def evidence_budget(self, claim_read: str) -> int:
        """Word pieces left for the evidence beside a claim as read (``claim_to_read``)."""
        return max(self.max_tokens - SPECIAL_TOKENS - self.count_tokens(claim_read), 1)

    def _encode(self, claim: str, evidence: str) -> dict[str, np.ndarray]:
        with self._lock:
            encoding = self._tokenizer.encode(claim, evidence)
        feed = {
            "input_ids": np.asarray([encoding.ids], dtype=np.int64),
            "attention_mask": np.asarray([encoding.attention_mask], dtype=np.int64),
            "token_type_ids": np.asarray([encoding.type_ids], dtype=np.int64),
        }
        return {name: value for name, value in feed.items() if name in self._inputs}

    def logits(self, claim: str, evidences: Sequence[str]) -> np.ndarray:
        """Raw logits, shape (len(evidences), ``self.outputs``): ``LABELS`` per head. A claim
        too long for the window is read shortened (``claim_to_read``)."""
        claim = self.claim_to_read(claim).text
        rows = [self._session.run(None, self._encode(claim, text))[0][0] for text in evidences]
        return np.asarray(rows, dtype=np.float64).reshape(len(evidences), self.outputs)

    def probabilities(self, claim: str, evidences: Sequence[str]) -> np.ndarray:
        """Per evidence text, each head's probabilities (a softmax per head), side by side."""
        logits = self.logits(claim, evidences).reshape(len(evidences), len(self.heads), len(LABELS))
        logits -= logits.max(axis=2, keepdims=True)
        exp = np.exp(logits)
        return (exp / exp.sum(axis=2, keepdims=True)).reshape(len(evidences), self.outputs)


def sentence_reader(threads: int = 1, model_path: Path = SENTENCE_READER_PATH) -> CrossEncoder:
    """The second reader (``SENTENCE_READER_PATH``) with its window and single head."""
    return CrossEncoder(
        model_path,
        DEFAULT_TOKENIZER_PATH,
        threads=threads,
        max_tokens=SENTENCE_READER_MAX_TOKENS,
        shortened_claim_tokens=SENTENCE_READER_SHORTENED_CLAIM_TOKENS,
        heads=SENTENCE_READER_HEADS,
    )
