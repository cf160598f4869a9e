"""Hostile and broken files, generated in the test run (nothing binary is committed)."""
