"""Everything that imports torch: verification, measurement, the sandbox, recorded runs, explain."""
