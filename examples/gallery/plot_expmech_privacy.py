"""
The exponential mechanism is epsilon-DP: exactly and by audit
=============================================================

The exponential mechanism (McSherry-Talwar; BNS15 Proposition A.1, the private step of every
learner here) outputs hypothesis ``h`` with probability proportional to ``exp(eps q(S, h) / 2)``
with ``q = -#errors`` (sensitivity 1).  Changing one labelled example changes every score by at
most 1, so the output distributions of neighbouring samples differ by a factor of at most
``e^eps``.

The kernel's exact log-probabilities give the privacy loss of every neighbouring score vector
exactly (at most eps); the empirical auditor, run on the sampler itself, finds a lower bound
below eps: no violation.
"""

import matplotlib.pyplot as plt
import numpy as np
from semiprivate import kernels
from semiprivate.theory.audit import audit_mechanism, exact_privacy_loss

eps = 1.0
rng = np.random.default_rng(0)
scores = -rng.integers(0, 20, size=50)
worst = 0.0
for _ in range(200):  # neighbouring samples: every score moves by -1, 0 or +1
    neighbour = scores + rng.integers(-1, 2, size=scores.size)
    loss = exact_privacy_loss(kernels.exponential_log_probabilities(scores, eps),
                              kernels.exponential_log_probabilities(neighbour, eps), log=True)
    worst = max(worst, loss.epsilon)
print(f"exact privacy loss, worst of 200 neighbouring score vectors: {worst:.4f} <= eps = {eps}")

flip = scores.copy()
flip[: scores.size // 2] -= 1  # the pair that moves half the scores down, half up
flip[scores.size // 2:] += 1


def sampler(s, size, rng):
    return kernels.exponential_mechanism(s, eps, size=size, rng=rng)


res = audit_mechanism(sampler, scores, flip, epsilon=eps, trials=200_000, rng=1)
print(res.report().splitlines()[0])

p = np.exp(kernels.exponential_log_probabilities(scores, eps))
q = np.exp(kernels.exponential_log_probabilities(flip, eps))
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogy(p, "o", label="P[M(S) = h]")
ax.semilogy(q, "x", label="P[M(S') = h]")
ax.set_xlabel("hypothesis h")
ax.set_ylabel("probability")
ax.set_title(f"exponential mechanism, eps = {eps}: max log ratio {exact_privacy_loss(p, q).epsilon:.3f}")
ax.legend()
fig.tight_layout()
