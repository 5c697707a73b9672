"""
PILLAR Figure 4's shape: private accuracy against the PCA dimension k, non-private flat
=======================================================================================

PILLAR (Alg 1, Fig 4) projects the private data on the top-k principal components of a public
unlabelled sample (10% of the data) and trains one linear classifier with DP-SGD on the
projections.  Its claim: at a small privacy budget the private test accuracy *rises* as k falls
(the noise DP-SGD adds grows with the dimension it trains in), while non-private training on the
same projections stays flat or falls.

Here: :class:`semiprivate.theory.learners.multinomial.SemiPrivateMultinomial` (public
standardisation, public PCA to k, one multinomial full-batch DP-GD run, replace-one neighbours,
delta = 1e-5) on scikit-learn's digits (d = 64) and on PILLAR.Def3 large-margin low-rank data at
d = 2048 (the dimension of the papers' pre-trained features), against scikit-learn's logistic
regression on the same features.  The last point of each curve is the full dimension (no
projection).  Two splits per data set to keep the page fast; ``benchmarks/bench_utility.py`` and
the report's halfspace section run more.

What to expect: the rise is large on the d = 2048 data and small on digits.  Weight noise reaches a
row's scores in proportion to the norm of the row's projection, so projecting to k shrinks it by about
the square root of the share of the rows' squared norm that the top k public directions hold.  On the
d = 2048 data the top 5 directions hold about 19% of it (noise in the scores down to about 0.43x);
on digits, whose spectrum is spread, the top 16 hold about 70% (down to about 0.84x) while the
noise-free accuracy already falls as k shrinks.  The report's halfspace section measures both numbers
on its splits and predicts the rise from them.
"""

import matplotlib.pyplot as plt
import numpy as np
from semiprivate.theory.halfspace_data import LargeMarginLowRank
from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial
from semiprivate.theory.privacy.public_preprocessing import semi_private_split
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression


def sweep(X, y, ks, epsilons, seeds, case):
    """{eps (None: non-private): [mean accuracy at each k]}; the last k is the full dimension."""
    d = X.shape[1]
    acc = {e: np.zeros((seeds, len(ks))) for e in [*epsilons, None]}
    for s in range(seeds):
        Xp, yp, P, Xt, yt = semi_private_split(X, y, public_share=0.1, test_share=0.2, rng=s)
        # one child seed per release (one seed, one release); the leading tag word keeps this sweep's streams
        # apart from other scripts' small integer seeds: SeedSequence pads its entropy with zeros, so
        # SeedSequence([0, 0]) is the stream of seed 0, and two releases on one stream share their noise
        release_seeds = np.random.SeedSequence([0x504C4D, s, case])
        for j, k in enumerate(ks):
            kw = {"projection": "none"} if k == d else {"k": k}
            for e in epsilons:
                clf = SemiPrivateMultinomial(e, 1e-5, classes=np.unique(y), random_state=release_seeds.spawn(1)[0],
                                             **kw).fit(Xp, yp, X_public=P)
                acc[e][s, j] = clf.score(Xt, yt)
            # non-private: the same public standardisation and projection, logistic regression
            ref = SemiPrivateMultinomial(1.0, 1e-5, n_iter=1, classes=np.unique(y), random_state=release_seeds.spawn(1)[0],
                                         **kw).fit(Xp, yp, X_public=P)
            A = np.eye(d) if ref.components_ is None else ref.components_
            lr = LogisticRegression(max_iter=2000).fit(ref.scaler_.transform(Xp) @ A, yp)
            acc[None][s, j] = lr.score(ref.scaler_.transform(Xt) @ A, yt)
    return {e: a.mean(axis=0) for e, a in acc.items()}


X_dig, y_dig = load_digits(return_X_y=True)
D = LargeMarginLowRank(2048, 5, 0.1, tail=0.3, signal_rank=3, decay=1.3, rng=0)
X_syn, y_syn = D.sample(2000, 1)
cases = [("digits, d = 64 (10 classes)", X_dig, y_dig, [2, 4, 8, 16, 32, 64]),
         ("PILLAR.Def3 data, d = 2048 (2 classes)", X_syn, y_syn, [2, 5, 20, 100, 2048])]
epsilons = [0.3, 1.0]

fig, axes = plt.subplots(1, 2, figsize=(11, 4))
for case, (ax, (title, X, y, ks)) in enumerate(zip(axes, cases)):
    res = sweep(X, y, ks, epsilons, seeds=2, case=case)
    for e, means in res.items():
        label = "non-private" if e is None else f"eps = {e:g}"
        ax.plot(ks, means, "o-", color="black" if e is None else None, label=label)
        print(f"{title:40s} {label:12s} " + "  ".join(f"k={k}: {m:.3f}" for k, m in zip(ks, means)))
    ax.set_xscale("log", base=2)
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks[:-1]] + [f"{ks[-1]} (all)"])
    ax.set_xlabel("PCA dimension k (public principal components)")
    ax.set_ylabel("test accuracy (fraction correct)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, title="delta = 1e-5, replace-one", title_fontsize=8)
fig.tight_layout()
plt.show()
