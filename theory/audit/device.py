"""Sampling a mechanism on a GPU (CuPy) for the auditor, which counts on the host.

Implements: AUDIT (device sampling).  The auditor draws its outputs in batches of about 2^21 numbers
(:func:`semiprivate.theory.audit.audit_pairs`), and for the vector mechanisms of published testers
(:mod:`semiprivate.theory.audit.examples`) drawing the noise is about half of its time on a CPU.
:class:`OnDevice` moves that part to a CUDA device: each call of the wrapped mechanism gets the
input as a CuPy array and a CuPy generator, runs there, and its outputs come back as a NumPy array,
so the events, the counts and the bounds are the auditor's usual host code.

The wrapped mechanism must be written with the array operations NumPy and CuPy share (``xp =
semiprivate.kernels.array_module(a)``, then ``xp.where``, ``xp.cumsum``, ...) and draw from the
generator methods both offer (``standard_exponential``, ``random``, ``exponential``, ``integers``,
``uniform``, ``standard_normal``): every mechanism of :mod:`~semiprivate.theory.audit.examples` but
``Laplace`` and ``LaplaceSnapping`` is.

Randomness.  The device generator of a call is seeded with one 63-bit integer drawn from the
auditor's host generator of that call, so an audit stays a function of its seed (on the same
device, driver and CuPy version: cuRAND's streams are not NumPy's).  The law is the mechanism's law
with cuRAND's uniform and exponential draws in place of NumPy's; the GPU tests
(``tests/theory/audit/device``) check it against the host path with an audit-style two-sample test.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.validation import as_generator, check_option

__all__ = ["OnDevice", "BIT_GENERATORS"]

#: cuRAND bit generators of ``cupy.random`` (Philox: counter-based, cheap to seed once per call)
BIT_GENERATORS = ("Philox4x3210", "XORWOW", "MRG32k3a")


def _cupy() -> Any:
    try:
        cp = importlib.import_module("cupy")
        cp.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no CuPy, or no usable device
        raise RuntimeError("OnDevice needs CuPy and a CUDA device (pip install 'semiprivate[gpu]' on a machine "
                           f"with an NVIDIA GPU); audit the mechanism itself on the CPU instead "
                           f"({type(exc).__name__}: {exc})") from None
    return cp


@dataclass
class OnDevice:
    """The audit form ``mechanism(data, size, rng)`` of ``mechanism`` sampled on a CUDA device.

    Parameters
    ----------
    mechanism : callable ``(data, size, generator) -> array``
        Written with array operations NumPy and CuPy share (see the module docstring); called with
        ``data`` as a CuPy array (an ndarray input; other inputs are passed as they are) and a
        ``cupy.random.Generator``, it returns ``size`` outputs along axis 0 as a CuPy array.
    bit_generator : {"Philox4x3210", "XORWOW", "MRG32k3a"}
        The ``cupy.random`` bit generator, seeded anew for each call from the host ``rng``.

    Examples
    --------
    On a machine with a GPU (skipped here)::

        from semiprivate.theory.audit import audit_pairs
        from semiprivate.theory.audit.examples import SVT
        a, b = np.ones(10), np.r_[0.0, np.ones(9)]
        audit_pairs(OnDevice(SVT(3)), [(a, b)], epsilon=0.1, trials=10**8, rng=0)
    """

    mechanism: Any
    bit_generator: str = "Philox4x3210"

    def __post_init__(self) -> None:
        if not callable(self.mechanism):
            raise TypeError(f"mechanism must be callable (data, size, generator) -> array, got "
                            f"{type(self.mechanism).__name__}")
        check_option(self.bit_generator, "bit_generator", BIT_GENERATORS)

    def __call__(self, data: Any, size: int, rng: Any) -> np.ndarray:
        cp = _cupy()
        seed = int(as_generator(rng).integers(2**63))
        g = cp.random.Generator(getattr(cp.random, self.bit_generator)(seed))
        out = self.mechanism(cp.asarray(data) if isinstance(data, np.ndarray) else data, size, g)
        if not isinstance(out, (cp.ndarray, np.ndarray)):
            raise TypeError(f"the mechanism on the device must return an array (CuPy or NumPy), got "
                            f"{type(out).__name__}")
        return cp.asnumpy(out)
