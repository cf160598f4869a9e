"""citeproof retriever service: plans runs once their documents are parsed (the fan-out of
citations into retrieval tasks) and retrieves evidence per citation with pgvector + BM25.

Entry point: `citeproof-retriever` (`citeproof.retriever.__main__:main`).
"""
