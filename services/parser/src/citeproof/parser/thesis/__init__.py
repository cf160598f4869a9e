"""Thesis analysis: the reference list, citation markers, claims and marker -> reference links.

Rule-based and offline (see docs/adr/0005-thesis-analysis.md). One entry point: `analyze_thesis`.
"""

from citeproof.parser.thesis.analyze import analyze_thesis

__all__ = ["analyze_thesis"]
