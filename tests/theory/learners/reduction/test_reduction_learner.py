"""semiprivate.theory.learners.reduction (ABM19 Alg 2): B reports the guarantee A reports for the run (``privacy_``,
else ``privacy``; Claim 4.5), exposes A's hypothesis, threads its one seeded generator through PrivSamp, PubSamp and
A (a seeded run is reproducible), and predict/repr/mixture_error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from semiprivate.theory.distributions import RandomLabelDistribution, uniform_points
from semiprivate.theory.learners.reduction import ReductionLearner

D = 4


class _RecordingA:
    """A stub semi-private learner: records its inputs, draws from its generator, and can report
    a run guarantee (``privacy_``) different from its constructor parameters (``privacy``)."""

    def __init__(self, epsilon: float, delta: float, rng: Any, *, run_privacy: Any = None,
                 has_hypothesis: bool = True) -> None:
        self.epsilon, self.delta, self.rng = epsilon, delta, rng
        self._run_privacy, self._has_hypothesis = run_privacy, has_hypothesis

    @property
    def privacy(self) -> tuple[float, float]:
        return (self.epsilon, self.delta)

    def fit(self, X_private: Any, y_private: Any, X_public: Any) -> _RecordingA:
        self.X_private, self.y_private, self.X_public = X_private, y_private, X_public
        self.draw = float(self.rng.random())  # A's own randomness comes from B's generator
        if self._has_hypothesis:
            self.hypothesis_ = int(np.sum(y_private))
        if self._run_privacy is not None:
            self.privacy_ = self._run_privacy
        return self

    def predict(self, X: Any) -> list[int]:
        return [int(v) % 2 for v in np.asarray(X)]


def _B(rng: Any = 0, **stub: Any) -> ReductionLearner:
    D0 = RandomLabelDistribution(lambda n, g: uniform_points(n, D, g))
    return ReductionLearner(1.0, 1e-6, random_state=rng, n_priv=200, n_pub=1, D0=D0,
                            base_learner=lambda e, d, g: _RecordingA(e, d, g, **stub))


def _sample(B: ReductionLearner) -> tuple[np.ndarray, np.ndarray]:
    X = uniform_points(B.sample_size, D, 7)
    return X, np.ones(B.sample_size, dtype=int)


def test_reported_guarantee_is_the_one_a_reports_for_the_run() -> None:
    # A reports a run guarantee (2, 1e-5) that differs from its parameters: B must report it
    B = _B(run_privacy=(2.0, 1e-5))
    B.fit(*_sample(B))
    assert B.privacy_ == (2.0, 1e-5)
    assert B.privacy == (1.0, 1e-6)
    # an A without privacy_ falls back to its privacy property (another release: its own seed)
    B = _B(rng=1)
    B.fit(*_sample(B))
    assert B.privacy_ == (1.0, 1e-6)


def test_hypothesis_is_a_s_output() -> None:
    B = _B()
    X, y = _sample(B)
    B.fit(X, y)
    assert B.hypothesis_ == B.base_.hypothesis_ == int(np.sum(B.base_.y_private))
    assert not hasattr(B, "private_sample_")
    B = _B(rng=1, has_hypothesis=False)  # another release: its own seed
    B.fit(X, y)
    assert B.hypothesis_ is None


def test_seeded_run_is_reproducible_through_privsamp_pubsamp_and_a() -> None:
    runs = []
    for _ in range(2):
        B = _B(rng=123)
        B.fit(*_sample(B))
        A = B.base_
        runs.append((A.X_private, A.y_private, B.exhausted_, A.X_public, A.draw))
    (X1, y1, u1, P1, a1), (X2, y2, u2, P2, a2) = runs
    assert np.array_equal(X1, X2) and np.array_equal(y1, y2) and u1 == u2
    assert np.array_equal(P1, P2) and a1 == a2
    # A's public sample has n_pub points; A saw PrivSamp's output as 0/1 ints
    assert len(P1) == 1
    assert B.base_.y_private.dtype == np.int64
    # a different seed gives a different run (the seed is really used)
    B = _B(rng=124)
    B.fit(*_sample(B))
    assert not (np.array_equal(B.base_.X_private, X1) and B.base_.draw == a1)


def test_predict_mixture_error_and_repr() -> None:
    B = _B()
    with pytest.raises(RuntimeError, match="^ReductionLearner is not fitted; call fit first$"):
        B.predict([1, 2])
    B.fit(*_sample(B))
    out = B.predict([1, 2, 3])
    assert isinstance(out, np.ndarray) and out.tolist() == [1, 0, 1]
    # err(h; D(p)) = p err(h; D) + (1 - p)/2 (D0 has uniform labels)
    assert ReductionLearner.mixture_error(0.2, 0.1) == pytest.approx(0.1 * 0.2 + 0.45)
    assert ReductionLearner.mixture_error(0.0, 1.0) == 0.0
    assert ReductionLearner.mixture_error(1.0, 0.0) == 0.5
    assert repr(B) == ("ReductionLearner(epsilon=1.0, delta=1e-06, base_learner=<lambda>, n_priv=200, n_pub=1, "
                       "D0=RandomLabelDistribution, rng=None, random_state=0)")

    def factory(e: float, d: float, g: Any) -> _RecordingA:
        return _RecordingA(e, d, g)

    B.base_learner = factory
    assert "base_learner=factory," in repr(B)


# ---- PrivSamp (ABM19 Alg 3) with scripted coins: which positions take S~ and when it is exhausted


class _Coins(np.random.Generator):
    """Stands in for B's generator in PrivSamp: ``random(n)`` returns the scripted coins."""

    def __init__(self, u: list[float]) -> None:
        super().__init__(np.random.PCG64(0))
        self.u = np.array(u, dtype=float)

    def random(self, n: Any = None, *a: Any, **k: Any) -> Any:
        assert n == len(self.u)
        return self.u


class _D0:
    """Dummy draws 100, 101, ... with label 1 (so S~'s points and labels are told apart)."""

    def sample(self, n: int, rng: Any) -> tuple[np.ndarray, np.ndarray]:
        return np.arange(100, 100 + n, dtype=np.uint64), np.ones(n, dtype=int)


def _ps(u: list[float], n_tilde: int, p: float = 0.5) -> dict[str, Any]:
    from semiprivate.theory.learners.reduction import priv_samp

    Xt = np.arange(1, n_tilde + 1, dtype=np.uint64)
    return priv_samp(Xt, np.zeros(n_tilde, dtype=int), _D0(), p, len(u), rng=_Coins(u))


def test_privsamp_takes_s_tilde_in_order_where_the_coin_is_heads() -> None:
    ps = _ps([0.1, 0.9, 0.2, 0.9, 0.9], 3)  # heads (u < p) at 0 and 2
    assert ps["from_private"].tolist() == [True, False, True, False, False]
    assert ps["X"].tolist() == [1, 101, 2, 103, 104]
    assert ps["y"].tolist() == [False, True, False, True, True] and ps["y"].dtype == bool
    assert ps["exhausted"] is False
    # u == p is tails (b_i = 1 iff u < p: probability exactly p)
    assert _ps([0.5, 0.1], 2)["from_private"].tolist() == [False, True]


def test_privsamp_exhaustion_boundaries() -> None:
    # the last element of S~ is used at position 2 and positions 3, 4 follow: exhausted
    ps = _ps([0.1, 0.1, 0.1, 0.1, 0.9], 3)
    assert ps["from_private"].tolist() == [True, True, True, False, False]
    assert ps["X"].tolist() == [1, 2, 3, 103, 104] and ps["exhausted"] is True
    ps = _ps([0.1, 0.1, 0.1, 0.9, 0.9], 3)  # used up exactly at position 2 of 5
    assert ps["exhausted"] is True
    # used up at the very last position: the loop ran to n_priv, nothing left undefined
    ps = _ps([0.9, 0.9, 0.1], 1)
    assert ps["from_private"].tolist() == [False, False, True] and ps["exhausted"] is False
    # never used up
    assert _ps([0.1, 0.1, 0.9], 3)["exhausted"] is False


def test_privsamp_with_p_0_and_p_1() -> None:
    from semiprivate.theory.learners.reduction import priv_samp

    D0 = _D0()
    Xt = np.array([7, 8, 9], dtype=np.uint64)
    ps = priv_samp(Xt, [1, 0, 1], D0, 1.0, 5, 0)
    assert ps["X"].tolist() == [7, 8, 9, 103, 104] and ps["y"].tolist() == [True, False, True, True, True]
    assert ps["exhausted"] is True
    ps = priv_samp(Xt, [1, 0, 1], D0, 0.0, 4, 0)
    assert ps["X"].tolist() == [100, 101, 102, 103] and not ps["from_private"].any() and ps["exhausted"] is False
    ps = priv_samp(Xt, [1, 0, 1], D0, 1.0, 3, 0)
    assert ps["X"].tolist() == [7, 8, 9] and ps["exhausted"] is False


def test_sample_size_is_the_exact_ceiling() -> None:
    from semiprivate.theory.learners.reduction import reduction_sample_size

    assert [reduction_sample_size(n, 3) for n in (1, 29, 30, 31, 60, 61)] == [1, 1, 1, 2, 2, 3]
    assert reduction_sample_size(10**30 + 1, 1) == 10**29 + 1  # exact for huge ints


def test_privsamp_edge_sizes_and_messages() -> None:
    from semiprivate.theory.learners.reduction import priv_samp

    # n_priv = 1, S~ used at the only position: not exhausted
    ps = _ps([0.1], 1)
    assert ps["X"].tolist() == [1] and ps["exhausted"] is False
    # used up at the second-to-last position: one position after it is left: exhausted
    ps = _ps([0.1, 0.9], 1)
    assert ps["from_private"].tolist() == [True, False] and ps["exhausted"] is True
    for Xt in ([], np.uint64(3)):
        with pytest.raises(ValueError, match="^X_tilde and y_tilde must be non-empty and of equal length$"):
            priv_samp(Xt, [], _D0(), 0.5, 4, 0)
    with pytest.raises(ValueError, match="^y_tilde must be 1-d of length 2"):
        priv_samp([1, 2], [1], _D0(), 0.5, 4, 0)


def test_repr_names_a_callable_object_by_its_type() -> None:
    class Factory:
        def __call__(self, e: float, d: float, g: Any) -> _RecordingA:
            return _RecordingA(e, d, g)

    B = _B()
    B.base_learner = Factory()
    assert "base_learner=Factory," in repr(B)
