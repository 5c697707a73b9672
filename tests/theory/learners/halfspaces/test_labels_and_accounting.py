"""Halfspace learners: the label set is declared (never read from private y), small epsilons are
accounted by PLD and never reported as 0, refusals name the parameter and show no private value."""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.theory.halfspace_data import LargeMarginLowRank, digits_split
from semiprivate.theory.learners.halfspaces import FullDimensionHalfspace, SemiPrivateHalfspace
from semiprivate.theory.privacy.accounting import dpsgd_epsilon
from semiprivate.theory.privacy.public_rows import PrivacyWarning

D = LargeMarginLowRank(30, 3, 0.2, tail=0.01, signal_rank=2, rng=0)

#: the label-set tests fit full batches (q = 1) under the RDP accountant: a calibration of milliseconds instead of
#: seconds (PLD, or q < 1); they test the label set, not the accountant (test_small_epsilon_uses_pld_... and
#: test_estimators.py test the default PLD calibration)
FULL_BATCH = 10_000


@pytest.mark.slow
def test_declared_classes_fix_the_output_space_whatever_the_private_labels():
    """One private label changed to an unseen value (inside the declared set): classes_, coef_'s shape
    and the prediction set do not move (without classes=, they followed y: 10 -> 11 rows)."""
    s = digits_split(n_public=600, n_test=397, rng=0)
    y2 = s.y_private.copy()
    y2[0] = 10  # a label no other private row has
    a = SemiPrivateHalfspace(2.0, k=8, epochs=1, batch_size=FULL_BATCH, accountant="rdp", classes=range(11), random_state=0).fit(s.X_private, s.y_private,
                                                                             X_public=s.X_public)
    b = SemiPrivateHalfspace(2.0, k=8, epochs=1, batch_size=FULL_BATCH, accountant="rdp", classes=range(11), random_state=0).fit(s.X_private, y2, X_public=s.X_public)
    assert a.classes_.tolist() == b.classes_.tolist() == list(range(11))
    assert a.coef_.shape == b.coef_.shape == (11, 64)
    assert a.privacy_ == b.privacy_ and a.privacy_[0] <= 2.0


@pytest.mark.slow
def test_label_set_read_from_private_y_gives_no_guarantee():
    s = digits_split(n_public=600, n_test=397, rng=0)
    with pytest.warns(PrivacyWarning, match="classes="):
        clf = SemiPrivateHalfspace(2.0, k=8, epochs=1, batch_size=FULL_BATCH, accountant="rdp", random_state=0).fit(s.X_private, s.y_private, X_public=s.X_public)
    assert clf.privacy_ == (math.inf, 0.0)
    assert clf.budget_["total_if_classes_declared"][0] <= 2.0


def test_label_outside_declared_set_is_refused_without_showing_it():
    X, y = D.sample(100, 1)
    with pytest.raises(ValueError, match="outside the declared classes") as e:
        FullDimensionHalfspace(1.0, classes=[-1, 1], random_state=0).fit(X, np.where(y > 0, 1, 987654))
    assert "987654" not in str(e.value)


@pytest.mark.slow
def test_small_epsilon_uses_pld_and_is_never_reported_as_zero():
    """epsilon = 1e-3: the RDP default needed noise multiplier ~256,000 and reported (0.0, 1e-5);
    PLD meets the target with about 20-60x less noise."""
    s = digits_split(n_public=600, n_test=397, rng=0)
    Xb = s.X_private[:1000]
    yb = (s.y_private[:1000] > 4).astype(int)
    clf = FullDimensionHalfspace(1e-3, classes=[0, 1], epochs=10, random_state=0).fit(Xb, yb)
    assert 0.0 < clf.privacy_[0] <= 1e-3
    assert clf.noise_multiplier_ < 10_000
    # RDP's conversion gives 0 at the old noise multiplier: the reported epsilon is PLD's there
    assert dpsgd_epsilon(255_999.5, clf.sampling_rate_, clf.n_steps_, 1e-5, accountant="rdp") > 0.0
    with pytest.raises(ValueError, match="accountant='pld'"):
        FullDimensionHalfspace(1e-3, classes=[0, 1], epochs=10, accountant="rdp", random_state=0).fit(Xb, yb)


def test_k_above_the_public_rows_and_rows_outside_the_ball():
    X, y = D.sample(100, 1)
    Xp = D.sample_X(5, 2)
    with pytest.raises(ValueError, match=r"\bk\b.*public rows") as e:
        SemiPrivateHalfspace(1.0, k=8, classes=[-1, 1], random_state=0).fit(X, y, X_public=Xp)
    assert "5 rows" in str(e.value)
    big = X * 3.0
    with pytest.raises(ValueError, match=r"\bX\b rows must lie in the unit ball") as e:
        FullDimensionHalfspace(1.0, classes=[-1, 1], random_state=0).fit(big, y)
    norms = np.linalg.norm(big, axis=1)
    assert f"{norms.max():.6g}" not in str(e.value) and f"{norms[0]:.6g}" not in str(e.value)
    assert "row 0" not in str(e.value)
