"""Developer and benchmark tooling, apart from the runtime: installed into the development venv
by `make setup` (`devkit/`), never into a service image or the `citeproof` distribution.

- `pdfgen`: PDFs (and DOCX) of the samples, test fixtures and benchmark theses and sources.
- `journey`: the user's journey over HTTP, for the end-to-end and chaos tests and benchmarks.
- `checkcovid`: judge examples from the Check-COVID data set (training and benchmarks).
- `minilm`: MiniLM sentence embeddings with a cache, for those examples' simulated retrieval.
- `evaluation`: accuracy and calibration measures.
- `library_run`: reference-manager inputs through the API, parser and planner in-process, scored
  link by link (the library-inputs tests and benchmark).
"""
