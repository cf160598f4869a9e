"""Old name of `bench.accuracy.dataset`, kept only until bench/e2e imports the package."""

from bench.accuracy.dataset import BenchClaim, ThesisCase

__all__ = ["BenchClaim", "ThesisCase"]
