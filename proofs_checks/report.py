"""Running the checks and writing ``proofs_checks/REPORT.md`` (deterministic: fixed seeds, no timings)."""

from __future__ import annotations

import json
import os
import traceback
from dataclasses import dataclass
from pathlib import Path

from semiprivate.proofs_checks._framework import Check, Role, Verdict, registry
from semiprivate.proofs_checks.expected import EXPECTED

__all__ = ["Outcome", "run_all", "render_table", "render_markdown", "write_report", "REPORT_PATH",
           "default_report_path", "CERTIFICATES_DIR", "default_certificates_dir", "render_certificates",
           "write_certificates", "recheck_certificates"]

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


def run_all(*, use_cache: bool = True) -> list[Outcome]:
    """Run every registered check (sorted by id); errors are captured, never turned into a verdict.

    Examples
    --------
    >>> outs = run_all()
    >>> all(o.as_expected for o in outs)
    True
    """
    global _CACHE
    if use_cache and _CACHE is not None:
        return list(_CACHE)
    outs = []
    for cid, fn in sorted(registry().items()):
        try:
            outs.append(Outcome(cid, fn(), None))
        except Exception as exc:  # noqa: BLE001 - a check error is a reported result
            outs.append(Outcome(cid, None, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}"))
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


def write_report(path: Path | None = None) -> Path:
    """Run every check and write the markdown report (default: :func:`default_report_path`)."""
    target = default_report_path() if path is None else Path(path)
    target.write_text(render_markdown(run_all()), encoding="utf-8")
    return target


def _file_name(check_id: str) -> str:
    return check_id.replace("/", "_") + ".json"


def render_certificates(outs: list[Outcome]) -> dict[str, str]:
    """The certificate files: {file name: JSON text}, one per check that ran (deterministic)."""
    return {_file_name(o.id): json.dumps(o.check.certificates_json(), indent=1, sort_keys=True) + "\n"
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


def recheck_certificates(folder: Path | None = None) -> dict[str, int]:
    """Re-check every certificate file (default: the committed / shipped ones) with the independent checker; each
    document's claim must be the one pinned in :data:`~semiprivate.proofs_checks.expected.CLAIM_SHA256`."""
    from semiprivate.proofs_checks.certificate_checker import check_directory
    from semiprivate.proofs_checks.expected import CLAIM_SHA256

    return check_directory(CERTIFICATES_DIR if folder is None else Path(folder), pins=CLAIM_SHA256)
