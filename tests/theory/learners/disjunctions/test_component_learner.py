"""HPSY.Thm1 / HPSY.Thm2: the component-graph disjunction learner.

Statistical tests: fixed seeds; each chi-square / binomial test is run at level 1e-4 (its
false-failure rate), stated per test.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import chisquare
from semiprivate.theory.audit import exact_privacy_loss
from semiprivate.theory.distributions import BlockDisjunctionDistribution
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner, thm2_instance, to_pm1_labels
from sklearn.base import clone

FFR = 1e-4


def brute_force_log_probs(Xp, y, Xu, eps, fractional=False):
    """Plain-Python EXPMECH over non-empty unions of components of G_S (HPSY App. B.1 Step 1-2)."""
    Xu = np.asarray(Xu, dtype=int)
    d = Xu.shape[1]
    # components by repeated merging over pairs (independent of semiprivate.theory.graphs)
    comp = list(range(d))

    def find(a):
        while comp[a] != a:
            a = comp[a]
        return a

    for row in Xu:
        act = [i for i in range(d) if row[i]]
        for a, b in itertools.combinations(act, 2):
            comp[find(a)] = find(b)
    roots = []
    for i in range(d):
        r = find(i)
        if r not in roots:
            roots.append(r)
    label = [roots.index(find(i)) for i in range(d)]
    Z = len(roots)
    lw = []
    for mask in range(1, 2**Z):
        errors = 0
        for x, yy in zip(np.asarray(Xp), y):
            h = 1 if any(x[i] and (mask >> label[i]) & 1 for i in range(d)) else -1
            touched = sorted({label[i] for i in range(d) if x[i]})
            if fractional and touched:
                # the factorised path's score: 1/|K| per touched component that disagrees with the label
                errors += sum(((mask >> c) & 1) != (yy == 1) for c in touched) / len(touched)
            else:
                errors += int(h != yy)
        lw.append(-eps * errors / 2)
    lw = np.array(lw)
    return lw - np.logaddexp.reduce(lw)


# A tiny case: 3 public components {0,1}, {2}, {3,4}; private examples touching 0, 1 or 2
# components (the factorised path scores the fractional error, the enumerated one #errors).
XU = np.array([[1, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 1]])
XP = np.array([[1, 0, 1, 0, 0], [0, 0, 0, 1, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]])
YP = np.array([1, -1, 1, -1, 1])


@pytest.mark.parametrize("method", ["enumerate", "factorised"])
def test_thm1_exact_output_distribution(method):
    """The learner's exact distribution equals brute-force EXPMECH over the 2^Z - 1 unions."""
    L = ComponentDisjunctionLearner(0.9, method=method)
    got = L.log_output_distribution(XP, YP, XU)
    want = brute_force_log_probs(XP, YP, XU, 0.9, fractional=method == "factorised")
    np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["enumerate", "factorised"])
def test_thm1_fit_samples_the_exact_distribution(method):
    """Chi-square of 1000 fits against brute-force EXPMECH (level FFR = 1e-4).  Power (noncentral chi-square, 6
    degrees of freedom): fit drawing at 2 epsilon is refuted with probability >= 0.99997, at epsilon / 2 >= 0.997,
    uniformly over the unions 1.0 (enumerate; factorised: >= 0.9999 for each)."""
    want = np.exp(brute_force_log_probs(XP, YP, XU, 1.5, fractional=method == "factorised"))
    L = ComponentDisjunctionLearner(1.5, method=method, random_state=np.random.default_rng(7))
    n = 1000
    counts = np.zeros(want.size)
    for _ in range(n):
        L.fit(XP, YP, XU)
        mask = sum(1 << c for c in L.union_)
        counts[mask - 1] += 1
        assert L.method_ == method
    assert chisquare(counts, want * n).pvalue > FFR


def test_thm1_factorised_singletons_match_enumeration():
    """Many components (Z = 12), every private example in one component: product form == enumeration."""
    g = np.random.default_rng(3)
    Xu = np.eye(12, dtype=int)
    Xp = np.eye(12, dtype=int)[g.integers(0, 12, 40)]
    y = g.choice([-1, 1], 40)
    a = ComponentDisjunctionLearner(0.7, method="enumerate").log_output_distribution(Xp, y, Xu)
    b = ComponentDisjunctionLearner(0.7, method="factorised").log_output_distribution(Xp, y, Xu)
    np.testing.assert_allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("method", ["enumerate", "factorised"])
def test_thm1_neighbours_log_ratio_at_most_epsilon(method):
    """Every replace-one neighbour of the private sample (all rows x all values): max |log ratio| <= eps."""
    eps = 0.8
    L = ComponentDisjunctionLearner(eps, method=method)
    base = L.log_output_distribution(XP, YP, XU)
    worst = 0.0
    points = [np.array(p) for p in itertools.product((0, 1), repeat=5)]
    for i in range(len(XP)):
        for x in points[::3]:
            for lab in (-1, 1):
                Xn, yn = XP.copy(), YP.copy()
                Xn[i], yn[i] = x, lab
                other = L.log_output_distribution(Xn, yn, XU)
                worst = max(worst, float(np.max(np.abs(base - other))))
                loss = exact_privacy_loss(base, other, log=True)
                assert loss.epsilon <= eps + 1e-9
    assert worst <= eps + 1e-12
    assert worst > 0.5 * eps  # the bound is approached, so the check has teeth


@pytest.mark.slow
@pytest.mark.parametrize("method", ["enumerate", "factorised"])
def test_thm1_label_flip_has_exact_loss_within_epsilon(method):
    """The pair (S, S with label 2 flipped): the exact law of fit's output (``log_output_distribution``, which fit
    draws: test_thm1_fit_samples_the_exact_distribution) has privacy loss <= epsilon = 1, and near it (the
    flip moves the error count of half the unions by one)."""
    eps = 1.0
    Xn, yn = XP.copy(), YP.copy()
    yn[2] = -1
    L = ComponentDisjunctionLearner(eps, method=method)
    p, q = L.log_output_distribution(XP, YP, XU), L.log_output_distribution(Xn, yn, XU)
    loss = exact_privacy_loss(p, q, log=True)
    assert loss.epsilon <= eps + 1e-9
    assert float(np.max(np.abs(p - q))) > 0.5 * eps


def test_thm1_learns_block_distribution():
    """Accuracy on a compatible block distribution (Thm 1 sizes with constant 1): error <= alpha.

    With n_lab = hpsy_thm1_labeled(Z, alpha, beta, eps) the failure rate is <= beta; we run 20
    fits and require at most 6 failures (P[Bin(20, 0.05) > 6] < 1e-4).  A learner that ignores the
    private labels (uniform over the 2^4 - 1 unions) fails with probability 14/15 per fit.
    """
    from semiprivate.theory.bounds.hpsy import hpsy_thm1

    D = BlockDisjunctionDistribution(20, [range(0, 5), range(5, 10), range(10, 15), range(15, 20)], [1, 3], 0.5)
    alpha, beta, eps = 0.1, 0.05, 1.0
    sizes = hpsy_thm1(D.d, D.n_components, D.p_min, alpha, beta, eps)
    g = np.random.default_rng(5)
    fails = 0
    for _ in range(20):
        Xu = D.sample_X(sizes.n_unl, g)
        Xl, yl = D.sample(sizes.n_lab, g)
        L = ComponentDisjunctionLearner(eps, random_state=g).fit(Xl, yl, Xu)
        Xt, yt = D.sample(4000, g)
        fails += float(np.mean(L.predict(Xt) != yt)) > alpha
        assert L.n_components_ == 4
    assert fails <= 6


def test_privacy_is_derived_from_the_run_and_sklearn_api():
    L = ComponentDisjunctionLearner(1.0, random_state=0)
    L.set_params(epsilon=0.25)
    L.fit(XP, YP, XU)
    assert L.privacy_ == (0.25, 0.0)
    C = clone(L)
    assert C.get_params()["epsilon"] == 0.25 and not hasattr(C, "privacy_")
    assert "ComponentDisjunctionLearner" in repr(L)
    assert set(L.predict(XP).tolist()) <= {-1, 1}


def test_labels_01_converted():
    assert to_pm1_labels(np.array([0, 1, 0])).tolist() == [-1, 1, -1]
    assert to_pm1_labels(np.array([True, False])).tolist() == [1, -1]
    a = ComponentDisjunctionLearner(1.0, classes=(0, 1)).log_output_distribution(XP, (YP + 1) // 2, XU)
    b = ComponentDisjunctionLearner(1.0).log_output_distribution(XP, YP, XU)
    np.testing.assert_allclose(a, b)


@pytest.mark.parametrize("kwargs, exc, word", [
    ({"X": [[2, 0, 0, 0, 0]]}, ValueError, r"\bX\b"),
    ({"X": [[1, 0, 0]]}, ValueError, r"\bX\b"),
    ({"X": [["a"] * 5]}, TypeError, r"\bX\b"),
    ({"y": [3]}, ValueError, r"\by\b"),
    ({"y": [-1, 0]}, ValueError, r"\by\b"),
    ({"y": [1, 1]}, ValueError, r"\by\b"),
    ({"y": object()}, TypeError, r"\by\b"),
    ({"X_public": None}, ValueError, "X_public"),
    ({"X_public": np.zeros((0, 5), dtype=int)}, ValueError, "X_public"),
    ({"X_public": [[0.5, 0, 0, 0, 0]]}, ValueError, "X_public"),
])
def test_bad_input(kwargs, exc, word):
    args = {"X": [[1, 0, 0, 0, 0]], "y": [1], "X_public": XU}
    args.update(kwargs)
    with pytest.raises(exc, match=word):
        ComponentDisjunctionLearner(1.0).fit(**args)


@pytest.mark.parametrize("kwargs, exc", [({"epsilon": -1.0}, ValueError), ({"epsilon": math.nan}, ValueError),
                                         ({"epsilon": object()}, TypeError), ({"method": "x"}, ValueError),
                                         ({"max_enumerate": 0}, ValueError)])
def test_bad_params(kwargs, exc):
    args = {"epsilon": 1.0}
    args.update(kwargs)
    with pytest.raises(exc, match=next(iter(kwargs))):
        ComponentDisjunctionLearner(**args)


def test_thm2_instance_two_components():
    """HPSY.Thm2 instance with the corrected n_unl: G_S has exactly the two components V+, V-."""
    r = thm2_instance(400, 200, 0.01, 0.1, 0.005, 1.0, form="corrected", rng=1, n_test=2000)
    assert r.n_components == 2
    assert r.privacy == (1.0, 0.0)
    assert r.test_error <= 0.1
    with pytest.raises(ValueError, match="k"):
        thm2_instance(50, 50, 0.1, 0.1, 0.01, 1.0)
