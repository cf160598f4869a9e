"""citeproof judge: verdicts with verified quotes, from an LLM or an offline classifier."""
