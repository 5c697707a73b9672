"""Every learner exported by semiprivate.theory.learners has an end-to-end privacy check that holds.

The registry (semiprivate.theory.learner_checks) must list every exported class with ``fit``; each
declares a privacy model; the exact checks (whole fitted state, every neighbour of the declared
relation, all datasets of the tiny domain) must find a worst-case delta at the claimed epsilon
within the claim.  Statistical and remainder checks are marked slow.  The halfspace learners are
checked with a declared label set (``classes=``); without one they report ``privacy_ = (inf, 0)``
with a PrivacyWarning, since the label set would then be read from the private labels.
"""

from __future__ import annotations

import inspect

import pytest
import semiprivate.theory.learners as learners
from semiprivate.theory.learner_checks import HALFSPACE_MODELS, REGISTRY, run_check, run_check_and_visited_parts
from semiprivate.theory.learners._base import LABELLED, PRIVACY_MODELS

EXPORTED = sorted(n for n in learners.__all__
                  if inspect.isclass(getattr(learners, n)) and callable(getattr(getattr(learners, n), "fit", None)))


def test_every_exported_learner_has_a_check_and_a_declared_model():
    assert EXPORTED, "no learner class found"
    missing = [n for n in EXPORTED if n not in REGISTRY]
    assert not missing, f"learners without an end-to-end check: {missing}"
    for n in EXPORTED:
        declared = HALFSPACE_MODELS.get(n, getattr(getattr(learners, n), "privacy_model_", None))
        assert declared in PRIVACY_MODELS, n
        assert REGISTRY[n].relation == declared, n


def _params():
    out = []
    for name, c in REGISTRY.items():
        marks = []
        if c.slow:
            marks.append(pytest.mark.slow)
        out.append(pytest.param(name, marks=marks, id=name))
    return out


def _visits_match_the_relation(name, parts):
    """'all inputs' checks change every part of their datasets (labelled and public) where there is a public
    part; 'labelled' checks change the labelled part only."""
    if REGISTRY[name].relation == LABELLED:
        assert parts == {0}, (name, parts)
    elif name in ("GenericPrivateLearner", "LabelBoost"):  # datasets of a labelled and a public part
        assert parts == {0, 1}, (name, parts)
    else:  # the active wrappers' pools: one part, every entry of it
        assert parts == {0}, (name, parts)


@pytest.mark.slow
@pytest.mark.parametrize("name", _params())
def test_check_holds_on_the_tiny_case(name):
    """The check holds; an exact check's neighbours also change the parts of the datasets its relation names
    (recorded on the same run: the check runs once)."""
    exact = REGISTRY[name].method == "exact" and name not in ("BinarySearchThresholdLearner",)
    r, parts = run_check_and_visited_parts(name) if exact else (run_check(name), None)
    assert r.holds, (name, r)
    if REGISTRY[name].method == "exact" and REGISTRY[name].relation != "not private":
        assert r.epsilon <= r.claimed[0] * (1 + 1e-9) and r.delta <= r.claimed[1] + 1e-9
    if REGISTRY[name].relation == "not private":
        assert r.claimed[0] == float("inf")
    if REGISTRY[name].method == "remainder + statistical":
        # the noise audit (halfspace_noise_audit / multinomial_noise_audit at their defaults) holds: the exact
        # Gaussian epsilon of the declared (and drawn) noise within the claim, the remainder exact (0); the
        # full-dimension learner's claim is the calibrated 1
        assert r.epsilon <= r.claimed[0], (name, r)
        if name == "FullDimensionHalfspace":
            assert 0.99 < r.claimed[0] <= 1.0, r
    if exact:
        _visits_match_the_relation(name, parts)


@pytest.mark.parametrize("name", sorted(n for n, c in REGISTRY.items() if c.probe is not None))
def test_fit_runs_the_exact_sampler_the_check_enumerates(name):
    from semiprivate.theory.learner_checks import sampler_ran

    assert "exact" in REGISTRY[name].sampler
    assert sampler_ran(name), f"{name}.fit did not call the exact exponential-mechanism sampler"


def test_visited_parts_is_the_record_of_one_run():
    from semiprivate.theory.learner_checks import visited_parts

    assert visited_parts("BinarySearchThresholdLearner") == {0}  # its pools: one part


def test_the_wrappers_are_checked_around_a_base_that_reads_its_public_input():
    import numpy as np
    from semiprivate.theory.classes import Thresholds
    from semiprivate.theory.learner_checks import PublicReadingKLNRS

    L = PublicReadingKLNRS(1.0, concept_class=Thresholds(2))
    a = L.output_distribution([0, 3], [1, 0], [1])
    b = L.output_distribution([0, 3], [1, 0], [2])
    assert not np.allclose(a, b)  # a public point changes its law: a wrapper feeding it private rows is seen


def test_labelboost_fit_draws_the_law_its_exact_check_enumerates():
    """The exact check of LabelBoost enumerates every coin of its run (``_labelboost_output_law``); ``fit`` must
    draw from that law: 600 fits on the check's dataset, chi-square at 1e-4 (false-failure rate 1e-4)."""
    import copy

    import numpy as np
    from scipy.stats import chisquare
    from semiprivate.theory.learner_checks import _labelboost_output_law, _labelboost_proto
    from semiprivate.theory.privacy.seeds import separate_seed_record

    X, y, D = [0, 1], [1, 0], [0, 1, 1, 0, 1, 0]
    proto = _labelboost_proto()
    law = _labelboost_output_law(proto, X, y, D)
    assert abs(sum(law.values()) - 1.0) < 1e-12 and len(law) == 3
    g = np.random.default_rng(4)
    counts = dict.fromkeys(law, 0)
    for _ in range(600):
        L = copy.deepcopy(proto)
        L.random_state = g
        with separate_seed_record():
            L.fit(X, y, D)
        counts[(L.hypothesis_, L.base_learner_.index_)] += 1
    keys = sorted(law)
    assert chisquare([counts[k] for k in keys], [600 * law[k] for k in keys]).pvalue > 1e-4, (counts, law)


def test_wrapped_law_with_the_base_law_memo_is_the_plain_law():
    """The registry's wrapped-learner checks compute each distinct base input's law once per check; the law of
    every pool (and of its neighbours, which share the memo) must equal the one computed without the memo."""
    import numpy as np
    from semiprivate.theory.classes import Thresholds
    from semiprivate.theory.learner_checks import PublicReadingKLNRS, _wrapped_law
    from semiprivate.theory.learners.active import SubSampling

    def make():
        return SubSampling(PublicReadingKLNRS(0.5, concept_class=Thresholds(1)), n=2, m=1, epsilon=1.0)

    g = np.random.default_rng(7)
    lab = [(x, y) for x in range(2) for y in (0, 1)]
    memo: dict = {}
    for _ in range(3):
        ds = (tuple(lab[int(i)] for i in g.integers(0, 4, 12)),)
        assert _wrapped_law(make, ds, memo) == _wrapped_law(make, ds)
    assert 0 < len(memo) <= 8  # (x, y) of the labelled point and the public point: at most 8 distinct inputs
