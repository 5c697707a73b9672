"""Neighbouring pairs found by black-box optimisation on search batches of their own.

Implements: AUDIT (neighbour search by optimisation; the selection-batch argument of
:mod:`semiprivate.theory.audit.core` applied to the choice of datasets).

Random and hypothesis-driven samplers (:mod:`semiprivate.theory.audit.neighbours`,
:mod:`semiprivate.theory.audit.strategies`) draw pairs blindly.  :func:`search_pairs` instead optimises a
parametrised family of neighbouring pairs ``propose(theta) -> (data, neighbour)`` over a box of
parameters with SciPy's differential evolution: each evaluation draws ``trials`` outputs per dataset from a
stream of its own, builds the audit's candidate events on them
(:func:`semiprivate.theory.audit.candidates.search_pair`) and scores the pair by the best pessimistic
anticipated bound, the score the audit's selection ranks events by.  The pairs returned are functions of
these search outputs only; the audit that follows (:func:`semiprivate.theory.audit.audit_pairs` on them)
draws its own selection and estimation batches from another stream, independent of the search, so its
bound keeps its confidence without any correction for the number of pairs evaluated, however many there
were (the same argument as for the selection batch's events).  Counting the audit's estimate on the
search's outputs would break this.

``propose`` must return a neighbouring pair for every ``theta`` in the box: the search cannot check the
neighbouring relation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy.optimize import differential_evolution
from semiprivate.theory.audit.candidates import search_pair
from semiprivate.theory.audit.draws import Codec, normalize
from semiprivate.theory.audit.outputs import OutputSchema
from semiprivate.validation import RNG, CallableConstraint, Integer, as_generator, validate_params

__all__ = ["search_pairs"]

#: the per-test level the search's anticipated bound assumes (the audit's default confidence 0.95, ``K = 4``)
SEARCH_LEVEL = 0.05 / 8


def _pair_score(mechanism: Any, pair: tuple[Any, Any], trials: int, plan: int, g: np.random.Generator) -> float:
    """The best anticipated bound of the audit's candidate events on ``trials`` fresh outputs per dataset."""
    codec = Codec()
    outs = [normalize(mechanism(d, trials, g), trials, codec) for d in pair]
    if any(o.rows is not None for o in outs):
        codec.schema = OutputSchema([r for o in outs if o.rows is not None for r in o.rows], ())
        for o in outs:
            if o.rows is not None:
                o.table, o.rows = codec.schema.table(o.rows, codec.encode), None
    with np.errstate(invalid="ignore", over="ignore"):
        found, _ = search_pair(0, outs[0], outs[1], trials, plan, SEARCH_LEVEL, 0.0, 64, 512, codec)
    return max((c.score for c in found if math.isfinite(c.score)), default=-1.0)


@validate_params(mechanism=CallableConstraint(), propose=CallableConstraint(), trials=Integer(100),
                 evaluations=Integer(1), n_pairs=Integer(1), plan_trials=Integer(1), rng=RNG)
def search_pairs(mechanism: Any, propose: Callable[[np.ndarray], tuple[Any, Any]],
                 bounds: Sequence[tuple[float, float]], *, trials: int = 5_000, evaluations: int = 60,
                 n_pairs: int = 1, plan_trials: int = 1_000_000, rng: Any = None) -> list[tuple[Any, Any]]:
    """The ``n_pairs`` best pairs ``propose(theta)`` found by differential evolution over ``bounds``.

    Implements: AUDIT (neighbour search by optimisation).

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, size, rng)`` returning ``size`` outputs, as for :func:`semiprivate.theory.audit.audit_pairs`.
    propose : callable
        ``propose(theta) -> (data, neighbour)``: a neighbouring pair for each parameter vector ``theta``.
    bounds : sequence of (low, high)
        The box of ``theta``.
    trials : int
        Search outputs per dataset and evaluation.
    evaluations : int
        About how many pairs are evaluated (SciPy's population of ``max(5, d)`` times its generations).
    n_pairs : int
        How many distinct pairs to return, best score first.
    plan_trials : int
        The estimation trials the score anticipates (the audit's ``trials``).
    rng : None, int or Generator
        Randomness of the search (SciPy's and the mechanism's).  Audit the result with another stream.

    Returns
    -------
    list of (data, neighbour)
        To pass to :func:`semiprivate.theory.audit.audit_pairs` with a fresh ``rng``.

    Examples
    --------
    >>> from semiprivate.theory.privacy.mechanisms import LaplaceMechanism
    >>> pairs = search_pairs(LaplaceMechanism(1.0), lambda t: (float(t[0]), float(t[0]) + 1.0), [(-5.0, 5.0)],
    ...                      trials=2_000, evaluations=10, rng=0)
    >>> len(pairs), -5.0 <= pairs[0][0] <= 5.0, pairs[0][1] - pairs[0][0]
    (1, True, 1.0)
    """
    if isinstance(bounds, (str, bytes)) or not hasattr(bounds, "__len__") or len(bounds) == 0:
        raise TypeError(f"bounds must be a non-empty sequence of (low, high) pairs, got {bounds!r:.60}")
    box = np.asarray(bounds, dtype=np.float64) if all(hasattr(b, "__len__") and len(b) == 2 for b in bounds) else None
    if box is None or not np.isfinite(box).all() or (box[:, 0] > box[:, 1]).any():
        raise ValueError(f"bounds must be finite (low, high) pairs with low <= high, got {bounds!r:.60}")
    g = as_generator(rng)
    probe = propose(box.mean(axis=1))
    if not (isinstance(probe, (tuple, list)) and len(probe) == 2):
        raise ValueError(f"propose must return a (data, neighbour) pair, got {probe!r:.60}")
    seen: list[tuple[float, tuple[float, ...], tuple[Any, Any]]] = []

    def objective(theta: np.ndarray) -> float:
        pair = propose(np.asarray(theta, dtype=np.float64))
        score = _pair_score(mechanism, (pair[0], pair[1]), int(trials), int(plan_trials), g)
        seen.append((score, tuple(float(t) for t in theta), (pair[0], pair[1])))
        return -score

    d = box.shape[0]
    popsize = max(5, d)
    maxiter = max(0, int(evaluations) // (popsize * d) - 1)
    differential_evolution(objective, box, maxiter=maxiter, popsize=popsize, polish=False, tol=0.0,
                           seed=np.random.default_rng(int(g.integers(2**63))), init="latinhypercube")
    seen.sort(key=lambda s: -s[0])
    out: list[tuple[Any, Any]] = []
    keys: set[tuple[float, ...]] = set()
    for _, key, pair in seen:
        if key not in keys:
            keys.add(key)
            out.append(pair)
        if len(out) == n_pairs:
            break
    return out
