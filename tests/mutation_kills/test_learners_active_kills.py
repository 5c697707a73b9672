"""theory.learners.active (BNS15 Section 5): behaviour the mutation run showed untested
(scripts/mutation.sh).  A recording PSSL with a scripted exact output law pins what PSSLAsTPAL
and SubSampling hand to the base learner (labelled part, unlabelled rest), the transcripts, the
weights of the exact (hypothesis, transcript) law and the privacy_ read from what ran.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest

from theory.classes import FiniteClass, Thresholds
from theory.learners.active import (
    BinarySearchThresholdLearner,
    LabelOracle,
    PrivacyClaim,
    PSSLAsTPAL,
    SubSampling,
    _base_distribution,
    _hkey,
    check_claim,
)


class _PSSL:
    """Records its inputs; its exact law puts 1/2 on 'a' and 1/2 on the number of labelled 1s."""

    def __init__(self, privacy: Any = (0.5, 0.0), privacy_after: Any = None) -> None:
        self.privacy = privacy
        self.privacy_after = privacy_after
        self.calls: list[tuple[np.ndarray, ...]] = []

    def fit(self, X: Any, y: Any, X_unl: Any) -> _PSSL:
        self.calls.append((np.array(X), np.array(y), np.array(X_unl)))
        self.hypothesis_ = ("h", len(X), len(X_unl))
        if self.privacy_after is not None:
            self.privacy_ = self.privacy_after
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.zeros(len(X), dtype=np.int64)

    def output_distribution(self, X: Any, y: Any, X_unl: Any) -> tuple[list[Any], list[float]]:
        self.calls.append((np.array(X), np.array(y), np.array(X_unl)))
        return ["a", int(np.sum(y)), "never"], [0.5, 0.5, 0.0]


def test_pssl_as_tpal_asks_the_first_m_and_reads_privacy_from_the_run() -> None:
    X = np.array([10, 11, 12, 13])
    L = _PSSL(privacy=(0.5, 0.0), privacy_after=(0.25, 1e-7))
    A = PSSLAsTPAL(L, m=4)  # m == pool size is allowed
    o = LabelOracle([1, 0, 1, 1])
    res = A.fit(X, o)
    assert res.transcript == (0, 1, 2, 3) and res.hypothesis == ("h", 4, 0) == A.hypothesis_
    Xl, y, Xu = L.calls[0]
    assert Xl.tolist() == [10, 11, 12, 13] and y.tolist() == [1, 0, 1, 1] and Xu.tolist() == []
    assert A.privacy_ == (0.25, 1e-7) and A.claim_ == PrivacyClaim("TPAL", 0.25, 1e-7)
    # a learner without privacy_ after fit: its stated privacy
    L2 = _PSSL(privacy=(0.5, 0.0))
    A2 = PSSLAsTPAL(L2, m=2)
    A2.fit(X, LabelOracle([1, 0, 1, 1]))
    assert L2.calls[0][2].tolist() == [12, 13]
    assert A2.privacy_ == (0.5, 0.0) and A2.claim_ == PrivacyClaim("TPAL", 0.5, 0.0)
    with pytest.raises(ValueError) as e:
        PSSLAsTPAL(_PSSL(), m=5).fit(X, LabelOracle([1, 0, 1, 1]))
    assert str(e.value) == "m=5 exceeds the pool size n=4"
    with pytest.raises(ValueError) as e:
        PSSLAsTPAL(_PSSL(), m=3).fit(np.zeros((2, 5)), LabelOracle([1, 0]))
    assert str(e.value) == "m=3 exceeds the pool size n=2"


def test_pssl_as_tpal_exact_distribution() -> None:
    L = _PSSL()
    A = PSSLAsTPAL(L, m=2)
    d = A.exact_distribution(np.array([10, 11, 12]), np.array([1, 1, 0]))
    assert d == {("a", (0, 1)): 0.5, (2, (0, 1)): 0.5}  # the zero-probability output is left out
    assert L.calls[0][2].tolist() == [12]


def test_subsampling_exact_distribution_weights_every_subset() -> None:
    L = _PSSL()
    S = SubSampling(L, n=2, m=1, epsilon=2.0)
    X, y = np.array([10, 11, 12, 13]), np.array([1, 0, 1, 1])
    d = S.exact_distribution(X, y)
    # J runs over the 6 pairs; K = min J; the base learner gets X[K], y[K] and X[J \ K]
    want: dict[Any, float] = {}
    for J in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]:
        for h in ("a", int(y[J[0]])):
            want[(h, (J[0],))] = want.get((h, (J[0],)), 0.0) + 0.5 / 6
    assert d.keys() == want.keys()
    for k in want:
        assert d[k] == pytest.approx(want[k], rel=1e-12)
    assert sum(d.values()) == pytest.approx(1.0, rel=1e-12)
    assert [c[2].tolist() for c in L.calls] == [[11], [12], [13], [12], [13], [13]]


def test_base_distribution() -> None:
    class NoLaw:
        pass

    with pytest.raises(TypeError) as e:
        _base_distribution(NoLaw(), np.zeros(1), np.zeros(1), np.zeros(0))
    assert str(e.value) == "NoLaw has no output_distribution; exact laws need one"

    class TwoArgs:
        hypotheses = [np.int64(3), np.array([1, 2])]

        def output_distribution(self, X: Any, y: Any) -> np.ndarray:
            return np.array([0.25, 0.75])

    assert _base_distribution(TwoArgs(), np.zeros(1), np.zeros(1), np.zeros(0)) == [(3, 0.25), ((1, 2), 0.75)]


def test_hkey() -> None:
    assert _hkey(np.array([1, 2])) == (1, 2)
    k = _hkey(np.int64(3))
    assert k == 3 and type(k) is int
    assert _hkey("x") == "x"


def test_claim_projection_and_check() -> None:
    dist = {("h1", (0,)): 0.25, ("h1", (1,)): 0.25, ("h2", (0,)): 0.5}
    assert PrivacyClaim("PAL", 1.0, 0.0).project(dist) == {"h1": 0.5, "h2": 0.5}
    assert PrivacyClaim("TPAL", 1.0, 0.0).project(dist) == dist
    a = {"h1": 0.5, "h2": 0.5}
    b = {"h1": 0.5 + 1e-9, "h2": 0.5 - 1e-9}
    ok, div = check_claim(PrivacyClaim("TPAL", 0.0, 0.0), a, b)
    assert not ok and div == pytest.approx(1e-9, rel=1e-6)
    assert check_claim(PrivacyClaim("TPAL", 0.0, 0.0), a, b, tol=1e-8)[0]
    with pytest.raises(TypeError) as e:
        check_claim(("TPAL", 1.0, 0.0), a, b)  # type: ignore[arg-type]
    assert str(e.value) == "claim must be a PrivacyClaim, got tuple"


def test_oracle_cannot_be_pickled_or_copied() -> None:
    o = LabelOracle([1, 0])
    for f in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError) as e:
            f(o)
        assert str(e.value) == "LabelOracle cannot be pickled or copied (it would reveal unqueried labels)"


def test_binary_search_finds_every_threshold_exactly() -> None:
    T = Thresholds(3)
    X = np.array([5, 0, 7, 2, 6, 1, 4, 3])
    for t in range(9):
        y = (X < t).astype(int)
        res = BinarySearchThresholdLearner(T).fit(X, LabelOracle(y))
        assert res.hypothesis == (t if t < 8 else 8)
    # ties: the pool is sorted stably, so the first of equal points (by index) is asked
    g = np.random.default_rng(0)
    Xt = g.integers(0, 3, size=200)
    y = (Xt < 2).astype(int)
    res = BinarySearchThresholdLearner(Thresholds(2)).fit(Xt, LabelOracle(y))
    order = np.argsort(Xt, kind="stable")
    lo, hi, tr = 0, 200, []
    while lo < hi:
        mid = (lo + hi) // 2
        tr.append(int(order[mid]))
        lo, hi = (mid + 1, hi) if y[order[mid]] == 1 else (lo, mid)
    assert res.transcript == tuple(tr) and res.hypothesis == 2


def test_binary_search_needs_a_thresholds_class() -> None:
    for C in (object(), FiniteClass([[0, 1], [1, 0]])):
        with pytest.raises(TypeError) as e:
            BinarySearchThresholdLearner(C)  # type: ignore[arg-type]
        assert str(e.value) == f"concept_class must be Thresholds(d), got {type(C).__name__}"


def test_subsampling_fit_runs_the_learner_on_J_with_the_labels_of_K() -> None:
    L = _PSSL(privacy=(0.5, 0.0))
    S = SubSampling(L, n=3, m=2, epsilon=2.0, rng=7)
    g = S.guarantee()
    X = np.arange(100, 112)
    y = np.array([1, 0] * 6)
    o = LabelOracle(y)
    res = S.fit(X, o)
    J = np.sort(np.random.default_rng(7).choice(12, size=3, replace=False))
    assert S.J_.tolist() == J.tolist() and S.K_.tolist() == J[:2].tolist()
    assert res.transcript == tuple(int(i) for i in J[:2]) == o.transcript
    Xl, yl, Xu = L.calls[0]
    assert Xl.tolist() == X[J[:2]].tolist() and yl.tolist() == y[J[:2]].tolist() and Xu.tolist() == [X[J[2]]]
    assert S.privacy_ == (g.epsilon, g.delta) and S.claim_ == PrivacyClaim("PAL", g.epsilon, g.delta)
    assert S.guarantee_.t == 12 and g.t == 9 and res.hypothesis == ("h", 2, 1)


def test_check_claim_boundary_is_inclusive() -> None:
    a = {"h1": 0.5, "h2": 0.5}
    assert check_claim(PrivacyClaim("TPAL", 1.0, 0.0), a, a, tol=0.0) == (True, 0.0)
