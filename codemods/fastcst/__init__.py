"""The only code that touches libcst's internals: read-only walks and cheap positions."""
