"""PILLAR Algorithm 2: R runs of BST14 Noisy SGD, then the exponential mechanism on held-out data.

Implements: PILLAR.Alg2 (R runs + exponential-mechanism selection, PILLAR App. A.1).  The R runs share
S1 (each run at (eps/R, delta/R), basic composition: (eps, delta) on S1), the selection is the
exponential mechanism (score = -#errors on S2, sensitivity 1, (eps, 0)) on a held-out part S2
disjoint from S1; the partition is a random permutation independent of the data, so parallel
composition gives (max(eps_S1, eps_S2), delta_S1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.theory.privacy._release import released_function
from semiprivate.theory.privacy.accounting import compose_up
from semiprivate.theory.privacy.linear import _check_features, check_signed_labels, zero_one_errors
from semiprivate.theory.privacy.noisy_sgd import NoisySGDResult, noisy_sgd
from semiprivate.validation import (
    EPSILON,
    POSITIVE_INT,
    POSITIVE_REAL,
    PROBABILITY,
    RNG,
    Optional,
    Real,
    as_generator,
    validate_params,
)

__all__ = [
    "alg2_selection_log_probabilities",
    "Alg2Result",
    "pillar_alg2",
]

@validate_params(epsilon=EPSILON)
def alg2_selection_log_probabilities(candidates: Any, Z_holdout: Any, y_holdout: Any, epsilon: float) -> np.ndarray:
    """Exact log-probabilities of PILLAR Alg 2's selection among the R candidates.

    Implements: PILLAR.Alg2 (selection step): ``P[r] ∝ exp(-eps errors_r / 2)``, the
    exponential mechanism with score -#errors on the held-out data (sensitivity 1), from
    :func:`semiprivate.kernels.exponential_log_probabilities`.

    >>> lp = alg2_selection_log_probabilities([[1.0, 0.0], [-1.0, 0.0]], [[1.0, 0.0]], [1], 2.0)
    >>> round(float(np.exp(lp[0] - lp[1])), 6) == round(float(np.e), 6)
    True
    """
    from semiprivate import kernels

    errs = zero_one_errors(candidates, Z_holdout, y_holdout)
    return np.asarray(kernels.exponential_log_probabilities(-errs.astype(np.float64), float(epsilon), sensitivity=1.0))


@dataclass(frozen=True)
class Alg2Result:
    """Output of :func:`pillar_alg2`.

    Attributes
    ----------
    weights : (p,) array, the selected candidate
    candidates : (R, p) array
    index : int, the selected run (the exact held-out error counts it was drawn from are not kept:
        no guarantee covers them)
    runs : NoisySGDResult (all R runs, weights (R, p))
    budget : dict
        ``per_run`` (eps, delta) of each run, ``runs_total`` (basic composition over R runs on
        S1), ``selection`` (eps, 0) on S2, ``total`` (parallel composition over S1, S2),
        ``n_train``, ``n_holdout``, ``repeats``.
    privacy : (epsilon, delta), = budget["total"]
    """

    weights: np.ndarray
    candidates: np.ndarray
    index: int
    runs: NoisySGDResult
    budget: dict[str, Any]
    privacy: tuple[float, float]


@released_function
@validate_params(epsilon=EPSILON, delta=Real(0.0, 1.0, closed="neither"), repeats=POSITIVE_INT,
                 holdout_fraction=PROBABILITY, margin=POSITIVE_REAL, radius=POSITIVE_REAL,
                 n_steps=Optional(POSITIVE_INT), rng=RNG)
def pillar_alg2(Z: Any, y: Any, epsilon: float, delta: float, *, repeats: int = 3, holdout_fraction: float = 0.2,
                margin: float = 1.0, radius: float = 1.0, n_steps: int | None = None, rng: Any = None,
                progress: bool | None = None) -> Alg2Result:
    r"""PILLAR Algorithm 2: R runs of BST14 Noisy SGD, then the exponential mechanism on held-out data.

    Implements: PILLAR.Alg2 (PILLAR App. A.1, Alg 2; BST14 App. D's confidence boosting).  The
    text of Alg 2 was lost in extraction; reconstructed from its description ("applies a base
    procedure on S for R times ... then applies the exponential mechanism to output one final
    result", R ~ log(1/beta)) as follows:

    1. Split the n examples by a data-independent random permutation into S1
       (``n - n_hold``) and S2 (``n_hold = max(1, round(holdout_fraction n))``).
    2. Run :func:`noisy_sgd` R = ``repeats`` times on S1, each at (eps/R, delta/R).
    3. Select run r with probability ∝ exp(-eps errors_r(S2) / 2)
       (:func:`semiprivate.kernels.exponential_mechanism`, score -#errors, sensitivity 1).

    Budget (computed from what ran, in ``budget``): the runs compose to (sum eps_r, sum delta_r)
    on S1 (basic composition); the selection is (eps_sel, 0) on S2; S1, S2 are disjoint, so the
    total is (max(sum eps_r, eps_sel), sum delta_r) = (eps, delta).

    ``n_steps`` (per run; default |S1|^2) as in :func:`noisy_sgd`.  ``progress``: a tqdm bar over the
    steps of the R runs (advanced together) on stderr; default as in :func:`noisy_sgd`.

    Examples
    --------
    >>> g = np.random.default_rng(1)
    >>> Z = g.normal(size=(20, 2)); Z /= 2 * np.linalg.norm(Z, axis=1, keepdims=True)
    >>> y = np.where(Z[:, 0] > 0, 1, -1)
    >>> res = pillar_alg2(Z, y, 1.0, 1e-3, repeats=3, n_steps=50, rng=0)
    >>> res.candidates.shape, res.privacy
    ((3, 2), (1.0, 0.001))
    """
    from semiprivate import kernels

    Zc = _check_features(Z)
    n = Zc.shape[0]
    yc = check_signed_labels(y, length=n)
    n_hold = max(1, int(round(float(holdout_fraction) * n)))
    if n - n_hold < 1:
        raise ValueError(f"holdout_fraction={holdout_fraction} leaves no training example out of n={n}")
    g = as_generator(rng)
    perm = g.permutation(n)
    tr, ho = perm[n_hold:], perm[:n_hold]
    R = int(repeats)
    e_run, d_run = float(epsilon) / R, float(delta) / R
    runs = noisy_sgd(Zc[tr], yc[tr], e_run, d_run, margin=margin, radius=radius, n_steps=n_steps, n_runs=R, rng=g,
                     progress=progress, desc=f"PILLAR Alg 2 ({R} runs)")
    errs = zero_one_errors(runs.weights, Zc[ho], yc[ho])
    eps_sel = float(epsilon)
    # integer error counts: the exact sampler (no run with a finite score gets probability 0)
    index = int(kernels.exponential_mechanism(-np.asarray(errs, dtype=np.int64), eps_sel, sensitivity=1, rng=g,
                                              exact=True))
    per_run = runs.privacy
    runs_total = (compose_up(*[per_run[0]] * R), compose_up(*[per_run[1]] * R))  # rounded up
    total = (max(runs_total[0], eps_sel), runs_total[1])
    budget = {"per_run": per_run, "runs_total": runs_total, "selection": (eps_sel, 0.0), "total": total,
              "n_train": int(len(tr)), "n_holdout": int(n_hold), "repeats": R}
    del errs  # exact statistics of the held-out part: not released
    return Alg2Result(weights=runs.weights[index].copy(), candidates=runs.weights, index=index,
                      runs=runs, budget=budget, privacy=total)
