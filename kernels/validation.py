"""Deprecated name of :mod:`semiprivate.validation` (the package's input rules).

The rules moved to a neutral module that imports nothing of the package, so that ``kernels`` and ``theory``
both import them from below (ARCHITECTURE.md).  ``import semiprivate.kernels.validation`` still works and
gives the same module object (its registries and coin observers are the same ones), with a
:class:`DeprecationWarning`; import :mod:`semiprivate.validation` instead.
"""

from __future__ import annotations

import sys
import warnings

from semiprivate import validation as _validation

warnings.warn("semiprivate.kernels.validation is deprecated: import semiprivate.validation (the same module)",
              DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _validation
