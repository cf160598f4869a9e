"""Seeded theses for the citation linter's benchmark (issue 25, `make bench-findings`).

Theses whose citations are correct by construction - Check-COVID train SUPPORT claims against
their abstracts, Citation-Integrity train SUPPORT citations against their evidence sentences,
each rendered into a longer multi-page source PDF, and quotations copied from those sources -
with errors injected at known places, and the answer key that says which finding each place
must (or must not) produce. `material` reads the data sets, `sources` lays out and renders the
source PDFs (printed page numbers that differ from the PDF's page indices included), `compose`
builds a thesis, injects the errors and writes its answer key, `key` holds the answer key's
types and which rule each injected kind must trigger, `score` compares a run's report with it.

Everything is drawn from one seed: the same seed gives the same theses, sources and answer key.
"""
