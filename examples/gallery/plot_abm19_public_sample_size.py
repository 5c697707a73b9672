"""
ABM19 Lemma 3.3: how many public points make an alpha-cover
===========================================================

Alon, Bassily and Moran (NeurIPS 2019) build a finite class from public unlabelled points: one
hypothesis per dichotomy that the class realises on them.  Lemma 3.3 bounds the probability that
this class is *not* an alpha-cover by ``2 (2e n_pub / d)^(2d) exp(-alpha n_pub / 4)``.  The paper
states the resulting public sample size as ``O((d log(1/alpha) + log(1/beta)) / alpha)``.

Here the lemma's inequality is solved exactly (the smallest ``n_pub`` whose failure probability
is at most beta) and compared with the O-form at constant 1: both grow like
``d log(1/alpha) / alpha``, and the exact size is an order of magnitude above the O-form with
constant 1 (the ratio printed below), so the constant hidden in the O matters in practice.
"""

import matplotlib.pyplot as plt
from semiprivate.theory.bounds.abm19 import abm19_public_sample_size, abm19_public_sample_size_oform

beta = 0.01
alphas = [0.2, 0.1, 0.05, 0.02, 0.01]
fig, ax = plt.subplots(figsize=(6, 4))
for d in (1, 5, 10):
    exact = [abm19_public_sample_size(d, a, beta) for a in alphas]
    oform = [abm19_public_sample_size_oform(d, a, beta) for a in alphas]
    ax.loglog(alphas, exact, "o-", label=f"Lem 3.3 solved exactly, d = {d}")
    ax.loglog(alphas, oform, "x--", label=f"O-form, constant 1, d = {d}")
    print(f"d = {d:2d}: exact n_pub {exact}; O-form {oform}; ratio at alpha = 0.01: {exact[-1] / oform[-1]:.1f}")
ax.set_xlabel("alpha (excess error)")
ax.set_ylabel("public sample size n_pub")
ax.set_title(f"ABM19 Lem 3.3, beta = {beta}")
ax.invert_xaxis()
ax.legend(fontsize=7)
fig.tight_layout()
