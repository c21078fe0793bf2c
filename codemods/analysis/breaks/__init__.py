"""Does this break? The exact libcst answer the rules use (:mod:`.cst`)."""
