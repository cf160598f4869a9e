"""Runs endpoints."""
