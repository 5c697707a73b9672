"""``semiprivate.kernels``: fast primitives of the semiprivate toolkit (exponential mechanism, PCA, exact noise).

Imports nothing from :mod:`semiprivate.theory`.  The NumPy reference implementations
(:mod:`semiprivate.kernels._reference`) are the specification; the Cython (CPU) and CuPy (GPU)
backends are tested against them.  See :func:`available_backends` and
:mod:`semiprivate.kernels._backend` for how a backend is chosen.

Public names are resolved lazily (PEP 562), so ``import semiprivate.kernels`` stays cheap and never
imports CuPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from semiprivate.kernels._backend import array_module, available_backends, build_info

# public name -> module that defines it
_LAZY = {
    "exponential_mechanism": "semiprivate.kernels._exponential",
    "exponential_log_probabilities": "semiprivate.kernels._exponential",
    "error_counts": "semiprivate.kernels._exponential",
    "pack_bits": "semiprivate.kernels._exponential",
    "cython_threads": "semiprivate.kernels._exponential",
    "sampler_error_bounds": "semiprivate.kernels._exponential",
    "pca": "semiprivate.kernels._pca",
    "PCAResult": "semiprivate.kernels._pca",
    "CovarianceAccumulator": "semiprivate.kernels._pca",
    "discrete_laplace": "semiprivate.kernels.noise",
    "discrete_gaussian": "semiprivate.kernels.noise",
    "bernoulli_exp": "semiprivate.kernels.noise",
}

__all__ = ["array_module", "available_backends", "build_info", *_LAZY]

if TYPE_CHECKING:  # pragma: no cover
    from semiprivate.kernels._exponential import cython_threads as cython_threads
    from semiprivate.kernels._exponential import error_counts as error_counts
    from semiprivate.kernels._exponential import exponential_log_probabilities as exponential_log_probabilities
    from semiprivate.kernels._exponential import exponential_mechanism as exponential_mechanism
    from semiprivate.kernels._exponential import pack_bits as pack_bits
    from semiprivate.kernels._exponential import sampler_error_bounds as sampler_error_bounds
    from semiprivate.kernels._pca import CovarianceAccumulator as CovarianceAccumulator
    from semiprivate.kernels._pca import PCAResult as PCAResult
    from semiprivate.kernels._pca import pca as pca
    from semiprivate.kernels.noise import bernoulli_exp as bernoulli_exp
    from semiprivate.kernels.noise import discrete_gaussian as discrete_gaussian
    from semiprivate.kernels.noise import discrete_laplace as discrete_laplace


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
