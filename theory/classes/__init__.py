"""Concept classes with dichotomies Pi_C(B) and VC dimensions (SPEC section 1).

Implements: COMB.Projection, COMB.VC.  Classes: :class:`Thresholds` (THRESH_d, BNS15
Thm 5.6), :class:`Intervals`, :class:`Rectangles` (RECTANGLE_d^l, BNS15 Sec 4),
:class:`PointFunctions`, :class:`Disjunctions` (DISJ_d^k, HPSY Sec 3.1), :class:`Halfspaces`
(through the origin / affine, on finite point sets in R^p) and :class:`FiniteClass`.
"""

from semiprivate.theory.classes.base import ConceptClass, Dichotomies
from semiprivate.theory.classes.integer import (
    Intervals,
    PointFunctions,
    Thresholds,
    uniform_int,
    validate_integer_points,
)
from semiprivate.theory.classes.other import Disjunctions, FiniteClass, Halfspaces, Rectangles

__all__ = [
    "ConceptClass",
    "Dichotomies",
    "Thresholds",
    "Intervals",
    "PointFunctions",
    "Rectangles",
    "Disjunctions",
    "Halfspaces",
    "FiniteClass",
    "uniform_int",
    "validate_integer_points",
]
