"""Builders of the data files citefix ships in citefix/data/ (`python -m builders.NAME`)."""
