"""Running the checks and writing ``proofs_checks/REPORT.md`` (deterministic: fixed seeds, no timings)."""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from semiprivate.proofs_checks._framework import Check, Role, Verdict, registry
from semiprivate.proofs_checks.expected import EXPECTED

__all__ = ["Outcome", "run_all", "render_table", "render_markdown", "write_report", "REPORT_PATH",
           "default_report_path", "CERTIFICATES_DIR", "default_certificates_dir", "render_certificates",
           "write_certificates", "recheck_certificates", "QuickOutcome", "quick_outcomes"]

#: The committed report of a source checkout.
REPORT_PATH = Path(__file__).with_name("REPORT.md")
#: File name used outside a source checkout (an installed copy), in the current folder.
INSTALLED_REPORT_NAME = "proofs_checks_REPORT.md"
#: The committed certificates of a source checkout (one JSON file per check).
CERTIFICATES_DIR = Path(__file__).with_name("certificates")
#: Folder name used outside a source checkout, in the current folder.
INSTALLED_CERTIFICATES_NAME = "proofs_checks_certificates"


def default_report_path() -> Path:
    """Where ``python -m semiprivate.proofs_checks`` writes by default.

    In a source checkout (``proofs_checks/`` beside a ``pyproject.toml``, not under a
    ``site-packages`` / ``dist-packages`` folder, writable): ``proofs_checks/REPORT.md``, the
    committed report.  In an installed copy: ``./proofs_checks_REPORT.md`` in the current
    folder -- never into the installation.
    """
    pkg = Path(__file__).resolve().parent
    installed = any(part in ("site-packages", "dist-packages") for part in pkg.parts)
    if not installed and (pkg.parent / "pyproject.toml").is_file() and os.access(pkg, os.W_OK):
        return REPORT_PATH
    return Path.cwd() / INSTALLED_REPORT_NAME

def source_checkout() -> bool:
    """True in a source checkout (where the committed report and certificates live)."""
    return default_report_path() == REPORT_PATH


def default_certificates_dir() -> Path:
    """Where ``--certificates`` writes: ``proofs_checks/certificates/`` in a source checkout, else ``./proofs_checks_certificates``."""
    if default_report_path() == REPORT_PATH:
        return CERTIFICATES_DIR
    return Path.cwd() / INSTALLED_CERTIFICATES_NAME


HEADER = (
    "<!-- GENERATED FILE: do not edit. Regenerate with `python -m semiprivate.proofs_checks`; "
    "tests/proofs_checks checks that it is up to date. -->"
)


@dataclass(frozen=True)
class Outcome:
    """The result of running one registered check: its record, or the error it raised."""

    id: str
    check: Check | None
    error: str | None

    @property
    def verdict(self) -> Verdict | None:
        return None if self.check is None else self.check.verdict

    @property
    def expected(self) -> Verdict | None:
        return EXPECTED.get(self.id)

    @property
    def as_expected(self) -> bool:
        return self.error is None and self.verdict is self.expected


_CACHE: list[Outcome] | None = None


def _checked_only(only: object, known: Iterable[str]) -> list[str] | None:
    """``only`` as a list of check ids (None: every check); a TypeError / ValueError naming ``only`` otherwise."""
    if only is None:
        return None
    if isinstance(only, (str, bytes)) or not isinstance(only, (list, tuple)) or not all(isinstance(c, str) for c in only):
        raise TypeError(f"only must be None or a list of check ids (str), got {only!r}")
    if not only:
        raise ValueError("only must name at least one check (None runs them all)")
    unknown = sorted(set(only) - set(known))
    if unknown:
        raise ValueError(f"only names unknown check(s) {unknown}")
    return sorted(set(only))


def run_all(*, use_cache: bool = True, only: list[str] | None = None) -> list[Outcome]:
    """Run every registered check (sorted by id); errors are captured, never turned into a verdict.

    ``only``: the ids of the checks to run (default: every check), e.g. ``["PILLAR.Alg2.total"]``; a check that
    rests on another check runs that one too, as it always does.  The outcomes of the full run are kept for the
    process (``use_cache=False`` runs the checks again); a run with ``only`` reads them when they are there.

    Examples
    --------
    >>> outs = run_all()
    >>> all(o.as_expected for o in outs)
    True
    >>> [o.verdict.value for o in run_all(only=["ABM19.Lem4.4.confidence"])]
    ['FAILS']
    """
    global _CACHE
    reg = registry()
    ids = _checked_only(only, reg)
    if use_cache and _CACHE is not None:
        return list(_CACHE) if ids is None else [o for o in _CACHE if o.id in ids]
    outs = []
    for cid in sorted(reg) if ids is None else ids:
        try:
            outs.append(Outcome(cid, reg[cid](), None))
        except Exception as exc:  # noqa: BLE001 - a check error is a reported result
            outs.append(Outcome(cid, None, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"))
    if ids is None:
        _CACHE = outs
    return list(outs)


def _short(text: str, n: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def _kinds(c: Check) -> str:
    return ", ".join(c.certificate_kinds) or "-"


def _formal_step(step: dict[str, object]) -> str:
    import sympy as sp

    hyps = [sp.sstr(sp.sympify(h)) for h in step["hypotheses"]]  # type: ignore[attr-defined]
    concl = sp.sstr(sp.sympify(step["conclusion"]))
    text = (" and ".join(hyps) + " => " if hyps else "") + concl
    return text.replace("`", "'").replace("|", "\\|")


def _steps_cell(c: Check) -> str:
    n, nontrivial, cited = c.steps
    return f"{n} ({nontrivial} certified, {cited} cited)" if c.proof is not None else "no formal claim"


def render_table(outs: list[Outcome]) -> str:
    """Plain-text table: id, claim, method, certificate kinds, verdict (for the console)."""
    rows = [("id", "claim", "method", "steps", "verdict")]
    for o in outs:
        if o.check is None:
            rows.append((o.id, "", "", "", "ERROR"))
        else:
            rows.append((o.id, _short(o.check.claim, 60), o.check.method, _steps_cell(o.check), o.check.verdict.value))
    w = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * x for x in w))
    return "\n".join(lines)


def _md_cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render_markdown(outs: list[Outcome]) -> str:
    """The full report: summary counts, the verdict table, and one section per check."""
    counts = {v: sum(1 for o in outs if o.verdict is v) for v in Verdict}
    errors = [o for o in outs if o.error is not None]
    out = [HEADER, "", "# Machine-checked steps of the four papers", "",
           "Each check states its claim formally (symbols with their domains, hypotheses, conclusion, as sympy "
           "objects, next to the paper's sentence) and proves it by a chain of steps, each step's hypotheses being the "
           "claim's hypotheses or earlier steps' conclusions. The verdict is what the independent checker "
           "(`semiprivate.proofs_checks.certificate_checker`, which imports only sympy, mpmath and z3) concludes: it "
           "re-establishes every step (a sympy identity or sign, a z3 implication with non-polynomial subterms opaque, "
           "an interval branch-and-bound over the box the step's hypotheses state, an exact evaluation, or a monotone "
           "function applied to a hypothesis), checks that the chain composes (z3: every step's hypotheses follow from "
           "the claim's hypotheses and the earlier conclusions, and the claim's conclusion follows from all of them), "
           "and searches the claim's domain for a counterexample (exact, or separated intervals). "
           "**HOLDS**: the chain closes. **HOLDS GIVEN**: it closes with cited steps (listed). **HOLDS WITH "
           "CONDITION**: it closes only with extra hypotheses the paper does not state (listed). **FAILS**: a "
           "counterexample is re-verified exactly. **UNPROVED**: no formal claim, or the chain does not close, or it "
           "rests on one of these checks (named in a citation) that does not read HOLDS or HOLDS GIVEN (the "
           "reasons are listed). A cited step that names a standard result (Hoeffding, Bernoulli, Sauer-Shelah for "
           "the XOR class, the union bound over cuts, amplification by sub-sampling, the binomial tail over "
           "k-subsets, Stirling's lower bound, Chebyshev) must be an instance of the checker's table of standard results. The counterexample search uses the written sample points and points derived from the "
           "hypotheses' boundaries (each boundary and points just inside it). Grids, hypothesis searches and simulations are observations and never a step; the "
           "certified facts listed under a check without a closed chain support the text but prove nothing on their "
           "own. `python -m semiprivate.proofs_checks --certificates` writes every claim, chain and certificate to "
           "`proofs_checks/certificates/`, and `--recheck` re-runs the checker on them (a recorded verdict that the "
           "chain no longer supports, or a claim that is not the one pinned in `expected.CLAIM_SHA256`, fails the "
           "recheck).", "",
           f"**{len(outs)} checks:** " + ", ".join(f"{counts[v]} {v.value}" for v in Verdict)
           + (f", {len(errors)} ERRORS" if errors else "") + ".", "",
           "| id | claim | steps | verdict |", "|---|---|---|---|"]
    for o in outs:
        if o.check is None:
            out.append(f"| {o.id} | (check raised an error) | | **ERROR** |")
        else:
            c = o.check
            out.append(f"| [{c.id}](#{c.id.lower().replace('.', '')}) | {_md_cell(_short(c.claim, 140))} "
                       f"| {_steps_cell(c)} | **{c.verdict.value}** |")
    out += ["", "## Details", ""]
    for o in outs:
        out.append(f"### {o.id}")
        out.append("")
        if o.check is None:
            out += ["**ERROR**", "", "```", (o.error or "").strip(), "```", ""]
            continue
        c = o.check
        out += [f"**Claim.** {c.claim}", "", f"**Method.** {c.method}", "", f"**Verdict.** {c.verdict.value}", ""]
        if c.proof is not None:
            out += ["**Stated formally.** `" + c.proof.claim.formal().replace("`", "'") + "`", ""]
            out += ["**Proof chain.**", ""]
            for i, st in enumerate(c.proof.steps, 1):
                tail = f" -- cited: {_md_cell(st['citation'])}" if st["method"] == "cited" else ""
                out.append(f"{i}. {_md_cell(st['name'])}: `{_formal_step(st)}` [{st['method']}]{tail}")
            out.append("")
            if c.open_reasons:
                out += ["**Why the chain does not close.**", ""] + [f"- {_md_cell(r)}" for r in c.open_reasons] + [""]
        if c.citations:
            out += ["**Given (cited).** " + "; ".join(_md_cell(x) for x in c.citations), ""]
        if c.condition:
            out += [f"**Condition.** {c.condition}", ""]
        if c.counterexample:
            out += [f"**Counterexample.** {c.counterexample}", ""]
        if c.corrected:
            out += [f"**Corrected statement.** {c.corrected}", ""]
        out += ["**What was verified.**", "", c.details, ""]
        for role, title in ((Role.REFUTES, "Certified counterexample"),
                            (Role.PROVES, "Certified facts (supporting; the verdict comes from the chain)"),
                            (Role.CITES, "Cited"), (Role.OBSERVES, "Observed (counterexample search, not a proof)")):
            facts = [f for f in c.facts if f.role is role]
            if facts:
                out += [f"**{title}.**", ""]
                for f in facts:
                    kinds = ", ".join(dict.fromkeys(x["kind"] for x in f.certificates))
                    tail = f" [{kinds}]" if kinds else ""
                    cond = f" (under: {f.condition})" if f.condition else ""
                    out.append(f"- {_md_cell(f.statement)}{tail}{_md_cell(cond)}")
                out.append("")
        if c.links:
            out += ["**Linked implementations (constants asserted).** " + ", ".join(f"`{x}`" for x in c.links), ""]
    return "\n".join(out).rstrip() + "\n"


def write_report(path: Path | None = None, outcomes: list[Outcome] | None = None) -> Path:
    """Write the markdown report of ``outcomes`` (default: run every check) to ``path`` (default:
    :func:`default_report_path`)."""
    target = default_report_path() if path is None else Path(path)
    target.write_text(render_markdown(run_all() if outcomes is None else outcomes), encoding="utf-8")
    return target


def _file_name(check_id: str) -> str:
    return check_id.replace("/", "_") + ".json"


def _document(check: Check) -> dict[str, object]:
    """A check's document: its certificates (:meth:`Check.certificates_json`), its method and corrected statement,
    and the fingerprints of the files that computed it (:func:`~semiprivate.proofs_checks._sources.fingerprints`)."""
    from semiprivate.proofs_checks._sources import fingerprints

    doc: dict[str, object] = check.certificates_json()
    doc.update(method=check.method, corrected=check.corrected, sources=fingerprints(_module_of(check.id)))
    return doc


def _module_of(check_id: str) -> str:
    return str(registry()[check_id].__module__)


def render_certificates(outs: list[Outcome]) -> dict[str, str]:
    """The certificate files: {file name: JSON text}, one per check that ran (deterministic)."""
    return {_file_name(o.id): json.dumps(_document(o.check), indent=1, sort_keys=True) + "\n"
            for o in outs if o.check is not None}


def write_certificates(folder: Path | None = None) -> Path:
    """Run every check and write its certificates as JSON under ``folder`` (default :func:`default_certificates_dir`).

    Files of checks that no longer exist are removed, so the folder mirrors the registry.
    """
    target = default_certificates_dir() if folder is None else Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    files = render_certificates(run_all())
    for old in target.glob("*.json"):
        if old.name not in files:
            old.unlink()
    for name, text in files.items():
        (target / name).write_text(text, encoding="utf-8")
    return target


def recheck_certificates(folder: Path | None = None, *, only: list[str] | None = None) -> dict[str, int]:
    """Re-check every certificate file (default: the committed / shipped ones) with the independent checker; each
    document's claim must be the one pinned in :data:`~semiprivate.proofs_checks.expected.CLAIM_SHA256`.

    ``only``: re-check the documents of these check ids (default: every file in the folder); a missing one is a
    :class:`~semiprivate.proofs_checks.certificate_checker.CertificateError`."""
    from semiprivate.proofs_checks.certificate_checker import CertificateError, check_directory, check_file
    from semiprivate.proofs_checks.expected import CLAIM_SHA256

    target = CERTIFICATES_DIR if folder is None else Path(folder)
    ids = _checked_only(only, CLAIM_SHA256)
    if ids is None:
        return check_directory(target, pins=CLAIM_SHA256)
    missing = [cid for cid in ids if not (target / _file_name(cid)).is_file()]
    if missing:
        raise CertificateError(f"no document for the checks {missing} in {target}")
    return {_file_name(cid): check_file(target / _file_name(cid), CLAIM_SHA256) for cid in ids}


@dataclass(frozen=True)
class QuickOutcome:
    """One check in the quick run (:func:`quick_outcomes`): re-checked from its committed document, or run again.

    ``how`` is ``"re-checked"`` (the document's recorded sources are the files as they are now, and the
    independent checker re-established every certificate, the chain and the verdict) or ``"run"`` (the check
    ran: ``why`` says what made its document stale).  ``verdict`` is None when the check raised or its document
    did not re-check (``error`` says why); such a check is never as expected.
    """

    id: str
    how: str
    verdict: Verdict | None
    claim: str = ""
    method: str = ""
    counterexample: str | None = None
    corrected: str | None = None
    error: str | None = None
    why: str = ""

    @property
    def expected(self) -> Verdict | None:
        return EXPECTED.get(self.id)

    @property
    def as_expected(self) -> bool:
        return self.error is None and self.verdict is not None and self.verdict is self.expected


def _from_run(outcome: Outcome, why: str) -> QuickOutcome:
    c = outcome.check
    if c is None:
        return QuickOutcome(outcome.id, "run", None, error=outcome.error, why=why)
    return QuickOutcome(c.id, "run", c.verdict, c.claim, c.method, c.counterexample, c.corrected, why=why)


def _counterexample(doc: dict[str, Any]) -> str | None:
    """The counterexample text a FAILS document supports, worded as :func:`derive_verdict` words it."""
    from semiprivate.proofs_checks.certificate_checker import check_proof

    refs = [f for f in doc.get("facts", []) if f.get("role") == "refutes"]
    if refs:
        return " ".join(str(f["statement"]) for f in refs)
    proof = doc.get("proof")
    if not isinstance(proof, dict):
        return None
    res = check_proof(proof)
    if res["status"] != "refuted":
        return None
    import sympy as sp

    pt = ", ".join(f"{k} = {v}" for k, v in res["counterexample"].items())
    concl = sp.sympify(proof["claim"]["conclusion"])
    return (f"the stated conclusion {concl} is false at {pt} "
            "(exactly re-verified by the checker's search over the claim's domain)")


def quick_outcomes(folder: Path | None = None, *, only: list[str] | None = None) -> list[QuickOutcome]:
    """Every registered check, from its committed document where that document is current, else run again.

    A document is current when it exists, names its check, and records (``"sources"``) the files of the package
    that computed it exactly as they are now (:mod:`~semiprivate.proofs_checks._sources`), and every check it
    cites is current too.  A current document is re-checked with the independent checker
    (:func:`~semiprivate.proofs_checks.certificate_checker.check_file`, with the pinned claims): every certificate,
    the proof chain, the counterexample search and the recorded verdict, which must be the one the document
    supports -- a document that does not re-check is an error, never a verdict.  Any other check runs (as in
    :func:`run_all`), so an edited theorem constant, framework or bound function gives the verdict the code now
    gives; so does every check while a theorem constant is perturbed in this process
    (:class:`~semiprivate.proofs_checks._framework.perturbed`).  ``only``: the ids of the checks to give (default
    all); whether a document is current is still decided over every check.  Sorted by id; the same verdicts as
    :func:`run_all` while the documents are current.
    """
    from semiprivate.proofs_checks._framework import _OVERRIDES
    from semiprivate.proofs_checks._sources import stale_sources
    from semiprivate.proofs_checks.certificate_checker import CertificateError, check_file, cited_check_ids
    from semiprivate.proofs_checks.expected import CLAIM_SHA256

    target = CERTIFICATES_DIR if folder is None else Path(folder)
    reg = registry()
    ids = _checked_only(only, reg)
    docs: dict[str, dict[str, Any]] = {}
    why: dict[str, str] = {}
    hashes: dict[str, str] = {}
    for cid in sorted(reg):
        path = target / _file_name(cid)
        if _OVERRIDES:
            why[cid] = "a theorem constant is perturbed in this process: " + ", ".join(sorted(_OVERRIDES))
            continue
        if not path.is_file():
            why[cid] = "no committed document"
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            why[cid] = f"its document cannot be read ({exc})"
            continue
        changed = stale_sources(doc.get("sources"), hashes) if isinstance(doc, dict) else ["(not a document)"]
        if not isinstance(doc, dict) or doc.get("id") != cid:
            why[cid] = "its document names another check"
        elif changed:
            why[cid] = "changed since its document was written: " + ", ".join(changed)
        else:
            docs[cid] = doc
    moved = True
    while moved:  # a document resting on a check that runs again is not current either
        moved = False
        for cid, doc in list(docs.items()):
            stale = [c for c in cited_check_ids(doc.get("proof")) if c not in docs]
            if stale:
                why[cid] = "it cites a check that runs again: " + ", ".join(stale)
                del docs[cid]
                moved = True
    out = []
    for cid in sorted(reg) if ids is None else ids:
        if cid not in docs:
            try:
                out.append(_from_run(Outcome(cid, reg[cid](), None), why[cid]))
            except Exception as exc:  # noqa: BLE001 - a check error is a reported result
                out.append(QuickOutcome(cid, "run", None, error=f"{type(exc).__name__}: {exc}", why=why[cid]))
            continue
        doc = docs[cid]
        try:
            check_file(target / _file_name(cid), pins=CLAIM_SHA256)
            recorded = doc.get("verdict")
            if not isinstance(recorded, str):
                raise CertificateError(f"{cid}: the document records no verdict")
            verdict = Verdict(recorded)  # check_file raised unless the document supports exactly this verdict
            counter = _counterexample(doc) if verdict is Verdict.FAILS else None
        except (CertificateError, ValueError, KeyError, TypeError) as exc:
            out.append(QuickOutcome(cid, "re-checked", None, str(doc.get("claim", "")),
                                    error=f"the committed document does not re-check: {exc}"))
            continue
        out.append(QuickOutcome(cid, "re-checked", verdict, str(doc.get("claim", "")), str(doc.get("method", "")),
                                counter, doc["corrected"] if isinstance(doc.get("corrected"), str) else None))
    return out
