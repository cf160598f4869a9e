"""citeproof parser service: staged upload bytes to a parsed document with chunks and embeddings.

Entry point: `citeproof-parser` (`citeproof.parser.__main__:main`). The pipeline for one item is
sniff -> extract blocks -> assemble the document text -> chunk -> metadata (in a sandboxed child
process, see `sandbox`), then embed and store in the worker process (`service`).
"""
