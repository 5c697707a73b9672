"""End-to-end privacy checks of a whole fitted object on tiny domains (knows no learner).

Implements: AUDIT (end-to-end exact enumeration; statistical audit of the whole state).

What is checked is everything a run leaves observable: every public attribute of the fitted
object (canonically encoded by :func:`encode_state`), and whether the run raised (the
exception's type).  A *dataset* is a tuple of *parts* (e.g. labelled sample, public sample),
each a tuple of hashable entries; a *relation* names the parts whose entries may change:
neighbours differ by replacing one entry of one such part by another entry of its domain
(:func:`replace_one_neighbours`).  All datasets of given part sizes over finite domains are
:func:`all_datasets`.

Exact route (:func:`exact_worst_case`): a ``law(dataset) -> {output: probability}`` for every
dataset and every neighbour; the worst epsilon (max |log P(o) - log Q(o)|, ``inf`` where one
side puts mass the other has not) and the worst delta at the claimed epsilon (hockey-stick
divergence, both directions) over every pair.  :func:`state_law` builds such a law for an
object whose randomness is confined to declared attributes with a known exact law: the rest of
the state must not depend on the coins (checked on several seeds, else :class:`NotEnumerable`),
and the law of the whole state is the product of that deterministic remainder and the declared
attributes' law.

Statistical route (:func:`statistical_worst_case`): where the coins cannot be enumerated, the
whole state of each run is hashed to one categorical output and the pairs are audited with
:func:`semiprivate.theory.audit.core.audit_pairs` (a lower bound on epsilon at a stated
confidence; it cannot certify, only refute).
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from semiprivate.theory.audit.core import AuditResult, audit_pairs
from semiprivate.theory.audit.exact import hockey_stick
from semiprivate.theory.audit.options import AuditOptions

__all__ = [
    "NotEnumerable",
    "EndToEndResult",
    "encode_state",
    "state_key",
    "all_datasets",
    "replace_one_neighbours",
    "state_law",
    "exact_worst_case",
    "statistical_worst_case",
]

Dataset = tuple[tuple[Any, ...], ...]


class NotEnumerable(ValueError):
    """The object's state depends on coins outside the declared random attributes."""


def encode_state(obj: Any, exclude: Iterable[str] = ()) -> Any:
    """A canonical, hashable encoding of ``obj``: for objects, every public attribute (recursively).

    Arrays encode as (dtype, shape, bytes); floats by ``repr`` (bit-exact); mappings sorted by
    key; objects by class name and their public attributes (names not starting with ``_``),
    less ``exclude`` (attribute paths: ``"index_"``, or ``"learner.index_"`` inside an attribute).
    Functions and classes encode by qualified name.
    """
    return _encode(obj, _paths(exclude, "exclude"), 0)


def _paths(exclude: Any, name: str) -> list[str]:
    if isinstance(exclude, (str, bytes)) or not isinstance(exclude, Iterable):
        raise TypeError(f"{name} must be a sequence of attribute paths (str), got {type(exclude).__name__}")
    out = list(exclude)
    if not all(isinstance(p, str) for p in out):
        raise TypeError(f"{name} must hold attribute paths (str) only")
    return out


def _encode(obj: Any, exclude: list[str], _depth: int) -> Any:
    if _depth > 12:
        raise ValueError("encode_state: object nesting deeper than 12 levels")
    d = _depth + 1
    if obj is None or isinstance(obj, (bool, int, str, bytes)):
        return obj
    if isinstance(obj, float):
        return ("float", repr(obj))
    if isinstance(obj, np.generic):
        return _encode(obj.item(), [], d)
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "O":
            return ("object-array", obj.shape, tuple(_encode(v, [], d) for v in obj.ravel()))
        return ("array", obj.dtype.str, obj.shape, np.ascontiguousarray(obj).tobytes())
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(_encode(v, [], d) for v in obj))
    if isinstance(obj, dict):
        return ("dict", tuple(sorted((repr(k), _encode(v, [], d)) for k, v in obj.items())))
    if isinstance(obj, (set, frozenset)):
        return ("set", tuple(sorted(repr(_encode(v, [], d)) for v in obj)))
    if isinstance(obj, type) or callable(obj) and not hasattr(obj, "__dict__"):
        return ("callable", getattr(obj, "__qualname__", repr(obj)))
    if isinstance(obj, np.random.Generator):
        return ("generator",)  # the coins, not the data: a fitted object's shared stream
    attrs = getattr(obj, "__dict__", None)
    if attrs is None:
        return ("repr", type(obj).__qualname__, repr(obj))
    paths = exclude
    skip = {p for p in paths if "." not in p}
    items = []
    for k, v in attrs.items():
        if k.startswith("_") or k in skip:
            continue
        sub = [p[len(k) + 1:] for p in paths if p.startswith(k + ".")]
        items.append((k, _encode(v, sub, d)))
    return (type(obj).__qualname__, tuple(sorted(items)))


def state_key(encoded: Any) -> int:
    """A 63-bit integer id of an encoded state (blake2b of its ``repr``)."""
    h = hashlib.blake2b(repr(encoded).encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") >> 1


def all_datasets(domains: Sequence[Sequence[Any]], sizes: Sequence[int]) -> list[Dataset]:
    """Every dataset whose part i has ``sizes[i]`` entries from ``domains[i]`` (multisets as sequences)."""
    doms = _domains(domains)
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence):
        raise TypeError(f"sizes must be a sequence of non-negative ints, got {type(sizes).__name__}")
    for k in sizes:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"sizes must hold non-negative ints, got {k!r}")
    if len(doms) != len(sizes):
        raise ValueError(f"domains and sizes must have the same length, got {len(doms)} and {len(sizes)}")
    domains = doms
    per_part = [list(itertools.product(tuple(dom), repeat=int(k))) for dom, k in zip(domains, sizes)]
    return [tuple(p) for p in itertools.product(*per_part)]


def _domains(domains: Any) -> list[tuple[Any, ...]]:
    if isinstance(domains, (str, bytes)) or not isinstance(domains, Sequence):
        raise TypeError(f"domains must be a sequence of finite domains (sequences), got {type(domains).__name__}")
    out = []
    for dom in domains:
        if isinstance(dom, (str, bytes)) or not isinstance(dom, Sequence):
            raise TypeError(f"domains must hold sequences of entries, got {type(dom).__name__}")
        out.append(tuple(dom))
    return out


def _dataset(dataset: Any, name: str = "dataset") -> Dataset:
    if not isinstance(dataset, tuple) or not all(isinstance(p, tuple) for p in dataset):
        raise TypeError(f"{name} must be a tuple of parts, each a tuple of entries, got {type(dataset).__name__}")
    return dataset


def replace_one_neighbours(dataset: Dataset, domains: Sequence[Sequence[Any]],
                           parts: Iterable[int]) -> Iterator[Dataset]:
    """Every dataset obtained by replacing one entry of one of ``parts`` by another entry of its domain."""
    ds, doms = _dataset(dataset), _domains(domains)
    if isinstance(parts, (str, bytes)) or not isinstance(parts, Iterable):
        raise TypeError(f"parts must be a sequence of part indices, got {type(parts).__name__}")
    idx = list(parts)
    for p in idx:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not 0 <= p < min(len(ds), len(doms)):
            raise ValueError(f"parts must hold indices of parts of dataset and domains, got {p!r}")
    return _replace_one(ds, doms, [int(p) for p in idx])


def _replace_one(dataset: Dataset, domains: list[tuple[Any, ...]], parts: list[int]) -> Iterator[Dataset]:
    for p in parts:
        part = dataset[p]
        for i, old in enumerate(part):
            for new in domains[p]:
                if new == old:
                    continue
                changed = part[:i] + (new,) + part[i + 1:]
                yield dataset[:p] + (changed,) + dataset[p + 1:]


def state_law(fit: Callable[[Dataset, int], Any], dataset: Dataset, *, random_attributes: Sequence[str],
              random_law: Callable[[Dataset], dict[Any, float]], seeds: Sequence[int] = (0, 1, 2, 3, 4)) -> dict[Any, float]:
    """Exact law of the whole observable state of ``fit(dataset, seed)``.

    ``fit`` returns the fitted object (or raises).  Outside ``random_attributes`` the state must
    be the same for every seed in ``seeds`` (else :class:`NotEnumerable`); ``random_law``
    gives the exact law of the random attributes' values (keys compared with the encoded
    values of those attributes on each seed run, which must be in its support).  A run that
    raises on every seed is the output ``("raise", exception type)`` with probability 1.
    """
    for name, f in (("fit", fit), ("random_law", random_law)):
        if not callable(f):
            raise TypeError(f"{name} must be callable, got {type(f).__name__}")
    _dataset(dataset)
    random_attributes = _paths(random_attributes, "random_attributes")
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence) or not seeds or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in seeds):
        raise TypeError(f"seeds must be a non-empty sequence of ints, got {seeds!r}")
    outcomes: list[tuple[Any, ...]] = []
    for s in seeds:
        try:
            obj = fit(dataset, int(s))
        except Exception as exc:  # the exception's type is part of the observable output
            outcomes.append(("raise", type(exc).__qualname__))
            continue
        rest = encode_state(obj, exclude=random_attributes)
        rnd = tuple(encode_state(_get_path(obj, a)) for a in random_attributes)
        outcomes.append(("state", rest, rnd))
    kinds = {o[0] for o in outcomes}
    if kinds == {"raise"}:
        if len(set(outcomes)) != 1:
            raise NotEnumerable(f"fit raises different exceptions on seeds {list(seeds)}")
        return {outcomes[0]: 1.0}
    if len(kinds) > 1:
        raise NotEnumerable(f"whether fit raises depends on the coins (seeds {list(seeds)})")
    rests = {o[1] for o in outcomes}
    if len(rests) != 1:
        raise NotEnumerable("the state outside the declared random attributes "
                            f"{list(random_attributes)} depends on the coins")
    rest = rests.pop()
    law = random_law(dataset)
    for o in outcomes:
        if law.get(o[2], 0.0) <= 0.0:
            raise NotEnumerable("a run's random attributes fall outside the support of the declared law")
    return {("state", rest, v): float(p) for v, p in law.items() if p > 0}


def _get_path(obj: Any, path: str) -> Any:
    for name in path.split("."):
        obj = getattr(obj, name, None)
    return obj


def _claimed(claimed: Any) -> tuple[float, float]:
    try:
        e, d = claimed
        e, d = float(e), float(d)
    except (TypeError, ValueError):
        raise TypeError(f"claimed must be a pair (epsilon, delta) of numbers, got {claimed!r}") from None
    if not (e >= 0) or not (0 <= d <= 1):
        raise ValueError(f"claimed must have epsilon >= 0 and delta in [0, 1], got {claimed!r}")
    return e, d


@dataclass(frozen=True)
class EndToEndResult:
    """Worst case over the checked neighbour pairs.

    ``epsilon``: max over pairs of the pure privacy loss (inf where supports differ);
    ``delta``: max over pairs and directions of the hockey-stick divergence at ``claimed[0]``;
    ``holds``: ``delta <= claimed[1]`` (up to ``tol``); ``witness``: the pair giving ``delta``
    (or ``epsilon`` when ``delta`` is 0); ``pairs``: number of ordered pairs checked;
    ``method``: ``"exact"`` or ``"statistical"``.
    """

    epsilon: float
    delta: float
    claimed: tuple[float, float]
    holds: bool
    witness: tuple[Dataset, Dataset] | None
    pairs: int
    method: str


def _pure_loss(p: dict[Any, float], q: dict[Any, float]) -> float:
    worst = 0.0
    for k in set(p) | set(q):
        a, b = p.get(k, 0.0), q.get(k, 0.0)
        if (a > 0) != (b > 0):
            return math.inf
        if a > 0:
            worst = max(worst, abs(math.log(a) - math.log(b)))
    return worst


def exact_worst_case(datasets: Iterable[Dataset], neighbours: Callable[[Dataset], Iterable[Dataset]],
                     law: Callable[[Dataset], dict[Any, float]], claimed: tuple[float, float], *,
                     tol: float = 1e-9) -> EndToEndResult:
    """Exact worst (epsilon, delta at the claimed epsilon) over every dataset and each of its neighbours."""
    for name, f in (("neighbours", neighbours), ("law", law)):
        if not callable(f):
            raise TypeError(f"{name} must be callable, got {type(f).__name__}")
    if isinstance(datasets, (str, bytes)) or not isinstance(datasets, Iterable):
        raise TypeError(f"datasets must be an iterable of datasets, got {type(datasets).__name__}")
    eps_c, delta_c = _claimed(claimed)
    if not (isinstance(tol, (int, float)) and not isinstance(tol, bool) and 0 <= tol < 1):
        raise ValueError(f"tol must be a number in [0, 1), got {tol!r}")
    cache: dict[Dataset, dict[Any, float]] = {}

    def get(d: Dataset) -> dict[Any, float]:
        if d not in cache:
            cache[d] = law(d)
        return cache[d]

    worst_eps, worst_delta, witness, n = 0.0, 0.0, None, 0
    for d in datasets:
        p = get(d)
        for e in neighbours(d):
            q = get(e)
            n += 1
            loss = _pure_loss(p, q)
            keys = sorted(set(p) | set(q), key=repr)
            pv = np.array([p.get(k, 0.0) for k in keys])
            qv = np.array([q.get(k, 0.0) for k in keys])
            dl = hockey_stick(pv, qv, eps_c) if math.isfinite(eps_c) else 0.0
            if dl > worst_delta or (witness is None and loss > worst_eps) or (worst_delta == 0 and loss > worst_eps):
                witness = (d, e)
            worst_eps, worst_delta = max(worst_eps, loss), max(worst_delta, dl)
    return EndToEndResult(worst_eps, worst_delta, (eps_c, delta_c), worst_delta <= delta_c + tol, witness, n, "exact")


def statistical_worst_case(run: Callable[[Dataset, np.random.Generator], Any], pairs: Sequence[tuple[Dataset, Dataset]],
                           claimed: tuple[float, float], *, trials: int = 2000, rng: Any = 0,
                           confidence: float = 0.95, statistic: Callable[[Any], Any] | None = None,
                           selection_trials: int | None = None,
                           interval: str = "clopper-pearson") -> tuple[EndToEndResult, AuditResult]:
    """Audit the whole observable state of ``run(dataset, rng)`` on ``pairs`` (both orders).

    Each run's state (or the exception type it raised) is hashed by :func:`state_key` into one
    categorical output, and :func:`~semiprivate.theory.audit.core.audit_pairs` tests the claim.
    With ``statistic`` (for states with continuous noise, where every hash differs), each run's
    output is instead ``statistic(state)``, a fixed-length vector of floats that the auditor
    thresholds coordinate by coordinate (e.g. a fitted ``coef_``; a run that raises then
    propagates its exception: check separately that raising does not depend on the data).
    ``selection_trials`` is passed to ``audit_pairs`` (its default when None), and so is ``interval``
    (:class:`~semiprivate.theory.audit.options.AuditOptions`' ``interval``: ``"poisson-conditional"``, the
    conditional test, needs ``claimed`` delta 0 and bounds the ratio with one interval instead of two).
    The returned ``epsilon`` is the audit's lower bound (valid with probability
    ``confidence``); ``holds`` is False only when the claim is refuted.
    """
    if not callable(run):
        raise TypeError(f"run must be callable, got {type(run).__name__}")
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence) or not pairs:
        raise TypeError(f"pairs must be a non-empty sequence of (dataset, dataset), got {type(pairs).__name__}")
    for pr in pairs:
        if not (isinstance(pr, tuple) and len(pr) == 2):
            raise TypeError("pairs must hold (dataset, dataset) tuples")
        _dataset(pr[0], "pairs"), _dataset(pr[1], "pairs")
    claimed = _claimed(claimed)
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)) or trials < 100:
        raise ValueError(f"trials must be an int >= 100, got {trials!r}")
    if not (isinstance(confidence, float) and 0 < confidence < 1):
        raise ValueError(f"confidence must be a float in (0, 1), got {confidence!r}")
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be callable or None, got {type(statistic).__name__}")

    stat: Callable[[Any], Any] = statistic if statistic is not None else encode_state

    def numeric(data: Dataset, size: int, g: np.random.Generator) -> np.ndarray:
        return np.array([np.asarray(stat(run(data, g)), dtype=np.float64).ravel() for _ in range(size)])

    def mech(data: Dataset, size: int, g: np.random.Generator) -> np.ndarray:
        out = np.empty(size, dtype=np.int64)
        for i in range(size):
            try:
                enc = encode_state(run(data, g))
            except Exception as exc:  # the exception's type is part of the observable output
                enc = ("raise", type(exc).__qualname__)
            out[i] = state_key(enc)
        return out

    both = [pr for a, b in pairs for pr in ((a, b), (b, a))]
    res = audit_pairs(mech if statistic is None else numeric, both, epsilon=float(claimed[0]),
                      delta=float(claimed[1]), trials=trials, rng=rng, confidence=confidence,
                      options=AuditOptions(max_values=4096, selection_trials=selection_trials, interval=interval))
    out = EndToEndResult(float(res.epsilon_lower_bound), float("nan"), (float(claimed[0]), float(claimed[1])),
                         not res.violation, None, len(both), "statistical")
    return out, res
