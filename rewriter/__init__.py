"""gbfix: rewrite PyTorch code so torch.compile stops skipping whole functions.

Wings, importing one way only: ``cli`` -> ``runtime`` (the only one that
imports torch) -> ``engine`` -> ``prefilter`` -> :mod:`codemods`.
"""

__version__ = "0.1.0"
