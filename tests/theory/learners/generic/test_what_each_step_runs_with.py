"""semiprivate.theory.learners.generic (BNS15 Alg 1, GenericLearner). Spies stand in for the sanitizers and the
exponential mechanism, so each test pins what step 2 and step 5 actually ran with: the epsilon, the scores (=
-#errors on S), the generator, the sanitizer's domain and size, the points (domain indices) it sanitized, and the
privacy_ read from what ran.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import semiprivate.theory.learners.generic as gen
from semiprivate.theory.classes import Disjunctions, Intervals, PointFunctions, Rectangles, Thresholds
from semiprivate.theory.combinatorics import xor_dichotomies
from semiprivate.theory.learners.generic import GenericLearner
from semiprivate.theory.privacy.exponential import output_distribution

C3 = Thresholds(3)
XS, YS = np.array([0, 2, 5, 6], np.uint64), [1, 1, 0, 1]
DENSE = np.repeat(np.arange(8, dtype=np.uint64), 200)


class _Spy:
    """Records what the exponential mechanism is called with; returns a scripted index."""

    def __init__(self, pick: int = -1) -> None:
        self.calls: list[tuple[np.ndarray, float, Any]] = []
        self.pick = pick

    def __call__(self, errors: Any, eps: Any, *args: Any, **kw: Any) -> int:
        assert not args and set(kw) == {"rng"}
        self.calls.append((np.array(errors), eps, kw["rng"]))
        return len(errors) - 1 if self.pick < 0 else self.pick


def _fake_sanitizer(out: Any, privacy: tuple[float, float], log: list[dict[str, Any]]) -> type:
    class _San:
        def __init__(self, epsilon: float, **kw: Any) -> None:
            log.append({"epsilon": epsilon, **kw})

        def sanitize(self, X: Any) -> np.ndarray:
            log.append({"X": np.array(X)})
            self.privacy_ = privacy
            return np.array(out, dtype=np.int64)

    return _San


def test_step5_gets_minus_errors_on_S_at_epsilon_and_the_shared_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    spy = _Spy(pick=2)
    monkeypatch.setattr(gen, "sample", spy)
    g = np.random.default_rng(5)
    L = GenericLearner(0.7, concept_class=C3, random_state=g).fit(XS, YS, DENSE)
    assert len(spy.calls) == 1
    errors, eps, rng = spy.calls[0]
    assert L.hypotheses_ == list(range(9))  # B = X: every dichotomy
    # #errors (not -#errors, not of another sample) of each hypothesis on S
    assert errors.tolist() == C3.error_counts(list(range(9)), XS, YS).tolist() == [3, 2, 2, 1, 1, 1, 2, 1, 1]
    assert errors.dtype == np.int64 and not hasattr(L, "errors_")
    assert eps == 0.7 and type(eps) is float
    # the run's own child stream of the learner's generator (SeedSequence.spawn), never the generator itself
    assert isinstance(rng, np.random.Generator) and rng is not g
    assert L.index_ == 2 and L.hypothesis_ == 2
    assert L.privacy_ == (0.7, 0.0)


def test_sanitizer_runs_on_X_public_with_epsilon_domain_size_and_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[dict[str, Any]] = []
    monkeypatch.setattr(gen, "NoisyHistogramSanitizer", _fake_sanitizer([6, 1, 6], (0.7, 0.0), log))
    spy = _Spy()
    monkeypatch.setattr(gen, "sample", spy)
    g = np.random.default_rng(1)
    L = GenericLearner(0.7, concept_class=C3, sanitized_size=3, random_state=g).fit(XS, YS, [5, 1, 7, 7])
    run_stream = log[0].pop("rng")
    assert log[0] == {"epsilon": 0.7, "domain_size": 8, "size": 3}
    assert isinstance(run_stream, np.random.Generator) and run_stream is not g
    assert log[1]["X"].tolist() == [5, 1, 7, 7] and log[1]["X"].dtype == np.int64
    assert L.sanitized_.tolist() == [6, 1, 6]
    assert L.B_.tolist() == [1, 6] and L.B_.dtype == np.uint64  # domain points of the distinct indices
    assert L.hypotheses_ == C3.dichotomies(np.array([1, 6], np.uint64)).representatives
    assert spy.calls[0][2] is run_stream  # the sanitizer and the mechanism share the run's stream
    assert L.index_ == len(L.hypotheses_) - 1 and L.hypothesis_ == L.hypotheses_[-1]


@pytest.mark.parametrize("san_eps, want", [(2.5, 2.5), (0.25, 0.7)])
def test_privacy_is_max_of_the_sanitizer_and_mechanism_as_run(monkeypatch: pytest.MonkeyPatch, san_eps: float,
                                                               want: float) -> None:
    log: list[dict[str, Any]] = []
    monkeypatch.setattr(gen, "NoisyHistogramSanitizer", _fake_sanitizer([0, 3], (san_eps, 0.125), log))
    L = GenericLearner(0.7, concept_class=C3, random_state=0).fit(XS, YS, DENSE)
    assert L.privacy_ == (want, 0.0)
    assert type(L.privacy_[0]) is float


def test_indices_map_points_to_their_domain_index(monkeypatch: pytest.MonkeyPatch) -> None:
    # Rectangles(2, 2): domain = itertools.product(range(4), range(4)); (a, b) has index 4a + b
    log: list[dict[str, Any]] = []
    monkeypatch.setattr(gen, "NoisyHistogramSanitizer", _fake_sanitizer([6, 12], (1.0, 0.0), log))
    R = Rectangles(2, 2)
    L = GenericLearner(1.0, concept_class=R, sanitized_size=2, random_state=0)
    L.fit([[1, 2], [3, 3]], [1, 0], [[1, 2], [3, 0], [0, 0], [3, 3], [0, 3]])
    assert log[0]["domain_size"] == 16
    assert log[1]["X"].tolist() == [6, 12, 0, 15, 3]
    assert L.B_.tolist() == [[1, 2], [3, 0]]
    # the indices themselves, on a domain whose last column does not reach its maximum everywhere
    dom = np.array([[0, 0], [0, 2], [1, 0], [1, 2]], dtype=np.uint64)
    X = np.array([[1, 2], [0, 2], [1, 0], [0, 0]], dtype=np.uint64)
    assert L._indices(X, dom).tolist() == [3, 1, 2, 0]
    assert L._indices(X, dom).dtype == np.int64
    dom1 = np.array([0, 3, 4, 9], dtype=np.uint64)
    assert L._indices(np.array([9, 0, 4, 3, 9], dtype=np.uint64), dom1).tolist() == [3, 0, 2, 1, 3]


def test_domain_boundary_and_the_unlisted_domain_of_a_larger_class() -> None:
    GenericLearner(1.0, concept_class=Thresholds(16))  # 2^16 points: the largest allowed
    with pytest.raises(ValueError) as e:
        GenericLearner(1.0, concept_class=Thresholds(17))
    assert str(e.value) == ("concept_class domain has 131072 points; GenericLearner's sanitizers need at most 65536 "
                            "(for THRESH_64 and other huge domains use LabelBoost)")
    # Thresholds(13) lists no domain_points: the domain is arange(2^13), validated as points
    L = GenericLearner(1.0, concept_class=Thresholds(13), sanitized_size=5)
    dom = L._domain()
    assert dom.tolist() == list(range(8192)) and dom.dtype == np.uint64


def test_large_unlisted_domain_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[dict[str, Any]] = []
    monkeypatch.setattr(gen, "NoisyHistogramSanitizer", _fake_sanitizer([8000, 5, 5], (1.0, 0.0), log))
    L = GenericLearner(1.0, concept_class=Thresholds(13), sanitized_size=3, random_state=0)
    L.fit([1, 8100], [1, 0], [8000, 5, 8191])
    assert log[0]["domain_size"] == 8192 and log[1]["X"].tolist() == [8000, 5, 8191]
    assert L.B_.tolist() == [5, 8000]


def test_blr_sanitizer_gets_the_xor_predicates_size_and_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[dict[str, Any]] = []
    monkeypatch.setattr(gen, "BLRSanitizer", _fake_sanitizer([1, 2], (0.6, 0.0), log))
    C = Thresholds(2)
    g = np.random.default_rng(3)
    L = GenericLearner(0.6, concept_class=C, sanitizer="blr", sanitized_size=2, random_state=g).fit([0, 3], [1, 0],
                                                                                          [0, 1, 2, 3, 3])
    kw = log[0]
    assert kw["epsilon"] == 0.6 and kw["size"] == 2 and type(kw["size"]) is int
    assert isinstance(kw["rng"], np.random.Generator) and kw["rng"] is not g  # the run's child stream
    want = xor_dichotomies(C.dichotomies(np.arange(4, dtype=np.uint64)).patterns)
    assert np.array_equal(np.asarray(kw["predicates"]), np.asarray(want))
    assert log[1]["X"].tolist() == [0, 1, 2, 3, 3]
    assert L.B_.tolist() == [1, 2] and L.privacy_ == (0.6, 0.0)
    # sanitized_size cleared after construction: fit refuses, naming the parameter
    L.sanitized_size = None
    with pytest.raises(ValueError) as e:
        L.fit([0, 3], [1, 0], [0, 1])
    assert str(e.value) == ("sanitizer='blr' needs sanitized_size (the size k of the databases BLR chooses among, "
                            "BNS15 Thm A.3)")


def test_dyadic_sanitizer_gets_epsilon_d_size_and_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[dict[str, Any]] = []
    monkeypatch.setattr(gen, "DyadicThresholdSanitizer", _fake_sanitizer([2**40, 7, 7], (0.8, 0.0), log))
    spy = _Spy(pick=1)
    monkeypatch.setattr(gen, "sample", spy)
    g = np.random.default_rng(4)
    C = Thresholds(64)
    L = GenericLearner(0.8, concept_class=C, sanitizer="dyadic", sanitized_size=3, random_state=g)
    L.fit([1, 2**50], [1, 0], [3, 2**41])
    run_stream = log[0].pop("rng")
    assert log[0] == {"epsilon": 0.8, "d": 64, "size": 3}
    assert isinstance(run_stream, np.random.Generator) and run_stream is not g
    assert type(log[0]["size"]) is int
    assert log[1]["X"].tolist() == [3, 2**41]  # the points themselves (no domain indices)
    assert L.B_.tolist() == [7, 2**40]
    assert L.hypotheses_ == C.dichotomies(L.B_).representatives
    assert spy.calls[0][1] == 0.8 and spy.calls[0][2] is run_stream and L.index_ == 1
    assert L.privacy_ == (0.8, 0.0)
    # Intervals(64) is accepted too
    GenericLearner(1.0, concept_class=Intervals(64), sanitizer="dyadic", sanitized_size=3)


def test_constructor_messages_and_attributes() -> None:
    with pytest.raises(TypeError) as e:
        GenericLearner(1.0, concept_class=object())  # type: ignore[arg-type]
    assert str(e.value) == "concept_class must be a ConceptClass, got object"
    with pytest.raises(ValueError) as e2:
        GenericLearner(1.0, concept_class=PointFunctions(3), sanitizer="dyadic", sanitized_size=4)
    assert str(e2.value) == "sanitizer='dyadic' needs a Thresholds or Intervals class, got PointFunctions(d=3)"
    with pytest.raises(ValueError) as e3:
        GenericLearner(1.0, concept_class=Thresholds(64), sanitizer="dyadic")
    assert str(e3.value) == "sanitizer='dyadic' needs sanitized_size (the synthetic database size)"
    with pytest.raises(ValueError) as e4:
        GenericLearner(1.0, concept_class=Thresholds(2), sanitizer="blr")
    assert str(e4.value) == ("sanitizer='blr' needs sanitized_size (the size k of the databases BLR chooses "
                             "among, BNS15 Thm A.3)")
    # the domain check runs for histogram and blr, not for dyadic
    with pytest.raises(ValueError, match="131072 points"):
        GenericLearner(1.0, concept_class=Thresholds(17), sanitizer="blr", sanitized_size=2)
    g = np.random.default_rng(0)
    L = GenericLearner(0.3, concept_class=C3, sanitizer="blr", sanitized_size=7, random_state=g)
    assert (L.epsilon, L.concept_class, L.sanitizer, L.sanitized_size, L.random_state) == (0.3, C3, "blr", 7, g)
    assert L.privacy == (0.3, 0.0) and type(L.privacy[0]) is float


def test_fit_and_distribution_messages_and_epsilon() -> None:
    L = GenericLearner(0.7, concept_class=C3, random_state=0)
    with pytest.raises(RuntimeError) as e:
        L.mechanism_distribution(XS, YS)
    assert str(e.value) == "GenericLearner is not fitted; call fit first"
    with pytest.raises(ValueError) as e2:
        L.fit(XS, YS)
    assert str(e2.value) == "X_public (the unlabelled database D) is required by GenericLearner"
    L.fit(XS, YS, DENSE)
    p = L.mechanism_distribution([1, 6], [1, 1])
    assert np.allclose(p, output_distribution(C3.error_counts(L.hypotheses_, [1, 6], [1, 1]), 0.7), rtol=0,
                       atol=1e-15)
    assert not np.allclose(p, output_distribution(C3.error_counts(L.hypotheses_, [1, 6], [1, 1]), 1.0))


def test_invalid_X_public_is_named() -> None:
    L = GenericLearner(1.0, concept_class=C3, random_state=0)
    with pytest.raises(ValueError) as e:
        L.fit(XS, YS, [1, 9])
    assert str(e.value).startswith("X_public ")


@pytest.mark.parametrize("C, size", [(Rectangles(3, 3), 512), (Disjunctions(11, 2), 2048)])
def test_a_multi_dimensional_class_without_listed_domain_points_is_refused_by_name(C: Any, size: int) -> None:
    # 2^(d l) <= 2^16 points but domain_points() is None: the error names the class and the reason
    # (it used to be "domain must have shape (n, 3), got (512,)", about a parameter the caller never gave)
    with pytest.raises(ValueError) as e:
        GenericLearner(1.0, concept_class=C)
    assert str(e.value) == (f"concept_class {type(C).__name__} lists no domain points (domain_points() is None) and "
                            f"its points are not the indices 0..{size - 1}: GenericLearner cannot enumerate its domain")
