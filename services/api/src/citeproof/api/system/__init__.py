"""System endpoints."""
