"""How safe a fix is, and which fixes a run applies.

A *safe* fix keeps eager behaviour by construction and is applied by
default; an *unsafe* one may change behaviour and is applied only with
``--unsafe-fixes``; ``none`` means the site is reported without a fix.
"""

from __future__ import annotations

from typing import Literal

Safety = Literal["safe", "unsafe", "none"]
FixMode = Literal["report", "safe", "unsafe"]
