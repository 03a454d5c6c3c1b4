"""The two-tier mutant corpus: gates, operator families, measurement, vacuity."""
