"""The framework: records validate themselves, helpers never pass by default, the report is
deterministic and up to date, a changed constant breaks a check."""

from __future__ import annotations

import math

import pytest
import sympy as sp
from semiprivate.proofs_checks import Check, Verdict, render_markdown, run_all
from semiprivate.proofs_checks._framework import (
    CannotDecide,
    Fact,
    Role,
    derive_verdict,
    hypothesis_counterexample,
    sympy_nonneg,
    sympy_zero,
)
from semiprivate.proofs_checks.report import REPORT_PATH


def test_facts_need_certificates_and_verdicts_are_derived() -> None:
    cert = {"kind": "evaluate", "lhs": "Integer(2)", "relation": ">", "rhs": "Integer(1)"}
    with pytest.raises(ValueError, match="certificate"):
        Fact("x", Role.PROVES)
    with pytest.raises(ValueError, match="certificate"):
        Fact("x", Role.REFUTES)
    with pytest.raises(ValueError, match="condition"):
        Fact("x", Role.OBSERVES, condition="c")
    with pytest.raises(TypeError):
        Fact("x", "proves")  # type: ignore[arg-type]
    proved = Fact("p", Role.PROVES, (cert,))
    ref = Fact("counterexample", Role.REFUTES, (cert,))
    obs = Fact("grid", Role.OBSERVES)
    # loose proving facts never make a claim hold: only a closed chain does
    assert derive_verdict([proved, obs]) == (Verdict.UNPROVED, None, None)
    assert derive_verdict([proved, ref]) == (Verdict.FAILS, None, "counterexample")
    assert derive_verdict([obs, Fact("cited", Role.CITES)]) == (Verdict.UNPROVED, None, None)
    rec = Check(id="X", claim="c", method="m", details="d", facts=(proved,))
    assert rec.verdict is Verdict.UNPROVED and rec.condition is None
    assert rec.certificate_kinds == ("evaluate",)


def test_sympy_undecided_is_not_a_pass() -> None:
    x = sp.Symbol("x", positive=True)
    with pytest.raises(CannotDecide):
        sympy_nonneg(sp.exp(x) - 1, "exp(x) - 1")  # true, but sympy cannot decide it: must raise
    with pytest.raises(CannotDecide):
        sympy_nonneg(x - 1, "x - 1")  # false for x < 1
    with pytest.raises(CannotDecide):
        sympy_zero(x, 1, "x == 1")
    sympy_nonneg(x**2 + x, "x^2 + x")
    sympy_zero((x + 1) ** 2, x**2 + 2 * x + 1, "square")
    with pytest.raises(CannotDecide, match="trivial"):
        sympy_zero(2 * x, x + x, "2x == x + x (sympy makes both sides the same tree)")
    with pytest.raises(TypeError):
        sympy_zero((x + 1) ** 2 - x**2 - 2 * x - 1, "square")  # type: ignore[call-arg]


def test_hypothesis_search_finds_and_is_deterministic() -> None:
    from hypothesis import strategies as st

    ce1 = hypothesis_counterexample(lambda a: a * a < 50, {"a": st.integers(0, 100)})
    ce2 = hypothesis_counterexample(lambda a: a * a < 50, {"a": st.integers(0, 100)})
    assert ce1 is not None and ce1["a"] ** 2 >= 50 and ce1 == ce2
    assert hypothesis_counterexample(lambda a: a >= 0, {"a": st.integers(0, 100)}) is None


def test_report_is_up_to_date() -> None:
    """REPORT.md equals a fresh rendering (regenerate with `python -m semiprivate.proofs_checks`)."""
    fresh = render_markdown(run_all())
    assert REPORT_PATH.read_text(encoding="utf-8") == fresh, "proofs_checks/REPORT.md is stale: run python -m semiprivate.proofs_checks"
    assert fresh.startswith("<!-- GENERATED FILE: do not edit.")


def test_report_rendering_is_deterministic() -> None:
    """A run in another process (another hash seed) is compared with the committed report by
    ``test_report_is_up_to_date``; here a second run in the same process, after every check has run, gives the
    same records for the checks that carry state between runs (z3's process-wide let-name counter)."""
    from semiprivate.proofs_checks import registry

    first = {o.id: o.check for o in run_all()}
    stateful = [cid for cid, c in first.items() if c is not None and any(
        cert["kind"] == "z3" for f in c.facts for cert in f.certificates)]
    assert len(stateful) >= 5
    reg = registry()
    for cid in stateful:
        assert reg[cid]().certificates_json() == first[cid].certificates_json(), cid  # type: ignore[union-attr]


def test_changed_constant_in_bounds_breaks_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Change a semiprivate.theory.bounds constant on purpose: the linked check must raise."""
    bns = pytest.importorskip("semiprivate.theory.bounds.bns15")
    from semiprivate.proofs_checks import bns15_prop_a1

    real = bns.expmech_failure_probability
    monkeypatch.setattr(bns, "expmech_failure_probability",
                        lambda h, e, g, m: real(h, e, g, m) * math.exp(e * g * m / 2 - e * g * m / 4))
    with pytest.raises(AssertionError):
        bns15_prop_a1.check_prop_a1()


def test_changed_constant_in_abm19_breaks_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    abm = pytest.importorskip("semiprivate.theory.bounds.abm19")
    from semiprivate.proofs_checks import abm19_lem3_3

    real = abm.abm19_public_sample_size
    monkeypatch.setattr(abm, "abm19_public_sample_size", lambda d, a, b: real(d, a, b) + 1)
    with pytest.raises(AssertionError):
        abm19_lem3_3.check_manipulation()


def test_cli_prints_table(capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.proofs_checks.__main__ import main

    assert main(["--no-write"]) == 0
    out = capsys.readouterr().out
    assert "HPSY.Thm2.n_unl" in out and "FAILS" in out and "verdict" in out and "HOLDS GIVEN" in out


def test_cli_out_writes_the_same_report(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from semiprivate.proofs_checks.__main__ import main

    out = tmp_path / "r.md"
    assert main(["--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render_markdown(run_all())


ONLY = ["ABM19.Lem4.4.confidence", "PILLAR.Alg2.total"]


def test_cli_only_runs_the_checks_named_and_writes_their_report(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    from semiprivate.proofs_checks.__main__ import main

    out = tmp_path / "r.md"
    assert main(["--only", *reversed(ONLY), "--out", str(out)]) == 0
    table = capsys.readouterr().out
    rows = [line.split()[0] for line in table.splitlines()[2:] if line.strip() and not line.startswith("wrote")]
    assert rows == ONLY  # sorted by id, nothing else
    text = out.read_text(encoding="utf-8")
    assert text == render_markdown(run_all(only=ONLY)) and "**2 checks:**" in text
    assert [o.id for o in run_all(only=ONLY)] == ONLY == [o.id for o in run_all() if o.id in ONLY]
    assert main(["--only", ONLY[1]]) == 0  # in a source checkout the committed (full) report is left alone
    assert "report not written" in capsys.readouterr().out


def test_cli_only_refuses_an_unknown_id_or_certificates_before_running(monkeypatch: pytest.MonkeyPatch, tmp_path,  # type: ignore[no-untyped-def]
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    import semiprivate.proofs_checks.__main__ as pc_main

    def no_run(**kw: object) -> None:
        raise AssertionError("the checks ran")

    monkeypatch.setattr(pc_main, "run_all", no_run)
    assert pc_main.main(["--only", "PILLAR.Alg2.totl", "--out", str(tmp_path / "r.md")]) == 2
    err = capsys.readouterr().err
    assert "unknown check id(s) 'PILLAR.Alg2.totl' (did you mean 'PILLAR.Alg2.total'?)" in err and "Traceback" not in err
    assert pc_main.main(["--only", ONLY[0], "--certificates", str(tmp_path / "c")]) == 2
    assert "cannot be combined with --certificates" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="unknown check"):
        run_all(only=["HPSY.Nope.x"])
    with pytest.raises(ValueError, match="at least one"):
        run_all(only=[])
    with pytest.raises(TypeError, match="only must be"):
        run_all(only=ONLY[0])  # type: ignore[arg-type]


def test_cli_recheck_only_rechecks_the_documents_named(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    import shutil

    from semiprivate.proofs_checks.__main__ import main
    from semiprivate.proofs_checks.report import CERTIFICATES_DIR

    assert main(["--recheck", "--only", *ONLY]) == 0
    assert "in 2 files: all hold" in capsys.readouterr().out
    folder = tmp_path / "certs"
    folder.mkdir()
    shutil.copy(CERTIFICATES_DIR / f"{ONLY[0]}.json", folder)
    assert main(["--recheck", str(folder), "--only", ONLY[0]]) == 0
    assert main(["--recheck", str(folder), "--only", *ONLY]) == 1  # the second document is not there
    assert "no document for the checks ['PILLAR.Alg2.total']" in capsys.readouterr().err
