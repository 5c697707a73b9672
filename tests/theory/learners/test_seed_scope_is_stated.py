"""What ``privacy_`` assumes of a fixed seed is stated where users read it: the learner protocol, the
README's seed paragraph and the learner that publishes a seed-determined draw (``SemiPrivateMultinomial``'s random
projection).  A fixed seed is no privacy mechanism: the guarantee holds against an observer who does not know it.
Deterministic (text and one refusal)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import semiprivate.theory.learners._base as base
from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial
from semiprivate.theory.privacy.seeds import secure_mode

README = Path(__file__).resolve().parents[3] / "README.md"


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_learner_protocol_says_privacy_holds_against_an_observer_who_does_not_know_the_seed():
    doc = _flat(base.__doc__)
    assert "holds against an observer who does not know the seed" in doc
    assert "random_state=None" in doc


def test_the_readme_seed_paragraph_states_the_scope():
    if not README.is_file():
        pytest.skip("README.md is not in this checkout")
    text = _flat(README.read_text(encoding="utf-8"))
    assert "`privacy_` then holds only against someone who does not know the seed" in text


def test_the_learner_with_a_seed_determined_public_draw_states_it_and_secure_mode_refuses_the_seed():
    assert "does not know the seed" in _flat(SemiPrivateMultinomial.__doc__)
    X = np.random.default_rng(0).normal(size=(20, 4))
    y = (X[:, 0] > 0).astype(int)
    with secure_mode(True), pytest.raises(ValueError, match="secure mode"):
        SemiPrivateMultinomial(1.0, 1e-5, classes=[0, 1], projection="random", k=2, random_state=3).fit(X, y, X_public=X)
