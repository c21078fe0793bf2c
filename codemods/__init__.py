"""gbfix's rules and what they share, in three wings that import one way only.

``rules`` (one module per rule code, the family bases, the registry) imports
``analysis`` (the break catalogue and analysis, scopes and bindings, planning
helpers), which imports ``fastcst`` (the only code that touches libcst's
internals). Nothing here imports ``rewriter``.
"""
