"""The rules: one module per rule code (``gbf001_unroll_loop`` …), the family bases, the registry."""
