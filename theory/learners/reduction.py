"""The public-data reduction of ABM19 Sec 4: a private learner B from a semi-private learner A.

Implements: ABM19.Alg2 (learner B), ABM19.Alg3 (PrivSamp), ABM19.Alg4 (PubSamp),
ABM19.Lem4.4 (B is a (100 n_pub alpha, 1/16, epsilon, delta)-private learner for realizable
distributions with private sample size ceil(n_priv / (10 n_pub)); Claim 4.5 privacy,
Claim 4.6 accuracy).

p = 1/(100 n_pub).  D0 has x from a fixed marginal and a uniformly random label
(:class:`semiprivate.theory.distributions.RandomLabelDistribution`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.theory.learners._base import (
    ALL_INPUTS,
    CHECKS_ON_FEATURE_MATRICES,
    LearnerBase,
    _Params,
    declared_failures,
    require_fitted,
    seed_of,
)
from semiprivate.theory.privacy._release import Released, child_streams, forget_streams
from semiprivate.validation import (
    DELTA,
    EPSILON,
    POSITIVE_INT,
    RNG,
    Integer,
    Real,
    as_generator,
    check_binary,
    check_real,
    validate_params,
)

__all__ = ["priv_samp", "pub_samp", "ReductionLearner", "reduction_sample_size"]


@validate_params(n_priv=POSITIVE_INT, n_pub=POSITIVE_INT)
def reduction_sample_size(n_priv: int, n_pub: int) -> int:
    """Private sample size of B: ceil(n_priv / (10 n_pub)) (the input size of ABM19 Alg 2).

    Implements: ABM19.Alg2 (input size).  Exact integer arithmetic.  The guarantee of
    Lem 4.4 (error 100 n_pub alpha, confidence 1/16, same sample size) is the bounds
    module's :func:`semiprivate.theory.bounds.abm19.abm19_public_data_reduction`; tests check both agree.

    >>> reduction_sample_size(1000, 3)
    34
    """
    return -(-n_priv // (10 * n_pub))  # ceil(n_priv / (10 n_pub)), exactly


@validate_params(p=Real(0.0, 1.0), n_priv=POSITIVE_INT, rng=RNG)
def priv_samp(X_tilde: Any, y_tilde: Any, D0: Any, p: float, n_priv: int, rng: Any = None) -> dict[str, Any]:
    """ABM19 Algorithm 3 (PrivSamp): interleave the private sample with D0 draws.

    Implements: ABM19.Alg3.  For i = 1, 2, ...: while S~ is non-empty and i <= n_priv, draw
    b_i ~ Ber(p); if b_i = 1 the next element of S~ is used (and removed), else a fresh draw
    from D0.  The paper leaves the positions after an exhausted S~ undefined; they are filled
    with fresh D0 draws here, which uses no further private data, and ``exhausted`` reports it.
    The event is {Bin(n_priv, p) >= |S~|}: with Alg 2's p = 1/(100 n_pub) and
    |S~| = ceil(n_priv/(10 n_pub)), E[#draws of S~] = n_priv p <= |S~|/10, so its probability
    is at most 1/10 by Markov's inequality; it is not small at small sizes (|S~| = 1: S~ is
    used up before the last position w.p. 1 - (1 - p)^{n_priv - 1}, up to 1 - e^{-1/10} = 0.095)
    and falls quickly as |S~| grows.

    Returns
    -------
    dict
        ``X``, ``y`` (length n_priv), ``from_private`` (bool mask), ``exhausted`` (bool).
    """
    p = check_real(p, "p", 0.0, 1.0)
    n_priv = int(POSITIVE_INT.validate("n_priv", n_priv))
    g = as_generator(rng)
    Xt = np.asarray(X_tilde)
    if Xt.ndim == 0 or len(Xt) == 0:
        raise ValueError("X_tilde and y_tilde must be non-empty and of equal length")
    yt = check_binary(y_tilde, "y_tilde", length=len(Xt), as_bool=True)
    b = g.random(n_priv) < p
    pos = np.cumsum(b)  # j_i = sum_{k<=i} b_k
    use = b & (pos <= len(Xt))
    exhausted = False
    if pos[-1] >= len(Xt):
        # the loop ends right after the last element of S~ is used (at index `stop`)
        stop = int(np.argmax(pos >= len(Xt)))
        exhausted = stop < n_priv - 1
    X0, y0 = D0.sample(n_priv, g)
    X0 = np.asarray(X0)
    X = X0.copy()
    y = np.asarray(y0, dtype=bool).copy()
    idx = np.flatnonzero(use)
    X[idx] = Xt[: len(idx)]
    y[idx] = yt[: len(idx)]
    return {"X": X, "y": y, "from_private": use, "exhausted": exhausted}


@validate_params(n_pub=POSITIVE_INT, rng=RNG)
def pub_samp(D0: Any, n_pub: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """ABM19 Algorithm 4 (PubSamp): n_pub fresh draws from D0.

    Implements: ABM19.Alg4.
    """
    n_pub = int(POSITIVE_INT.validate("n_pub", n_pub))
    X, y = D0.sample(n_pub, as_generator(rng))
    return np.asarray(X), np.asarray(y, dtype=bool)


class ReductionLearner(Released, _Params, LearnerBase):
    """ABM19 Algorithm 2: the private learner B built from a semi-private learner A.

    Implements: ABM19.Alg2, ABM19.Lem4.4.

    Parameters
    ----------
    epsilon, delta : float
        The privacy parameters A is constructed with (B inherits A's guarantee, Claim 4.5).
    rng : None, int or Generator
        Older name of ``random_state`` (kept as an alias).
    base_learner : callable (epsilon, delta, rng) -> learner
        Factory for A; A must have ``fit(X, y, X_public)``, ``predict`` and
        ``privacy``.
    n_priv, n_pub : int
        A's private and public sample sizes.
    D0 : distribution
        The dummy distribution (uniformly random labels), e.g.
        :class:`semiprivate.theory.distributions.RandomLabelDistribution`.
    random_state : None, int, SeedSequence or Generator
        The seed of PrivSamp's, PubSamp's and A's coins (scikit-learn's name).

    Attributes
    ----------
    sample_size : int
        ceil(n_priv / (10 n_pub)), the private sample size B expects.
    p : float
        1 / (100 n_pub).
    privacy_ : (epsilon, delta)
        Set by ``fit``: A's reported guarantee for the run (``A.privacy_``, else ``A.privacy``);
        B uses each private point at most once and S_pub holds none (Claim 4.5).  ``privacy``
        (a property) is (epsilon, delta) of the current parameters.
    base_ : the fitted A; ``hypothesis_`` its output.
    exhausted_ : bool
        Whether PrivSamp ran out of S~ (a function of its coins and |S~| only).

    Privacy model ``"all inputs"``: B's only input is S~ (its public sample comes from D0), and
    one entry of S~ changes one labelled entry of A's input, so A need only be private in its
    labelled sample (any privacy model).  PrivSamp's sample (private points verbatim) is not kept.
    """

    privacy_model_ = ALL_INPUTS
    expected_failed_checks = declared_failures(
        CHECKS_ON_FEATURE_MATRICES, "B takes a private sample of exactly ceil(n_priv/(10 n_pub)) examples (ABM19 Alg 2) "
        "of its base's concept class, with labels in {0, 1}; the checks' samples have other sizes, real-valued "
        "features and other labels", set_params_validates=True)
    _releases = frozenset({"base_", "hypothesis_", "privacy_"})
    _public = frozenset({"exhausted_"})  # a function of PrivSamp's coins and |S~| only

    @validate_params(epsilon=EPSILON, delta=DELTA, rng=RNG, n_priv=Integer(1), n_pub=Integer(1), random_state=RNG)
    def __init__(self, epsilon: float, delta: float = 0.0, *, rng: Any = None, base_learner: Any,
                 n_priv: int = 1, n_pub: int = 1, D0: Any, random_state: Any = None) -> None:
        if not callable(base_learner):
            raise TypeError("base_learner must be a callable (epsilon, delta, rng) -> learner")
        if D0 is None or not hasattr(D0, "sample"):
            raise TypeError("D0 must be a distribution with a sample(n, rng) method")
        self.epsilon = epsilon
        self.delta = delta
        self.rng = rng
        self.base_learner = base_learner
        self.n_priv = n_priv
        self.n_pub = n_pub
        self.D0 = D0
        self.random_state = random_state

    def __repr__(self) -> str:
        name = getattr(self.base_learner, "__name__", type(self.base_learner).__name__)
        seed = "" if self.random_state is None else f", random_state={self.random_state!r}"
        return (f"ReductionLearner(epsilon={self.epsilon!r}, delta={self.delta!r}, base_learner={name}, "
                f"n_priv={self.n_priv}, n_pub={self.n_pub}, D0={type(self.D0).__name__}, rng={self.rng!r}{seed})")

    @property
    def p(self) -> float:
        """PrivSamp's p = 1/(100 n_pub) for the current ``n_pub``."""
        return 1.0 / (100 * int(self.n_pub))

    @property
    def sample_size(self) -> int:
        """ceil(n_priv/(10 n_pub)) for the current ``n_priv``, ``n_pub``."""
        return reduction_sample_size(int(self.n_priv), int(self.n_pub))

    @property
    def privacy(self) -> tuple[float, float]:
        """(epsilon, delta) A is constructed with from the current parameters (Claim 4.5)."""
        return (float(self.epsilon), float(self.delta))

    def fit(self, X: Any, y: Any, X_public: Any = None) -> ReductionLearner:
        """Run B on its private sample S~ (length must be ``sample_size``); X_public unused."""
        X = np.asarray(X)
        if len(X) != self.sample_size:
            raise ValueError(f"B takes exactly ceil(n_priv/(10 n_pub)) = {self.sample_size} private examples, got {len(X)}")
        # PrivSamp's secret coins, PubSamp's public draw and A's own stream: independent children
        g, g_public, base_stream = child_streams(seed_of(self), 3)
        ps = priv_samp(X, y, self.D0, self.p, int(self.n_priv), g)
        Xpub, _ = pub_samp(self.D0, int(self.n_pub), g_public)
        self.exhausted_ = bool(ps["exhausted"])
        self.base_ = self.base_learner(self.epsilon, self.delta, base_stream)
        self.base_.fit(ps["X"], ps["y"].astype(np.int64), Xpub)
        forget_streams(self.base_)  # the factory gave A the stream as its rng: not kept after the run
        self.hypothesis_ = getattr(self.base_, "hypothesis_", None)
        # Claim 4.5: B's guarantee is the one A reports for the run that happened
        got = getattr(self.base_, "privacy_", None)
        if got is None:
            got = self.base_.privacy
        self.privacy_ = (float(got[0]), float(got[1]))
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Predictions of A's output."""
        require_fitted(self, "base_")
        return np.asarray(self.base_.predict(X))

    @staticmethod
    def mixture_error(err_D: float, p: float) -> float:
        """err(h; D(p)) = p err(h; D) + (1 - p)/2 for D0 with uniform labels (proof of Lem 4.4)."""
        return float(p * err_D + 0.5 * (1.0 - p))
