"""Documents endpoints."""
