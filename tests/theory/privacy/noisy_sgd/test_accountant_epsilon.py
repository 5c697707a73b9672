"""Outside BST14's range Noisy SGD reports dp-accounting's epsilon of what ran, with noise multiplier sigma / (2 n L).

Each step adds N(0, sigma^2 I) to ``n grad l`` of one example sampled out of n; replacing that example moves
``n grad l`` by at most ``2 n L`` (both gradients have norm <= L), so the step is a Gaussian mechanism of
noise multiplier ``sigma / (2 n L)``, composed T times with sampling of 1 out of n under REPLACE_ONE
(SPEC BST14.NoisySGD; :func:`semiprivate.theory.privacy.accounting.noisy_sgd_accountant_epsilon`).  At
(eps, delta) = (30, 0.1) with n = 3 and margin 0.5 (L = 2) the accountant's epsilon (about 117) is above
the theorem's 30, so the reported epsilon is the accountant's; n > 1 and L != 1 tell ``2 n L`` apart from
``2 n / L`` and ``2 L / n``.
"""

from __future__ import annotations

import numpy as np
from semiprivate.theory.privacy.noisy_sgd import noisy_sgd


def test_reported_epsilon_outside_the_theorem_range_is_the_accountants_at_sigma_over_2nL(rdp_one_of_n):
    Z = np.array([[0.6, 0.0], [-0.6, 0.1], [0.5, -0.2]])
    y = np.array([1.0, -1.0, 1.0])
    r = noisy_sgd(Z, y, 30.0, 0.1, margin=0.5, rng=0)
    assert (r.n, r.steps, r.lipschitz) == (3, 9, 2.0)
    want = rdp_one_of_n(3, r.sigma / (2.0 * 3 * 2.0), 9, 0.1)
    assert want > r.theorem_epsilon == 30.0  # the theorem's claim does not hold here
    assert r.privacy == (want, 0.1)
    assert r.accountant_epsilon() == want
