"""hypothesmith's program strategies, built when a test first draws from them.

Building hypothesmith's Python grammar costs seconds of CPU, and importing
hypothesmith loads a parser generator; collecting the tests pays neither
unless a fuzz test runs (they are marked ``fuzz``, outside the default run).
"""

from __future__ import annotations

import hypothesis.strategies as st


def from_grammar() -> st.SearchStrategy[str]:
    """Programs written from Python's grammar (``hypothesmith.from_grammar()``)."""

    def build() -> st.SearchStrategy[str]:
        import hypothesmith

        return hypothesmith.from_grammar()

    return st.deferred(build)


def from_node() -> st.SearchStrategy[str]:
    """Programs written from libcst's node types (``hypothesmith.from_node()``)."""

    def build() -> st.SearchStrategy[str]:
        import hypothesmith

        return hypothesmith.from_node()

    return st.deferred(build)
