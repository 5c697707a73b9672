"""Where proofs_checks refutes a paper's statement, the bound's default is the corrected form
(``form="paper"`` stays available) and the CLI says which form it printed."""

from __future__ import annotations

import json
import math

import pytest
from semiprivate.theory.bounds.bns15 import (
    bns15_generic_labeled,
    bns15_generic_unlabeled,
    bns15_labelboost_max_unlabeled,
    bns15_thm3_3,
)
from semiprivate.theory.bounds.cli import main
from semiprivate.theory.bounds.hpsy import hpsy_thm1_labeled
from semiprivate.theory.validity import ConditionNotMet


def test_hpsy_thm1_n_lab_defaults_to_min_eps_1() -> None:
    # proofs_checks HPSY.Thm1.n_lab-large-epsilon: at large eps the paper's size is below what any learner needs
    want = math.ceil((3 + math.log(20)) / (0.1 * 1.0))
    assert hpsy_thm1_labeled(3, 0.1, 0.05, 1000.0) == want
    assert hpsy_thm1_labeled(3, 0.1, 0.05, 1000.0, form="paper") == 1
    assert hpsy_thm1_labeled(3, 0.1, 0.05, 0.5) == hpsy_thm1_labeled(3, 0.1, 0.05, 0.5, form="paper")


def test_bns15_thm33_sizes_default_to_min_eps_1() -> None:
    # proofs_checks BNS15.Thm3.3.large-epsilon: at eps ~ 4665 the paper's m is one label, which no learner can use
    m_at_1 = math.ceil(1 / 0.1**3 * math.log(10) + math.log(20) / 0.1)
    assert bns15_generic_labeled(1, 0.1, 0.05, 4665.1) == m_at_1
    assert bns15_generic_labeled(1, 0.1, 0.05, 4665.1, form="paper") == 1
    assert bns15_generic_unlabeled(8, 1, 0.1, 0.05, 1e6) == bns15_generic_unlabeled(8, 1, 0.1, 0.05, 1.0)
    assert bns15_generic_unlabeled(8, 1, 0.1, 0.05, 1e6, form="paper") < bns15_generic_unlabeled(8, 1, 0.1, 0.05, 1.0)
    assert bns15_thm3_3(8, 1, 0.1, 0.05, 1e6) == bns15_thm3_3(8, 1, 0.1, 0.05, 1.0)
    for eps in (0.05, 0.5, 1.0):  # the forms agree where the statement holds
        assert bns15_thm3_3(8, 2, 0.1, 0.05, eps) == bns15_thm3_3(8, 2, 0.1, 0.05, eps, form="paper")


def test_bns15_cl42_default_refuses_fewer_points_than_vc() -> None:
    # proofs_checks BNS15.Cl4.2.sauer-chain: VC = 100, |S| = 1, alpha = 0.5, beta = 0.1 fails the claim
    with pytest.raises(ConditionNotMet, match="VC"):
        bns15_labelboost_max_unlabeled(1, 100, 0.5, 0.1)
    assert bns15_labelboost_max_unlabeled(1, 100, 0.5, 0.1, form="paper") == 2
    assert bns15_labelboost_max_unlabeled(685, 2, 0.1, 0.05) == bns15_labelboost_max_unlabeled(685, 2, 0.1, 0.05,
                                                                                                 form="paper")


def test_cli_says_which_form_it_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["HPSY.Thm1.n_lab", "z_max=3", "alpha=0.1", "beta=0.05", "epsilon=1000"]) == 0
    assert "[form: corrected]" in capsys.readouterr().out
    assert main(["HPSY.Thm1.n_lab", "z_max=3", "alpha=0.1", "beta=0.05", "epsilon=1000", "form=paper", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["form"] == "paper" and out["value"] == 1
