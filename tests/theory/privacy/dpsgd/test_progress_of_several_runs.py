"""DP-SGD's R-run loop drives its progress bar to the step count, as the one-run loop does."""

from __future__ import annotations

import numpy as np
from semiprivate.theory.privacy.dpsgd import dp_sgd


def test_progress_bar_of_several_runs_reaches_the_step_count(capsys):
    g = np.random.default_rng(23)
    Z = g.normal(size=(20, 2))
    Z /= 2.0 * np.linalg.norm(Z, axis=1, keepdims=True)
    y = np.where(Z[:, 0] > 0, 1.0, -1.0)
    dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.5, steps=100, n_runs=2, rng=0)
    assert capsys.readouterr().err == ""
    dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.5, steps=100, n_runs=2, rng=0, progress=True)
    err = capsys.readouterr().err
    assert "DP-SGD" in err and "100/100" in err
