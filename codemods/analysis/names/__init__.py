"""Which names does this code bind, and what does a name mean here? Scopes and bindings."""
