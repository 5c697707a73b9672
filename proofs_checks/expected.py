"""The recorded expectation for every check: one table, in one place.

A test fails when a check errors or when its verdict differs from the value here. A FAILS
entry is a reported result about a paper, not a failing test; an UNPROVED entry is a claim whose
chain is not (yet) closed: the report lists why.
"""

from __future__ import annotations

from semiprivate.proofs_checks._framework import Verdict

H, G, C, F, U = (Verdict.HOLDS, Verdict.HOLDS_GIVEN, Verdict.HOLDS_WITH_CONDITION, Verdict.FAILS,
                 Verdict.UNPROVED)

EXPECTED: dict[str, Verdict] = {
    # HPSY (seed 000)
    "HPSY.Lem1.karger-algebra": H,
    "HPSY.Lem2.beta-range": U,
    "HPSY.Lem2.quadratic": H,
    "HPSY.Lem2.karger-condition": H,
    "HPSY.Lem2.exact-union-bound": G,
    "HPSY.Thm1.union-bound": H,
    "HPSY.Thm1.n_lab-large-epsilon": F,
    "HPSY.Thm2.hoeffding": G,
    "HPSY.Thm2.component-conditions": F,
    "HPSY.Thm2.n_unl": F,
    "HPSY.Thm3.chebyshev-arithmetic": U,
    "HPSY.Thm3.union-over-A": F,
    "HPSY.Thm3.per-point-margin": F,
    "HPSY.Thm3.centring": F,
    "HPSY.Thm3.n_unl": F,
    # ABM19 (seed 003)
    "ABM19.Lem3.3.growth-chain": U,
    "ABM19.Lem3.3.small-n": F,
    "ABM19.Lem3.3.manipulation": U,
    "ABM19.Thm3.1.cover-size": U,
    "ABM19.Lem4.4.chernoff": F,
    "ABM19.Lem4.4.total-variation": U,
    "ABM19.Lem4.4.confidence": F,
    "ABM19.Lem4.4.error-scaling": H,
    "ABM19.Thm4.1.arithmetic": C,
    "ABM19.Thm4.2.arithmetic": U,
    # BNS15 (seed 004)
    "BNS15.Obs3.2.xor-vc": G,
    "BNS15.Thm3.3.events": G,
    "BNS15.Thm3.3.proof-sizes": F,
    "BNS15.Thm3.3.large-epsilon": F,
    "BNS15.Cl4.2.sauer-chain": F,
    "BNS15.Lem4.1.4e-factor": U,
    "BNS15.Lem4.6.constants": G,
    "BNS15.Cl4.5.resampling": U,
    "BNS15.Cl4.3.subsampling": U,
    "BNS15.Cl4.8.geometric-sum": G,
    "BNS15.Cl4.9.induction": U,
    "BNS15.Cl4.11.thmB5-sizes": H,
    "BNS15.Lem4.12.final-size": F,
    "BNS15.Thm4.13.composition": U,
    "BNS15.Thm4.14.composition": U,
    "BNS15.Thm5.8.composition": U,
    "BNS15.Thm4.16.composition": U,
    "BNS15.Cor4.17.rectangles": U,
    "BNS15.Cor4.18.repdim": U,
    "BNS15.Thm5.5.transcript": U,
    "BNS15.Thm5.6.constants": U,
    "BNS15.Cl5.7.proof-last-step": U,
    "BNS15.Cl5.7.statement": U,
    "BNS15.PropA.1.utility": U,
    # PILLAR (seed 002), as reconstructed in semiprivate.theory.bounds.pillar
    "PILLAR.Lem1.excess-risk": U,
    "PILLAR.Thm1.n_lab": U,
    "PILLAR.Cor6.k2": U,
    "PILLAR.Thm2.covariance-shift": U,
}
