"""Sessions endpoints."""
