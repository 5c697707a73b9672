"""The end-to-end privacy check of every learner: a registry of tiny cases (layer 6).

Implements: AUDIT (end-to-end checks of the learners of SPEC sections 3-7).

Each learner class exported by :mod:`semiprivate.theory.learners` has an entry of
:data:`REGISTRY`: its declared privacy model (``privacy_model_``; the halfspace learners'
models are declared here, ``"labelled"``), a tiny case, and a check run through the generic
:mod:`semiprivate.theory.audit.end_to_end` on the *whole* fitted state (every public attribute,
or the exception raised) over every neighbour of the declared relation:

* ``"exact"``: every dataset of the tiny domain (or, for SubSampling's 12-point pool, 8 fixed
  pools) and each of its neighbours; the coins are those of the mechanism, whose exact law the
  learner states (``output_distribution`` and kin); the rest of the state must not depend on the
  coins (checked on five seeds).  The result is the exact worst (epsilon, delta at the claimed
  epsilon).  LabelBoost's tiny case (one iteration) has every coin enumerated: the sub-samples of steps 2c
  and 3, LabelBoostProcedure's relabelling, the i.i.d. draws of step 4 and the base's exponential mechanism
  (``_labelboost_output_law``); its claim (8.5 with the scaled constants) is beyond what a sampled audit of
  affordable size can refute (a bound above about log(n / log(K / alpha)) needs n ~ 27,000 runs per dataset).
* ``"statistical"``: the whole state hashed to one categorical output, audited with
  :func:`semiprivate.theory.audit.core.audit_pairs` (the conditional test on 1,000 selection and at most
  800 estimation runs per dataset; a 95% lower bound on epsilon; it can refute,
  not certify) where the coins cannot be enumerated (sanitizer noise, sub-sampling, D0 draws).
* ``"remainder"``: learners with continuous noise everywhere (DP-SGD halfspaces): the part of the
  state that does not depend on the coins must be the same on neighbours, else the exact loss
  is infinite (:func:`coin_free_remainder`).
* ``"remainder + statistical"``: the private halfspace learners (DP-SGD, replace-one): the
  remainder check above, then the continuous part audited by :func:`halfspace_noise_audit`: on 4
  labelled points of R^2, one example replaced by itself with the other label (its clipped
  gradient flips: the antipodal worst case of replace-one), one full-batch DP-SGD step from 0, so the
  fitted weights (all the noise of the state) are exactly Gaussian: the exact delta of the Gaussian
  mechanism at the declared noise (mu = 2 / ``noise_multiplier_``) at the claimed epsilon, and a
  non-central t test of 200 drawn states per dataset against that mu (what ``fit`` draws, not only what it
  declares; level 1e-4: a correct learner is refuted with probability <= 1e-4; the seed is fixed).
  :class:`~semiprivate.theory.learners.multinomial.SemiPrivateMultinomial` (one multinomial DP-GD run,
  replace-one) likewise: :func:`coin_free_remainder`, then :func:`multinomial_noise_audit` on the same
  label flip, one full-batch step with clipping binding (the sums differ by ``2 clip``, the sensitivity
  its accountant assumes), the score margin on the replaced point audited in the same way.

:func:`run_check` runs one entry; :func:`table` gives the rows (learner, relation, method, sampler,
worst epsilon, worst delta, claimed).

The checker runs what users run.  Each entry names the sampler its learner's ``fit`` draws the release
with (``sampler``), and :func:`sampler_ran` fits the entry's tiny case once with the kernels' exact
exponential-mechanism samplers instrumented, so a test confirms that ``fit`` really called the exact
sampler whose law (``output_distribution``) the exact check enumerates.  The wrappers (PSSLAsTPAL,
SubSampling) are checked around :class:`PublicReadingKLNRS`, a base that reads every input it is given
(its score counts the public points a hypothesis labels 1), so a wrapper that handed private rows to its
base as public would change the base's output law; :func:`visited_parts` records which parts of the
datasets the neighbours of a check actually change.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.stats import nct
from semiprivate.kernels import _reference
from semiprivate.theory.audit.end_to_end import (
    EndToEndResult,
    all_datasets,
    encode_state,
    exact_worst_case,
    replace_one_neighbours,
    state_law,
    statistical_worst_case,
)
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.distributions import RandomLabelDistribution
from semiprivate.theory.learners import halfspaces
from semiprivate.theory.learners._base import ALL_INPUTS, LABELLED, NOT_PRIVATE, seed_of
from semiprivate.theory.learners.active import BinarySearchThresholdLearner, LabelOracle, PSSLAsTPAL, SubSampling
from semiprivate.theory.learners.asspp import ASSPP
from semiprivate.theory.learners.disjunctions import ComponentDisjunctionLearner
from semiprivate.theory.learners.exponential import GenericPrivateLearner
from semiprivate.theory.learners.generic import GenericLearner
from semiprivate.theory.learners.labelboost import LabelBoost
from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial
from semiprivate.theory.learners.reduction import ReductionLearner
from semiprivate.theory.privacy._release import fit_stream
from semiprivate.theory.privacy.exponential import output_distribution, sample
from semiprivate.theory.privacy.mechanisms import gaussian_delta
from semiprivate.theory.privacy.seeds import separate_seed_record
from semiprivate.validation import check_integer, check_positive_int, check_rng

__all__ = ["LearnerCheck", "REGISTRY", "EXTRA", "HALFSPACE_MODELS", "run_check", "table", "asspp_all_inputs",
           "halfspace_noise_audit", "multinomial_noise_audit", "coin_free_remainder",
           "MULTINOMIAL_AUDIT_EPSILON", "NOISE_AUDIT_LEVEL", "PublicReadingKLNRS", "sampler_ran", "visited_parts",
           "run_check_and_visited_parts"]

#: Privacy models of the halfspace learners, as their classes declare them.
HALFSPACE_MODELS = {name: getattr(halfspaces, name).privacy_model_ for name in
                    ("SemiPrivateHalfspace", "RandomProjectionHalfspace", "FullDimensionHalfspace", "NonPrivateHalfspace")}

_C2 = Thresholds(2)                                    # X = {0..3}, 5 thresholds
_LAB2 = [(x, y) for x in range(4) for y in (0, 1)]     # labelled entries
_PUB2 = list(range(4))                                 # public entries
_SEEDS = (0, 1, 2, 3, 4)


@dataclass(frozen=True)
class LearnerCheck:
    """One registry entry: the learner, the relation it is checked under, the method and the tiny case."""

    name: str
    relation: str
    method: str
    case: str
    run: Callable[[], EndToEndResult]
    slow: bool = False
    sampler: str = ""
    probe: Callable[[], Any] | None = None


# -- what fit really runs ----------------------------------------------------------------------------
_EXACT_SAMPLERS = ("reference_exact_sample", "reference_exact_weighted_sample")


@contextlib.contextmanager
def _exact_sampler_calls() -> Iterator[list[str]]:
    """Record the calls of the kernels' exact exponential-mechanism samplers made inside the block."""
    calls: list[str] = []
    saved = {n: getattr(_reference, n) for n in _EXACT_SAMPLERS}

    def recorder(name: str) -> Callable[..., Any]:
        def call(*a: Any, **k: Any) -> Any:
            calls.append(name)
            return saved[name](*a, **k)
        return call

    try:
        for n in _EXACT_SAMPLERS:
            setattr(_reference, n, recorder(n))
        yield calls
    finally:
        for n, f in saved.items():
            setattr(_reference, n, f)


_VISITED: list[set[int]] = []


def _experiment(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``fn`` (one fit of a check) with a seed record of its own
    (:func:`semiprivate.theory.privacy.seeds.separate_seed_record`).

    A check replays the same seeds on every dataset of its tiny domain on purpose (the coin-free state must
    not move between neighbours, and the laws are compared seed by seed): these fits are an experiment on
    made-up data, not releases of one private dataset, so the record's refusal of one seed on two releases
    does not apply between them.
    """
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        with separate_seed_record():
            return fn(*args, **kwargs)

    return run


def _neighbours(d: Any, domains: list[Any], parts: tuple[int, ...]) -> Any:
    """``replace_one_neighbours``, recording (when :func:`visited_parts` asks) which part each neighbour changes."""
    for nb in replace_one_neighbours(d, domains, parts):
        if _VISITED:
            _VISITED[-1].update(i for i, (a, b) in enumerate(zip(d, nb)) if tuple(a) != tuple(b))
        yield nb


class PublicReadingKLNRS(GenericPrivateLearner):
    """KLNRS whose score also reads every public point: ``q(h) = -(errors of h on the labelled sample +
    number of public points h labels 1)``.  One entry of either input moves q by at most 1, so the
    exponential mechanism at epsilon is (epsilon, 0)-DP in every input (privacy model ``"all inputs"``).
    The base the wrappers are checked around: a wrapper that passed private rows to it as public would
    change its output law, where a base that ignores its public input could not notice."""

    def _scores(self, X: Any, y: Any, X_public: Any) -> np.ndarray:
        errors = self._errors(X, y)
        if X_public is None or len(X_public) == 0:
            return np.asarray(errors, dtype=np.int64)
        P = self.concept_class.validate_points(X_public, "X_public")
        # the public points each hypothesis labels 1: one row of the class's prediction matrix per hypothesis
        ones = np.count_nonzero(self.concept_class.evaluate_many(self.hypothesis_list, P), axis=1)
        return np.asarray(errors, dtype=np.int64) + ones

    def fit(self, X: Any, y: Any, X_public: Any = None) -> PublicReadingKLNRS:
        """The exponential mechanism (exact sampler) on the score that reads both inputs."""
        eps = float(self.epsilon)
        self.index_ = int(sample(self._scores(X, y, X_public), eps, rng=fit_stream(seed_of(self))))
        self.hypothesis_ = self.hypothesis_list[self.index_]
        self.privacy_ = (eps, 0.0)
        return self

    def output_distribution(self, X: Any, y: Any, X_public: Any = None) -> np.ndarray:
        """Exact output law over ``hypotheses``."""
        return output_distribution(self._scores(X, y, X_public), self.epsilon)


def _xy(part: tuple[Any, ...]) -> tuple[list[Any], list[int]]:
    return [e[0] for e in part], [int(e[1]) for e in part]


def _claim(obj: Any) -> tuple[float, float]:
    e, d = obj.privacy_
    return float(e), float(d)


# -- exact: exponential-mechanism learners -------------------------------------------------------
def _generic_private() -> EndToEndResult:
    domains: list[list[Any]] = [_LAB2, _PUB2]

    @_experiment
    def fit(ds: Any, seed: int) -> Any:
        X, y = _xy(ds[0])
        return GenericPrivateLearner(1.0, concept_class=_C2, random_state=np.random.default_rng(seed)).fit(X, y, list(ds[1]))

    def law(ds: Any) -> dict[Any, float]:
        X, y = _xy(ds[0])
        L = GenericPrivateLearner(1.0, concept_class=_C2)
        p = L.output_distribution(X, y)
        return {(encode_state(i), encode_state(h)): float(q) for i, (h, q) in enumerate(zip(L.hypothesis_list, p))}

    datasets = all_datasets(domains, [2, 1])
    return exact_worst_case(datasets, lambda d: _neighbours(d, domains, (0, 1)),
                            lambda d: state_law(fit, d, random_attributes=("index_", "hypothesis_"), random_law=law),
                            _claim(fit(datasets[0], 0)))


def _asspp(parts: tuple[int, ...]) -> EndToEndResult:
    domains: list[list[Any]] = [_LAB2, _PUB2]

    @_experiment
    def fit(ds: Any, seed: int) -> Any:
        X, y = _xy(ds[0])
        return ASSPP(1.0, concept_class=_C2, random_state=np.random.default_rng(seed)).fit(X, y, list(ds[1]))

    def law(ds: Any) -> dict[Any, float]:
        X, y = _xy(ds[0])
        hyps, p = ASSPP(1.0, concept_class=_C2).output_distribution(X, y, list(ds[1]))
        return {(encode_state(i), encode_state(h)): float(q) for i, (h, q) in enumerate(zip(hyps, p))}

    datasets = all_datasets(domains, [2, 1])
    return exact_worst_case(datasets, lambda d: _neighbours(d, domains, parts),
                            lambda d: state_law(fit, d, random_attributes=("index_", "hypothesis_"), random_law=law),
                            _claim(fit(datasets[0], 0)))


def asspp_all_inputs() -> EndToEndResult:
    """ASSPP checked under ``"all inputs"`` (not its model): one public point changes the cover."""
    return _asspp((0, 1))


def _disjunctions(method: str) -> EndToEndResult:
    Xu = np.array([[1, 1, 0], [0, 0, 1]])
    lab = [(bits, y) for bits in itertools.product((0, 1), repeat=3) for y in (-1, 1)]
    domains = [lab]

    @_experiment
    def fit(ds: Any, seed: int) -> Any:
        X, y = _xy(ds[0])
        return ComponentDisjunctionLearner(1.0, method=method, random_state=np.random.default_rng(seed)).fit(np.array(X), y, Xu)

    def law(ds: Any) -> dict[Any, float]:
        X, y = _xy(ds[0])
        L = ComponentDisjunctionLearner(1.0, method=method)
        lp = L.log_output_distribution(np.array(X), y, Xu)
        labels = L._components(Xu)[1]  # the component graph of the public rows, as fit builds it (no release)
        out: dict[Any, float] = {}
        for i, v in enumerate(lp):
            union = np.flatnonzero(((i + 1) >> np.arange(labels.max() + 1)) & 1)
            hyp = np.flatnonzero(np.isin(labels, union))
            out[(encode_state(tuple(int(c) for c in union)), encode_state(hyp))] = float(math.exp(v))
        return out

    datasets = all_datasets(domains, [2])
    return exact_worst_case(datasets, lambda d: _neighbours(d, domains, (0,)),
                            lambda d: state_law(fit, d, random_attributes=("union_", "hypothesis_"), random_law=law),
                            _claim(fit(datasets[0], 0)))


# -- exact: the active wrappers around the KLNRS learner -------------------------------------------
def _memoised_base_law(base: Any, memo: dict[Any, np.ndarray]) -> None:
    """Give ``base`` (a fresh, unfitted base of one law computation) an ``output_distribution`` that computes each
    distinct input's law once per check: a wrapper's exact law asks its base's law of every sub-sample (SubSampling:
    every n-subset of every pool of every dataset, 19,536 calls on the tiny case) while the tiny domain has only a
    few distinct base inputs.  The memo lives for one check (``_wrapped``), never on a fitted object, and every
    entry is the base's own :meth:`PublicReadingKLNRS.output_distribution` (bit-identical results)."""
    real = base.output_distribution

    def law(X_private: Any, y_private: Any, X_public: Any = None) -> np.ndarray:
        key = tuple(None if a is None else (np.asarray(a).dtype.str, np.shape(a), np.asarray(a).tobytes())
                    for a in (X_private, y_private, X_public))
        if key not in memo:
            memo[key] = np.asarray(real(X_private, y_private, X_public))
        return memo[key].copy()

    base.output_distribution = law


def _wrapped_law(make: Callable[[], Any], ds: Any, memo: dict[Any, np.ndarray] | None = None) -> dict[Any, float]:
    X, y = _xy(ds[0])
    w = make()
    if memo is not None:
        _memoised_base_law(w.learner, memo)
    hyps = w.learner.hypothesis_list
    out: dict[Any, float] = {}
    for (h, _tr), p in w.exact_distribution(np.array(X), np.array(y)).items():
        i = hyps.index(h)
        key = (encode_state(hyps[i]), encode_state(i), encode_state(hyps[i]))
        out[key] = out.get(key, 0.0) + float(p)  # a PAL's guarantee is over the output (Def 5.3)
    return out


def _wrapped(make: Callable[[int], Any], datasets: list[Any], domains: list[Any]) -> EndToEndResult:
    @_experiment
    def fit(ds: Any, seed: int) -> Any:
        X, y = _xy(ds[0])
        w = make(seed)
        w.fit(np.array(X), LabelOracle(np.array(y)))
        return w

    attrs = ("hypothesis_", "learner.index_", "learner.hypothesis_")
    memo: dict[Any, np.ndarray] = {}  # the base's law per distinct input, for this check only
    return exact_worst_case(datasets, lambda d: _neighbours(d, domains, (0,)),
                            lambda d: state_law(fit, d, random_attributes=attrs,
                                                random_law=lambda e: _wrapped_law(lambda: make(0), e, memo)),
                            _claim(fit(datasets[0], 0)))


def _pssl_as_tpal() -> EndToEndResult:
    domains = [_LAB2]
    return _wrapped(lambda s: PSSLAsTPAL(PublicReadingKLNRS(1.0, concept_class=_C2, random_state=np.random.default_rng(s)), m=2),
                    all_datasets(domains, [3]), domains)


def _subsampling() -> EndToEndResult:
    C1 = Thresholds(1)
    lab = [(x, y) for x in range(2) for y in (0, 1)]
    domains = [lab]
    g = np.random.default_rng(2024)
    pools = [(tuple(lab[int(i)] for i in g.integers(0, 4, 12)),) for _ in range(8)]
    return _wrapped(lambda s: SubSampling(PublicReadingKLNRS(0.5, concept_class=C1, random_state=np.random.default_rng(s)), n=2,
                                          m=1, epsilon=1.0, rng=np.random.default_rng(s + 100)), pools, domains)


def _binary_search() -> EndToEndResult:
    domains = [_LAB2]

    def law(ds: Any) -> dict[Any, float]:
        X, y = _xy(ds[0])
        L = BinarySearchThresholdLearner(_C2)
        L.fit(np.array(X), LabelOracle(np.array(y)))
        return {encode_state(L): 1.0}

    return exact_worst_case(all_datasets(domains, [3]), lambda d: _neighbours(d, domains, (0,)), law,
                            (math.inf, 0.0))


# -- statistical ----------------------------------------------------------------------------------
def _pairs(domains: list[Any], base: list[Any], parts: tuple[int, ...], k: int, seed: int) -> list[tuple[Any, Any]]:
    g = np.random.default_rng(seed)
    out = []
    for d in base:
        nb = list(_neighbours(d, domains, parts))
        out += [(d, nb[int(i)]) for i in g.choice(len(nb), size=min(k, len(nb)), replace=False)]
    return out


# selection runs per dataset of the statistical checks (their states take 3 to 7 values: the events are found
# on 1,000 runs as on the auditor's default 10,000, which were 93% of the fits)
_STATISTICAL_SELECTION_TRIALS = 1000


def _statistical(run: Callable[[Any, np.random.Generator], Any], pairs: list[tuple[Any, Any]],
                 claimed: tuple[float, float], trials: int) -> EndToEndResult:
    """The hashed whole state audited on ``pairs`` (both orders): ``_STATISTICAL_SELECTION_TRIALS`` selection
    runs and at most ``trials`` estimation runs per dataset, each test bounded by the conditional test
    (``interval="poisson-conditional"``, the claims here have delta 0), at 95% confidence."""
    return statistical_worst_case(run, pairs, claimed, trials=trials, rng=7,
                                  selection_trials=_STATISTICAL_SELECTION_TRIALS, interval="poisson-conditional")[0]


def _generic_learner() -> EndToEndResult:
    C1 = Thresholds(1)
    lab = [(x, y) for x in range(2) for y in (0, 1)]
    domains = [lab, [0, 1]]

    @_experiment
    def run(ds: Any, g: np.random.Generator) -> Any:
        X, y = _xy(ds[0])
        return GenericLearner(1.0, concept_class=C1, random_state=g).fit(X, y, list(ds[1]))

    base = [(((0, 1), (1, 0)), (0, 1, 1))]
    pairs = _pairs(domains, base, (0, 1), 3, 0)
    return _statistical(run, pairs, _claim(run(base[0], np.random.default_rng(0))), 800)


def _reduction() -> EndToEndResult:
    lab = [(x, y) for x in range(2) for y in (0, 1)]
    domains = [lab]
    D0 = RandomLabelDistribution(lambda n, g: g.integers(0, 2, n))

    @_experiment
    def run(ds: Any, g: np.random.Generator) -> Any:
        X, y = _xy(ds[0])
        return ReductionLearner(1.0, random_state=g, n_priv=20, n_pub=1, D0=D0,
                                base_learner=_klnrs_factory).fit(np.array(X), y)

    base = [(((0, 1), (1, 0)),)]
    pairs = _pairs(domains, base, (0,), 3, 1)
    return _statistical(run, pairs, _claim(run(base[0], np.random.default_rng(0))), 800)


def _klnrs_factory(epsilon: float, delta: float, g: np.random.Generator) -> GenericPrivateLearner:
    return GenericPrivateLearner(epsilon, delta, concept_class=Thresholds(1), random_state=g)


def _labelboost_proto() -> LabelBoost:
    C1 = Thresholds(1)
    return LabelBoost(GenericPrivateLearner(1.0, concept_class=C1), concept_class=C1, n=1, alpha=0.5,
                      unlabelled_factor=1, target_factor=3, cap_factor=6, exponent_constant=0.05, alpha_factor=1,
                      beta_factor=1, iteration_ratio=2, final_ratio=2)


def _labelboost_output_law(proto: LabelBoost, X: Any, y: Any, X_public: Any) -> dict[tuple[Any, int], float]:
    """Exact law of the base learner's output (``(hypothesis_, base_learner_.index_)``) of ``proto.fit(X, y, X_public)``
    for a one-iteration run (BNS15 Alg 3) around an exponential-mechanism base with ``output_distribution``.

    Every coin of the run is enumerated: the ``s_kept`` entries of S kept and the ``t_kept`` of T = the first
    ``v`` public points (uniform subsets, step 2c), LabelBoostProcedure's relabelling (its exact law,
    :func:`~semiprivate.theory.learners.labelboost_procedure.label_boost_procedure_distribution`), the final
    ``ceil(|S| / final_ratio)`` entries kept (step 3), the |S| i.i.d. draws from them (step 4) and the base's
    exponential mechanism.  The sizes (``schedule_``, ``n_labelled_final_``) are read from one fit: they depend on
    the input sizes only (the exact check confirms that the rest of the state does not move with the coins).
    ValueError for a run of more than one iteration or with the Thm 4.14 sub-sample (``epsilon`` set).
    """
    from semiprivate.theory.learners.labelboost_procedure import label_boost_procedure_distribution

    if proto.epsilon is not None:
        raise ValueError("proto: the exact law covers runs without the Thm 4.14 sub-sample (epsilon=None)")
    C = proto.concept_class
    X_S, y_S = np.asarray(X), np.asarray(y, dtype=np.int64)
    X_D = np.asarray(X_public)
    plan = copy.deepcopy(proto)
    plan.random_state = np.random.default_rng(0)
    with separate_seed_record():
        plan.fit(X_S, y_S, X_D)
    if plan.iterations_ != 1:
        raise ValueError(f"proto: the exact law covers one-iteration runs, this one runs {plan.iterations_}")
    it = plan.schedule_[0]
    nf = int(plan.n_labelled_final_)
    base = copy.deepcopy(proto.base_learner)
    base_law: dict[tuple[tuple[int, int], ...], np.ndarray] = {}  # the base's law depends on the multiset only
    out: dict[tuple[Any, int], float] = {}
    ks_all = list(itertools.combinations(range(len(X_S)), min(len(X_S), it["s_kept"])))  # _keep: all when kept >= size
    kt_all = list(itertools.combinations(range(it["v"]), min(it["v"], it["t_kept"])))
    for ks in ks_all:
        for kt in kt_all:
            XS, yS, XT = X_S[list(ks)], y_S[list(ks)], X_D[: it["v"]][list(kt)]
            rows, probs = label_boost_procedure_distribution(C, XS, yS, XT)
            X_all = np.concatenate([XS, XT])
            for row, p_row in zip(rows, probs):
                if p_row <= 0:
                    continue
                kf_all = list(itertools.combinations(range(len(X_all)), nf))
                w = float(p_row) / (len(ks_all) * len(kt_all) * len(kf_all) * nf ** nf)
                for kf in kf_all:
                    for draw in itertools.product(kf, repeat=nf):
                        key = tuple(sorted((int(X_all[i]), int(row[i])) for i in draw))
                        if key not in base_law:
                            base_law[key] = np.asarray(base.output_distribution([k[0] for k in key],
                                                                                [k[1] for k in key]))
                        for i, q in enumerate(base_law[key]):
                            if q > 0:
                                h = (base.hypothesis_list[i], i)
                                out[h] = out.get(h, 0.0) + w * float(q)
    return out


def _labelboost() -> EndToEndResult:
    lab = [(x, y) for x in range(2) for y in (0, 1)]
    domains: list[list[Any]] = [lab, [0, 1]]
    proto = _labelboost_proto()

    @_experiment
    def fit(ds: Any, seed: int) -> Any:
        X, y = _xy(ds[0])
        L = copy.deepcopy(proto)
        L.random_state = np.random.default_rng(seed)
        return L.fit(X, y, list(ds[1]))

    def law(ds: Any) -> dict[Any, float]:
        X, y = _xy(ds[0])
        return {(encode_state(h), encode_state(i), encode_state(h)): p
                for (h, i), p in _labelboost_output_law(proto, X, y, list(ds[1])).items()}

    base = (((0, 1), (1, 0)), (0, 1, 1, 0, 1, 0))  # S: 2 labelled points of THRESH_1; D: 6 public points
    attrs = ("hypothesis_", "base_learner_.index_", "base_learner_.hypothesis_")
    return exact_worst_case([base], lambda d: _neighbours(d, domains, (0, 1)),
                            lambda d: state_law(fit, d, random_attributes=attrs, random_law=law),
                            _claim(fit(base, 0)))


# -- remainder: continuous noise everywhere -------------------------------------------------------
def _remainder_case() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """24 labelled points and 24 public points in the ball of radius 1/2 of R^3, labels ``x_0 > 0``."""
    g = np.random.default_rng(3)
    X = g.normal(size=(24, 3))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    y = (X[:, 0] > 0).astype(int)
    Xpub = g.normal(size=(24, 3))
    Xpub /= 2 * np.linalg.norm(Xpub, axis=1, keepdims=True)
    return X, y, Xpub


def coin_free_remainder(fit: Callable[[np.ndarray, int], Any], y: np.ndarray) -> EndToEndResult:
    """The coin-free part of ``fit(labels, seed)``'s state must not move when one label changes (else the loss is inf).

    The attributes that differ between seeds 0 and 1 on ``y`` (the noisy ones) are excluded; the rest
    of the state (or the exception raised) is compared between ``y`` and its neighbours that change
    ``y[0]`` to an unseen value (2, inside the declared label set) and to the other label.  ``epsilon``
    is 0 when every neighbour agrees, inf otherwise.
    """
    if not callable(fit):
        raise TypeError(f"fit must be callable as fit(y, seed), got {type(fit).__name__}")
    if not isinstance(y, np.ndarray) or y.ndim != 1:
        raise TypeError(f"y must be a 1-d numpy array of labels, got {type(y).__name__}")
    fit = _experiment(fit)  # the same seed on every label vector, on purpose (see _experiment)
    a, b = encode_state(fit(y, 0)), encode_state(fit(y, 1))
    varying = [k for (k, v), (_, w) in zip(a[1], b[1]) if v != w]
    neighbours = []
    for new in (2, 1 - int(y[0])):   # one label changed: to an unseen value, and flipped
        y2 = y.copy()
        y2[0] = new
        neighbours.append(y2)
    worst = 0.0
    fitted = fit(y, 0)
    for y2 in neighbours:
        try:
            other = encode_state(fit(y2, 0), exclude=varying)
        except Exception:  # a raise on the neighbour only is an observable difference
            worst = math.inf
            continue
        if other != encode_state(fitted, exclude=varying):
            worst = math.inf
    claimed = _claim(fitted)
    holds = worst <= claimed[0]
    return EndToEndResult(worst, math.nan, claimed, holds, None, len(neighbours), "remainder")


def _halfspace(cls_name: str) -> EndToEndResult:
    cls = getattr(halfspaces, cls_name)
    X, y, Xpub = _remainder_case()
    kw: dict[str, Any] = {"epochs": 1.0} if cls_name != "NonPrivateHalfspace" else {}
    if cls_name in ("SemiPrivateHalfspace", "RandomProjectionHalfspace", "NonPrivateHalfspace"):
        kw["k"] = 2

    kw["classes"] = [0, 1, 2]  # declared label set: the neighbours below change a label, also to a third class

    @_experiment
    def fit(yy: np.ndarray, seed: int) -> Any:
        return cls(random_state=seed, **kw).fit(X, yy, Xpub)

    return coin_free_remainder(fit, y)


def _multinomial() -> EndToEndResult:
    X, y, Xpub = _remainder_case()

    @_experiment
    def fit(yy: np.ndarray, seed: int) -> Any:
        return SemiPrivateMultinomial(1.0, 1e-5, k=2, n_iter=3, classes=[0, 1, 2], random_state=seed).fit(X, yy, Xpub)

    return coin_free_remainder(fit, y)


_HS_X = np.array([[0.5, 0.0], [-0.5, 0.0], [0.0, 0.5], [0.0, -0.5]])   # 4 labelled points of R^2, x and -x
_HS_Y = (1, 1, 1, 1)
_HS_PUBLIC = np.array([[0.6, 0.1], [-0.5, 0.0], [0.4, -0.1], [-0.6, 0.1]])  # first principal axis ~ e1


#: false-failure rate of the drawn-noise test of the noise audits (:func:`halfspace_noise_audit`,
#: :func:`multinomial_noise_audit`)
NOISE_AUDIT_LEVEL = 1e-4


def _gaussian_epsilon(mu: float, delta: float) -> float:
    """The exact epsilon at ``delta`` of the Gaussian mechanism at ``mu = sensitivity / sigma`` (BW18 Thm 8,
    :func:`~semiprivate.theory.privacy.mechanisms.gaussian_delta` inverted by bisection; 0 where delta(0) <= delta)."""
    if gaussian_delta(0.0, 1.0, mu) <= delta:
        return 0.0
    hi = 1.0
    while gaussian_delta(hi, 1.0, mu) > delta:
        hi *= 2.0
    return float(brentq(lambda e: gaussian_delta(e, 1.0, mu) - delta, 0.0, hi, xtol=1e-13, rtol=1e-13))


def _label_flip_audit(fit: Callable[[np.ndarray, np.ndarray, np.random.Generator], Any],
                      statistic: Callable[[Any], float], *, fits: int, rng: int) -> EndToEndResult:
    """Audit one full-batch Gaussian step of ``fit(X, y, g)`` on the 4 points ``_HS_X`` (labels ``_HS_Y``) against
    the neighbour whose first label is flipped, against the ``privacy_`` the base fit reports.

    Exact part: the fitted state's noisy part is ``N(m, s^2)`` on one dataset and ``N(m', s^2)`` on the other, and
    the learner declares ``noise_multiplier_`` = sigma for a clipped sum of replace-one sensitivity ``2 clip`` and
    noise ``sigma clip``: the Gaussian mechanism at ``mu = 2 / sigma``, whose exact hockey-stick divergence at the
    claimed epsilon (:func:`~semiprivate.theory.privacy.mechanisms.gaussian_delta`, BW18 Thm 8) must be within the
    claimed delta.  Drawn part (what ``fit`` DRAWS, not what it declares): ``fits`` fits on each dataset,
    ``statistic`` (a 1-d projection of the state on the direction in which the two laws differ, in units in
    which the noise is isotropic) gives the two-sample t statistic ``T = (mean' - mean) / (s_pooled sqrt(2 / n))``,
    non-central t with ``2n - 2`` degrees of freedom and non-centrality ``mu sqrt(n / 2)``.  ``|T|`` above its
    ``1 - NOISE_AUDIT_LEVEL / 2`` quantile at the declared mu refutes the declaration (a smaller noise than declared,
    a larger sensitivity); the audited mu is then the lower confidence bound of the drawn mu.  False-failure rate
    of a correct learner: <= ``NOISE_AUDIT_LEVEL`` (1e-4; the seed is fixed, so the verdict is reproducible).

    The knobs are checked before the base fit that reads the claim (bad input is refused up front, not after
    a learner's fit and its accountant have run)."""
    check_positive_int(fits, "fits")
    check_integer(fits, "fits", low=20)  # two samples of 20 at least: the t test's normal regime
    check_rng(rng, "rng")
    X = np.array(_HS_X)
    y = np.array(_HS_Y)
    y_other = y.copy()
    y_other[0] = 1 - y_other[0]

    @_experiment
    def run(yy: np.ndarray, g: np.random.Generator) -> Any:
        return fit(X, yy, g)

    base = run(y, np.random.default_rng(0))
    claimed = _claim(base)
    sigma = float(base.noise_multiplier_)
    mu_declared = 2.0 / sigma  # replace-one: clipped sums differ by <= 2 clip; the noise is sigma clip
    g = np.random.default_rng(rng)
    a = np.array([statistic(run(y, g)) for _ in range(fits)])
    b = np.array([statistic(run(y_other, g)) for _ in range(fits)])
    n, df = fits, 2 * fits - 2
    pooled = math.sqrt((float(a.var(ddof=1)) + float(b.var(ddof=1))) / 2.0)
    root = math.sqrt(n / 2.0)
    t_obs = abs(float(b.mean() - a.mean())) / (pooled / root) if pooled > 0 else math.inf
    half = NOISE_AUDIT_LEVEL / 2
    if not math.isfinite(t_obs):
        mu_drawn = math.inf
    elif t_obs <= float(nct.isf(half, df, mu_declared * root)):
        mu_drawn = 0.0  # not refuted: the declared mu stands
    else:  # the lower confidence bound of the drawn mu: the non-centrality at which |T| is the 1 - half quantile
        ncp = brentq(lambda c: float(nct.sf(t_obs, df, c)) - half, mu_declared * root, t_obs)
        mu_drawn = ncp / root
    mu = max(mu_declared, mu_drawn)
    eps_c, delta_c = claimed
    delta = gaussian_delta(eps_c, 1.0, mu) if math.isfinite(mu) else 1.0
    epsilon = _gaussian_epsilon(mu, delta_c) if math.isfinite(mu) else math.inf
    return EndToEndResult(epsilon, delta, claimed, delta <= delta_c * (1 + 1e-9), None, 2,
                          "exact Gaussian + drawn-noise test")


def halfspace_noise_audit(cls_name: str, *, fits: int = 200, rng: int = 11) -> EndToEndResult:
    """End-to-end check of a private halfspace learner's noise (replace-one, the ``"labelled"`` model).

    The labelled sample is the 4 points +-e1/2, +-e2/2 of R^2, all labelled 1; its neighbour
    replaces the first example (e1/2, 1) by (e1/2, 0).  The learner runs one full-batch DP-SGD step
    (``batch_size = 4``, ``epochs = 1``, no projection ball, ``classes = [0, 1]``) from w = 0,
    where the clipped per-example gradients of x and -x with the same label cancel (for any
    projection A, as z = A^T x is linear and clipping is odd): the first sum is 0, the neighbour's
    is twice the replaced example's clipped gradient ``-y z / margin`` clipped (along z), the worst case of
    replace-one (2C: the scaled hinge's gradient ``||z|| / margin`` exceeds C here, except for a random
    projection that shrinks z, where the difference is smaller).  So ``weights_`` is exactly Gaussian
    (one step, the noise ``N(0, (sigma C lr / 4)^2 I)``), and the statistic ``coef_ x0 / ||A^T x0||``
    (``x0`` = e1/2, ``A = components_``, the identity for the full-dimension learner; a function of the
    state) is ``weights_`` projected on ``z / ||z||``: N(0, s^2) on the sample and N(+-2 C lr / 4, s^2) on the
    neighbour, the Gaussian mechanism at ``mu = 2 / sigma`` (``sigma = noise_multiplier_``).
    ``_label_flip_audit`` computes its exact delta at the claimed epsilon against the fitted ``privacy_``
    and tests the ``fits`` drawn states of each dataset against the declared mu (false-failure rate <= 1e-4;
    power against a quarter of the noise drawn with the calibrated noise multiplier declared: mu four times
    the declared, refuted with probability > 0.9999 at ``fits = 200``).  ``epsilon`` is the exact epsilon at
    the claimed delta of the audited mu; ``holds`` is False when the claim is refuted.
    """
    if cls_name not in ("SemiPrivateHalfspace", "RandomProjectionHalfspace", "FullDimensionHalfspace"):
        raise ValueError(f"cls_name must name a private halfspace learner, got {cls_name!r}")
    cls = getattr(halfspaces, cls_name)
    kw: dict[str, Any] = {"classes": [0, 1], "epochs": 1.0, "batch_size": 4, "learning_rate": 1.0, "radius": None}
    if cls_name != "FullDimensionHalfspace":
        kw["k"] = 1 if cls_name == "SemiPrivateHalfspace" else 2

    def fit(X: np.ndarray, y: np.ndarray, g: np.random.Generator) -> Any:
        est = cls(1.0, 1e-5, random_state=g, **kw).fit(X, y, _HS_PUBLIC)
        if est.n_steps_ != 1 or est.sampling_rate_ != 1.0:
            raise ValueError(f"{cls_name}: the noise audit's case must run one full-batch step, "
                             f"got {est.n_steps_} steps at sampling rate {est.sampling_rate_}")
        return est

    return _label_flip_audit(fit, _projected_margin, fits=fits, rng=rng)


def _projected_margin(est: Any) -> float:
    """``coef_ x0 / ||A^T x0||`` of a fitted halfspace learner (``x0 = e1/2``, ``A = components_``; the identity
    without a projection): its ``weights_`` projected on the direction of the replaced example's feature."""
    x0 = _HS_X[0]
    A = est.components_
    z = x0 if A is None else x0 @ A
    return float(np.asarray(est.coef_, dtype=np.float64).ravel() @ x0) / float(np.linalg.norm(z))


#: epsilon of the multinomial noise audit's case (see :func:`multinomial_noise_audit`)
MULTINOMIAL_AUDIT_EPSILON = 4.0


def multinomial_noise_audit(*, epsilon: float = MULTINOMIAL_AUDIT_EPSILON, fits: int = 200,
                            rng: int = 11) -> EndToEndResult:
    """End-to-end check of :class:`~semiprivate.theory.learners.multinomial.SemiPrivateMultinomial`'s
    noise (replace-one, the ``"labelled"`` model), at the worst case of its analysis.

    Same pair as :func:`halfspace_noise_audit`: the 4 labelled points +-e1/2, +-e2/2 of R^2, all labelled
    1, against the neighbour whose first example (e1/2, 1) becomes (e1/2, 0); public rows ``_HS_PUBLIC``
    (public standardisation, PCA with ``k = 1``), ``classes = [0, 1]``, one full-batch DP-GD step
    (``n_iter = 1``) from W = 0 with ``clip = 0.5``.  At W = 0 the softmax is uniform, so the replaced
    row's gradient ``z~ (p - e_y)^T`` (``z~ = (A^T s(x), 1)``, ``p - e_y = (-1/2, 1/2)`` or its negative)
    has norm ``||z~|| / sqrt(2) >= 1/sqrt(2) > clip``: clipping binds and flipping the label negates the
    clipped gradient, so the clipped sums differ by exactly ``2 clip``, the replace-one sensitivity that
    :mod:`semiprivate.theory.privacy.multinomial_dpgd` assumes (every other row is the same in both).
    The audited statistic is the released model's score margin on the replaced point,
    ``decision_function(e1/2)`` (two classes: the class-1 score minus the class-0 score)
    ``= z~^T W (e_1 - e_0)`` (a function of the state), the projection of W on the direction of that difference: its law is N(m, s^2) on one side
    and N(m + 2 clip c, s^2) on the other with ``s = sigma clip c``, ``c = lr sqrt(2) ||z~|| / n``, i.e.
    the Gaussian mechanism at mu = 2 / sigma (``sigma = noise_multiplier_``), whose exact delta at the fitted
    ``privacy_`` ``_label_flip_audit`` computes, testing ``fits`` drawn states per dataset against that mu
    (false-failure rate <= 1e-4).  ``epsilon`` (default 4) is the target; the claim audited is the fitted
    ``privacy_``.
    """
    x0 = _HS_X[:1]

    def fit(X: np.ndarray, y: np.ndarray, g: np.random.Generator) -> Any:
        est = SemiPrivateMultinomial(epsilon, 1e-5, k=1, n_iter=1, clip=0.5, learning_rate=1.0, classes=[0, 1],
                                     random_state=g).fit(X, y, _HS_PUBLIC)
        if est.n_iter_ != 1:
            raise ValueError(f"the noise audit's case must run one full-batch step, got {est.n_iter_}")
        return est

    def margin(est: Any) -> float:
        return float(np.asarray(est.decision_function(x0), dtype=np.float64)[0])  # two classes: s_1 - s_0

    return _label_flip_audit(fit, margin, fits=fits, rng=rng)


def _remainder_and_noise(remainder: Callable[[], EndToEndResult],
                         noise: Callable[[], EndToEndResult]) -> Callable[[], EndToEndResult]:
    def both() -> EndToEndResult:
        rem = remainder()
        nz = noise()
        # the coin-free remainder's exact epsilon (0 when it agrees, inf when it does not) and the noise's bound
        return EndToEndResult(max(rem.epsilon, nz.epsilon), math.nan, nz.claimed, rem.holds and nz.holds, None,
                              rem.pairs + nz.pairs, "remainder + statistical")

    return both


def _halfspace_check(name: str) -> Callable[[], EndToEndResult]:
    if name == "NonPrivateHalfspace":
        return lambda: _halfspace(name)
    return _remainder_and_noise(lambda: _halfspace(name), lambda: halfspace_noise_audit(name))


def _entry(name: str, relation: str, method: str, case: str, run: Callable[[], EndToEndResult],
           slow: bool = False, sampler: str = "", probe: Callable[[], Any] | None = None) -> LearnerCheck:
    return LearnerCheck(name, relation, method, case, run, slow, sampler, probe)


_EXACT_EM = "exact exponential mechanism (kernels, exact=True)"


def _probe_pool(make: Callable[[], Any]) -> Callable[[], Any]:
    @_experiment
    def run() -> Any:
        w = make()
        X = np.arange(int(w.guarantee().t) if hasattr(w, "guarantee") else 3) % 2
        w.fit(X, LabelOracle((X == 0).astype(int)))
        return w
    return run


def _probe_disjunctions() -> Any:
    Xu = np.array([[1, 1, 0], [0, 0, 1]])
    return ComponentDisjunctionLearner(1.0, method="enumerate").fit(np.array([[1, 0, 0], [0, 0, 1]]), [1, -1], Xu)


def _probe_labelboost() -> Any:
    C1 = Thresholds(1)
    return LabelBoost(GenericPrivateLearner(1.0, concept_class=C1), concept_class=C1, n=1, alpha=0.5,
                      unlabelled_factor=1, target_factor=3, cap_factor=6, exponent_constant=0.05, alpha_factor=1,
                      beta_factor=1, iteration_ratio=2, final_ratio=2).fit([0, 1], [1, 0], [0, 1, 1, 0, 1, 0])


def _probe_reduction() -> Any:
    D0 = RandomLabelDistribution(lambda n, g: g.integers(0, 2, n))
    return ReductionLearner(1.0, n_priv=20, n_pub=1, D0=D0, base_learner=_klnrs_factory).fit(np.array([0, 1]), [1, 0])


#: learner class name -> its check (one per class exported by semiprivate.theory.learners)
REGISTRY: dict[str, LearnerCheck] = {c.name: c for c in [
    _entry("GenericPrivateLearner", ALL_INPUTS, "exact", "THRESH_2, 2 labelled + 1 public, all 256 datasets",
           _generic_private, sampler=_EXACT_EM,
           probe=lambda: GenericPrivateLearner(1.0, concept_class=_C2).fit([0, 3], [1, 0])),
    _entry("ASSPP", LABELLED, "exact", "THRESH_2, 2 labelled + 1 public, all 256 datasets", lambda: _asspp((0,)),
           sampler=_EXACT_EM, probe=lambda: ASSPP(1.0, concept_class=_C2).fit([0, 3], [1, 0], [1, 2])),
    _entry("ComponentDisjunctionLearner", LABELLED, "exact",
           "d = 3, Z = 2 (enumerate path), 2 labelled, all 256 datasets", lambda: _disjunctions("enumerate"),
           sampler=_EXACT_EM, probe=_probe_disjunctions),
    _entry("PSSLAsTPAL", ALL_INPUTS, "exact",
           "KLNRS reading its public input (PublicReadingKLNRS) on THRESH_2, pool of 3, m = 2, all 512 pools",
           _pssl_as_tpal, sampler=_EXACT_EM,
           probe=_probe_pool(lambda: PSSLAsTPAL(PublicReadingKLNRS(1.0, concept_class=_C2), m=2))),
    _entry("SubSampling", ALL_INPUTS, "exact",
           "KLNRS reading its public input (eps* = 0.5) on THRESH_1, n = 2, m = 1, eps = 1, 8 pools of t = 12, every "
           "neighbour; the output (the hypothesis) only", _subsampling, sampler=_EXACT_EM,
           probe=_probe_pool(lambda: SubSampling(PublicReadingKLNRS(0.5, concept_class=Thresholds(1)), n=2, m=1,
                                                 epsilon=1.0))),
    _entry("BinarySearchThresholdLearner", NOT_PRIVATE, "exact", "THRESH_2, pool of 3 (no claim)", _binary_search,
           sampler="none (deterministic)"),
    _entry("GenericLearner", ALL_INPUTS, "statistical", "THRESH_1, histogram sanitizer, 3 pairs x (1000 + 800) runs",
           _generic_learner, slow=True, sampler=_EXACT_EM + " + exact discrete Laplace histogram",
           probe=lambda: GenericLearner(1.0, concept_class=_C2).fit([0, 3], [1, 0], [0, 1, 2, 3])),
    _entry("ReductionLearner", ALL_INPUTS, "statistical", "KLNRS on THRESH_1, n_priv = 20, 3 pairs x (1000 + 800) runs",
           _reduction, slow=True, sampler=_EXACT_EM, probe=_probe_reduction),
    _entry("LabelBoost", ALL_INPUTS, "exact",
           "KLNRS on THRESH_1, scaled constants (one iteration), 2 labelled + 6 public, every neighbour of one "
           "dataset (12); every coin enumerated", _labelboost, sampler=_EXACT_EM, probe=_probe_labelboost),
    *[_entry(n, m, "remainder" if n == "NonPrivateHalfspace" else "remainder + statistical",
             "24 points in the unit ball of R^3, one label changed (unseen value; flipped)"
             + ("" if n == "NonPrivateHalfspace" else "; noise: 4 points of R^2, one label flipped, 1 DP-SGD step, "
                "coef_ on the replaced feature: exact Gaussian loss at the declared noise + drawn-noise t test, 2 datasets x 200 "
                "runs"),
             _halfspace_check(n), slow=True,
             sampler="none (non-private)" if n == "NonPrivateHalfspace" else
             "float Gaussian of DP-SGD (float by nature; ARCHITECTURE.md)") for n, m in HALFSPACE_MODELS.items()],
    _entry("SemiPrivateMultinomial", SemiPrivateMultinomial.privacy_model_, "remainder + statistical",
           "24 points in the unit ball of R^3, k = 2, 3 DP-GD steps, one label changed (unseen value; flipped); "
           f"noise: 4 points of R^2, one label flipped, 1 DP-GD step at epsilon {MULTINOMIAL_AUDIT_EPSILON:g} "
           "(clip binds: sensitivity 2 clip attained), score margin on the replaced point: exact Gaussian loss at the "
           "declared noise + drawn-noise t test, 2 datasets x 200 runs",
           _remainder_and_noise(_multinomial, multinomial_noise_audit), slow=True,
           sampler="float Gaussian of DP-GD (float by nature; ARCHITECTURE.md)"),
]}


#: further exact checks shown in the report: the other path of a learner, and a learner outside its model
EXTRA: list[LearnerCheck] = [
    _entry("ComponentDisjunctionLearner (factorised path)", LABELLED, "exact",
           "d = 3, Z = 2, fractional score, 2 labelled, all 256 datasets", lambda: _disjunctions("factorised")),
    _entry("ASSPP checked under 'all inputs' (not its model)", ALL_INPUTS, "exact",
           "THRESH_2, 2 labelled + 1 public, all 256 datasets", asspp_all_inputs),
]


def sampler_ran(name: str) -> bool:
    """Whether ``fit`` on the entry's probe case called the kernels' exact exponential-mechanism sampler (the
    sampler whose law the exact check enumerates).  ValueError for an entry without a probe."""
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"name must be a learner of the registry, got {name!r}; known: {sorted(REGISTRY)}")
    probe = REGISTRY[name].probe
    if probe is None:
        raise ValueError(f"name: {name!r} draws no exponential-mechanism release ({REGISTRY[name].sampler})")
    with _exact_sampler_calls() as calls:
        probe()
    return bool(calls)


def visited_parts(name: str) -> set[int]:
    """The parts of the datasets (0: labelled, 1: public) that the neighbours visited by ``run_check(name)``
    change."""
    return run_check_and_visited_parts(name)[1]


def run_check_and_visited_parts(name: str) -> tuple[EndToEndResult, set[int]]:
    """``run_check(name)`` and ``visited_parts(name)`` from one run of the check."""
    _VISITED.append(set())
    try:
        r = run_check(name)
        return r, set(_VISITED[-1])
    finally:
        _VISITED.pop()


def run_check(name: str) -> EndToEndResult:
    """Run the registry's check of learner ``name``."""
    if not isinstance(name, str) or name not in REGISTRY:
        raise ValueError(f"name must be a learner of the registry, got {name!r}; known: {sorted(REGISTRY)}")
    return REGISTRY[name].run()


def table(names: list[str] | None = None) -> list[dict[str, Any]]:
    """Rows (learner, relation, method, sampler, case, worst epsilon, worst delta, claimed, holds) for ``names``
    (default all)."""
    if names is not None and (isinstance(names, (str, bytes)) or not isinstance(names, list)
                              or not all(isinstance(n, str) and n in REGISTRY for n in names)):
        raise ValueError(f"names must be a list of learner names of the registry, got {names!r}")
    rows = []
    for name in names if names is not None else list(REGISTRY):
        c = REGISTRY[name]
        r = c.run()
        rows.append({"learner": name, "relation": c.relation, "method": c.method, "sampler": c.sampler, "case": c.case,
                     "epsilon": r.epsilon, "delta": r.delta, "claimed": r.claimed, "holds": r.holds})
    return rows
