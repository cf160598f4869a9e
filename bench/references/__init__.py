"""Reference verification benchmark (make bench-references)."""
