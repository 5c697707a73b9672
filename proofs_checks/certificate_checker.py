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
    sympy proves ``expr >= 0`` from the symbols' assumptions (an undecided answer fails).
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

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import mpmath
import sympy as sp

__all__ = ["CertificateError", "check_certificate", "check_file", "check_directory", "KINDS"]


class CertificateError(AssertionError):
    """A certificate does not re-establish its statement."""


def _expr(text: str) -> sp.Expr:
    return sp.sympify(text, locals={}, evaluate=True) if text else sp.Integer(0)


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
        if sp.simplify(sp.expand_log(sp.powsimp(sp.expand(c), force=True), force=True)) == 0:
            return
    raise CertificateError(f"sympy does not reduce {cert['lhs']} - ({cert['rhs']}) to 0")


def _check_sympy_nonneg(cert: dict[str, Any]) -> None:
    e = _expr(cert["expr"])
    for cand in (e, sp.simplify(e), sp.factor(sp.simplify(e)), sp.expand(e)):
        if cand.is_nonnegative is True:
            return
    raise CertificateError(f"sympy does not prove {cert['expr']} >= 0")


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
    raise CertificateError(f"interval evaluation does not support {type(e).__name__}")


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
        stack = [start]
        boxes = 0
        while stack:
            box = stack.pop()
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
    kind = cert.get("kind")
    if kind not in KINDS:
        raise CertificateError(f"unknown certificate kind {kind!r}")
    if kind == "interval" and not cert.get("reduction"):
        raise CertificateError("an interval certificate must state how its box covers the claim's domain")
    KINDS[kind](cert)


def check_file(path: Path) -> int:
    """Re-check every certificate in one JSON file (``{"id": ..., "facts": [...]}``); return their number."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    n = 0
    for fact in data["facts"]:
        for cert in fact.get("certificates", []):
            try:
                check_certificate(cert)
            except CertificateError as exc:
                raise CertificateError(f"{data['id']}: {fact['statement'][:80]}: {exc}") from None
            n += 1
    return n


def check_directory(folder: Path) -> dict[str, int]:
    """Re-check every ``*.json`` certificate file in ``folder``; return {file name: certificates checked}."""
    files: Iterable[Path] = sorted(Path(folder).glob("*.json"))
    return {p.name: check_file(p) for p in files}
