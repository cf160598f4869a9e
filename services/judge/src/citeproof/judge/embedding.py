"""Moved to `citeproof.devkit.minilm`; this name stays only until the last benchmarks import the
new one."""

from citeproof.devkit.minilm import CachedEmbedder, embed_texts

__all__ = ["CachedEmbedder", "embed_texts"]
