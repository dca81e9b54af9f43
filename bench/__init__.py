"""Benchmarks and measurements: scripts that print figures about citefix (`python -m bench.NAME`)."""
