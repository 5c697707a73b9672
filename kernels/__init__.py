"""``kernels``: fast primitives of the semiprivate toolkit (exponential mechanism, PCA).

Imports nothing from :mod:`theory`.  The NumPy reference implementations
(:mod:`kernels._reference`) are the specification; the Cython (CPU) and CuPy (GPU)
backends are tested against them.  See :func:`available_backends` and
:mod:`kernels._backend` for how a backend is chosen.

Public names are resolved lazily (PEP 562), so ``import kernels`` stays cheap and never
imports CuPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kernels._backend import available_backends, build_info

__version__ = "0.1.0"

# public name -> module that defines it
_LAZY = {
    "exponential_mechanism": "kernels._exponential",
    "exponential_log_probabilities": "kernels._exponential",
    "error_counts": "kernels._exponential",
    "pack_bits": "kernels._exponential",
    "cython_threads": "kernels._exponential",
    "sampler_error_bounds": "kernels._exponential",
    "pca": "kernels._pca",
    "PCAResult": "kernels._pca",
    "CovarianceAccumulator": "kernels._pca",
}

__all__ = ["available_backends", "build_info", *_LAZY]

if TYPE_CHECKING:  # pragma: no cover
    from kernels._exponential import cython_threads as cython_threads
    from kernels._exponential import error_counts as error_counts
    from kernels._exponential import exponential_log_probabilities as exponential_log_probabilities
    from kernels._exponential import exponential_mechanism as exponential_mechanism
    from kernels._exponential import pack_bits as pack_bits
    from kernels._exponential import sampler_error_bounds as sampler_error_bounds
    from kernels._pca import CovarianceAccumulator as CovarianceAccumulator
    from kernels._pca import PCAResult as PCAResult
    from kernels._pca import pca as pca


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kernels' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
