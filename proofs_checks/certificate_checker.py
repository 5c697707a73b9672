"""Independent re-checker of the proof certificates written by ``python -m semiprivate.proofs_checks --certificates``.

This module imports nothing from the rest of the project: only the standard library, sympy, mpmath
and z3. It reads a certificate (a JSON object) and re-establishes its statement from scratch.

Certificate kinds
-----------------
``sympy-zero``
    An identity ``lhs == rhs``: ``lhs`` and ``rhs`` are sympy ``srepr`` strings (symbols carry their
    assumptions) of the two sides the proof step names, as the check built them; ``lhs - rhs`` must
    simplify to exactly 0 (unevaluated operators in a side, ``Sum``, ``Derivative``, ``Limit``, are
    evaluated by the checker itself with ``doit``). A *trivial* certificate is refused before any simplification, because it
    re-establishes nothing about the step: (i) the single-field form (an ``expr`` field, or a missing
    or empty side): a difference that sympy already cancelled while the check built it is stored
    as a bare ``Integer(0)``; (ii) two sides that are the same tree as stored (read without sympy's
    automatic evaluation), e.g. ``lhs = rhs = Integer(0)`` or a side that sympy rewrote into the
    other on construction; (iii) a left side that is a bare number (the left side is the expression
    the step is about; ``0`` or a constant may only stand on the right, as in ``f(0) == 0``).
    Sides such as ``x - x`` built unevaluated are accepted: the checker cannot tell a proof step's
    expression from a contrived one, so each call site stores the sides its ``goal`` names.
``sympy-nonneg``
    sympy proves ``expr >= 0`` from the symbols' assumptions (an undecided answer fails); a trivial one -- the
    expression evaluates to a number or to a single symbol (times a number) of known sign -- is refused.
``z3``
    ``smt2`` is an SMT-LIB2 problem: the hypotheses plus the NEGATION of the goal; z3 must answer
    ``unsat`` (so the goal follows from the hypotheses for every real/integer value).
``interval``
    Branch-and-bound in interval arithmetic (``mpmath.iv``, outward rounding) over the box ``box``
    (``{name: [lo, hi]}``, decimal strings, read exactly): ``expr`` satisfies ``relation``
    (``">= 0"`` or ``"> 0"``) on the whole box. Boxes are bisected along their widest side until each
    sub-box's enclosure decides the relation, up to ``max_boxes`` sub-boxes (then the check fails).
    ``reduction`` states, in words, why the compact box covers the claim's (possibly unbounded)
    domain: a monotonicity or limit argument, or a change of variables.
``evaluate``
    A closed expression (no free symbols): ``lhs relation rhs`` with relation in ``< <= > >= == !=``,
    decided in exact rational arithmetic when both sides are rational, otherwise by interval
    enclosures at 60 digits that must separate (``==`` needs exact rationals). With
    ``"unevaluated": true`` the expressions are read without sympy's automatic evaluation (huge
    exact powers stay symbolic) and always decided by intervals.

Every check raises :class:`CertificateError` unless the statement is re-established.
"""

from __future__ import annotations

import copy
import json
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import mpmath
import sympy as sp

__all__ = ["CertificateError", "check_certificate", "check_file", "check_directory", "KINDS", "STANDARD_RESULTS",
           "cited_check_ids", "claim_sha256", "verdict_of", "check_proof", "check_step"]


class CertificateError(AssertionError):
    """A certificate does not re-establish its statement."""


#: Results already established in this process, keyed by the exact input (JSON text or sympy trees). Every
#: function memoised here is a pure function of that input (z3 runs under a deterministic resource limit), so a
#: repeated question -- the same step in a chain with another step deleted, the same claim under a second
#: proof, the committed document of a check that just ran -- gets the same answer without the work.
_MEMO: dict[tuple[Any, ...], Any] = {}
_MEMO_MAX = 50_000


def _remember(key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    """``compute()``, once per ``key``; a :class:`CertificateError` it raises is remembered and raised again."""
    try:
        hit = _MEMO[key]
    except KeyError:
        try:
            hit = ("ok", compute())
        except CertificateError as exc:
            hit = ("error", str(exc))
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[key] = hit
    if hit[0] == "error":
        raise CertificateError(hit[1])
    return copy.deepcopy(hit[1])


def _key(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)


#: Texts already parsed in this process (text, names -> symbols, evaluate and distribute flags -> expression).
#: Parsing is a pure function of these, and a sympy expression is immutable, so a text read again (the same side
#: at every sample point, the same srepr in a chain re-checked with a step deleted) is not parsed again: sympy
#: parses every string anew, about a millisecond each, with an import of all of sympy's names per call.
_PARSED: dict[tuple[Any, ...], Any] = {}


def _parse(text: str, names: dict[str, Any] | None = None, evaluate: bool | None = None) -> Any:
    """``sympy.sympify(text, locals=names or {}, evaluate=evaluate)``, parsed once per process."""
    from sympy.core.parameters import global_parameters

    key = (text, tuple(sorted((names or {}).items(), key=lambda kv: kv[0])),
           global_parameters.evaluate if evaluate is None else evaluate, global_parameters.distribute)
    try:
        return _PARSED[key]
    except KeyError:
        pass
    e = (sp.sympify(text, locals=dict(names or {})) if evaluate is None
         else sp.sympify(text, locals=dict(names or {}), evaluate=evaluate))
    if len(_PARSED) >= _MEMO_MAX:
        _PARSED.clear()
    _PARSED[key] = e
    return e


def _expr(text: str) -> sp.Expr:
    return _parse(text, evaluate=True) if text else sp.Integer(0)


def _zero_sides(cert: dict[str, Any]) -> tuple[sp.Expr, sp.Expr]:
    """The two sides of a ``sympy-zero`` certificate, read as written; refuses the trivial ones (module doc)."""
    if "expr" in cert or not cert.get("lhs") or not cert.get("rhs"):
        raise CertificateError("trivial sympy-zero certificate: it must store both sides ('lhs' and 'rhs'); the "
                               "single-field 'expr' form (a difference sympy may have cancelled to a bare 0) is refused")
    with sp.evaluate(False):
        lhs, rhs = _expr(cert["lhs"]), _expr(cert["rhs"])
    if lhs == rhs:
        raise CertificateError(f"trivial sympy-zero certificate: both sides are the same expression {cert['lhs']}")
    if lhs.is_Number:
        raise CertificateError(f"trivial sympy-zero certificate: the left side is the bare number {cert['lhs']}")
    return _expr(cert["lhs"]).doit(), _expr(cert["rhs"]).doit()


def _check_sympy_zero(cert: dict[str, Any]) -> None:
    lhs, rhs = _zero_sides(cert)
    e = lhs - rhs
    cand = sp.simplify(sp.expand(e))
    if cand == 0:
        return
    for c in (cand, e):
        if sp.simplify(sp.expand_log(sp.powsimp(sp.expand(c)))) == 0:  # no force=True: it ignores branch conditions
            return
    raise CertificateError(f"sympy does not reduce {cert['lhs']} - ({cert['rhs']}) to 0")


def _check_sympy_nonneg(cert: dict[str, Any]) -> None:
    e = _expr(cert["expr"])
    if _is_trivial_expr(e):
        raise CertificateError(f"trivial sympy-nonneg certificate ({e}): a number or a single symbol of known sign "
                               "proves nothing about a step; fold it into its neighbour")
    for cand in _sign_candidates(e, together=False):
        if cand.is_nonnegative is True:
            return
    raise CertificateError(f"sympy does not prove {cert['expr']} >= 0")


def _sign_candidates(e: sp.Expr, *, together: bool) -> Iterator[sp.Expr]:
    """``e``, ``simplify(e)``, ``factor(simplify(e))``, ``expand(e)`` (and ``together(expand(e))``), one at a time: a
    sign read from an earlier form needs no later one, and ``simplify(e)`` is computed once for both uses."""
    yield e
    simple = sp.simplify(e)
    yield simple
    yield sp.factor(simple)
    expanded = sp.expand(e)
    yield expanded
    if together:
        yield sp.together(expanded)


def _check_z3(cert: dict[str, Any]) -> None:
    import z3

    s = z3.Solver()
    s.set("timeout", int(cert.get("timeout_ms", 20000)))
    s.from_string(cert["smt2"])
    res = s.check()
    if res != z3.unsat:
        raise CertificateError(f"z3 answers {res} (unsat required) for: {cert.get('goal', '')}")


# ----------------------------------------------------------------------------- interval arithmetic

_IV = mpmath.iv


def _iv_eval(e: sp.Basic, env: dict[str, Any]) -> Any:
    """Interval enclosure of a sympy expression (Add, Mul, Pow, exp, log, sqrt, Min, Max, numbers)."""
    if e.is_Symbol:
        return env[e.name]
    if e.is_Integer:
        return _IV.mpf(int(e))
    if e.is_Rational:
        return _IV.mpf(int(e.p)) / _IV.mpf(int(e.q))
    if e.is_Float:
        s = sp.Rational(e)  # the binary value, exactly
        return _IV.mpf(int(s.p)) / _IV.mpf(int(s.q))
    if e is sp.pi:
        return _IV.pi
    if e is sp.E:
        return _IV.e
    if isinstance(e, sp.Add):
        acc = _IV.mpf(0)
        for a in e.args:
            acc = acc + _iv_eval(a, env)
        return acc
    if isinstance(e, sp.Mul):
        acc = _IV.mpf(1)
        for a in e.args:
            acc = acc * _iv_eval(a, env)
        return acc
    if isinstance(e, sp.Pow):
        base, ex = e.args
        b = _iv_eval(base, env)
        if ex.is_Integer:
            n = int(ex)
            if n >= 0:
                return b**n
            if b.a <= 0 <= b.b:
                raise CertificateError("division by an interval containing 0")
            return 1 / (b ** (-n))
        if ex == sp.Rational(1, 2):
            if b.a < 0:
                raise CertificateError("sqrt of an interval reaching below 0")
            return _IV.sqrt(b)
        if ex == sp.Rational(-1, 2):
            if b.a <= 0:
                raise CertificateError("1/sqrt of an interval reaching 0")
            return 1 / _IV.sqrt(b)
        if ex.is_Rational and ex > 0 and b.a >= 0:  # x**q, q > 0 rational: increasing on [0, oo)
            if b.a == 0:
                top = _IV.exp(_IV.mpf(int(ex.p)) / int(ex.q) * _IV.log(_IV.mpf(b.b))) if b.b > 0 else _IV.mpf(0)
                return _IV.mpf([0, top.b])
            return _IV.exp(_IV.mpf(int(ex.p)) / int(ex.q) * _IV.log(b))
        if b.a <= 0:
            raise CertificateError("real power of an interval reaching 0")
        return _IV.exp(_iv_eval(ex, env) * _IV.log(b))
    if isinstance(e, sp.exp):
        return _IV.exp(_iv_eval(e.args[0], env))
    if isinstance(e, sp.log):
        a = _iv_eval(e.args[0], env)
        if a.a <= 0:
            raise CertificateError("log of an interval reaching 0")
        return _IV.log(a)
    if isinstance(e, (sp.Min, sp.Max)):
        vals = [_iv_eval(a, env) for a in e.args]
        lo = [v.a for v in vals]
        hi = [v.b for v in vals]
        if isinstance(e, sp.Min):
            return _IV.mpf([min(lo), min(hi)])
        return _IV.mpf([max(lo), max(hi)])
    fn = _KNOWN_FUNCTIONS.get(getattr(e.func, "__name__", ""))
    if fn is not None:
        args = list(e.args)
        if not all(a.is_Rational for a in args):
            raise CertificateError(f"{e.func} is evaluated at rational points only")
        return fn(*args)
    raise CertificateError(f"interval evaluation does not support {type(e).__name__}")


def _erdos_renyi_disconnected(d: Any, p: Any) -> Any:
    """Interval enclosure of P[G(d, p) is disconnected] at rational p (outward-rounded).

    Lower end: some vertex is isolated, by Bonferroni, d q^{d-1} - C(d, 2) q^{2d-3} (q = 1 - p);
    upper end: the union over vertex sets of size k <= d/2 with no edge to their complement,
    sum_k C(d, k) q^{k(d-k)}; both clipped to [0, 1].
    """
    n = int(d)
    if n != d or n < 2 or not (0 <= p <= 1):
        raise CertificateError("ErdosRenyiDisconnected(d, p) needs an integer d >= 2 and 0 <= p <= 1")
    with mpmath.workprec(200):
        q = _IV.mpf(int(p.q - p.p)) / int(p.q)
        lo = n * q ** (n - 1) - (n * (n - 1) // 2) * q ** (2 * n - 3)
        hi = _IV.mpf(0)
        binom = 1
        for k in range(1, n // 2 + 1):
            binom = binom * (n - k + 1) // k
            hi += binom * q ** (k * (n - k))
        return _IV.mpf([max(lo.a, 0), min(hi.b, 1)])


def _binomial_half_outside(n: Any, t: Any) -> Any:
    """P[|X - n/2| > t n] for X ~ Bin(n, 1/2), exactly (a rational), as a point interval."""
    m = int(n)
    if m != n or m < 1 or not (0 <= t <= sp.Rational(1, 2)):
        raise CertificateError("BinomialHalfOutside(n, t) needs an integer n >= 1 and 0 <= t <= 1/2")
    from math import comb

    tot = sum(comb(m, x) for x in range(m + 1) if abs(sp.Rational(x) - sp.Rational(m, 2)) > t * m)
    val = sp.Rational(tot, 2**m)
    return _IV.mpf(int(val.p)) / int(val.q)


def _binomial_tail(n: Any, p: Any, k: Any) -> Any:
    """P[X >= k] for X ~ Bin(n, p), exactly (a rational), as a point interval."""
    m, kk = int(n), int(k)
    if m != n or kk != k or m < 0 or not (0 <= p <= 1) or m > 10**4:
        raise CertificateError("BinomialTail(n, p, k) needs integers 0 <= n <= 10^4, k and 0 <= p <= 1")
    from math import comb

    p = sp.Rational(p)
    val = sum((comb(m, j) * p**j * (1 - p) ** (m - j) for j in range(max(kk, 0), m + 1)), sp.Integer(0))
    return _IV.mpf(int(val.p)) / int(val.q)


def _subsampled_eps(E: Any, q: Any) -> Any:
    """The tight epsilon of an (ln E, delta)-DP algorithm run on a uniformly random fraction q of its input
    (sub-sampling without replacement, substitution neighbours): ln(1 + q (E - 1)), for E >= 1 and 0 < q <= 1."""
    if not (E >= 1 and 0 < q <= 1):
        raise CertificateError("SubsampledEps(E, q) needs E >= 1 and 0 < q <= 1")
    with mpmath.workprec(200):
        e, qq = _IV.mpf(int(E.p)) / int(E.q), _IV.mpf(int(q.p)) / int(q.q)
        return _IV.log(1 + qq * (e - 1))


#: Functions the checker can enclose at points (the claims name them as undefined sympy functions).
_KNOWN_FUNCTIONS: dict[str, Callable[..., Any]] = {"ErdosRenyiDisconnected": _erdos_renyi_disconnected,
                                                   "BinomialHalfOutside": _binomial_half_outside,
                                                   "SubsampledEps": _subsampled_eps,
                                                   "BinomialTail": _binomial_tail}


def _decided(v: Any, relation: str) -> bool | None:
    """True/False when the enclosure decides ``v relation 0``, None when it does not."""
    lo, hi = v.a, v.b
    if relation == ">= 0":
        return True if lo >= 0 else (False if hi < 0 else None)
    if relation == "> 0":
        return True if lo > 0 else (False if hi <= 0 else None)
    if relation == "<= 0":
        return True if hi <= 0 else (False if lo > 0 else None)
    if relation == "< 0":
        return True if hi < 0 else (False if lo >= 0 else None)
    raise CertificateError(f"unknown relation {relation!r}")


def _check_interval(cert: dict[str, Any]) -> None:
    e = _expr(cert["expr"])
    names = list(cert["box"])
    relation = cert["relation"]
    max_boxes = int(cert.get("max_boxes", 200000))
    free = {s.name for s in e.free_symbols}
    if not free <= set(names):
        raise CertificateError(f"free symbols {sorted(free - set(names))} have no range in the box")
    with mpmath.workprec(int(cert.get("prec", 80))):
        def mk(lo: str, hi: str) -> Any:
            a, b = sp.Rational(lo), sp.Rational(hi)
            if a > b:
                raise CertificateError(f"empty range [{lo}, {hi}]")
            return _IV.mpf(int(a.p)) / int(a.q), _IV.mpf(int(b.p)) / int(b.q)

        start = []
        for n in names:
            lo, hi = mk(*cert["box"][n])
            start.append(_IV.mpf([lo.a, hi.b]))
        stack = deque([start])  # breadth first: a refuting box is found at the shallowest level, and a zero of
        boxes = 0  # the expression on the box's boundary cannot pull the search into an endless descent
        while stack:
            box = stack.popleft()
            boxes += 1
            if boxes > max_boxes:
                raise CertificateError(f"branch-and-bound did not finish within {max_boxes} boxes")
            try:
                val = _iv_eval(e, dict(zip(names, box)))
                dec = _decided(val, relation)
            except (CertificateError, ZeroDivisionError, ValueError):
                dec = None
            if dec is True:
                continue
            if dec is False:
                raise CertificateError(f"{relation} fails on the box {dict(zip(names, box))}")
            widths = [float(b.delta) for b in box]
            i = max(range(len(box)), key=lambda j: widths[j])
            if widths[i] == 0.0:
                raise CertificateError("branch-and-bound reached a point it cannot decide")
            mid = box[i].mid
            left, right = list(box), list(box)
            left[i] = _IV.mpf([box[i].a, mid.b])
            right[i] = _IV.mpf([mid.a, box[i].b])
            stack += [left, right]
    cert_boxes = cert.get("boxes")
    if cert_boxes is not None and boxes > 4 * int(cert_boxes) + 100:
        raise CertificateError(f"branch-and-bound took {boxes} boxes, the certificate recorded {cert_boxes}")


def _check_evaluate(cert: dict[str, Any]) -> None:
    if cert.get("unevaluated"):  # large exact powers: keep the tree as written and decide by intervals
        with sp.evaluate(False):
            lhs, rhs = _expr(cert["lhs"]), _expr(cert["rhs"])
    else:
        lhs, rhs = _expr(cert["lhs"]), _expr(cert["rhs"])
    rel = cert["relation"]
    if lhs.free_symbols or rhs.free_symbols:
        raise CertificateError("an 'evaluate' certificate must be closed (no free symbols)")
    ops: dict[str, Callable[[Any, Any], bool]] = {
        "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
    if rel not in ops:
        raise CertificateError(f"unknown relation {rel!r}")
    if not cert.get("unevaluated") and lhs.is_Rational and rhs.is_Rational:
        if not ops[rel](lhs, rhs):
            raise CertificateError(f"{lhs} {rel} {rhs} is false")
        return
    if rel == "==":
        raise CertificateError("'==' is only decided between exact rationals")
    with mpmath.workdps(60):
        d = _iv_eval(lhs, {}) - _iv_eval(rhs, {})
    dec = {"<": _decided(d, "< 0"), "<=": _decided(d, "<= 0"), ">": _decided(d, "> 0"),
           ">=": _decided(d, ">= 0"), "!=": (True if (d.a > 0 or d.b < 0) else None)}[rel]
    if dec is not True:
        raise CertificateError(f"{cert['lhs']} {rel} {cert['rhs']} not established (difference in [{d.a}, {d.b}])")


KINDS: dict[str, Callable[[dict[str, Any]], None]] = {
    "sympy-zero": _check_sympy_zero,
    "sympy-nonneg": _check_sympy_nonneg,
    "z3": _check_z3,
    "interval": _check_interval,
    "evaluate": _check_evaluate,
}


def check_certificate(cert: dict[str, Any]) -> None:
    """Re-establish one certificate; raise :class:`CertificateError` if it does not hold."""
    _remember(("certificate", _key(cert)), lambda: _check_certificate(cert))


def _check_certificate(cert: dict[str, Any]) -> None:
    kind = cert.get("kind")
    if kind not in KINDS:
        raise CertificateError(f"unknown certificate kind {kind!r}")
    if kind == "interval" and not cert.get("reduction"):
        raise CertificateError("an interval certificate must state how its box covers the claim's domain")
    KINDS[kind](cert)


#: A check id named in a citation (``PAPER.Item.step``, e.g. ``BNS15.Cl4.3.subsampling``): a given or cited step
#: that names one of the project's own checks rests on that check, which must then read HOLDS or HOLDS GIVEN.
CHECK_ID = re.compile(r"\b(?:HPSY|ABM19|BNS15|PILLAR)\.[A-Z][A-Za-z]*\d*(?:\.\d+)*\.[A-Za-z0-9][A-Za-z0-9_-]*")
#: The verdicts a cited check may read for a claim that rests on it to hold.
SUPPORTING = ("HOLDS", "HOLDS GIVEN")


def cited_check_ids(proof: dict[str, Any] | None) -> list[str]:
    """The check ids named by the citations of a proof document (its givens and its cited steps), in order."""
    if not proof:
        return []
    texts = [g[1] for g in proof.get("claim", {}).get("given", [])]
    texts += [st.get("citation", "") for st in proof.get("steps", []) if st.get("method") == "cited"]
    return list(dict.fromkeys(m.group(0) for t in texts for m in CHECK_ID.finditer(str(t))))


def claim_sha256(data: dict[str, Any]) -> str:
    """The SHA-256 of what a check states: its id, its claim in words, and its formal claim (symbols, domains,
    hypotheses, conditions, givens, conclusion, sample points). Pinned per check, so an edited claim is caught."""
    import hashlib

    stated = {"id": data.get("id"), "claim": data.get("claim"), "formal": (data.get("proof") or {}).get("claim")}
    return hashlib.sha256(json.dumps(stated, sort_keys=True).encode("utf-8")).hexdigest()


def verdict_of(data: dict[str, Any], dependencies: dict[str, str] | None = None) -> str:
    """The verdict a check document supports: FAILS on a refuting fact or a counterexample in the claim's
    domain; with a proof whose chain closes HOLDS / HOLDS GIVEN / HOLDS WITH CONDITION; else UNPROVED.
    ``dependencies`` maps each check id its citations name to the verdict that check's document supports (None:
    not consulted); a closed chain that rests on a check not reading HOLDS or HOLDS GIVEN (or on an id with no
    document) is UNPROVED."""
    if any(f.get("role") == "refutes" for f in data.get("facts", [])):
        return "FAILS"
    proof = data.get("proof")
    if proof is None:
        return "UNPROVED"
    res = check_proof(proof)
    if res["status"] == "refuted":
        return "FAILS"
    if res["status"] != "closed":
        return "UNPROVED"
    if dependencies is not None and any(dependencies.get(c) not in SUPPORTING for c in cited_check_ids(proof)):
        return "UNPROVED"
    if proof["claim"].get("conditions"):
        return "HOLDS WITH CONDITION"
    return "HOLDS GIVEN" if res["cited"] else "HOLDS"


def _supported(path: Path, seen: tuple[str, ...] = ()) -> str:
    """The verdict the document at ``path`` supports, with the documents of the checks it cites read from the same
    folder (a missing document, or a cycle of citations, supports nothing)."""
    if not path.is_file():
        return "MISSING"
    data = json.loads(path.read_text(encoding="utf-8"))
    cid = str(data.get("id"))
    if cid in seen:
        return "CYCLE"
    deps = {c: _supported(path.with_name(f"{c}.json"), (*seen, cid)) for c in cited_check_ids(data.get("proof"))}
    return verdict_of(data, deps)


def check_file(path: Path, pins: dict[str, str] | None = None) -> int:
    """Re-check one check document (``{"id": ..., "facts": [...], "proof": {...}}``): every certificate, the
    proof chain, that the checks it cites (documents in the same folder) support it, that the recorded verdict is
    the one the document supports, and -- with ``pins`` (check id -> :func:`claim_sha256`) -- that its claim is the
    pinned one; return the number checked."""
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if pins is not None:
        if data.get("id") not in pins:
            raise CertificateError(f"{data.get('id')}: no pinned claim for this check")
        if claim_sha256(data) != pins[data["id"]]:
            raise CertificateError(f"{data['id']}: the stored claim (statement, hypotheses, constants) is not the "
                                   "pinned one: the claim was changed")
    got = _supported(path)
    if data.get("verdict") is not None and got != data["verdict"]:
        raise CertificateError(f"{data['id']}: the document supports {got}, but {data['verdict']} is recorded")
    n = len(data["proof"]["steps"]) if data.get("proof") else 0
    for fact in data["facts"]:
        for cert in fact.get("certificates", []):
            try:
                check_certificate(cert)
            except CertificateError as exc:
                raise CertificateError(f"{data['id']}: {fact['statement'][:80]}: {exc}") from None
            n += 1
    return n


def check_directory(folder: Path, pins: dict[str, str] | None = None) -> dict[str, int]:
    """Re-check every ``*.json`` certificate file in ``folder``; return {file name: certificates checked}. With
    ``pins``, every pinned check must have its document there."""
    files: Iterable[Path] = sorted(Path(folder).glob("*.json"))
    out = {p.name: check_file(p, pins) for p in files}
    if pins is not None:
        missing = sorted(set(pins) - {json.loads(p.read_text(encoding="utf-8")).get("id") for p in files})
        if missing:
            raise CertificateError(f"no document for the pinned checks {missing}")
    return out


# ============================================================================ formal claims and proof chains
#
# A *proof document* (``"proof"`` in a check's JSON) states a claim formally and proves it by a chain of
# steps. Everything is a sympy ``srepr`` string, so the symbols carry their domains (assumptions):
#
# ``claim``: ``{"sentence", "symbols": [srepr], "hypotheses": [srepr], "conditions": [[srepr, text]],
#   "given": [[srepr, citation]], "conclusion": srepr, "samples": [[name, [value, ...]], ...]}`` (values may be
#   expressions in the symbols listed before them) -- the quantified
#   statement "for all values of the symbols in their domains satisfying the hypotheses (and the conditions,
#   which the paper does not state, and the given results, cited: the verdict is then HOLDS GIVEN them), the
#   conclusion holds".
# ``steps``: a list of ``{"name", "hypotheses": [srepr], "conclusion": srepr, "method", ...}``; each step
#   proves "its hypotheses imply its conclusion" by its method:
#
#   ``identity``   the conclusion is ``Eq(a, b)`` and ``a - b`` simplifies to 0 (no hypotheses);
#   ``sign``       the conclusion is ``a >= b`` / ``a > b`` (or ``<=``/``<``); with ``"slacks": {t: srepr e}``
#                  and ``"witness": srepr W`` (W in the slack symbols, which are nonnegative symbols) the
#                  checker proves ``a - b == W[t := e]`` and ``W >= 0`` (``> 0``) from the symbols'
#                  assumptions, and requires ``e >= 0`` among the step's hypotheses for each slack;
#                  without slacks ``a - b`` itself must be proved nonnegative (positive) by sympy;
#   ``smt``        z3 proves hypotheses => conclusion (non-polynomial subterms are opaque reals, which is sound;
#                  exp(p/q) of a non-integer rational is r**p with r**q = e, e itself an opaque positive real;
#                  exp(k y) for an integer k and a symbol y is exp(y)**k);
#   ``interval``   the conclusion is ``expr >= 0`` / ``> 0`` (or ``<= 0``/``< 0``); the box is READ from the
#                  hypotheses (``lo <= x``, ``x <= hi`` with numbers), so a box that does not follow from the
#                  hypotheses cannot be used; branch-and-bound as for an ``interval`` certificate;
#   ``monotone``   the conclusion is ``F(a) <= F(b)`` (or ``<``) for F in exp, log, sqrt (increasing), and
#                  ``a <= b`` (``a < b``) is among the step's hypotheses (log and sqrt also need ``a > 0``,
#                  ``a >= 0`` there or from the symbols' assumptions);
#   ``elementary`` the conclusion is ``log(x) <= x - 1`` (x > 0 by its assumptions or a hypothesis) or
#                  ``exp(x) >= 1 + x``, for the stated ``x`` (the tangent-line bounds);
#   ``evaluate``   the conclusion is closed and decided exactly (rationals) or by separated intervals;
#   ``cited``      taken from ``"citation"`` (not re-proved); the verdict then reads HOLDS GIVEN the citations.
#
# Composition: every hypothesis of step i must be (literally, up to writing a relation the other way round)
# a hypothesis or condition of the claim or the conclusion of one of steps 0..i-1, and the claim's
# conclusion must follow from the claim's hypotheses and all conclusions (z3, with the same opaque-subterm
# abstraction; a premise that appears verbatim is matched directly). A chain needs at least one step.
# A step whose certified expression is a bare number or a single symbol of known sign is *trivial* and is
# refused (fold it into its neighbour). A counterexample search evaluates the claim at the sample points that
# satisfy its hypotheses (exactly, or by separated intervals); a point where the conclusion is decided
# false refutes the claim.

#: z3's resource limit per entailment (deterministic; ``unknown`` when exceeded, which never proves anything).
RLIMIT = 30_000_000

METHODS = ("identity", "sign", "smt", "interval", "evaluate", "monotone", "elementary", "cited")


_LOGIC = (sp.And, sp.Or, sp.Not, sp.Implies)


def _reval(e: Any) -> Any:
    """Evaluate every expression inside ``e`` but keep its relations and connectives as written, so that a
    closed comparison stays a statement (not ``True``) and both sides of an identity stay visible."""
    if isinstance(e, sp.core.relational.Relational):
        return e.func(_reval(e.lhs), _reval(e.rhs), evaluate=False)
    if isinstance(e, _LOGIC):
        args = [_reval(a) for a in e.args]
        return e.func(*args, evaluate=False) if not isinstance(e, sp.Not) else sp.Not(args[0], evaluate=False)
    if isinstance(e, sp.Basic):
        return _parse(sp.srepr(e))
    return e


def _read(text: str) -> Any:
    with sp.evaluate(False):
        e = _parse(text)
    return _reval(e)


def _is_trivial_expr(e: sp.Basic) -> bool:
    """A bare number, or a single symbol (possibly times a number) of known sign."""
    e = sp.sympify(e)
    if e.is_Number:
        return True
    coeff, rest = e.as_coeff_Mul()
    return bool(rest.is_Symbol and (rest.is_nonnegative or rest.is_nonpositive))


def _rel_parts(r: sp.Basic) -> tuple[sp.Expr, str, sp.Expr]:
    if isinstance(r, sp.Equality):
        return r.lhs, "==", r.rhs
    if isinstance(r, (sp.GreaterThan, sp.StrictGreaterThan, sp.LessThan, sp.StrictLessThan)):
        op = {sp.GreaterThan: ">=", sp.StrictGreaterThan: ">", sp.LessThan: "<=", sp.StrictLessThan: "<"}[type(r)]
        return r.lhs, op, r.rhs
    raise CertificateError(f"not a relation (==, >=, >, <=, <): {r}")


def _as_nonneg_goal(r: sp.Basic) -> tuple[sp.Expr, bool]:
    """``r`` as ``g >= 0`` (strict=False) or ``g > 0`` (strict=True)."""
    a, op, b = _rel_parts(r)
    if op in (">=", ">"):
        return a - b, op == ">"
    if op in ("<=", "<"):
        return b - a, op == "<"
    raise CertificateError(f"an inequality is required, got {r}")


# ----------------------------------------------------------------------------- standard results

def _standard_results() -> dict[str, dict[str, Any]]:
    """The table of standard results a cited step may rest on: name -> variables (symbols whose assumptions are
    their domains), hypotheses, conclusion, and the words by which a citation names it. A cited step that names one
    must give ``"standard"`` (the name) and ``"instance"`` (variable -> srepr in the claim's symbols); the checker
    then requires the instantiated hypotheses to follow from the premises before the step and the step's
    conclusion to follow from the instantiated conclusion (never stronger than the result gives)."""
    n = sp.Symbol("n", integer=True, positive=True)
    t, u = sp.Symbol("t", positive=True), sp.Symbol("t", real=True)
    d, p = sp.Symbol("d", integer=True, positive=True), sp.Symbol("p", positive=True)
    l, v = sp.Symbol("l", integer=True, positive=True), sp.Symbol("v", integer=True, positive=True)  # noqa: E741
    E, q = sp.Symbol("E", positive=True), sp.Symbol("q", positive=True)
    k = sp.Symbol("k", integer=True, positive=True)
    vv = sp.Symbol("v", positive=True)
    return {
        "Hoeffding": {  # P[|X - n/2| >= t n] <= 2 exp(-2 t^2 n) for X ~ Bin(n, 1/2)
            "variables": (n, t), "hypotheses": (t <= sp.Rational(1, 2),),
            "conclusion": sp.Function("BinomialHalfOutside")(n, t) <= 2 * sp.exp(-2 * n * t**2),
            "names": ("hoeffding",)},
        "Bernoulli": {  # (1 + t)^n >= 1 + n t for t >= -1 and integer n >= 1
            "variables": (n, u), "hypotheses": (u >= -1,),
            "conclusion": (1 + u) ** n >= 1 + n * u, "names": ("bernoulli",)},
        "Sauer-Shelah (XOR class)": {  # |Pi_{C xor}(B)| <= |Pi_C(B)|^2 <= (e l/VC)^{2 VC} for |B| = l >= VC
            "variables": (l, v), "hypotheses": (l >= v,),
            "conclusion": sp.Function("PiXor")(l, v) <= (sp.E * l / v) ** (2 * v), "names": ("sauer-shelah",)},
        "Union bound over cuts": {  # P[G(d, p) disconnected] <= sum_k C(d, k)(1-p)^{k(d-k)} <= 2 d e^{-pd/2}
            "variables": (d, p), "hypotheses": (p <= 1, d * sp.exp(-p * d / 2) <= sp.Rational(1, 2)),
            "conclusion": sp.Function("ErdosRenyiDisconnected")(d, p) <= 2 * d * sp.exp(-p * d / 2),
            "names": ("union bound over cuts",)},
        "Amplification by sub-sampling": {  # an (ln E, delta)-DP algorithm run on a uniformly random fraction q of
            # the input (without replacement, substitution neighbours) is (ln(1 + q(E - 1)), q delta)-DP (Balle,
            # Barthe, Gaboardi 2018, Thm 9); SubsampledEps(E, q) is the epsilon it guarantees
            "variables": (E, q), "hypotheses": (E >= 1, q <= 1),
            "conclusion": sp.Function("SubsampledEps")(E, q) <= sp.log(1 + q * (E - 1)),
            "names": ("amplification by sub-sampling", "amplification by subsampling")},
        "Binomial tail over k-subsets": {  # P[Bin(n, p) >= k] <= C(n, k) p^k <= (n p)^k / k! (a union bound over the
            # k-subsets of trials that all succeed)
            "variables": (n, p, k), "hypotheses": (p <= 1,),
            "conclusion": sp.Function("BinomialTail")(n, p, k) <= (n * p) ** k / sp.factorial(k),
            "names": ("union bound over k-subsets",)},
        "Chebyshev": {  # P[||X - E X|| >= t] <= E||X - E X||^2 / t^2 for t > 0 (ChebyshevTail(v, t) is that
            # probability for a random vector X whose deviation has second moment v; Markov's inequality on ||X - EX||^2)
            "variables": (vv, t), "hypotheses": (),
            "conclusion": sp.Function("ChebyshevTail")(vv, t) <= vv / t**2, "names": ("chebyshev",)},
        "Stirling lower bound": {  # k! >= sqrt(2 pi k) (k/e)^k for every integer k >= 1 (Robbins 1955)
            "variables": (k,), "hypotheses": (),
            "conclusion": sp.factorial(k) >= sp.sqrt(2 * sp.pi * k) * (k / sp.E) ** k,
            "names": ("stirling",)},
    }


#: The standard results a cited step may name (see :func:`_standard_results`).
STANDARD_RESULTS: dict[str, dict[str, Any]] = _standard_results()


def _named_standard(step: dict[str, Any]) -> str | None:
    """The standard result a cited step rests on: its ``"standard"`` field, or the first the citation names."""
    if step.get("standard"):
        return str(step["standard"])
    text = f"{step.get('name', '')} {step.get('citation', '')}".lower()
    return next((k for k, r in STANDARD_RESULTS.items() if any(w in text for w in r["names"])), None)


def _standard_failures(step: dict[str, Any], premises: list[Any], symbols: list[Any]) -> list[str]:
    """Why a cited step is not an instance of the standard result it names (empty when it is, or names none)."""
    name = _named_standard(step)
    if name is None:
        return []
    label = f"step {step.get('name', '')!r}"
    res = STANDARD_RESULTS.get(name)
    if res is None:
        return [f"{label}: {name!r} is not in the table of standard results"]
    inst_text = step.get("instance") or {}
    missing = [v.name for v in res["variables"] if v.name not in inst_text]
    if missing:
        return [f"{label}: it cites {name} without instantiating {missing}: its content cannot be checked"]
    inst = {v: _read(inst_text[v.name]) for v in res["variables"]}
    out = []
    for v, e in inst.items():  # the variables' domains
        for flag, rel in (("is_positive", sp.Gt(e, 0)), ("is_integer", None)):
            if not getattr(v, flag):
                continue
            if rel is None:
                if not (e.is_integer or (e.is_Symbol and e.is_integer)):
                    out.append(f"{label}: {name} needs an integer {v.name}, got {e}")
            elif not (getattr(e, flag) or entails(premises, rel, symbols)):
                out.append(f"{label}: {name} needs {v.name} = {e} > 0")
    for h in res["hypotheses"]:
        hi = _reval(h.xreplace(inst))
        if not entails(premises, hi, symbols):
            out.append(f"{label}: the hypothesis {hi} of {name} does not follow from the premises before it")
    ci = _reval(res["conclusion"].xreplace(inst))
    if not entails([ci, *premises], _read(step["conclusion"]), symbols):
        out.append(f"{label}: its conclusion does not follow from {name}, which gives {ci}")
    return out


# ----------------------------------------------------------------------------- sympy -> z3, opaque subterms

class _Z3:
    """Translate sympy relations to z3; every non-polynomial subterm becomes an opaque real (one per tree)."""

    def __init__(self) -> None:
        import z3

        self.z3 = z3
        self.vars: dict[str, Any] = {}
        self.side: list[Any] = []

    def var(self, key: str, integer: bool = False) -> Any:
        if key not in self.vars:
            v = self.z3.Real(f"v{len(self.vars)}")  # integers are reals with IsInt: no integer division
            self.vars[key] = v
            if integer:
                self.side.append(self.z3.IsInt(v))
        return self.vars[key]

    def _opaque(self, e: sp.Basic) -> Any:
        key = sp.srepr(e)
        fresh = key not in self.vars
        v = self.var(key, bool(e.is_integer))
        if fresh:
            if e.is_positive:
                self.side.append(v > 0)
            elif e.is_nonnegative:
                self.side.append(v >= 0)
            elif e.is_negative:
                self.side.append(v < 0)
            elif e.is_nonpositive:
                self.side.append(v <= 0)
            if isinstance(e, sp.exp):  # exp(t) >= 1 + t, and exp(t) < 1 for t < 0 (sound facts of exp)
                self.side.append(v >= 1 + self.term(e.args[0]))
                if e.args[0].is_negative:
                    self.side.append(v < 1)
            elif isinstance(e, sp.log) and e.args[0].is_positive:  # log(x) <= x - 1
                self.side.append(v <= self.term(e.args[0]) - 1)
        return v

    def term(self, e: sp.Basic) -> Any:
        z3 = self.z3
        if e.is_Symbol:
            return self._opaque(e)
        if e.is_Integer:
            return z3.IntVal(int(e)) if False else z3.RealVal(int(e))
        if e.is_Rational:
            return z3.RealVal(f"{int(e.p)}/{int(e.q)}")
        if isinstance(e, sp.Add):
            acc = self.term(e.args[0])
            for a in e.args[1:]:
                acc = acc + self.term(a)
            return acc
        if isinstance(e, sp.Mul):
            acc = self.term(e.args[0])
            for a in e.args[1:]:
                acc = acc * self.term(a)
            return acc
        if isinstance(e, sp.Pow) and not e.exp.is_Number and e.exp.could_extract_minus_sign():
            return 1 / self.term(sp.Pow(e.base, -e.exp))  # x**(-k) = 1/x**k: one atom for x**k
        if isinstance(e, sp.Pow) and e.exp.is_Rational and not e.exp.is_Integer and not e.base.is_negative:
            # x**(p/q) = r**p with r = x**(1/q) >= 0 and r**q = x (where x >= 0): radicals become algebraic
            q = int(e.exp.q)
            root = sp.Pow(e.base, sp.Rational(1, q), evaluate=False)
            key = "root:" + sp.srepr(root)
            fresh = key not in self.vars
            r = self.var(key)
            if fresh:
                rq = r
                for _ in range(q - 1):
                    rq = rq * r
                base = self.term(e.base)
                facts = z3.And(r >= 0, rq == base)
                self.side.append(facts if e.base.is_nonnegative else z3.Implies(base >= 0, facts))
                if e.base.is_positive:
                    self.side.append(r > 0)
            n = int(e.exp.p)
            acc = r
            for _ in range(abs(n) - 1):
                acc = acc * r
            return acc if n > 0 else 1 / acc
        if isinstance(e, sp.exp):
            parts = sp.Add.make_args(sp.expand_mul(e.args[0]))
            if len(parts) > 1 or any(_log_multiple(t) or _fraction(t) for t in parts):
                acc = None
                for t in parts:
                    lm = _log_multiple(t)
                    f = (self.term(sp.Pow(lm[1], lm[0])) if lm else
                         self.term(sp.Pow(sp.E, t, evaluate=False)) if _fraction(t) else self.term(sp.exp(t)))
                    acc = f if acc is None else acc * f
                return acc
            k, y = parts[0].as_coeff_Mul()
            if k.is_Integer and k not in (0, 1) and y.is_Symbol:  # exp(k y) = exp(y)**k: one atom for exp(y)
                return self.term(sp.Pow(sp.exp(y), k, evaluate=False))
            return self._opaque(e)
        if isinstance(e, sp.log):
            ex = sp.expand_log(e)
            if ex != e:
                return self.term(ex)
            return self._opaque(e)
        if isinstance(e, sp.Pow) and e.exp.is_Integer:
            n = int(e.exp)
            b = self.term(e.base)
            if n == 0:
                return z3.RealVal(1)
            acc = b
            for _ in range(abs(n) - 1):
                acc = acc * b
            if n < 0:  # z3's x/0 is some real: a proof holds wherever the expression is defined
                return 1 / acc
            return acc
        if isinstance(e, (sp.Min, sp.Max)):
            args = [self.term(a) for a in e.args]
            acc = args[0]
            for a in args[1:]:
                acc = z3.If(a < acc, a, acc) if isinstance(e, sp.Min) else z3.If(a > acc, a, acc)
            return acc
        return self._opaque(e)

    def rel(self, r: sp.Basic) -> Any:
        z3 = self.z3
        if r is sp.true or r == True:  # noqa: E712 - sympy's true
            return z3.BoolVal(True)
        if r is sp.false or r == False:  # noqa: E712
            return z3.BoolVal(False)
        if isinstance(r, sp.And):
            return z3.And(*[self.rel(a) for a in r.args])
        if isinstance(r, sp.Or):
            return z3.Or(*[self.rel(a) for a in r.args])
        if isinstance(r, sp.Not):
            return z3.Not(self.rel(r.args[0]))
        if isinstance(r, sp.Implies):
            return z3.Implies(self.rel(r.args[0]), self.rel(r.args[1]))
        a, op, b = _rel_parts(r)
        x, y = self.term(a), self.term(b)
        return {"==": lambda: x == y, ">=": lambda: x >= y, ">": lambda: x > y, "<=": lambda: x <= y,
                "<": lambda: x < y}[op]()


def _log_multiple(t: sp.Basic) -> tuple[sp.Expr, sp.Expr] | None:
    """``(k, x)`` when ``t == k*log(x)`` with x positive and k free of logarithms (exp(t) = x**k), else None."""
    logs = [f for f in sp.Mul.make_args(t) if isinstance(f, sp.log) and f.args[0].is_positive]
    if len(logs) != 1:
        return None
    k = sp.Mul(*[f for f in sp.Mul.make_args(t) if f is not logs[0]])
    if k.has(sp.log):
        return None
    return k, logs[0].args[0]


def _fraction(t: sp.Basic) -> bool:
    """``t`` is a rational number that is not an integer: exp(t) = e**t is then a power of a root of e (the root's
    q-th power is e), which relates exp(1/2), exp(-1/2) and e for z3."""
    return bool(t.is_Rational and not t.is_Integer)


#: ``srepr`` and :func:`_canon` of the statements compared by :func:`_same`, per tree (a sympy tree is immutable and
#: compares by structure, as in sympy's own cache): the premises of a chain are compared with the goal of every step
#: and the goal with every premise, each comparison once expanded and printed otherwise.
_TREES: dict[tuple[str, Any], Any] = {}


def _per_tree(kind: str, e: Any, compute: Callable[[Any], Any]) -> Any:
    key = (kind, e)
    try:
        return _TREES[key]
    except KeyError:
        pass
    value = compute(e)
    if len(_TREES) >= _MEMO_MAX:
        _TREES.clear()
    _TREES[key] = value
    return value


def _canon(r: sp.Basic) -> tuple[str, sp.Expr] | None:
    """A relation as ``(op, a - b)`` with op in >, >=, == (``a < b`` is ``b - a > 0``)."""
    return _per_tree("canon", r, _canon_of)  # type: ignore[no-any-return]


def _canon_of(r: sp.Basic) -> tuple[str, sp.Expr] | None:
    try:
        a, op, b = _rel_parts(r)
    except CertificateError:
        return None
    if op in ("<", "<="):
        a, b, op = b, a, {"<": ">", "<=": ">="}[op]
    return op, sp.expand(a - b)


def _same(a: sp.Basic, b: sp.Basic) -> bool:
    """The same statement: equal trees, or the same relation written the other way round."""
    if a == b or _per_tree("srepr", a, sp.srepr) == _per_tree("srepr", b, sp.srepr):
        return True
    ca, cb = _canon(a), _canon(b)
    return ca is not None and cb is not None and ca[0] == cb[0] and (ca[1] - cb[1]) == 0


def entails(premises: list[sp.Basic], goal: sp.Basic, symbols: list[sp.Symbol], *, timeout_ms: int = 10000) -> bool:
    """True when z3 proves ``premises => goal`` (symbols' domains added; non-polynomial subterms opaque)."""
    key = ("entails", tuple(sp.srepr(p) for p in premises), sp.srepr(goal), tuple(sp.srepr(s) for s in symbols),
           timeout_ms)
    return bool(_remember(key, lambda: _entails(premises, goal, symbols, timeout_ms=timeout_ms)))


def _entails(premises: list[sp.Basic], goal: sp.Basic, symbols: list[sp.Symbol], *, timeout_ms: int) -> bool:
    if any(_same(p, goal) for p in premises):
        return True
    if isinstance(goal, sp.And):  # one conjunct at a time
        return all(entails(premises, g, symbols, timeout_ms=timeout_ms) for g in goal.args)
    if isinstance(goal, sp.Implies):  # move the antecedent among the premises
        return entails([*premises, goal.args[0]], goal.args[1], symbols, timeout_ms=timeout_ms)
    import z3

    tr = _Z3()
    s = z3.Solver()
    s.set("rlimit", RLIMIT)  # a deterministic resource limit: the answer does not depend on the machine's load
    s.set("timeout", max(timeout_ms, 120000))
    for sym in symbols:
        tr.term(sym)
    for p in premises:
        s.add(tr.rel(p))
    s.add(z3.Not(tr.rel(goal)))
    for c in tr.side:
        s.add(c)
    return s.check() == z3.unsat


# ----------------------------------------------------------------------------- steps

def _box_from(hyps: list[sp.Basic], names: set[str]) -> dict[str, list[sp.Rational]]:
    """The box ``{x: [lo, hi]}`` that the hypotheses state with numbers (``lo <= x``, ``x <= hi``)."""
    lo: dict[str, sp.Rational] = {}
    hi: dict[str, sp.Rational] = {}
    for h in hyps:
        try:
            a, op, b = _rel_parts(h)
        except CertificateError:
            continue
        for sym, num, upper in ((a, b, op in ("<=", "<")), (b, a, op in (">=", ">"))):
            if getattr(sym, "is_Symbol", False) and num.is_Rational and op != "==":
                table = hi if upper else lo
                v = sp.Rational(num)
                if sym.name not in table or (upper and v < table[sym.name]) or (not upper and v > table[sym.name]):
                    table[sym.name] = v
    missing = sorted(n for n in names if n not in lo or n not in hi)
    if missing:
        raise CertificateError(f"the step's hypotheses give no numeric box for {missing}")
    for n in names:
        if lo[n] > hi[n]:
            raise CertificateError(f"empty box for {n}: [{lo[n]}, {hi[n]}]")
    return {n: [lo[n], hi[n]] for n in names}


def _sign_proved(g: sp.Expr, strict: bool) -> bool:
    for cand in _sign_candidates(g, together=True):
        if (cand.is_positive if strict else cand.is_nonnegative) is True:
            return True
    return False


def _zero(e: sp.Expr) -> bool:
    if e == 0:
        return True
    cand = sp.simplify(sp.expand(e))
    if cand == 0:
        return True
    for c in (cand, e):
        if sp.simplify(sp.expand_log(sp.powsimp(sp.expand(c)))) == 0:  # no force=True: it ignores branch conditions
            return True
    return False


def check_step(step: dict[str, Any]) -> None:
    """Re-establish one step (its hypotheses imply its conclusion); raise :class:`CertificateError` if not."""
    _remember(("step", _key(step)), lambda: _check_step(step))


def _check_step(step: dict[str, Any]) -> None:
    method = step.get("method")
    if method not in METHODS:
        raise CertificateError(f"unknown step method {method!r}")
    hyps = [_read(h) for h in step.get("hypotheses", [])]
    concl = _read(step["conclusion"])
    name = step.get("name", "")
    if concl is sp.true or concl == True:  # noqa: E712 - a relation sympy decided on construction
        raise CertificateError(f"step {name!r}: trivial (its conclusion evaluated to True on construction)")
    if concl is sp.false or concl == False:  # noqa: E712
        raise CertificateError(f"step {name!r}: its conclusion is False")
    if method == "cited":
        if not step.get("citation"):
            raise CertificateError(f"step {name!r}: a cited step must name its citation")
        return
    if method == "identity":
        a, op, b = _rel_parts(concl)
        if op != "==":
            raise CertificateError(f"step {name!r}: an identity step concludes an equation")
        if _same(a, b):
            raise CertificateError(f"step {name!r}: trivial (both sides are the same expression)")
        if not _zero(a - b):
            raise CertificateError(f"step {name!r}: sympy does not reduce {a} - ({b}) to 0")
        return
    if method == "sign":
        g, strict = _as_nonneg_goal(concl)
        slacks = {k: _read(v) for k, v in step.get("slacks", {}).items()}
        if slacks:
            w = _read(step["witness"])
            syms = {s.name: s for s in w.free_symbols}
            for tname, e in slacks.items():
                if tname not in syms or not syms[tname].is_nonnegative:
                    raise CertificateError(f"step {name!r}: slack {tname} must be a nonnegative symbol of the witness")
                if not any(_same(h, sp.Ge(e, 0)) or _same(h, sp.Le(0, e)) or _same(h, sp.Gt(e, 0))
                           or _same(h, sp.Lt(0, e)) for h in hyps):
                    raise CertificateError(f"step {name!r}: slack {tname} = {e} has no hypothesis {e} >= 0")
            back = w.subs({syms[t]: e for t, e in slacks.items()})
            if not _zero(g - back):
                raise CertificateError(f"step {name!r}: the witness does not equal the difference")
            target = w
        else:
            target = g
        if _is_trivial_expr(target):
            raise CertificateError(f"step {name!r}: trivial sign certificate ({target}); fold it into its neighbour")
        if not _sign_proved(target, strict):
            raise CertificateError(f"step {name!r}: sympy does not prove {target} {'>' if strict else '>='} 0")
        return
    if method == "smt":
        free = sorted(set().union(*[h.free_symbols for h in hyps], concl.free_symbols), key=lambda s: s.name)
        if not entails(hyps, concl, free, timeout_ms=int(step.get("timeout_ms", 20000))):
            raise CertificateError(f"step {name!r}: z3 does not prove the hypotheses imply {concl}")
        return
    if method == "interval":
        g, strict = _as_nonneg_goal(concl)
        if _is_trivial_expr(g):
            raise CertificateError(f"step {name!r}: trivial interval certificate")
        names = {s.name for s in g.free_symbols}
        box = _box_from(hyps, names)
        _check_interval({"expr": sp.srepr(g), "relation": "> 0" if strict else ">= 0",
                         "box": {n: [str(lo), str(hi)] for n, (lo, hi) in box.items()},
                         "max_boxes": int(step.get("max_boxes", 200000))})
        return
    if method == "monotone":
        funcs = {"exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt}
        fname = step.get("func")
        if fname not in funcs or not hyps:
            raise CertificateError(f"step {name!r}: a monotone step names func in {sorted(funcs)} and a hypothesis a <= b")
        a, op, b = _rel_parts(hyps[0])
        if op in (">=", ">"):  # b <= a written the other way round
            a, b, op = b, a, {">=": "<=", ">": "<"}[op]
        if op not in ("<=", "<"):
            raise CertificateError(f"step {name!r}: its first hypothesis must be an inequality a <= b or a < b")
        F = funcs[fname]
        want = (sp.Lt if op == "<" else sp.Le)(F(a), F(b))
        if not _same(concl, want):
            raise CertificateError(f"step {name!r}: the conclusion is not {want}")
        if fname != "exp":
            pos = sp.Gt(a, 0) if fname == "log" else sp.Ge(a, 0)
            known = a.is_positive if fname == "log" else a.is_nonnegative
            if not (known or any(_same(h, pos) for h in hyps[1:])):
                raise CertificateError(f"step {name!r}: needs {pos}")
        return
    if method == "elementary":
        x = _read(step["arg"])
        kind = str(step.get("bound"))
        want = {"log": sp.Le(sp.log(x), x - 1, evaluate=False),
                "exp": sp.Ge(sp.exp(x), 1 + x, evaluate=False)}.get(kind)
        if want is None or not _same(concl, _reval(want)):
            raise CertificateError(f"step {name!r}: an elementary step concludes log(x) <= x - 1 or exp(x) >= 1 + x")
        if kind == "log" and not (x.is_positive or any(_same(h, sp.Gt(x, 0)) for h in hyps)):
            raise CertificateError(f"step {name!r}: log(x) <= x - 1 needs x > 0")
        return
    if method == "evaluate":
        a, op, b = _rel_parts(concl)
        if concl.free_symbols:
            raise CertificateError(f"step {name!r}: an evaluated step must be closed")
        _check_evaluate({"lhs": sp.srepr(a), "relation": op, "rhs": sp.srepr(b),
                         "unevaluated": bool(step.get("unevaluated"))})
        return


def _decide_closed(r: sp.Basic) -> bool | None:
    """Decide a closed relation exactly or by separated intervals; None when undecided."""
    if r is sp.true or r == True:  # noqa: E712
        return True
    if r is sp.false or r == False:  # noqa: E712
        return False
    if isinstance(r, sp.Implies):
        return _decide_closed(sp.Or(sp.Not(r.args[0], evaluate=False), r.args[1], evaluate=False))
    if isinstance(r, (sp.And, sp.Or, sp.Not)):
        vals = [_decide_closed(a) for a in r.args]
        if isinstance(r, sp.Not):
            return None if vals[0] is None else not vals[0]
        if isinstance(r, sp.And):
            return False if False in vals else (None if None in vals else True)
        return True if True in vals else (None if None in vals else False)
    try:
        a, op, b = _rel_parts(r)
    except CertificateError:
        return None
    try:
        _check_evaluate({"lhs": sp.srepr(a), "relation": op, "rhs": sp.srepr(b)})
        return True
    except (CertificateError, TypeError, ValueError, ZeroDivisionError):
        pass
    neg = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!="}[op]
    try:
        _check_evaluate({"lhs": sp.srepr(a), "relation": neg, "rhs": sp.srepr(b)})
        return False
    except (CertificateError, TypeError, ValueError, ZeroDivisionError):
        return None


def search_counterexample(claim: dict[str, Any], *, count: bool = False) -> Any:
    """The first sample point satisfying the hypotheses (and conditions) where the conclusion is decided false
    (None if none); with ``count=True``, ``(that point, the number of sample points in the domain)``."""
    return _remember(("search", _key(claim), count), lambda: _search_counterexample(claim, count=count))


def _search_counterexample(claim: dict[str, Any], *, count: bool = False) -> Any:
    import itertools

    symbols = {s.name: s for s in (_read(x) for x in claim["symbols"])}
    raw = claim.get("samples") or []
    samples = dict(raw) if isinstance(raw, list) else dict(raw)  # a list of [name, values] keeps the order
    inside = 0
    if not samples:
        return (None, 0) if count else None
    names = [n for n in samples if n in symbols]
    hyps = ([_read(h) for h in claim.get("hypotheses", [])] + [_read(c[0]) for c in claim.get("conditions", [])]
            + [_read(g[0]) for g in claim.get("given", [])])
    concl = _read(claim["conclusion"])
    written = list(itertools.product(*(samples[n] for n in names)))
    derived = []  # each symbol moved, one at a time, to its boundaries in the hypotheses (the first two written points)
    for i, n in enumerate(names):
        for bv in _boundary_values(symbols[n], set(names[:i]), hyps):
            derived += [(*base[:i], bv, *base[i + 1:]) for base in written[:2]]
    mine = set(written)
    # An instance's decision depends only on the values of the symbols in it: a hypothesis in one or two symbols
    # is decided once per value of those, not again at every point of the product that repeats them.
    decided: dict[tuple[Any, ...], bool | None] = {}
    frees = [h.free_symbols for h in hyps] + [concl.free_symbols]

    def decide(i: int, point: dict[Any, Any]) -> bool | None:
        """Hypothesis ``i`` (the conclusion for ``i = len(hyps)``) at ``point``, decided as an instance."""
        key = (i, *((s.name, sp.srepr(v)) for s, v in point.items() if s in frees[i]))
        if key not in decided:
            if i < len(hyps):
                decided[key] = _decide_closed(_reval(hyps[i].subs(point).doit()))
            else:
                inst = _reval(concl.subs(point).doit())
                decided[key] = None if inst.free_symbols else _decide_closed(inst)
        return decided[key]

    for values in dict.fromkeys(written + derived):
        counted = False
        for exact in (True, False):  # the values as written, else irrational ones rounded just above
            point = _sample_point(names, values, symbols, exact)
            if point is None or any(not _domain_ok(s, v) for s, v in point.items()):
                continue
            if values not in mine and not all(_moderate(v) for v in point.values()):
                continue  # a derived point whose exact evaluation would be huge (q^n with n in the millions)
            if any(decide(i, point) is not True for i in range(len(hyps))):
                continue
            if not counted:
                inside, counted = inside + 1, True
            verdict = decide(len(hyps), point)
            if verdict is False:
                found = {s.name: str(v) for s, v in point.items()}
                return (found, inside) if count else found
            if verdict is True:
                break
    return (None, inside) if count else None


#: How far inside a boundary the derived points lie, relative to 1 + |boundary|.
INSIDE = (sp.Rational(1, 10**6), sp.Rational(1, 100))


def _moderate(v: Any) -> bool:
    """A value small enough to evaluate the claim at exactly: an integer up to 10^4, a rational of moderate size."""
    if v.is_Integer:
        return bool(abs(v) <= 10**4)
    if v.is_Rational:
        return bool(abs(v.p) <= 10**15 and v.q <= 10**15)
    return True


def _boundary_values(sym: sp.Symbol, earlier: set[str], hyps: list[Any]) -> list[str]:
    """Sample values for ``sym`` derived from the hypotheses that bound it (``sym >= e``, ``sym < e``, ...) by an
    expression ``e`` in the symbols sampled before it: the boundary itself where it is allowed, and points just
    inside it (for an integer symbol the first two integers inside)."""
    out: list[str] = []
    for h in hyps:
        try:
            a, op, b = _rel_parts(h)
        except CertificateError:
            continue
        if op == "==":
            continue
        for side, e, upper in ((a, b, op in ("<", "<=")), (b, a, op in (">", ">="))):
            if side != sym or not {x.name for x in e.free_symbols} <= earlier:
                continue
            strict = op in ("<", ">")
            if sym.is_integer:
                first = (sp.ceiling(e) - 1 if strict else sp.floor(e)) if upper else (
                    sp.floor(e) + 1 if strict else sp.ceiling(e))
                vals = [first, first - 1 if upper else first + 1]
            else:
                vals = ([] if strict else [e]) + [e - (1 + abs(e)) * r if upper else e + (1 + abs(e)) * r
                                                   for r in INSIDE]
            out += [str(v) for v in vals]
    return list(dict.fromkeys(out))


def _sample_point(names: list[str], values: tuple[Any, ...], symbols: dict[str, Any], exact: bool) -> Any:
    """The sample point (symbol -> value); ``exact=False`` rounds irrational values to a rational just above."""
    point: dict[Any, Any] = {}
    for n, v in zip(names, values):
        val = _parse(str(v), symbols).subs(point).doit()
        if val.free_symbols:
            return None
        if not val.is_Rational and not exact:
            try:
                with mpmath.workdps(30):
                    enc = _iv_eval(val, {})
            except (CertificateError, ZeroDivisionError, ValueError, TypeError):
                return None
            man, ex = mpmath.mpf(enc.b).man_exp
            val = sp.Integer(man) * sp.Rational(2) ** ex
            val = val + abs(val) / 10**20  # just above: a lower bound stated as a sample stays satisfied
        point[symbols[n]] = val
    return point


def _domain_ok(s: sp.Symbol, v: Any) -> bool:
    try:
        checks = ((s.is_positive, bool(v > 0)), (s.is_nonnegative, bool(v >= 0)), (s.is_integer, bool(v.is_integer)),
                  (s.is_negative, bool(v < 0)))
    except TypeError:
        return False
    return all(ok for flag, ok in checks if flag)


def check_proof(doc: dict[str, Any]) -> dict[str, Any]:
    """Check a proof document: every step, the composition, and the counterexample search.

    Returns ``{"status": "closed" | "open" | "refuted", "cited": [...], "failures": [...],
    "counterexample": {...} | None, "nontrivial": int}``. ``closed`` means: the claim's domain has a
    witness (a sample point that satisfies every hypothesis, decided exactly) and its hypotheses are not
    contradictory; the conclusion does not follow from the hypotheses alone (else the chain must be the one
    step that proves it); every step is re-established and its hypotheses are the claim's or earlier
    conclusions; the claim's conclusion follows from the hypotheses and the conclusions; every step is used
    (without it the chain no longer closes); at least one step is certified (not cited); no cited step
    alone carries the claim; and the premises are consistent. ``refuted``: a sample point of the claim's
    domain violates the conclusion. Anything else is ``open``, with the reasons.
    """
    return _remember(("proof", _key(doc)), lambda: _check_proof(doc))


def _check_proof(doc: dict[str, Any]) -> dict[str, Any]:
    claim = doc["claim"]
    symbols = [_read(s) for s in claim["symbols"]]
    if not all(getattr(s, "is_Symbol", False) for s in symbols):
        raise CertificateError("the claim's symbols must be symbols")
    given = claim.get("given", [])
    hyps = ([_read(h) for h in claim.get("hypotheses", [])] + [_read(c[0]) for c in claim.get("conditions", [])]
            + [_read(g[0]) for g in given])
    concl = _read(claim["conclusion"])
    steps = doc.get("steps", [])
    failures: list[str] = []
    cited: list[str] = [g[1] for g in given]
    ce, witnesses = search_counterexample(claim, count=True)
    if ce is not None:
        return {"status": "refuted", "cited": [], "failures": [], "counterexample": ce,
                "nontrivial": sum(1 for s in steps if s.get("method") != "cited")}
    if any(h is sp.false or h == False for h in hyps) or entails(hyps, sp.Lt(1, 0), symbols):  # noqa: E712
        failures.append("the claim's hypotheses contradict each other: the claim is vacuous")
    if not witnesses:
        failures.append("the claim's domain is not shown non-empty: no sample point satisfies every hypothesis")
    own = hyps[: len(hyps) - len(given)]  # the claim's hypotheses and conditions, without the given results
    trivial_claim = entails(own, concl, symbols)
    if trivial_claim and not (len(steps) == 1 and steps[0].get("method") == "smt"
                              and _same(_read(steps[0]["conclusion"]), concl)):
        failures.append("the conclusion follows from the hypotheses alone: the proof is the single smt step that "
                        "concludes it, and any other step is decorative")
    conjuncts = list(concl.args) if isinstance(concl, sp.And) else [concl]
    if given and not trivial_claim and entails(hyps, concl, symbols):
        failures.append("the given (cited) results alone carry the claim: nothing of it is certified here")
    premises = list(hyps)
    used: list[tuple[str, Any, str]] = []
    linked: set[int] = set()
    for i, step in enumerate(steps):
        name = step.get("name", str(i))
        try:
            check_step(step)
        except CertificateError as exc:
            failures.append(f"step {name!r}: {exc}")
            continue
        ok = True
        for h in step.get("hypotheses", []):  # a link: literally a hypothesis of the claim or an earlier conclusion
            hr = _read(h)
            src = [p for p in premises if _same(p, hr)]
            if not src:
                failures.append(f"step {name!r}: its hypothesis {hr} is neither a hypothesis of the claim nor the "
                                "conclusion of an earlier step")
                ok = False
            linked.update(id(p) for p in src)
        if not ok:
            continue
        c = _read(step["conclusion"])
        if step["method"] == "cited":
            bad = _standard_failures(step, premises, symbols)
            if bad:
                failures += bad
                continue
            cited.append(step["citation"])
            for part in conjuncts:  # an And is several claims: a citation may not be any of them
                if not entails(own, part, symbols) and entails([*own, c], part, symbols):
                    failures.append(f"step {name!r}: a cited step alone carries (part of) the claim, {part}: the "
                                    "citation would be the claim")
        premises.append(c)  # its hypotheses are all established: it holds
        used.append((name, c, step["method"]))
    if not steps:
        failures.append("no steps: a proof is a chain of at least one step")
    if steps and all(s.get("method") == "cited" for s in steps):
        failures.append("every step is cited: nothing of the claim is certified here")
    closes = entails(premises, concl, symbols)
    if not closes:
        failures.append(f"the chain does not close: the claim's conclusion {concl} does not follow from its "
                        "hypotheses and the certified steps")
    elif not trivial_claim and not failures:
        for name, c, _m in used:  # every step is needed: a later step links to it, or the closing needs it
            if id(c) in linked or _same(c, concl):  # linked to a later step, or the step that concludes the claim
                continue
            rest = [p for p in premises if p is not c]
            if entails(rest, concl, symbols):
                failures.append(f"step {name!r} is not used: the chain closes without it")
        if entails(premises, sp.Lt(1, 0), symbols):
            failures.append("the hypotheses and the steps' conclusions contradict each other")
    nontrivial = sum(1 for s in steps if s.get("method") != "cited")
    status = "closed" if not failures else "open"
    return {"status": status, "cited": list(dict.fromkeys(cited)), "failures": failures, "counterexample": None,
            "nontrivial": nontrivial}
