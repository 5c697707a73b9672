"""Accuracy of three ways to put public-data preprocessing in front of a semi-private learner.

* ``pipeline``: :class:`semiprivate.theory.learners.pipeline.SemiPrivatePipeline` (StandardScaler and Normalizer
  fitted on the public rows only, applied to both inputs, the learner given the transformed public rows);
* ``sentinel``: the documented route of :mod:`semiprivate.theory.privacy.public_rows` (public rows in X with a
  sentinel label, ``PublicRowsFitted(StandardScaler())``, Normalizer, the learner with ``unlabeled_label``);
* ``plain``: scikit-learn's Pipeline with ``clf__X_public=P`` (the scaler fitted on the private rows, the public
  rows handed to the learner untransformed).

Data: digits and breast_cancer, ``semi_private_split`` (10% public, 20% test) with seeds 0..S-1, one
random_state per release (SeedSequence children).  Learner: SemiPrivateHalfspace(epsilon, k) with the declared
classes.  Prints the mean and standard deviation of the test accuracy over the splits.

Run: ``python benchmarks/bench_semi_private_pipeline.py [--splits 5] [--epsilon 1.0]``.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace
from semiprivate.theory.learners.pipeline import SemiPrivatePipeline
from semiprivate.theory.privacy.public_preprocessing import semi_private_split
from semiprivate.theory.privacy.public_rows import PublicRowsFitted
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import Normalizer, StandardScaler

SENTINEL = -9


def _learner(classes: list[int], epsilon: float, k: int, seed: np.random.SeedSequence, **kw: object) -> object:
    return SemiPrivateHalfspace(epsilon, k=k, classes=classes, random_state=seed, row_norm="clip", **kw)


def run(splits: int, epsilon: float) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {}
    for j, (name, loader, k) in enumerate((("digits", load_digits, 10), ("breast_cancer", load_breast_cancer, 5))):
        X, y = loader(return_X_y=True)
        classes = sorted(int(c) for c in np.unique(y))  # public: the data set's label set
        acc: dict[str, list[float]] = {"pipeline": [], "sentinel": [], "plain": []}
        for s in range(splits):
            Xp, yp, P, Xt, yt = semi_private_split(X, y, rng=s)
            a, b, c = np.random.SeedSequence([48, j, s]).spawn(3)  # one seed per release
            pipe = SemiPrivatePipeline([("scale", StandardScaler()), ("norm", Normalizer()),
                                        ("clf", _learner(classes, epsilon, k, a))]).fit(Xp, yp, X_public=P)
            acc["pipeline"].append(float(pipe.score(Xt, yt)))
            Xs, ys = np.vstack([Xp, P]), np.concatenate([yp, np.full(len(P), SENTINEL)])
            sent = Pipeline([("scale", PublicRowsFitted(StandardScaler(), unlabeled_label=SENTINEL)),
                             ("norm", Normalizer()),
                             ("clf", _learner(classes, epsilon, k, b, unlabeled_label=SENTINEL))]).fit(Xs, ys)
            acc["sentinel"].append(float(sent.score(Xt, yt)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the plain route is shown for contrast only
                plain = Pipeline([("scale", StandardScaler()), ("norm", Normalizer()),
                                  ("clf", _learner(classes, epsilon, k, c))]).fit(Xp, yp, clf__X_public=P)
            acc["plain"].append(float(plain.score(Xt, yt)))
        out[name] = acc
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--epsilon", type=float, default=1.0)
    args = ap.parse_args()
    res = run(args.splits, args.epsilon)
    for name, acc in res.items():
        for route, v in acc.items():
            print(f"{name:14s} {route:9s} mean {np.mean(v):.3f} sd {np.std(v, ddof=1):.3f} "
                  f"({', '.join(f'{x:.3f}' for x in v)})")


if __name__ == "__main__":
    main()
