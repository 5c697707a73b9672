"""semiprivate.theory.learners.disjunctions (HPSY Thm 1 / Thm 2). An independent NumPy reference of EXPMECH over the
unions of components checks the enumerated path, and a reference of the fractional score the factorised path, on
more than 256 private rows (the chunked loops) with multi-component rows; scripted draws pin the factorised
sampler's conditioning on U non-empty; spies pin the epsilon, sensitivity and generator the mechanism runs with, and
what thm2_instance samples with.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest
import semiprivate.theory.distributions as dist
import semiprivate.theory.learners.disjunctions as dj
from scipy.special import logsumexp
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner, thm2_instance, to_pm1_labels

# 6 public components {0,1} {2,3} {4,5} {6,7} {8,9} {10,11}
XU = np.zeros((6, 12), dtype=int)
for _c in range(6):
    XU[_c, 2 * _c:2 * _c + 2] = 1


def _private() -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(12)
    rows, ys = [], []
    for vars_, n, p in [((0, 2), 300, 0.8), ((4, 6), 40, 0.3), ((8,), 30, 0.9), ((10,), 25, 0.2), ((1,), 20, 0.6),
                        ((), 5, 0.5), ((5, 7), 3, 0.5)]:
        for _ in range(n):
            x = np.zeros(12, dtype=int)
            x[list(vars_)] = 1
            rows.append(x)
            ys.append(1 if g.random() < p else -1)
    return np.array(rows), np.array(ys)


XP, YP = _private()  # 423 rows; block {0, 1} holds 320 of them; the last row links components 2 and 3


def _reference(Xp: np.ndarray, y: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """#errors of each non-empty union (mask 1..63 of the 6 components) and EXPMECH's log-probabilities."""
    comp = np.arange(12) // 2
    err = []
    for mask in range(1, 64):
        vars_ = [v for v in range(12) if (mask >> comp[v]) & 1]
        h = np.where(Xp[:, vars_].any(axis=1), 1, -1)
        err.append(int(np.sum(h != y)))
    e = np.array(err)
    lw = -eps * e / 2
    return e, lw - logsumexp(lw)


def _fractional_reference(Xp: np.ndarray, y: np.ndarray, eps: float) -> np.ndarray:
    """The factorised path's score: each example spreads its error 1/|K(x)| over the components it touches."""
    comp = np.arange(12) // 2
    lw = []
    for mask in range(1, 64):
        err = 0.0
        for x, yy in zip(Xp, y):
            K = sorted({int(comp[v]) for v in np.flatnonzero(x)})
            if not K:
                continue  # constant error: no effect on the distribution
            err += sum(((mask >> c) & 1) != (yy == 1) for c in K) / len(K)
        lw.append(-eps * err / 2)
    lw = np.array(lw)
    return lw - logsumexp(lw)


@pytest.mark.parametrize("method", ["enumerate", "factorised"])
def test_both_paths_match_the_reference_on_many_rows(method: str) -> None:
    err, want = _reference(XP, YP, 0.9)
    if method == "factorised":
        want = _fractional_reference(XP, YP, 0.9)
    L = ComponentDisjunctionLearner(0.9, method=method, max_enumerate=2)
    np.testing.assert_allclose(L.log_output_distribution(XP, YP, XU), want, atol=1e-9)
    if method == "enumerate":
        errs = L._enumerated_errors(*L._prepare(XP, YP, XU)[2:4], 6)
        assert errs.tolist() == err.tolist() and errs.dtype == np.int64
        L.fit(XP, YP, XU)
        assert not hasattr(L, "errors_")  # no count of errors on the private sample is kept


def test_fractional_weights() -> None:
    L = ComponentDisjunctionLearner(1.0, max_enumerate=2)
    Z, labels, T, y, method = L._prepare(XP, YP, XU)
    assert (Z, method) == (6, "factorised") and labels.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    B = L._blocks(T, y, Z, 0.25)
    comp = np.arange(12) // 2
    for c in range(6):
        share = np.array([(1.0 / len(set(comp[np.flatnonzero(x)]))) if (comp[np.flatnonzero(x)] == c).any() else 0.0
                          for x in XP])
        assert B.a0[c] == pytest.approx(-0.25 * share[YP == 1].sum(), abs=1e-12)
        assert B.a1[c] == pytest.approx(-0.25 * share[YP == -1].sum(), abs=1e-12)
    # components 4, 5 only see one-component rows: the weights are the error counts
    pos4 = int(np.sum((XP[:, 8] == 1) & (YP == 1)))
    assert B.a0[4] == -0.25 * pos4 and B.scale == 0.25


def test_epsilon_sensitivity_and_generator_reach_the_mechanism(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dj, "_SENSITIVITY", 2.0)
    seen: list[tuple[np.ndarray, Any, Any, Any]] = []

    def spy(scores: Any, eps: Any, *, sensitivity: Any, rng: Any, exact: bool = False) -> int:
        assert exact  # integer error counts: the exact sampler
        seen.append((np.array(scores), eps, sensitivity, rng))
        return 5

    monkeypatch.setattr(dj, "exponential_mechanism", spy)
    g = np.random.default_rng(0)
    L = ComponentDisjunctionLearner(0.8, method="enumerate", random_state=g).fit(XP, YP, XU)
    err, _ = _reference(XP, YP, 1.0)
    assert len(seen) == 1
    scores, eps, sens, rng = seen[0]
    # the run's own child stream of the learner's generator (never the generator itself)
    assert scores.tolist() == (-err).tolist() and eps == 0.8 and sens == 2.0
    assert isinstance(rng, np.random.Generator) and rng is not g
    assert L.union_ == (1, 2) and L.privacy_ == (0.8, 0.0)  # mask 6
    assert L.hypothesis_.tolist() == [2, 3, 4, 5]
    # factorised: the exact per-component terms are at scale eps / (2 sensitivity), the mechanism over
    # unions is not called (the exact sampler draws its first member by the exact mechanism over integer scores)
    got: list[Any] = []

    def exact_spy(t: Any, gg: Any) -> Any:
        got.append(list(t))
        assert isinstance(gg, np.random.Generator) and gg is not g
        return np.array([0], dtype=np.int64)

    monkeypatch.setattr(ComponentDisjunctionLearner, "_sample_exact", staticmethod(exact_spy))
    L = ComponentDisjunctionLearner(0.8, method="factorised", max_enumerate=2, random_state=g).fit(XP, YP, XU)
    assert len(seen) == 1 and not hasattr(L, "errors_") and L.method_ == "factorised"
    pos4 = int(np.sum((XP[:, 8] == 1) & (YP == 1)))
    neg4 = int(np.sum((XP[:, 8] == 1) & (YP != 1)))
    assert got[0][4] == Fraction(0.8) / 4 * (pos4 - neg4) and L.privacy_ == (0.8, 0.0)
    # the exact distributions at sensitivity 2 are EXPMECH at epsilon / 2 with sensitivity 1
    _, want = _reference(XP, YP, 0.4)
    for method, ref in (("enumerate", want), ("factorised", _fractional_reference(XP, YP, 0.4))):
        M = ComponentDisjunctionLearner(0.8, method=method, max_enumerate=2)
        np.testing.assert_allclose(M.log_output_distribution(XP, YP, XU), ref, atol=1e-9)


def test_enumerate_path_uses_the_kernel_log_probabilities(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    real = dj.exponential_log_probabilities

    def spy(scores: Any, eps: Any, *, sensitivity: Any) -> Any:
        seen.append((eps, sensitivity))
        return real(scores, eps, sensitivity=sensitivity)

    monkeypatch.setattr(dj, "exponential_log_probabilities", spy)
    ComponentDisjunctionLearner(0.9, method="factorised").log_output_distribution(XP, YP, XU)
    assert seen == []
    ComponentDisjunctionLearner(0.9, method="enumerate").log_output_distribution(XP, YP, XU)
    assert seen == [(0.9, 1.0)]


def test_fitted_attributes() -> None:
    L = ComponentDisjunctionLearner(1.0, random_state=0).fit(XP, YP, XU)
    assert L.component_labels_.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert L.n_features_in_ == 12 and type(L.n_features_in_) is int and L.n_components_ == 6
    assert L.classes_.tolist() == [-1, 1]
    assert L.method_ == "enumerate"
    assert L.predict(np.zeros((0, 12), dtype=int)).tolist() == []
    with pytest.raises(ValueError) as e:
        L.predict(np.ones((1, 13), dtype=int))
    assert str(e.value) == "X must have d = 12 columns, got shape (1, 13)"
    with pytest.raises(RuntimeError) as e2:
        ComponentDisjunctionLearner().predict(XP)
    assert str(e2.value) == "ComponentDisjunctionLearner is not fitted; call fit first"


def test_method_choice_and_limits() -> None:
    eye = np.eye(16, dtype=int)
    L = ComponentDisjunctionLearner(1.0, max_enumerate=16, random_state=0).fit(eye[:3], [1, -1, 1], eye)
    assert L.method_ == "enumerate"  # Z == max_enumerate
    L = ComponentDisjunctionLearner(1.0, max_enumerate=15, random_state=1).fit(eye[:3], [1, -1, 1], eye)
    assert L.method_ == "factorised"
    # Z = 20 is the largest exact distribution; 21 is refused
    e20, e21 = np.eye(20, dtype=int), np.eye(21, dtype=int)
    p = ComponentDisjunctionLearner(1.0, method="factorised").log_output_distribution(e20[:2], [1, -1], e20)
    assert p.shape == (2**20 - 1,)
    with pytest.raises(ValueError) as e:
        ComponentDisjunctionLearner(1.0, method="factorised").log_output_distribution(e21[:2], [1, -1], e21)
    assert str(e.value) == "log_output_distribution enumerates 2^Z - 1 unions; Z = 21 > 20"
    # method='enumerate' takes Z <= 24 (checked before anything is enumerated)
    e24, e25 = np.eye(24, dtype=int), np.eye(25, dtype=int)
    with pytest.raises(ValueError, match="Z = 24 > 20"):
        ComponentDisjunctionLearner(1.0, method="enumerate").log_output_distribution(e24[:2], [1, -1], e24)
    with pytest.raises(ValueError) as e:
        ComponentDisjunctionLearner(1.0, method="enumerate").log_output_distribution(e25[:2], [1, -1], e25)
    assert str(e.value) == "method='enumerate' needs Z <= 24 components, got Z = 25: use 'factorised'"
    with pytest.raises(ValueError, match="Z = 25 > 20"):
        ComponentDisjunctionLearner(1.0, method="factorised").log_output_distribution(e25[:2], [1, -1], e25)


def test_input_messages_name_the_argument() -> None:
    L = ComponentDisjunctionLearner(1.0, random_state=0)
    with pytest.raises(ValueError) as e:
        L.fit(XP, YP)
    assert str(e.value) == "X_public must be given: the component graph is built from public unlabelled data"
    for args, name in [((XP, YP, [[2, 0]]), "X_public"), ((XP[:, :5], YP, XU), "X"),
                       ((XP, YP[:-1], XU), "y")]:
        with pytest.raises((TypeError, ValueError)) as e3:
            L.fit(*args)
        assert str(e3.value).startswith(name + " "), str(e3.value)


def test_to_pm1_labels() -> None:
    assert to_pm1_labels(np.array([True, False])).dtype == np.int8
    for y in ([0.0, 1.0, 1.0], [-1.0, 1.0], [0, 1], [-1, 1]):
        out = to_pm1_labels(y)
        assert out.dtype == np.int8 and set(out.tolist()) <= {-1, 1}
    assert to_pm1_labels([0.0, 1.0]).tolist() == [-1, 1]
    with pytest.raises(ValueError) as e:
        to_pm1_labels([1.0, np.nan], name="lab")
    assert str(e.value) == "lab must contain labels in {-1, +1} (or {0, 1}), got NaN or inf"
    with pytest.raises(ValueError) as e:
        to_pm1_labels([2, 3, 4, 5, 6, 7])
    assert str(e.value) == "y must contain labels in {-1, +1} (or {0, 1}, converted 0 -> -1) only"
    with pytest.raises(ValueError) as e:
        to_pm1_labels([[1, -1]])
    assert str(e.value) == "y must be 1-d, got shape (1, 2)"
    for bad, tname in [(None, "NoneType"), ("ab", "str"), (b"ab", "bytes")]:
        with pytest.raises(TypeError) as e2:
            to_pm1_labels(bad)
        assert str(e2.value) == f"y must be an array of labels in {{-1, +1}} (or {{0, 1}}), got {tname}"
    with pytest.raises(TypeError) as e2:
        to_pm1_labels([1], name=3)  # type: ignore[arg-type]
    assert str(e2.value) == "name must be a string (the parameter name used in messages), got int"


class _Recording(dist.DisjunctionGraphDistribution):  # type: ignore[misc]
    """Records the outer calls (not sample_X's own call of sample)."""

    log: list[tuple[str, int, Any]] = []
    depth = 0

    def sample_X(self, n: int, rng: Any = None) -> Any:
        return self._rec("X", n, rng, super().sample_X)

    def sample(self, n: int, rng: Any = None) -> Any:
        return self._rec("S", n, rng, super().sample)

    def _rec(self, what: str, n: int, rng: Any, f: Any) -> Any:
        if _Recording.depth == 0:
            self.log.append((what, n, rng))
        _Recording.depth += 1
        try:
            return f(n, rng)
        finally:
            _Recording.depth -= 1


def test_thm2_instance_samples_and_learns_with_its_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    _Recording.log = []
    made: list[tuple[Any, Any]] = []

    class _L(ComponentDisjunctionLearner):  # type: ignore[misc]
        def fit(self, *a: Any, **kw: Any) -> Any:
            made.append((self.epsilon, self.random_state))
            return super().fit(*a, **kw)

    monkeypatch.setattr(dj, "DisjunctionGraphDistribution", _Recording)  # the name thm2_instance looks up
    monkeypatch.setattr(dj, "ComponentDisjunctionLearner", _L)
    g = np.random.default_rng(0)
    r = thm2_instance(200, 100, 0.01, 0.1, 0.01, 0.7, rng=g, n_test=1000)
    assert _Recording.log == [("X", 60, g), ("S", 81, g), ("S", 1000, g)]
    assert made == [(0.7, g)]
    assert (r.n_unl, r.n_lab, r.n_components, r.privacy, r.valid, r.reason) == (60, 81, 2, (0.7, 0.0), True, "")
    _Recording.log = []
    r = thm2_instance(200, 100, 0.01, 0.1, 0.01, 0.7, rng=1, n_test=10, form="proof")
    assert (r.n_unl, r.n_lab) == (124, 81) and _Recording.log[0][1] == 124


def test_thm2_instance_outside_the_hypotheses() -> None:
    r = thm2_instance(100, 10, 0.01, 0.1, 0.001, 1.0, rng=0, n_test=10)
    assert (r.n_unl, r.n_lab, r.valid, r.reason) == (252, 80, False, "k, d > 35")
    with pytest.raises(ValueError) as e:
        thm2_instance(40, 20, 0.2, 0.1, 0.1, 1.0, rng=0, n_test=10)
    assert str(e.value) == ("HPSY Thm 2 gives no sample size here: k, d > 35; beta in (4 exp(-(d-5)/9), 4/d); "
                            "9 log(16/beta) + 4 < d - 1")
