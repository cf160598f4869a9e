"""Observability: structured logs and Prometheus metrics shared by every service."""
