"""semiprivate.theory.learners.active (BNS15 Section 5). A recording PSSL with a scripted exact output law pins what
PSSLAsTPAL and SubSampling hand to the base learner (labelled part, unlabelled rest), the transcripts, the weights
of the exact (hypothesis, transcript) law and the privacy_ read from what ran.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
from semiprivate.theory.classes import FiniteClass, Thresholds
from semiprivate.theory.learners.active import (
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

    privacy_model_ = "all inputs"

    def __init__(self, privacy: Any = (0.5, 0.0), privacy_after: Any = None) -> None:
        self.privacy = privacy
        self.privacy_after = privacy_after
        self.calls: list[tuple[np.ndarray, ...]] = []

    def fit(self, X: Any, y: Any, X_unl: Any) -> _PSSL:
        self.calls.append((np.array(X), np.array(y), np.array(X_unl)))
        self.hypothesis_ = ("h", len(X), len(X_unl))
        self.privacy_ = self.privacy_after if self.privacy_after is not None else self.privacy
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
    from semiprivate.theory.privacy._release import child_streams

    J = np.sort(child_streams(7, 2)[0].choice(12, size=3, replace=False))  # J's coins: the run's first child
    assert not hasattr(S, "J_") and not hasattr(S, "K_")  # J stays secret (Cl 5.7's amplification)
    # the output only (Cl 5.7 covers it, a PAL); the oracle's own record is the labeller's
    assert res.transcript is None and o.transcript == tuple(int(i) for i in J[:2])
    Xl, yl, Xu = L.calls[0]
    assert Xl.tolist() == X[J[:2]].tolist() and yl.tolist() == y[J[:2]].tolist() and Xu.tolist() == [X[J[2]]]
    assert S.privacy_ == (g.epsilon, g.delta) and S.claim_ == PrivacyClaim("PAL", g.epsilon, g.delta)
    assert S.guarantee_.t == 12 and g.t == 9 and res.hypothesis == ("h", 2, 1)


def test_check_claim_boundary_is_inclusive() -> None:
    a = {"h1": 0.5, "h2": 0.5}
    assert check_claim(PrivacyClaim("TPAL", 1.0, 0.0), a, a, tol=0.0) == (True, 0.0)


def test_subsampling_guarantee_ratio_and_condition() -> None:
    import math

    from semiprivate.theory.bounds.privacy import active_subsampling_privacy
    from semiprivate.theory.learners.active import subsampling_guarantee

    g = subsampling_guarantee(10, 0.5, 1e-6, 1.0)
    a = math.exp(1.0)
    q = 1.0 / (3 + a)
    assert g.R == pytest.approx((q * a + 1 - q) / (q / a + 1 - q), rel=1e-12) and g.valid
    sub = active_subsampling_privacy(10, 0.5, 1e-6, 1.0)
    assert (g.epsilon, g.delta, g.t) == (sub.epsilon, sub.delta, max(sub.t, 10))
    # q = 1 exactly (t = n): allowed, R = a^2 <= 3
    a = math.exp(0.2)
    g = subsampling_guarantee(10, 0.1, 0.0, 3 + a)
    assert g.valid and g.R == pytest.approx(a * a, rel=1e-12)
    # q = 1.5 > 1: refused even though a^2 <= 3; R is a^2 there
    g = subsampling_guarantee(10, 0.1, 0.0, 1.5 * (3 + a))
    assert not g.valid and g.R == pytest.approx(a * a, rel=1e-12)
    with pytest.raises(ValueError) as e:
        subsampling_guarantee(5, 2.0, 0.0, 3.0, strict=True)
    assert str(e.value) == ("epsilon=3.0 outside BNS15 Cl 5.7's proof condition eps <= 2a/(a-1) = 2.03731 "
                            "(a = e^(2 epsilon_star), epsilon_star=2.0)")


# ---- validation: exact messages naming the parameter and the value -------------------------


def _msg(exc: Any, f: Any, *a: Any, **kw: Any) -> str:
    with pytest.raises(exc) as e:
        f(*a, **kw)
    return str(e.value)


def test_oracle_validation_and_rules() -> None:
    from semiprivate.theory.learners.active import BudgetExceededError

    assert _msg(TypeError, LabelOracle, []) == "y must be a non-empty 1-d array of 0/1 labels, got float64 shape (0,)"
    assert _msg(TypeError, LabelOracle, [[0, 1]]) == "y must be a non-empty 1-d array of 0/1 labels, got int64 shape (1, 2)"
    assert _msg(TypeError, LabelOracle, ["a"]) == "y must be a non-empty 1-d array of 0/1 labels, got <U1 shape (1,)"
    assert _msg(ValueError, LabelOracle, [0, 2]) == "y must contain only labels 0 and 1"
    assert _msg(ValueError, LabelOracle, [0.0, 0.5]) == "y must contain only labels 0 and 1"
    for b in (True, 1.5, -1, "2"):
        assert _msg(ValueError, LabelOracle, [0, 1], budget=b) == f"budget must be a non-negative int, got {b!r}"
    assert LabelOracle([0, 1, 1]).budget == 3
    o0 = LabelOracle([0, 1], budget=0)
    assert o0.budget == 0 and o0.size == 2
    assert _msg(BudgetExceededError, o0.query, 0) == "label budget=0 exceeded (query of index 0)"
    o = LabelOracle(np.array([True, False, True]), budget=np.int64(2))
    assert type(o.budget) is int and o.budget == 2
    assert _msg(TypeError, o.query, 1.0) == "index i must be an int, got float"
    assert _msg(TypeError, o.query, True) == "index i must be an int, got bool"
    assert _msg(ValueError, o.query, 3) == "index i=3 out of range [0, 3)"
    assert _msg(ValueError, o.query, -1) == "index i=-1 out of range [0, 3)"
    r = o.query(np.int64(2))
    assert r == 1 and type(r) is int
    assert o.query(1) == 0 and o.count == 2 and o.transcript == (2, 1)
    assert _msg(ValueError, o.query, 1) == "index i=1 already queried (each index may be queried once)"
    assert _msg(BudgetExceededError, o.query, 0) == "label budget=2 exceeded (query of index 0)"
    assert repr(o) == "LabelOracle(size=3, budget=2, count=2)"


def test_privacy_claim_validation() -> None:
    assert _msg(ValueError, PrivacyClaim, "X", 1.0, 0.0) == "kind must be 'PAL' or 'TPAL', got 'X'"
    for eps in (-1.0, float("nan"), "1"):
        assert _msg(ValueError, PrivacyClaim, "PAL", eps, 0.0) == f"epsilon must be >= 0, got {eps!r}"
    for d in (1.0, -0.1, "0"):
        assert _msg(ValueError, PrivacyClaim, "PAL", 1.0, d) == f"delta must be in [0, 1), got {d!r}"
    PrivacyClaim("PAL", 0.0, 0.0)
    PrivacyClaim("TPAL", 1, 0)


def test_learner_pool_and_oracle_checks() -> None:
    class NoPredict:
        privacy = (1.0, 0.0)
        predict = None

        def fit(self, *a: Any) -> None: ...

    class NoFit:
        privacy = (1.0, 0.0)
        fit = 3

        def predict(self, *a: Any) -> None: ...

    for bad in (NoPredict(), NoFit()):
        assert _msg(TypeError, PSSLAsTPAL, bad, m=1) == f"learner must have fit and predict, got {type(bad).__name__}"
    A = PSSLAsTPAL(_PSSL(), m=1)
    o = LabelOracle([1, 0])
    assert _msg(TypeError, A.fit, None, o) == "X_pool must be an array of points, got NoneType"
    assert _msg(TypeError, A.fit, "ab", o) == "X_pool must be an array of points, got str"
    assert _msg(TypeError, A.fit, b"ab", o) == "X_pool must be an array of points, got bytes"
    assert _msg(TypeError, A.fit, [], o) == "X_pool must be a non-empty array of points, got dtype float64 shape (0,)"
    assert _msg(TypeError, A.fit, 3, o) == "X_pool must be a non-empty array of points, got dtype int64 shape ()"
    assert _msg(TypeError, A.fit, ["a", "b"], o) == "X_pool must be a non-empty array of points, got dtype <U1 shape (2,)"
    assert _msg(TypeError, A.fit, [1, 2], [1, 0]) == "oracle must be a LabelOracle, got list"
    assert _msg(ValueError, A.fit, [1, 2, 3], o) == "oracle size=2 differs from the pool size 3"
    A.fit(np.array([1, 2], dtype=object), o)  # object arrays of points are accepted
    assert _msg(TypeError, SubSampling(_PSSL(), n=2, m=1, epsilon=2.0).exact_distribution, [1, 2, 3], []) == (
        "y must be a non-empty 1-d array of 0/1 labels, got float64 shape (0,)")


def test_learner_privacy_checks() -> None:
    class NoPrivacy(_PSSL):
        privacy = None

    L = NoPrivacy()
    L.privacy = None
    assert _msg(TypeError, lambda: PSSLAsTPAL(L, m=1).claim) == (
        "learner NoPrivacy must state its privacy (a 'privacy' (eps, delta))")
    for p, msg in [((0.0, 0.0), "learner privacy epsilon must be finite and > 0, got 0.0"),
                   ((float("inf"), 0.0), "learner privacy epsilon must be finite and > 0, got inf"),
                   ((-1, 0.0), "learner privacy epsilon must be finite and > 0, got -1.0"),
                   ((1.0, 1.0), "learner privacy delta must be in [0, 1), got 1.0"),
                   ((1.0, -0.5), "learner privacy delta must be in [0, 1), got -0.5")]:
        assert _msg(ValueError, lambda p=p: PSSLAsTPAL(_PSSL(privacy=p), m=1).claim) == msg
    assert PSSLAsTPAL(_PSSL(privacy=(0.3, 0.0)), m=1).claim == PrivacyClaim("TPAL", 0.3, 0.0)
    assert PSSLAsTPAL(_PSSL(privacy=("0.3", 1e-9)), m=2).claim == PrivacyClaim("TPAL", 0.3, 1e-9)


def test_subsampling_constructor_and_guarantee() -> None:
    L = _PSSL(privacy=(0.5, 0.0))
    assert _msg(ValueError, SubSampling, L, n=2, m=3, epsilon=2.0) == (
        "m=3 must be <= n=2 (labels are asked inside the n-subset)")
    assert _msg(ValueError, SubSampling, L, n=3, m=1, epsilon=2.0, t=2) == "t=2 must be >= n=3"
    assert _msg(ValueError, SubSampling, L, n=0, m=1, epsilon=2.0) == "n must be an integer in [1, inf], got 0"
    assert _msg(ValueError, SubSampling, L, n=2, m=0, epsilon=2.0) == "m must be an integer in [1, inf], got 0"
    assert _msg(ValueError, SubSampling, L, n=2, m=1, epsilon=0.0) == "epsilon must be in (0, inf), got 0.0"
    assert _msg(TypeError, SubSampling, L, n=2, m=1, epsilon=1.0, strict=1) == "strict must be a bool, got 1 (int)"
    assert _msg(ValueError, SubSampling, L, n=2, m=1, epsilon=1.0, t=0) == "t must be an integer in [1, inf], got 0"
    assert _msg(TypeError, SubSampling, L, n=2, m=1, epsilon=1.0, rng="x").startswith("rng must be")
    assert _msg(TypeError, SubSampling, object(), n=2, m=1, epsilon=1.0) == (
        "learner must have fit and predict, got object")
    S = SubSampling(L, n=3, m=3, epsilon=2.0, t=3, strict=False, rng=5)
    assert (S.learner, S.n, S.m, S.epsilon, S.t, S.strict, S.rng) == (L, 3, 3, 2.0, 3, False, 5)
    assert repr(S) == "SubSampling(learner=" + repr(L) + ", n=3, m=3, epsilon=2.0, t=3)"
    # the guarantee: Cl 5.7's t unless t is given; valid needs t >= Cl 5.7's t
    S = SubSampling(L, n=3, m=1, epsilon=2.0)
    g = S.guarantee()
    assert g.t == 9 and g.valid and S.claim == PrivacyClaim("PAL", g.epsilon, g.delta)
    assert SubSampling(L, n=3, m=1, epsilon=2.0, t=9).guarantee() == g
    g10 = SubSampling(L, n=3, m=1, epsilon=2.0, t=10).guarantee()
    assert g10.t == 10 and type(g10.t) is int and g10.valid
    assert not SubSampling(L, n=3, m=1, epsilon=2.0, t=8).guarantee().valid
    assert _msg(ValueError, SubSampling(L, n=3, m=1, epsilon=2.0, t=8, strict=True).guarantee) == (
        "t=8 below Cl 5.7's t=9")
    SubSampling(L, n=3, m=1, epsilon=2.0, strict=True).guarantee()
    # a pool below the guarantee's t is refused
    assert _msg(ValueError, SubSampling(L, n=3, m=1, epsilon=2.0).fit, np.arange(8), LabelOracle([0] * 8)) == (
        "X_pool has 8 points; SubSampling needs t=9 (BNS15 Cl 5.7)")
    SubSampling(_PSSL(), n=3, m=1, epsilon=2.0).fit(np.arange(9), LabelOracle([0] * 9))


def test_choose_K() -> None:
    X = np.array([50, 10, 40, 10, 30])
    J = np.array([4, 0, 3, 1])
    assert SubSampling(_PSSL(), n=4, m=2, epsilon=2.0)._choose_K(X, J).tolist() == [0, 1]
    # a function of J only: the x values do not matter
    assert SubSampling(_PSSL(), n=4, m=3, epsilon=2.0)._choose_K(X[::-1], J).tolist() == [0, 1, 3]


def test_predict_repr_and_transcript_distribution() -> None:
    from semiprivate.theory.learners.active import transcript_distribution

    L = _PSSL()
    A = PSSLAsTPAL(L, m=2)
    assert repr(A) == f"PSSLAsTPAL(learner={L!r}, m=2)"
    assert A.predict([1, 2, 3]).tolist() == [0, 0, 0]
    assert SubSampling(L, n=2, m=1, epsilon=2.0).predict([1, 2]).tolist() == [0, 0]
    assert transcript_distribution(A, [10, 11, 12], [1, 1, 0]) == {("a", (0, 1)): 0.5, (2, (0, 1)): 0.5}
    assert _msg(TypeError, transcript_distribution, L, [1], [1]) == "learner _PSSL has no exact_distribution"
    B = BinarySearchThresholdLearner(Thresholds(3))
    assert repr(B) == "BinarySearchThresholdLearner(Thresholds(d=3))"
    B.fit(np.array([1, 5, 3]), LabelOracle([1, 0, 1]))
    assert B.hypothesis_ == 5
    p = B.predict([0, 4, 5, 7])
    assert p.tolist() == [1, 1, 0, 0] and p.dtype == np.int64


def test_remaining_checks() -> None:
    from semiprivate.theory.learners.active import subsampling_guarantee

    class Unarrayable:
        def __array__(self, *a: Any, **k: Any) -> Any:
            raise RuntimeError("no")

    assert _msg(TypeError, LabelOracle, Unarrayable()) == "y must be an array of 0/1 labels, got Unarrayable"

    class NoPrivacyAttr:
        privacy_model_ = "all inputs"

        def fit(self, *a: Any) -> None: ...

        def predict(self, *a: Any) -> None: ...

    assert _msg(TypeError, lambda: PSSLAsTPAL(NoPrivacyAttr(), m=1).claim) == (
        "learner NoPrivacyAttr must state its privacy (a 'privacy' (eps, delta))")

    class NoModel:
        def fit(self, *a: Any) -> None: ...

        def predict(self, *a: Any) -> None: ...

    assert _msg(TypeError, PSSLAsTPAL, NoModel(), m=1) == (
        "learner NoModel declares no privacy model: set the class attribute privacy_model_ to one of "
        "('labelled', 'all inputs', 'not private')")

    class FitOnly:
        def fit(self, *a: Any) -> None: ...

    assert _msg(TypeError, PSSLAsTPAL, FitOnly(), m=1) == "learner must have fit and predict, got FitOnly"
    # R = 3 exactly at eps = 2a/(a - 1) (up to rounding): still valid
    import math

    a = math.exp(2 * 2.0)
    assert subsampling_guarantee(5, 2.0, 0.0, 2 * a / (a - 1)).valid
    # a <= 2 (epsilon_star <= ln 2 / 2): the bound is still 2a/(a - 1)
    assert _msg(ValueError, subsampling_guarantee, 5, 0.1, 0.0, 12.0, strict=True) == (
        "epsilon=12.0 outside BNS15 Cl 5.7's proof condition eps <= 2a/(a-1) = 11.0333 "
        "(a = e^(2 epsilon_star), epsilon_star=0.1)")
    # SubSampling(strict=True) raises Cl 5.7's own message for an epsilon outside the condition
    L = _PSSL(privacy=(2.0, 0.0))
    assert _msg(ValueError, SubSampling(L, n=5, m=1, epsilon=3.0, strict=True).guarantee).startswith(
        "epsilon=3.0 outside BNS15 Cl 5.7's proof condition")


def test_subsampling_guarantee_tolerance_is_inclusive() -> None:
    """R <= 3 (1 + 1e-12) is the condition, with its rounding tolerance included: at epsilon_star = 1 and
    epsilon = 2.3130352855021323 (found by an ulp search next to eps = 2a/(a - 1) (1 + ~1e-12)) the float R is
    exactly 3 (1 + 1e-12), and the guarantee is valid (strict does not raise); 1e-9 higher it is not."""
    from semiprivate.theory.learners.active import subsampling_guarantee

    eps = 2.3130352855021323
    g = subsampling_guarantee(10, 1.0, 0.0, eps, strict=True)
    assert g.R == 3 * (1 + 1e-12) and g.valid
    up = subsampling_guarantee(10, 1.0, 0.0, eps * (1 + 1e-9))
    assert up.R > 3 * (1 + 1e-12) and not up.valid
