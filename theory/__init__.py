"""``theory``: semi-private learning theory in readable Python.

Sub-packages (see README, "SPEC ids and modules"): ``classes``, ``combinatorics``,
``covers``, ``graphs``, ``distributions``, ``privacy``, ``learners``, ``bounds``,
``audit``, ``report``.  Sampling and PCA go through :mod:`kernels`.

Shared conventions live in :mod:`kernels.validation` (input checks, ``rng`` handling)
and :mod:`theory.validity` (what happens when a theorem's hypotheses fail).
"""

__version__ = "0.1.0"
