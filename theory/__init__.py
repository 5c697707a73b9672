"""``semiprivate.theory``: semi-private learning theory in readable Python.

Sub-packages (among others): ``classes``, ``privacy``, ``learners``, ``bounds``, ``audit``, ``report``;
modules: ``combinatorics``, ``covers``, ``graphs``, ``distributions``, ``validity``,
``spec``, ``audit_suite``, ``distributed``.  Sampling and PCA go through :mod:`semiprivate.kernels`.

Which paper item (SPEC id) each object implements, and which tests and proof checks cover
it: ``python -m semiprivate spec`` (:mod:`semiprivate.theory.spec`, generated from the ``Implements:`` lines of
the code).

Shared conventions live in :mod:`semiprivate.validation` (input checks, ``rng`` handling)
and :mod:`semiprivate.theory.validity` (what happens when a theorem's hypotheses fail).
"""

