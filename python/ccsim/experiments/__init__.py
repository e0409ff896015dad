"""Reproductions of published congestion-control experiments (scenario files, reference data)."""
