"""Which names does this code bind, and what does a name mean here? Scopes and bindings."""


def class_like(name: str) -> bool:
    """``name`` is written as a class is: capitalised past any leading underscores (``Block``,
    ``_EmformerLayer``), so calling it builds an object rather than computing a value."""
    return name.lstrip("_")[:1].isupper()
