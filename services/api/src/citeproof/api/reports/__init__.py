"""Reports endpoints."""
