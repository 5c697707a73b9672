"""A bound's result says what it is, in the object itself (not only in the CLI's notes): a sample
size says whether it is vacuous, a probability bound >= 1 says it is vacuous, and a learner built by
a theorem that transforms alpha / beta (LabelBoost: 11 alpha, 2 beta) says by which factor."""

from __future__ import annotations

import json

import pytest
from semiprivate.theory.bounds import evaluate, solve
from semiprivate.theory.bounds.abm19 import abm19_cover_failure_probability, abm19_private_sample_size
from semiprivate.theory.bounds.bns15 import (
    LearnerParams,
    bns15_lem4_12,
    bns15_pssl_to_tpal,
    bns15_thm4_14_explicit,
    expmech_failure_probability,
)
from semiprivate.theory.bounds.cli import main


def test_a_sample_size_beyond_any_sample_says_it_is_vacuous() -> None:
    huge = evaluate("ABM19.Thm3.1.n_priv", vc_dim=10, alpha=0.1, beta=0.05, epsilon=1e-300)
    assert huge > 10**300 and huge.vacuous and "beyond any sample" in huge.reason
    fine = abm19_private_sample_size(10, 0.1, 0.05, 1.0)
    assert fine == 2603 and not fine.vacuous and fine.reason == ""
    assert type(fine + 1) is int  # arithmetic gives a plain int


def test_a_solved_size_says_whether_it_is_vacuous() -> None:
    far = solve("ABM19.Lem3.3", "n_pub", vc_dim=10, alpha=1e-200, beta=0.01)
    assert far.vacuous and not solve("ABM19.Lem3.3", "n_pub", vc_dim=10, alpha=0.05, beta=0.01).vacuous


def test_a_probability_bound_of_1_or_more_says_it_is_vacuous() -> None:
    big = expmech_failure_probability(1000, 1.0, 0.1, 10)
    assert big > 1 and big.vacuous and ">= 1 says nothing" in big.reason
    small = expmech_failure_probability(1000, 1.0, 0.1, 200)
    assert small < 1 and not small.vacuous
    assert abm19_cover_failure_probability(200, 10, 0.05).vacuous
    assert not abm19_cover_failure_probability(20000, 10, 0.05).vacuous


def test_a_transformed_alpha_is_said_in_the_result() -> None:
    r = evaluate("BNS15.Thm4.14.explicit", vc_dim=1, alpha=0.05, beta=0.1, epsilon=0.5, delta=1e-6, n=1000)
    assert (r.alpha, r.beta) == pytest.approx((0.55, 0.2))
    assert (r.alpha_factor, r.beta_factor) == (11.0, 2.0)
    assert r.alpha == pytest.approx(r.alpha_factor * 0.05) and r.beta == pytest.approx(r.beta_factor * 0.1)
    assert bns15_thm4_14_explicit(1, 0.05, 0.1, 0.5, 1e-6, 1000).alpha_factor == 11.0
    same = bns15_pssl_to_tpal(0.1, 0.1, 1.0, 0.0, 100, 10)  # Thm 5.5 keeps the parameters
    assert (same.alpha_factor, same.beta_factor) == (1.0, 1.0)


def test_a_transformed_alpha_of_1_or_more_is_vacuous() -> None:
    r = bns15_lem4_12(1, 0.1, 0.1, 1000)  # 11 * 0.1 = 1.1: an error bound above 1 says nothing
    assert r.alpha == pytest.approx(1.1) and r.vacuous and r.reason.startswith("alpha = 1.1")
    assert not bns15_lem4_12(1, 0.01, 0.1, 1000).vacuous
    assert "alpha_factor" in (LearnerParams.__doc__ or "") and "vacuous" in (LearnerParams.__doc__ or "")


def test_a_checked_result_carries_the_flags() -> None:
    from semiprivate.theory.bounds._core import vacuity

    c = abm19_cover_failure_probability(2, 10, 0.1, strict=False)  # 2 n_pub < vc_dim: hypothesis fails
    assert not c.valid and c.value > 1 and c.value.vacuous
    assert vacuity(c) == (True, c.value.reason)
    assert vacuity(evaluate("ABM19.Thm3.1", vc_dim=10, alpha=0.1, beta=0.05, epsilon=1e-300))[1].startswith("n_priv: ")
    assert vacuity(evaluate("ABM19.Thm3.1", vc_dim=10, alpha=0.1, beta=0.05, epsilon=1.0)) == (False, "")


def test_the_cli_reads_the_flags_from_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["ABM19.Thm3.1", "vc_dim=10", "alpha=0.1", "beta=0.05", "epsilon=1e-300"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "(vacuous)" in out and "note: vacuous: n_priv:" in out and len(out) < 600  # no 300-digit integer
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["vacuous"] is True and data["value"]["n_priv"] > 10**300  # JSON keeps every digit
    assert main(["BNS15.PropA.1", "n_hypotheses=1000", "epsilon=1", "gap=0.1", "m=10"]) == 0
    assert "note: vacuous: a probability bound of 606.531 >= 1 says nothing" in capsys.readouterr().out
    assert main(["BNS15.Lem4.12", "vc_dim=1", "alpha=0.01", "beta=0.1", "n=1000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"]["alpha_factor"] == 11.0 and "vacuous" not in data
    assert any("11 x the input alpha = 0.01" in n for n in data["notes"])


def test_help_names_the_result_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["BNS15.Thm4.14.explicit", "--help"]) == 0
    out = capsys.readouterr().out
    assert "alpha_factor = 11" in out and "beta_factor = 2" in out
