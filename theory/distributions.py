"""Data distributions over Z = X x {0,1} for the cover-based learners (thresholds, intervals,
rectangles, the random-label distribution D0 of ABM19 Sec 4, and mixtures).

Implements: distributions used by ABM19.Thm3.1 / ABM19.Lem3.3 experiments and ABM19.Alg2-4
(D0 with uniformly random labels, the mixture D(p) = p D + (1 - p) D0 of the proof of Lem 4.4).

Every distribution has ``sample(n, rng) -> (X, y)``, ``sample_X(n, rng)`` and an exact
``error(h)`` = err(h; D) (so excess errors in tests are exact, not estimated), plus
``optimal_error`` = inf_{h in C} err(h; D).

Examples
--------
>>> D = ThresholdDistribution(8, 100, noise=0.1)
>>> X, y = D.sample(5, rng=0)
>>> X.dtype.name, y.dtype.name
('uint64', 'bool')
>>> D.error(100), round(D.error(228), 3)
(0.1, 0.5)
"""

from __future__ import annotations

import abc
from fractions import Fraction
from typing import Any

import numpy as np

from kernels.validation import Integer, Real, as_generator, check_real, validate_params
from theory.classes import Intervals, Rectangles, Thresholds
from theory.classes.base import ConceptClass

__all__ = [
    "LabelledDistribution",
    "ThresholdDistribution",
    "IntervalDistribution",
    "RectangleDistribution",
    "RandomLabelDistribution",
    "MixtureDistribution",
    "uniform_points",
]

NOISE = Real(0.0, 0.5, closed="left")


def uniform_points(n: int, d: int, rng: Any = None, l: int | None = None) -> np.ndarray:  # noqa: E741
    """n uniform points of X_d (shape (n,)) or of (X_d)^l (shape (n, l)), dtype uint64."""
    g = as_generator(rng)
    shape: tuple[int, ...] = (n,) if l is None else (n, l)
    return g.integers(0, 2**d, size=shape, dtype=np.uint64)


class LabelledDistribution(abc.ABC):
    """A distribution over X x {0, 1}: target concept plus independent label noise.

    ``noise`` is the probability that the label of c*(x) is flipped (agnostic setting when
    > 0); the optimal error in the class is then exactly ``noise``.
    """

    concept_class: ConceptClass
    target: Any
    noise: float

    @abc.abstractmethod
    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        """Implemented by each concrete distribution."""

    @abc.abstractmethod
    def _disagreement_mass(self, h: Any) -> float:
        """Implemented by each concrete distribution."""

    def sample(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """n i.i.d. labelled examples: (X, y) with y bool."""
        n = int(Integer(0).validate("n", n))
        g = as_generator(rng)
        X = self.sample_X(n, g)
        y = self.concept_class.evaluate(self.target, X) if n else np.zeros(0, dtype=bool)
        if self.noise > 0 and n:
            y = y ^ (g.random(n) < self.noise)
        return X, np.asarray(y, dtype=bool)

    def error(self, h: Any) -> float:
        """Exact err(h; D) = noise + (1 - 2 noise) * P_x[h(x) != c*(x)]."""
        return float(self.noise + (1.0 - 2.0 * self.noise) * self._disagreement_mass(h))

    @property
    def optimal_error(self) -> float:
        """inf over the class of err(h; D) (= noise, attained by the target)."""
        return float(self.noise)


def _interval_len(a: int, b: int) -> int:
    return max(0, b - a + 1)


class ThresholdDistribution(LabelledDistribution):
    """Uniform marginal on X_d; label c_{t*}(x) = 1[x < t*], flipped with probability ``noise``.

    Implements: threshold data (THRESH_d, BNS15 Thm 5.6) for ABM19.Thm3.1 experiments.
    err(c_t; D) = noise + (1 - 2 noise) |t - t*| / 2^d exactly.
    """

    @validate_params(d=Integer(1, 64), threshold=Integer(0), noise=NOISE)
    def __init__(self, d: int, threshold: int, noise: float = 0.0) -> None:
        if threshold > 2**d:
            raise ValueError(f"threshold must be in [0, 2^{d}], got {threshold}")
        self.d = d
        self.concept_class = Thresholds(d)
        self.target = self.concept_class._check_h(threshold)
        self.noise = float(noise)

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        return uniform_points(n, self.d, rng)

    def _disagreement_mass(self, h: Any) -> float:
        t = self.concept_class._check_h(h)
        return float(Fraction(abs(t - self.target), 2**self.d))


class IntervalDistribution(LabelledDistribution):
    """Uniform marginal on X_d; label 1[a* <= x <= b*] (or the empty interval), noisy.

    Implements: interval data.  err exact from the size of the symmetric difference.
    """

    @validate_params(d=Integer(1, 64), noise=NOISE)
    def __init__(self, d: int, interval: tuple[int | np.integer, int | np.integer] | None, noise: float = 0.0) -> None:
        self.d = d
        self.concept_class = Intervals(d)
        self.target = self.concept_class._check_h(interval)  # validates the interval
        self.noise = float(noise)

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        return uniform_points(n, self.d, rng)

    def _disagreement_mass(self, h: Any) -> float:
        hv = self.concept_class._check_h(h)
        A = (0, -1) if hv is None else hv
        B = (0, -1) if self.target is None else self.target
        inter = _interval_len(max(A[0], B[0]), min(A[1], B[1]))
        sym = _interval_len(*A) + _interval_len(*B) - 2 * inter
        return float(Fraction(sym, 2**self.d))


class RectangleDistribution(LabelledDistribution):
    """Uniform marginal on (X_d)^l; label 1[x in box*], noisy.

    Implements: rectangle data (RECTANGLE_d^l, BNS15 Sec 4).  err exact from box volumes.
    """

    @validate_params(d=Integer(2, 64), l=Integer(1, 64), noise=NOISE)
    def __init__(self, d: int, l: int, box: Any, noise: float = 0.0) -> None:  # noqa: E741
        self.d = d
        self.l = l
        self.concept_class = Rectangles(d, l)
        self.target = self.concept_class._check_h(box)  # validates the box
        self.noise = float(noise)

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        return uniform_points(n, self.d, rng, self.l)

    @staticmethod
    def _vol(box: Any) -> int:
        if box is None:
            return 0
        v = 1
        for a, b in zip(box[0], box[1]):
            v *= _interval_len(int(a), int(b))
        return v

    def _disagreement_mass(self, h: Any) -> float:
        hv = self.concept_class._check_h(h)
        if hv is None or self.target is None:
            inter = 0
        else:
            inter = 1
            for a1, b1, a2, b2 in zip(hv[0], hv[1], self.target[0], self.target[1]):
                inter *= _interval_len(max(a1, a2), min(b1, b2))
        sym = self._vol(hv) + self._vol(self.target) - 2 * inter
        return float(Fraction(sym, 2 ** (self.d * self.l)))


class RandomLabelDistribution:
    """D0 of ABM19 Sec 4 (Alg 2 step 1): x from a fixed marginal, y uniform on {0,1} independently.

    Implements: ABM19.Alg2 (the dummy distribution D0).  err(h; D0) = 1/2 for every h.

    Parameters
    ----------
    sample_X : callable (n, rng) -> X
        The marginal on X (e.g. ``ThresholdDistribution(...).sample_X``).
    """

    def __init__(self, sample_X: Any) -> None:
        if not callable(sample_X):
            raise TypeError("sample_X must be callable (n, rng) -> X")
        self._sample_X = sample_X
        self.noise = 0.5

    def sample_X(self, n: int, rng: Any = None) -> np.ndarray:
        return np.asarray(self._sample_X(n, as_generator(rng)))

    def sample(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        g = as_generator(rng)
        X = self.sample_X(n, g)
        return X, g.random(n) < 0.5

    def error(self, h: Any) -> float:
        """err(h; D0) = 1/2 for every hypothesis."""
        return 0.5


class MixtureDistribution:
    """D(p) = p D + (1 - p) D0 (proof of ABM19 Lem 4.4); err(h; D(p)) = p err(h; D) + (1-p)/2
    when D0 has uniformly random labels.

    Implements: ABM19.Lem4.4 (the mixture in its proof).
    """

    def __init__(self, D: Any, D0: Any, p: float) -> None:
        self.D = D
        self.D0 = D0
        self.p = check_real(p, "p", 0.0, 1.0)

    def sample(self, n: int, rng: Any = None) -> tuple[np.ndarray, np.ndarray]:
        g = as_generator(rng)
        b = g.random(n) < self.p
        X1, y1 = self.D.sample(n, g)
        X0, y0 = self.D0.sample(n, g)
        sel = b.reshape((n,) + (1,) * (np.asarray(X1).ndim - 1))
        return np.where(sel, X1, X0), np.where(b, y1, y0)

    def error(self, h: Any) -> float:
        return float(self.p * self.D.error(h) + (1.0 - self.p) * self.D0.error(h))
