"""The small framework every check uses: the :class:`Check` record, verdicts, the registry,
and the verification helpers (symbolic, grid, hypothesis search, exact probabilities).

A check is a function with no arguments that returns a :class:`Check`. It is registered with
:func:`register` under an id of the form ``PAPER.Item.step`` (SPEC ids, e.g.
``HPSY.Lem2.quadratic``). A check never "passes by default": every helper here raises
:class:`CannotDecide` when it cannot establish its claim (for example when sympy answers
``None``), and a check that errors is reported as an error, never as HOLDS.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from semiprivate.kernels._memo import memo_table

__all__ = [
    "Verdict",
    "Role",
    "Fact",
    "Check",
    "Claim",
    "Proof",
    "constants",
    "perturbed",
    "derive_verdict",
    "CannotDecide",
    "register",
    "registry",
    "sympy_nonneg",
    "sympy_zero",
    "z3_prove",
    "interval_prove",
    "evaluation",
    "exact_fact",
    "refute",
    "cite",
    "observe",
    "grid_violations",
    "hypothesis_counterexample",
    "fmt",
]


class Verdict(str, enum.Enum):
    """Outcome of a check, derived from its facts by :func:`derive_verdict` (never written by a check).

    ``HOLDS``: the check states its claim formally (:class:`Claim`) and the independent checker closes
    the chain of certified steps (:class:`Proof`) from the claim's hypotheses to its conclusion.
    ``HOLDS_GIVEN``: the same, but some steps are cited results (listed in :attr:`Check.citations`).
    ``HOLDS_WITH_CONDITION``: the chain closes only with extra hypotheses the paper does not state
    (:attr:`Check.condition`). ``FAILS``: a counterexample is re-verified exactly
    (:attr:`Check.counterexample`), from the check's refuting facts or from the checker's search over
    the claim's domain. ``UNPROVED``: neither (no formal claim, or the chain does not close).
    """

    HOLDS = "HOLDS"
    HOLDS_GIVEN = "HOLDS GIVEN"
    HOLDS_WITH_CONDITION = "HOLDS WITH CONDITION"
    FAILS = "FAILS"
    UNPROVED = "UNPROVED"


class CannotDecide(RuntimeError):
    """A verification step could not be completed (never to be read as a pass)."""


class Role(str, enum.Enum):
    """What a :class:`Fact` contributes to the verdict.

    ``PROVES``: a step of the claim, with certificates. ``REFUTES``: a counterexample to the claim,
    with certificates re-verifying it exactly. ``CITES``: a standard result or the paper's own
    cited lemma, used as a premise (named, not re-proved). ``OBSERVES``: a grid, a hypothesis search
    or a simulation: a search for counterexamples that found none (or a confirmation of one); it
    never counts towards HOLDS.
    """

    PROVES = "proves"
    REFUTES = "refutes"
    CITES = "cites"
    OBSERVES = "observes"


@dataclass(frozen=True)
class Fact:
    """One thing a check established, with the certificates that re-establish it.

    Attributes
    ----------
    statement : str
        What was established, in words.
    role : Role
    certificates : tuple of dict
        JSON-ready certificates (see :mod:`semiprivate.proofs_checks.certificate_checker`);
        required for PROVES and REFUTES.
    condition : str or None
        For PROVES: an extra condition beyond the claim's stated domain under which it was proved.
    """

    statement: str
    role: Role
    certificates: tuple[dict[str, Any], ...] = ()
    condition: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.role, Role):
            raise TypeError(f"role must be a Role, got {self.role!r}")
        if self.role in (Role.PROVES, Role.REFUTES) and not self.certificates:
            raise ValueError(f"a {self.role.value} fact needs a certificate: {self.statement[:80]!r}")
        if self.condition is not None and self.role is not Role.PROVES:
            raise ValueError("only a proving fact carries a condition")

    def as_json(self) -> dict[str, Any]:
        return {"statement": self.statement, "role": self.role.value, "condition": self.condition,
                "certificates": [dict(c) for c in self.certificates]}


def derive_verdict(facts: Sequence[Fact], proof: Proof | None = None) -> tuple[Verdict, str | None, str | None]:
    """The verdict, the condition and the counterexample that ``facts`` and ``proof`` establish.

    A certified refutation among ``facts`` gives FAILS. Otherwise the verdict is what
    :func:`semiprivate.proofs_checks.certificate_checker.check_proof` concludes from ``proof``: a
    counterexample in the claim's domain gives FAILS, a closed chain HOLDS (HOLDS GIVEN with cited
    steps, HOLDS WITH CONDITION with conditions), anything else -- including no proof -- UNPROVED.
    Observations and loose proving facts never count.
    """
    refs = [f for f in facts if f.role is Role.REFUTES]
    if refs:
        return Verdict.FAILS, None, " ".join(f.statement for f in refs)
    if proof is None:
        return Verdict.UNPROVED, None, None
    res = proof.result()
    if res["status"] == "refuted":
        pt = ", ".join(f"{k} = {v}" for k, v in res["counterexample"].items())
        return Verdict.FAILS, None, (f"the stated conclusion {proof.claim.conclusion} is false at {pt} "
                                     "(exactly re-verified by the checker's search over the claim's domain)")
    if res["status"] != "closed":
        return Verdict.UNPROVED, None, None
    if dependency_failures(proof):
        return Verdict.UNPROVED, None, None
    conds = [text for _, text in proof.claim.conditions]
    if conds:
        return Verdict.HOLDS_WITH_CONDITION, "; ".join(conds), None
    if res["cited"]:
        return Verdict.HOLDS_GIVEN, None, None
    return Verdict.HOLDS, None, None


#: verdicts of cited checks by (check id, active perturbations): a registered memo table (semiprivate.kernels._memo)
_DEPENDENCY_VERDICTS = memo_table(f"{__name__}._DEPENDENCY_VERDICTS")
_UNKNOWN = object()
_RUNNING: list[str] = []


def dependency_failures(proof: Proof) -> list[str]:
    """Why a closed chain does not hold on the checks it cites: each check id named by a given or a cited step
    (:func:`~semiprivate.proofs_checks.certificate_checker.cited_check_ids`) must be a registered check that reads
    HOLDS or HOLDS GIVEN (a cycle of citations holds nothing)."""
    from semiprivate.proofs_checks.certificate_checker import SUPPORTING, cited_check_ids

    out = []
    for cid in cited_check_ids(proof.as_json()):
        got = _dependency_verdict(cid)
        if got is None or got.value not in SUPPORTING:
            why = "is not a registered check" if got is None and cid not in registry() else (
                "cites it back (a cycle)" if got is None else f"reads {got.value}")
            out.append(f"it rests on the check {cid}, which {why}: a claim that rests on a check holds only when "
                       "that check reads HOLDS or HOLDS GIVEN")
    return out


def _dependency_verdict(cid: str) -> Verdict | None:
    """The verdict of the registered check ``cid`` under the active perturbations (None: unknown or a cycle)."""
    key = (cid, repr(sorted((k, sorted(v.items())) for k, v in _OVERRIDES.items())))
    known = _DEPENDENCY_VERDICTS.get(key, _UNKNOWN)
    if known is not _UNKNOWN:
        return known
    reg = registry()
    if cid not in reg or cid in _RUNNING:
        return None
    _RUNNING.append(cid)
    try:
        got: Verdict | None = reg[cid]().verdict
    except Exception:  # noqa: BLE001 - a check that errors supports nothing
        got = None
    finally:
        _RUNNING.pop()
    _DEPENDENCY_VERDICTS.store(key, got)
    return got


@dataclass(frozen=True)
class Claim:
    """A claim stated formally: for all ``symbols`` (sympy symbols; their assumptions are the domains)
    satisfying ``hypotheses`` (and ``conditions``, extra hypotheses the paper does not state, each with
    its text) and ``given`` (results the claim assumes, each with its citation: the verdict is then HOLDS
    GIVEN them), ``conclusion`` holds. ``sentence`` is the paper's sentence it formalises; ``samples``
    (symbol name -> values, or expressions in the earlier symbols) are the points of the counterexample
    search, and one of them must lie in the domain (a witness that it is not empty).
    """

    sentence: str
    symbols: tuple[Any, ...]
    hypotheses: tuple[Any, ...]
    conclusion: Any
    conditions: tuple[tuple[Any, str], ...] = ()
    samples: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    given: tuple[tuple[Any, str], ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"sentence": self.sentence, "symbols": [_srepr(s) for s in self.symbols],
                "hypotheses": [_srepr(h) for h in self.hypotheses],
                "conditions": [[_srepr(c), t] for c, t in self.conditions],
                "given": [[_srepr(g), t] for g, t in self.given],
                "conclusion": _srepr(self.conclusion),
                "samples": [[k, [str(v) for v in vs]] for k, vs in self.samples.items()]}  # ordered: later values
        # may be expressions in earlier symbols

    def formal(self) -> str:
        """The quantified statement in one line."""
        import sympy as sp

        doms = ", ".join(f"{s} ({_domain(s)})" for s in self.symbols)
        hyp = " and ".join(sp.sstr(h) for h in self.hypotheses) or "True"
        cond = "".join(f" and {sp.sstr(c)}" for c, _ in self.conditions)
        cond += "".join(f" and [given] {sp.sstr(g)}" for g, _ in self.given)
        return f"for all {doms}: {hyp}{cond} => {sp.sstr(self.conclusion)}"


def _domain(s: Any) -> str:
    for flag, name in (("is_integer", "integer"), ("is_positive", "positive"), ("is_nonnegative", "nonnegative"),
                       ("is_real", "real")):
        if getattr(s, flag):
            rest = "positive integer" if name == "integer" and s.is_positive else name
            return rest
    return "complex"


class Proof:
    """A chain of steps proving a :class:`Claim`; each method appends one step (see the checker's module doc).

    Steps are not checked here: :meth:`result` hands the whole document to the independent checker
    (:func:`~semiprivate.proofs_checks.certificate_checker.check_proof`), which re-establishes every
    step, the composition and the counterexample search.
    """

    def __init__(self, claim: Claim) -> None:
        self.claim = claim
        self.steps: list[dict[str, Any]] = []
        self._result: dict[str, Any] | None = None

    def _add(self, name: str, method: str, hyps: Sequence[Any], concl: Any, **extra: Any) -> Any:
        self._result = None
        self.steps.append({"name": name, "method": method, "hypotheses": [_srepr(h) for h in hyps],
                           "conclusion": _srepr(concl), **extra})
        return concl

    def identity(self, name: str, lhs: Any, rhs: Any) -> Any:
        """``lhs == rhs`` by simplification."""
        import sympy as sp

        return self._add(name, "identity", (), sp.Eq(lhs, rhs, evaluate=False))

    def sign(self, name: str, concl: Any, hyps: Sequence[Any] = (), *, slacks: Mapping[str, Any] | None = None,
             witness: Any = None) -> Any:
        """An inequality proved by sympy's sign rules (with slack substitutions for the hypotheses)."""
        extra: dict[str, Any] = {}
        if slacks:
            extra = {"slacks": {k: _srepr(v) for k, v in slacks.items()}, "witness": _srepr(witness)}
        return self._add(name, "sign", hyps, concl, **extra)

    def smt(self, name: str, hyps: Sequence[Any], concl: Any) -> Any:
        """``hyps => concl`` by z3 (non-polynomial subterms opaque)."""
        return self._add(name, "smt", hyps, concl)

    def interval(self, name: str, hyps: Sequence[Any], concl: Any, *, reduction: str = "") -> Any:
        """``expr >= 0`` on the box the hypotheses state, by interval branch-and-bound."""
        return self._add(name, "interval", hyps, concl, reduction=reduction)

    def monotone(self, name: str, func: str, hyp: Any, *more: Any) -> Any:
        """``F(a) <= F(b)`` from the hypothesis ``a <= b`` (``<`` likewise) for F in exp, log, sqrt."""
        import sympy as sp

        a, b = hyp.lhs, hyp.rhs
        if isinstance(hyp, (sp.StrictGreaterThan, sp.GreaterThan)):
            a, b = b, a
        F = {"exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt}[func]
        strict = isinstance(hyp, (sp.StrictLessThan, sp.StrictGreaterThan))
        concl = (sp.Lt if strict else sp.Le)(F(a), F(b))
        return self._add(name, "monotone", (hyp, *more), concl, func=func)

    def elementary(self, name: str, bound: str, x: Any, hyps: Sequence[Any] = ()) -> Any:
        """The tangent-line bound ``log(x) <= x - 1`` (``bound="log"``) or ``exp(x) >= 1 + x`` (``"exp"``)."""
        import sympy as sp

        concl = (sp.Le(sp.log(x), x - 1, evaluate=False) if bound == "log"
                 else sp.Ge(sp.exp(x), 1 + x, evaluate=False))
        return self._add(name, "elementary", hyps, concl, bound=bound, arg=_srepr(x))

    def evaluate(self, name: str, lhs: Any, relation: str, rhs: Any, *, unevaluated: bool = False) -> Any:
        """The closed comparison ``lhs relation rhs``, decided exactly (or by separated intervals)."""
        import sympy as sp

        op = {"<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge}[relation]
        return self._add(name, "evaluate", (), op(lhs, rhs, evaluate=False),
                         **({"unevaluated": True} if unevaluated else {}))

    def cite(self, name: str, concl: Any, citation: str, hyps: Sequence[Any] = (), *, standard: str | None = None,
             instance: Mapping[str, Any] | None = None) -> Any:
        """A step taken from a cited result (the verdict then reads HOLDS GIVEN). A standard result of the checker's
        table (``STANDARD_RESULTS``) is named by ``standard`` with ``instance`` (its variables -> expressions in the
        claim's symbols); the checker verifies the step is that instance."""
        extra: dict[str, Any] = {}
        if standard is not None:
            extra = {"standard": standard, "instance": {k: _srepr(v) for k, v in (instance or {}).items()}}
        return self._add(name, "cited", hyps, concl, citation=citation, **extra)

    def as_json(self) -> dict[str, Any]:
        return {"claim": self.claim.as_json(), "steps": [dict(s) for s in self.steps]}

    def result(self) -> dict[str, Any]:
        """The independent checker's conclusion (cached until a step is added)."""
        if self._result is None:
            from semiprivate.proofs_checks.certificate_checker import check_proof

            self._result = check_proof(json_roundtrip(self.as_json()))
        return self._result

    def without(self, names: Iterable[str]) -> Proof:
        """A copy with the named steps deleted."""
        drop = set(names)
        p = Proof(self.claim)
        p.steps = [dict(s) for s in self.steps if s["name"] not in drop]
        return p


def json_roundtrip(doc: dict[str, Any]) -> dict[str, Any]:
    import json

    return json.loads(json.dumps(doc))


# ----------------------------------------------------------------------------- perturbations

_OVERRIDES: dict[str, dict[str, Any]] = {}


def constants(key: str, **defaults: Any) -> dict[str, Any]:
    """The constants of the stated theorem ``key`` (a check id), with any active perturbation applied."""
    over = _OVERRIDES.get(key, {})
    unknown = set(over) - set(defaults)
    if unknown:
        raise KeyError(f"{key}: no constant named {sorted(unknown)} (constants: {sorted(defaults)})")
    import sympy as sp

    for name, value in over.items():  # the theorem's constants are positive numbers; a degenerate one is refused
        v = sp.sympify(value)
        if not (v.is_Number and v.is_positive and v.is_finite):
            raise ValueError(f"{key}: constant {name} must stay a positive number, got {value!r}")
    return {**defaults, **over}


class perturbed:  # noqa: N801 - a context manager used like a function
    """``with perturbed("HPSY.Lem2.x", c=1): ...`` runs the checks with the stated theorem's constant changed."""

    def __init__(self, key: str, **changes: Any) -> None:
        self.key, self.changes = key, changes

    def __enter__(self) -> None:
        _OVERRIDES[self.key] = dict(self.changes)

    def __exit__(self, *exc: object) -> None:
        _OVERRIDES.pop(self.key, None)


@dataclass(frozen=True)
class Check:
    """The record of one machine check of one paper step.

    Attributes
    ----------
    id : str
        ``PAPER.Item.step``, e.g. ``"ABM19.Lem4.4.confidence"``.
    claim : str
        The claim, with the paper's numbering, as the paper states or uses it.
    method : str
        How it was verified: ``symbolic`` (sympy, all parameters in range), ``smt`` (z3),
        ``interval`` (interval branch-and-bound), ``exact`` (exact arithmetic / exact
        probabilities), ``grid+hypothesis`` (counterexample search), ``simulation``; joined with ``+``.
    details : str
        What was verified, step by step, with the numbers.
    facts : tuple of Fact
        What the check established; :attr:`verdict`, :attr:`condition` and
        :attr:`counterexample` are derived from them.
    corrected : str or None
        A corrected statement where one could be derived.
    links : tuple of str
        ``semiprivate.theory.bounds`` functions whose constants this check asserted.
    """

    id: str
    claim: str
    method: str
    details: str
    facts: tuple[Fact, ...] = ()
    corrected: str | None = None
    links: tuple[str, ...] = field(default_factory=tuple)
    proof: Proof | None = field(default=None, compare=False)

    @cached_property
    def _derived(self) -> tuple[Verdict, str | None, str | None]:
        return derive_verdict(self.facts, self.proof)

    @property
    def verdict(self) -> Verdict:
        return self._derived[0]

    @property
    def condition(self) -> str | None:
        return self._derived[1]

    @property
    def counterexample(self) -> str | None:
        return self._derived[2]

    @property
    def citations(self) -> tuple[str, ...]:
        """The cited results the closed chain rests on (empty without a proof)."""
        return tuple(self.proof.result()["cited"]) if self.proof is not None else ()

    @property
    def steps(self) -> tuple[int, int, int]:
        """(steps, non-trivial certified steps, cited steps) of the proof chain."""
        if self.proof is None:
            return (0, 0, 0)
        n = len(self.proof.steps)
        cited = sum(1 for s in self.proof.steps if s["method"] == "cited")
        return (n, n - cited, cited)

    @property
    def open_reasons(self) -> tuple[str, ...]:
        """Why the chain does not close, or does not hold on the checks it cites (empty when it holds, or without a
        proof)."""
        if self.proof is None:
            return ()
        res = self.proof.result()
        return tuple(res["failures"]) + (tuple(dependency_failures(self.proof)) if res["status"] == "closed" else ())

    @property
    def certificate_kinds(self) -> tuple[str, ...]:
        """The kinds of the certificates behind the verdict (refutations for FAILS, proofs otherwise)."""
        role = Role.REFUTES if self.verdict is Verdict.FAILS else Role.PROVES
        kinds = [c["kind"] for f in self.facts if f.role is role for c in f.certificates]
        return tuple(dict.fromkeys(kinds))

    def certificates_json(self) -> dict[str, Any]:
        """The JSON document that ``--certificates`` writes for this check."""
        doc: dict[str, Any] = {"id": self.id, "claim": self.claim, "verdict": self.verdict.value,
                               "condition": self.condition, "facts": [f.as_json() for f in self.facts]}
        if self.proof is not None:
            doc["proof"] = self.proof.as_json()
        return doc


CheckFn = Callable[[], Check]
_REGISTRY: dict[str, CheckFn] = {}
_LOG: list[list[Fact]] = []


def _record(fact: Fact) -> Fact:
    """Add a fact to the log of the check now running (the certificate helpers call this)."""
    if _LOG:
        _LOG[-1].append(fact)
    return fact


def register(check_id: str) -> Callable[[CheckFn], CheckFn]:
    """Register a check function under ``check_id`` (the id must match the returned record).

    The facts that the certificate helpers established while the check ran are put in front of
    the facts the check returned, so the verdict is derived from everything it proved.
    """

    def deco(fn: CheckFn) -> CheckFn:
        if check_id in _REGISTRY:
            raise ValueError(f"duplicate check id {check_id!r}")

        def wrapped() -> Check:
            _LOG.append([])
            try:
                rec = fn()
            finally:
                logged = _LOG.pop()
            if rec.id != check_id:
                raise ValueError(f"check registered as {check_id!r} returned id {rec.id!r}")
            rec = replace(rec, facts=tuple(logged) + tuple(f for f in rec.facts if f not in logged))
            rec.verdict  # noqa: B018 - derive now: an undecidable record is an error, not a result
            return rec

        wrapped.__name__ = fn.__name__
        wrapped.__doc__ = fn.__doc__
        wrapped.__module__ = fn.__module__  # the check's module: the sources its certificates rest on
        wrapped.check_id = check_id  # type: ignore[attr-defined]
        _REGISTRY[check_id] = wrapped
        return wrapped

    return deco


def registry() -> dict[str, CheckFn]:
    """The registered checks (id -> function), after importing every check module."""
    from semiprivate.proofs_checks import _modules

    _modules.load_all()
    return dict(_REGISTRY)


# ----------------------------------------------------------------------------- helpers

def _srepr(expr: Any) -> str:
    import sympy as sp

    # construction order: an unevaluated identity keeps its terms, in an order that does not depend on hashing
    return sp.srepr(sp.sympify(expr), order="none")


def _certified(cert: dict[str, Any]) -> dict[str, Any]:
    """Run the independent checker on a fresh certificate; CannotDecide if it does not hold."""
    from semiprivate.proofs_checks.certificate_checker import CertificateError, check_certificate

    try:
        check_certificate(cert)
    except CertificateError as exc:
        raise CannotDecide(str(exc)) from None
    return cert


def sympy_zero(lhs: Any, rhs: Any, what: str, *, condition: str | None = None) -> Fact:
    """Prove the identity ``lhs == rhs`` (a ``sympy-zero`` certificate: ``lhs - rhs`` simplifies to 0).

    ``lhs`` and ``rhs`` are the two sides the proof step names (``what`` states them), stored
    separately; build them under ``sympy.evaluate(False)`` where sympy would otherwise cancel the
    step on construction. The checker refuses a certificate whose sides are the same stored tree
    or whose left side is a bare number. Raises :class:`CannotDecide` otherwise; the fact is
    logged for the running check.
    """
    if isinstance(lhs, str) or isinstance(rhs, str) or not isinstance(what, str):
        raise TypeError("sympy_zero(lhs, rhs, what): lhs and rhs are sympy expressions, what is the goal text")
    cert = _certified({"kind": "sympy-zero", "lhs": _srepr(lhs), "rhs": _srepr(rhs), "goal": what})
    return _record(Fact(f"{what} (sympy)", Role.PROVES, (cert,), condition))


def sympy_nonneg(expr: Any, what: str, *, condition: str | None = None) -> Fact:
    """Prove ``expr >= 0`` from the symbols' assumptions (a ``sympy-nonneg`` certificate).

    Raises :class:`CannotDecide` if sympy answers False or None: an undecided answer is never a pass.
    """
    cert = _certified({"kind": "sympy-nonneg", "expr": _srepr(expr), "goal": f"{what} >= 0"})
    return _record(Fact(f"{what} >= 0 (sympy)", Role.PROVES, (cert,), condition))


def _canonical_smt2(text: str) -> str:
    """``text`` with z3's let-bound names (``$x<N>``, ``?x<N>``) renumbered by first appearance.

    z3 numbers them from a process-wide counter, so the same problem prints differently after other
    z3 work in the same process; renaming bound names consistently keeps the problem the same.
    """
    names: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        prefix = m.group(1)
        return names.setdefault(m.group(0), f"{prefix}x{sum(k.startswith(prefix) for k in names)}")

    return re.sub(r"([$?])x\d+\b", rename, text)


def z3_prove(hypotheses: Sequence[Any], goal: Any, what: str, *, condition: str | None = None) -> Fact:
    """Prove ``hypotheses => goal`` over the reals/integers with z3 (an ``z3`` certificate).

    The certificate is the SMT-LIB2 problem ``hypotheses and not goal``, which must be unsat.
    """
    import z3

    s = z3.Solver()
    s.add(*hypotheses)
    s.add(z3.Not(goal))
    cert = _certified({"kind": "z3", "smt2": _canonical_smt2(s.to_smt2()), "goal": what})
    return _record(Fact(f"{what} (z3: the negation is unsat)", Role.PROVES, (cert,), condition))


def interval_prove(expr: Any, box: Mapping[str, tuple[Any, Any]], relation: str, what: str, *, reduction: str,
                   condition: str | None = None, max_boxes: int = 200000) -> Fact:
    """Prove ``expr relation 0`` on a compact box by interval branch-and-bound (``interval`` certificate).

    ``box`` maps each free symbol name to ``(lo, hi)`` (numbers or strings, read exactly);
    ``reduction`` says why the box covers the claim's domain (monotonicity, limits, substitution).
    """
    import sympy as sp

    cert = {"kind": "interval", "expr": _srepr(expr), "relation": relation, "goal": what,
            "box": {k: [str(sp.Rational(str(lo))), str(sp.Rational(str(hi)))] for k, (lo, hi) in box.items()},
            "reduction": reduction, "max_boxes": max_boxes}
    _certified(cert)
    return _record(Fact(f"{what} (interval branch-and-bound; {reduction})", Role.PROVES, (cert,), condition))


def evaluation(lhs: Any, relation: str, rhs: Any, what: str = "", *, unevaluated: bool = False) -> dict[str, Any]:
    """An ``evaluate`` certificate: closed ``lhs relation rhs``, exact or by separated intervals.

    Floats are read as the decimal they print (``0.1`` is 1/10). ``unevaluated=True``: the sides
    were built under ``sympy.evaluate(False)`` (huge exact powers) and are decided by intervals.
    """
    import sympy as sp

    def side(x: Any) -> str:
        if isinstance(x, float):
            x = sp.Rational(repr(x))
        return sp.srepr(x, order="none") if unevaluated else _srepr(x)

    cert: dict[str, Any] = {"kind": "evaluate", "lhs": side(lhs), "relation": relation, "rhs": side(rhs), "goal": what}
    if unevaluated:
        cert["unevaluated"] = True
    return _certified(cert)


def exact_fact(statement: str, comparisons: Sequence[tuple[Any, str, Any]], *,
               condition: str | None = None) -> Fact:
    """A proving fact made of closed comparisons re-verified exactly (finite, closed claims only)."""
    certs = tuple(evaluation(a, r, b, statement) for a, r, b in comparisons)
    return _record(Fact(statement, Role.PROVES, certs, condition))


def refute(statement: str, comparisons: Sequence[tuple[Any, str, Any]] = (), *,
           certificates: Sequence[dict[str, Any]] = ()) -> Fact:
    """A counterexample, re-verified by exact or interval ``evaluate`` certificates (and any others given)."""
    certs = tuple(evaluation(a, r, b, statement) for a, r, b in comparisons) + tuple(
        _certified(dict(c)) for c in certificates)
    return _record(Fact(statement, Role.REFUTES, certs))


def cite(statement: str) -> Fact:
    """A premise taken from a named standard result or from the paper's own cited lemma."""
    return _record(Fact(statement, Role.CITES))


def observe(statement: str) -> Fact:
    """A counterexample search or simulation result (never counts towards HOLDS)."""
    return _record(Fact(statement, Role.OBSERVES))


def grid_violations(pred: Callable[..., bool], axes: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Evaluate ``pred(**point)`` on the Cartesian grid; return the points where it is False."""
    import itertools

    names = list(axes)
    bad = []
    for values in itertools.product(*(axes[n] for n in names)):
        point = dict(zip(names, values))
        if not pred(**point):
            bad.append(point)
    return bad


def hypothesis_counterexample(pred: Callable[..., bool], strategies: dict[str, Any],
                              max_examples: int = 300) -> dict[str, Any] | None:
    """Derandomized hypothesis search for a point where ``pred`` is False (None if none found).

    Deterministic: ``derandomize=True`` and no example database, so reruns give the same answer.
    """
    from hypothesis import HealthCheck, find, settings
    from hypothesis import strategies as st
    from hypothesis.errors import NoSuchExample

    strat = st.fixed_dictionaries(strategies)
    try:
        found = find(
            strat,
            lambda kw: not pred(**kw),
            settings=settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
                              suppress_health_check=list(HealthCheck)),
        )
    except NoSuchExample:
        return None
    return dict(found)


def fmt(x: float, digits: int = 6) -> str:
    """Deterministic short float formatting for reports."""
    if isinstance(x, int):
        return str(x)
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"


def clopper_pearson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Two-sided exact (Clopper–Pearson) interval for a binomial proportion."""
    from scipy.stats import beta as beta_dist

    a = 1.0 - confidence
    lo = 0.0 if k == 0 else float(beta_dist.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta_dist.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


def join(lines: Iterable[str]) -> str:
    """Join detail lines into one markdown-friendly paragraph list."""
    return "\n".join(f"- {ln}" for ln in lines)
