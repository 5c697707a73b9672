"""Common interface of the concept classes: evaluation, dichotomies Pi_C(B), VC dimension.

Implements: COMB.Projection, COMB.VC (BNS15 App. B; ABM19 Alg 1 step 2).

Every class is a set of {0,1}-valued hypotheses over a domain.  A *hypothesis* is represented
by a small Python object specific to the class (a threshold ``t``, an interval ``(a, b)``, a
weight vector ...).  :meth:`ConceptClass.dichotomies` returns the distinct labelings
:math:`\\Pi_C(B)` of a set of distinct points B together with one representative hypothesis
per labeling, computed from the structure of the class (never by listing a huge C).
"""

from __future__ import annotations

import itertools
import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np
from semiprivate import kernels
from semiprivate.validation import as_generator, check_binary

__all__ = ["ConceptClass", "Dichotomies", "error_counts_of", "check_concept_class",
           "check_hypothesis_list"]


def check_concept_class(value: Any, name: str = "concept_class") -> ConceptClass:
    """``value`` if it is a :class:`ConceptClass`, else TypeError naming ``name``.

    >>> check_concept_class(None)
    Traceback (most recent call last):
    ...
    TypeError: concept_class must be a ConceptClass of semiprivate.theory.classes (e.g. Thresholds(8)), got None (NoneType)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (the parameter name for messages), got {type(name).__name__}")
    if not isinstance(value, ConceptClass):
        text = repr(value)
        text = text if len(text) <= 60 else text[:57] + "..."
        raise TypeError(f"{name} must be a ConceptClass of semiprivate.theory.classes (e.g. Thresholds(8)), "
                        f"got {text} ({type(value).__name__})")
    return value


def check_hypothesis_list(value: Any, name: str) -> list[Any]:
    """A list of hypotheses from a list / tuple / 1-d or 2-d array, else TypeError naming ``name``."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (the parameter name for messages), got {type(name).__name__}")
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, np.ndarray) and value.ndim in (1, 2):
        return list(value)
    raise TypeError(f"{name} must be a list of hypotheses, got {type(value).__name__}")


def error_counts_of(predictions: Any, labels: Any) -> np.ndarray:
    """#errors of each hypothesis: ``errors[i] = sum_j [predictions[i, j] != labels[j]]``.

    Implements: EXPMECH (score q = -errors).  Uses :func:`semiprivate.kernels.error_counts` when that
    kernel is available, else NumPy.  Lives with the classes (every class's
    :meth:`ConceptClass.error_counts` uses it); :mod:`semiprivate.theory.privacy.exponential` re-exports it.

    Parameters
    ----------
    predictions : array of bool, shape (k, n)
    labels : array of 0/1, shape (n,)

    Returns
    -------
    ndarray of int64, shape (k,)

    Examples
    --------
    >>> error_counts_of([[0, 0, 1], [1, 1, 1]], [0, 0, 1]).tolist()
    [0, 2]
    """
    if predictions is None or isinstance(predictions, (str, bytes)):
        raise TypeError(f"predictions must be a 2-d 0/1 array, got {type(predictions).__name__}")
    try:
        P = np.asarray(predictions)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"predictions must be a 2-d 0/1 array, got {type(predictions).__name__}: {exc}") from None
    if P.dtype.kind not in "biuf":
        raise TypeError(f"predictions must be a 2-d 0/1 array, got dtype {P.dtype}")
    if P.ndim != 2:
        raise ValueError(f"predictions must be 2-d (hypotheses x points), got shape {P.shape}")
    y = check_binary(labels, "labels", length=P.shape[1], as_bool=True)
    P = check_binary(P, "predictions", as_bool=True)
    return np.asarray(kernels.error_counts(P, y), dtype=np.int64)


class Dichotomies:
    """The projection :math:`\\Pi_C(B)` with one representative hypothesis per dichotomy.

    Implements: COMB.Projection.

    Attributes
    ----------
    points : ndarray
        The distinct points B (as validated by the class), in the order of the pattern columns.
    representatives : list
        One hypothesis of the class per dichotomy, all with distinct labelings of B.
    patterns : ndarray of bool, shape (k, |B|)
        ``patterns[i]`` = labeling of B by ``representatives[i]``.  Computed lazily (from the
        representatives) when not given: for large B, Pi_C(B) can have |B|^2 or more rows.
    """

    def __init__(self, points: np.ndarray, patterns: np.ndarray | None = None,
                 representatives: list[Any] | None = None, concept_class: ConceptClass | None = None) -> None:
        if not isinstance(points, np.ndarray):
            raise TypeError(f"points must be a NumPy array of validated points, got {type(points).__name__}")
        if patterns is not None:
            if not isinstance(patterns, np.ndarray) or patterns.ndim != 2:
                raise TypeError(f"patterns must be a 2-d bool array (dichotomies x points), got "
                                f"{type(patterns).__name__}")
            if patterns.shape[1] != len(points):
                raise ValueError(f"patterns must have one column per point ({len(points)}), got shape {patterns.shape}")
        if concept_class is not None:
            check_concept_class(concept_class)
        self.points = points
        self.representatives = [] if representatives is None else check_hypothesis_list(representatives,
                                                                                        "representatives")
        self._patterns = patterns
        self._class = concept_class
        if patterns is None and concept_class is None:
            raise ValueError("Dichotomies needs patterns or the concept class to compute them")

    @property
    def patterns(self) -> np.ndarray:
        if self._patterns is None:
            if self._class is None:  # pragma: no cover - excluded by __init__
                raise RuntimeError("no concept class to compute the patterns")
            self._patterns = self._class.evaluate_many(self.representatives, self.points)
        return self._patterns

    def pattern_set(self) -> set[bytes]:
        """The dichotomies as a set of packed byte strings (order-free comparison)."""
        return {np.packbits(row).tobytes() + bytes([len(row) % 8]) for row in self.patterns}

    def __len__(self) -> int:
        return len(self.representatives) if self._patterns is None else int(self._patterns.shape[0])


def _sorted_patterns(patterns: np.ndarray, reps: list[Any]) -> tuple[np.ndarray, list[Any]]:
    """Sort rows lexicographically (keys: column 0 first) and drop duplicate rows."""
    p = np.asarray(patterns, dtype=bool)
    if p.shape[0] == 0:
        return p, []
    if p.shape[1] == 0:
        return p[:1], reps[:1]
    _, idx = np.unique(p, axis=0, return_index=True)
    idx = np.sort(idx)
    p = p[idx]
    reps = [reps[i] for i in idx]
    order = np.lexsort(p.T[::-1])
    return p[order], [reps[i] for i in order]


class ConceptClass(ABC):
    """Abstract concept class over a domain X with hypotheses X -> {0, 1}.

    Implements: COMB.Projection, COMB.VC.

    Subclasses define :meth:`validate_points`, :meth:`evaluate`, :meth:`dichotomies`,
    :attr:`vc_dimension` and, where cheap, :meth:`hypotheses` (full enumeration, used only
    for brute-force checks on small domains).
    """

    #: SPEC name of the class (for reports)
    name: str = "C"

    # -- domain -----------------------------------------------------------------------------
    @property
    def domain_size(self) -> int | None:
        """Number of domain points (None for an infinite domain such as R^p)."""
        return None

    def domain_points(self) -> np.ndarray | None:
        """All domain points as a validated array, or None when the domain is infinite or
        larger than 4096 points."""
        return None

    @abstractmethod
    def validate_points(self, X: Any, name: str = "X", *, allow_empty: bool = False) -> np.ndarray:
        """Validate points of the domain and return them as the class's canonical array."""

    # -- hypotheses ---------------------------------------------------------------------------
    @abstractmethod
    def _check_h(self, h: Any) -> Any:
        """Validate one hypothesis of the class and return its canonical form.

        Raises TypeError for a wrong type (a float, bool or string where an int is meant, a
        wrong-length tuple) and ValueError for a hypothesis outside the class.
        """

    @abstractmethod
    def evaluate(self, h: Any, X: Any) -> np.ndarray:
        """Labels ``h(x)`` (bool array, one per point) of hypothesis ``h`` on points ``X``."""

    def evaluate_many(self, hypotheses: Sequence[Any], X: Any) -> np.ndarray:
        """Bool matrix ``M[i, j] = hypotheses[i](X[j])``, shape (len(hypotheses), len(X))."""
        Xv = self.validate_points(X, allow_empty=True)
        if len(hypotheses) == 0:
            return np.zeros((0, len(Xv)), dtype=bool)
        return np.stack([self._evaluate_valid(h, Xv) for h in hypotheses])

    def _evaluate_valid(self, h: Any, Xv: np.ndarray) -> np.ndarray:
        return self.evaluate(h, Xv)

    def error_counts(self, hypotheses: Sequence[Any], X: Any, y: Any) -> np.ndarray:
        """#errors of each hypothesis on the labelled sample (X, y), as int64.

        Default: the prediction matrix and :func:`semiprivate.kernels.error_counts` (via
        :func:`error_counts_of`); 1-d classes override it with an O((k + n) log n) count
        from sorted points.
        """
        Xv = self.validate_points(X, allow_empty=True)
        if len(Xv) == 0:
            if np.asarray(y).size:
                raise ValueError(f"y must have length {len(Xv)}, got {np.asarray(y).size}")
            return np.zeros(len(hypotheses), dtype=np.int64)
        return error_counts_of(self.evaluate_many(hypotheses, Xv), y)

    def hypotheses(self) -> list[Any] | None:
        """Every hypothesis of the class (only for small finite classes; None otherwise)."""
        return None

    @abstractmethod
    def random_hypothesis(self, rng: Any = None) -> Any:
        """A random hypothesis (a "typical" member; used as a target or a probe)."""

    # -- dichotomies -------------------------------------------------------------------------
    @abstractmethod
    def dichotomies(self, points: Any) -> Dichotomies:
        """:math:`\\Pi_C(B)` for distinct points B, one representative per dichotomy."""

    def count_dichotomies(self, points: Any) -> int:
        """:math:`|\\Pi_C(B)|`."""
        return len(self.dichotomies(points))

    def brute_force_dichotomies(self, points: Any) -> Dichotomies:
        """:math:`\\Pi_C(B)` by evaluating every hypothesis (small finite classes only)."""
        hyps = self.hypotheses()
        if hyps is None:
            raise ValueError(f"{self.name} is too large to enumerate")
        B = self._distinct_points(points)
        M = self.evaluate_many(hyps, B)
        p, reps = _sorted_patterns(M, list(hyps))
        return Dichotomies(B, p, reps)

    def _distinct_points(self, points: Any) -> np.ndarray:
        B = self.validate_points(points, "points", allow_empty=True)
        if len(B) == 0:
            return B
        flat = B.reshape(len(B), -1)
        if len(np.unique(flat, axis=0)) != len(B):
            raise ValueError("points must be distinct (B is a set); remove duplicate points first")
        return B

    # -- VC dimension and growth -------------------------------------------------------------
    @property
    @abstractmethod
    def vc_dimension(self) -> int:
        """VC dimension (closed form)."""

    def growth_function_closed_form(self, m: int) -> int | None:
        """Closed-form growth function :math:`G_C(m)` if known, else None."""
        return None

    def shatters(self, points: Any) -> bool:
        """True iff the class realises all :math:`2^{|B|}` labelings of B."""
        B = self._distinct_points(points)
        return self.count_dichotomies(B) == 2 ** len(B)

    def brute_force_vc_dimension(self, max_dim: int | None = None) -> int:
        """VC dimension by shattering search over subsets of a finite domain.

        Implements: COMB.VC (brute force).  Tries sizes 1, 2, ... and stops at the first
        size with no shattered subset (shattering is inherited by subsets).  Uses the
        structured :meth:`dichotomies` for the counts.
        """
        pts = self.domain_points()
        if pts is None:
            raise ValueError(f"{self.name}: brute force needs a small finite domain")
        n = len(pts)
        best = 0
        top = n if max_dim is None else min(n, max_dim)
        for size in range(1, top + 1):
            if math.comb(n, size) > 500_000:
                raise ValueError(f"{self.name}: C({n},{size}) subsets is too many for brute force")
            if any(self.count_dichotomies(pts[list(idx)]) == 2**size for idx in itertools.combinations(range(n), size)):
                best = size
            else:
                break
        return best

    def _rng(self, rng: Any) -> np.random.Generator:
        return as_generator(rng)
