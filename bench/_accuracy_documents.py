"""Old name of `bench.accuracy.documents`, kept only until bench/e2e imports the package."""

from bench.accuracy.documents import source_spec, thesis_spec

__all__ = ["source_spec", "thesis_spec"]
