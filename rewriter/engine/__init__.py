"""The torch-free pipeline: discovery, batches, the per-file engine, results, file I/O,
diffs, configuration, reports."""
