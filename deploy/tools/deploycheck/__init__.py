"""Offline validation of everything under deploy/ (no Docker engine, no cluster).

`python deploy/check.py` runs every check; tests import the modules directly.
"""
