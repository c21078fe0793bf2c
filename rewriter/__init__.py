"""gbfix's engine: discovery, batch runner, diffs, configuration, CLI."""

__version__ = "0.1.0"
