"""The recorded expectation for every check: one table, in one place.

A test fails when a check errors or when its verdict differs from the value here. A FAILS
entry is a reported result about a paper, not a failing test; an UNPROVED entry is a claim whose
chain is not (yet) closed, or that rests on a check which does not hold: the report lists why.

:data:`CLAIM_SHA256` pins what each check states (its claim in words and its formal claim, see
:func:`~semiprivate.proofs_checks.certificate_checker.claim_sha256`): ``--recheck`` fails on a
certificate document whose claim is not the pinned one. A deliberate change of a stated claim is
made here by hand, next to its expected verdict.
"""

from __future__ import annotations

from semiprivate.proofs_checks._framework import Verdict

H, G, C, F, U = (Verdict.HOLDS, Verdict.HOLDS_GIVEN, Verdict.HOLDS_WITH_CONDITION, Verdict.FAILS,
                 Verdict.UNPROVED)

EXPECTED: dict[str, Verdict] = {
    # HPSY (seed 000)
    "HPSY.Lem1.karger-algebra": H,
    "HPSY.Lem2.beta-range": H,
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
    "ABM19.Lem4.4.loop-beyond-ratio-20": G,
    "ABM19.Thm4.1.arithmetic": C,
    "ABM19.Thm4.2.arithmetic": U,
    # BNS15 (seed 004)
    "BNS15.Obs3.2.xor-vc": G,
    "BNS15.Thm3.3.events": U,
    "BNS15.Thm3.3.proof-sizes": F,
    "BNS15.Thm3.3.large-epsilon": F,
    "BNS15.Cl4.2.sauer-chain": F,
    "BNS15.Lem4.1.4e-factor": G,
    "BNS15.Lem4.6.constants": G,
    "BNS15.Cl4.5.resampling": U,
    "BNS15.Cl4.3.subsampling": G,
    "BNS15.Cl4.8.geometric-sum": G,
    "BNS15.Cl4.9.induction": H,
    "BNS15.Obs4.7.sizes": U,
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

#: The SHA-256 of each check's stated claim (its words and its formal claim); see the module doc.
CLAIM_SHA256: dict[str, str] = {
    "ABM19.Lem3.3.growth-chain": "30579eaea9d87de2add5b08d8aaf5345867558cc69cfd2d6824904562877a689",
    "ABM19.Lem3.3.manipulation": "ee0034e6904e9c067fcfeb7909a107dddcdfbfc7cc5ef9d11d62edd5a2074e0b",
    "ABM19.Lem3.3.small-n": "a2d9f77face5db14c4cee5e211173b4d478f633a425e0c43e9a5bd81092d1d7f",
    "ABM19.Lem4.4.chernoff": "3169075d3ab5c1ed43932c4209322ddd12fa796d6220b58707e4da96f1d6c78e",
    "ABM19.Lem4.4.confidence": "6f490a921038d4f12e9e4cc290665d83fdeaa6a180d839338ea73fb2d35bd601",
    "ABM19.Lem4.4.error-scaling": "13dfcebe9ee793bf57b8bf08dbb62b8ac935c36def2bc17a1441b045ca939742",
    "ABM19.Lem4.4.loop-beyond-ratio-20": "cce97116d56c5380c5e71ffbb0dfc7ea5143bcb20039fc22bc4f07e298ea8381",
    "ABM19.Lem4.4.total-variation": "b819a369dc96d0f51d0649bbbf9bbb10d4289c5c757c1d013948c0da36ae5e91",
    "ABM19.Thm3.1.cover-size": "61ce9fc13a6b10721302a102e2ebd228a5eeb3256f89760dc1c5ab9d8ec095b4",
    "ABM19.Thm4.1.arithmetic": "46d9b71c7eba5e027c9dcfea3a3b68047c9280135b5d8d6eaebcea7c302b5e6b",
    "ABM19.Thm4.2.arithmetic": "7c1da8ae3a68a0bc8c3d161c9b25747dcf90ccb3dd4dfd8339e90b192fddc720",
    "BNS15.Cl4.11.thmB5-sizes": "a17998c26f446da7bb58519ef191acffad61a123a3603862191dd820a2e4cf00",
    "BNS15.Cl4.2.sauer-chain": "d7995a15a55411a93f27a7cfc781c4023d1de23cb3cb1337a770ca0aa025625b",
    "BNS15.Cl4.3.subsampling": "74e0e3133c487463701ed7e44c4b5eb224f0fa4727ce8b2a54a3fb69047a20eb",
    "BNS15.Cl4.5.resampling": "c599154de0add1436f912cb50400d968b3d73ccd0df7cd2db3d38c1f13228dee",
    "BNS15.Cl4.8.geometric-sum": "214d5d0d92cd515561c48c72dbdafe569b7bd5dbcf44c06bc0a9c25aaadee41d",
    "BNS15.Cl4.9.induction": "13e8cc022338145f314d2765091371b76042adbd8cb0055201af2de514d5a96e",
    "BNS15.Cl5.7.proof-last-step": "8a710059d9b1653f42bbae008dc6ae072c3ce0f7da5954a4ba803c4456ed3902",
    "BNS15.Cl5.7.statement": "cce39b30bd097e3f5076102354b7abb06e915f3a803b1ecc504f4a3121bd7acc",
    "BNS15.Cor4.17.rectangles": "452825e78dfabff09877077d5f8d98cb2edb4d1f4b40d4860d07cd08523eb44f",
    "BNS15.Cor4.18.repdim": "aa60f7543445520ddcc871291118a4ec8836877fa92ea4139042677525a1956a",
    "BNS15.Lem4.1.4e-factor": "913f9b3a4e72f40902d59acce561621e7616572302ffeb3b3e79397e4ac35877",
    "BNS15.Lem4.12.final-size": "ab62d2ed0c501fc3cfc62d97e031843e771c3a039cbd6264dc7df855cfd38812",
    "BNS15.Lem4.6.constants": "410bb4eacdc2a12c63ec007e4c92b1539a15c0e2f04ee8bfde9083ffaeff797c",
    "BNS15.Obs3.2.xor-vc": "172a0617f591dbf448172d196636e47514b041aef6ddf0ea1ac8de7064130552",
    "BNS15.Obs4.7.sizes": "3cfdc0fd5b80a19523b930d6346b2cdd75e55a6b94ef643801f4701c13ea6de5",
    "BNS15.PropA.1.utility": "f9b12cbe8321e8558c599f2b02f81c5ef615e96368a6e41c86478276da7db698",
    "BNS15.Thm3.3.events": "fb2d584dc0396a51139728de525994fef784a85888e23f2827dd4f87eeb71eba",
    "BNS15.Thm3.3.large-epsilon": "fed53bb60fd2bb155d114957c9cc012ca32318cf4ffdfcbbd215ee9da88c8ad8",
    "BNS15.Thm3.3.proof-sizes": "2c4eec06f8f9fb4991d339489d1f4db3c942252db563af7cba1dd916dca20e75",
    "BNS15.Thm4.13.composition": "da593f7f72227e37b6694d827a7dfe2a54ea46aa7260f5fd6cb97bf85d973775",
    "BNS15.Thm4.14.composition": "7d4e8ab114666d60325970a25d3074638b657716097d8fc20e55a683d35e0fbd",
    "BNS15.Thm4.16.composition": "8e7da61afc5f9a32d2c1c259420c8a905a093c06ac9d84dd8a3b5b0868a68c5b",
    "BNS15.Thm5.5.transcript": "153ad4dbbe71cef6238e825b2fc3a0127512477d68b5dee1e44c26deccadaa09",
    "BNS15.Thm5.6.constants": "b54dd3998aaf4584e6b672578ce4b464da8057f75c3bbadc7e7f03309df7e3eb",
    "BNS15.Thm5.8.composition": "65938bdd5c87e2b08851b7fc59533d388be7f7d12fe749b0448310f67f790e94",
    "HPSY.Lem1.karger-algebra": "4b777172c8b95564abdedf26b11d7536445543979340f24191c3c6c051081d76",
    "HPSY.Lem2.beta-range": "5f258f2569933a6f00e567f4a5c8efdf686e8e857829e68ee3a7370420eff693",
    "HPSY.Lem2.exact-union-bound": "2010d52f1e3b6308bcad188f2959c9fc9679c6cb59747d6f4159a340e80d7b86",
    "HPSY.Lem2.karger-condition": "df5598ec4cdcc1fb0e745274e5b5d47adee5a56d8c2fd97f5c73792d4dca963f",
    "HPSY.Lem2.quadratic": "908075f29a63182f2611415979d7337bd69d9f582a0ac8517f3accd2fb824b07",
    "HPSY.Thm1.n_lab-large-epsilon": "91ccdfeee846ca0c451f8e3ddfbd7f106ad2f353d5083fcf492138221f20a23a",
    "HPSY.Thm1.union-bound": "08748b0dca49a1b6bd87e4b4ad89951445fc7f44b25c3f8f27ff18e43fd2a907",
    "HPSY.Thm2.component-conditions": "1296b366817d07c860e0c6ebc3622fb1e0413047e0d1e77f2c8f0e3fdd8b13c7",
    "HPSY.Thm2.hoeffding": "277615d87230b11d1ee96ec59adcb33aeced0df266f513c60d86c2bda2a44643",
    "HPSY.Thm2.n_unl": "725866d7c6aa386a1b31d72475188a15592feb36860eb23b85306823feb238f2",
    "HPSY.Thm3.centring": "9d09bb6eb79267dc0d486c36d3340736cef26fdb7372a9cade2e4a44a4baae48",
    "HPSY.Thm3.chebyshev-arithmetic": "3ab1e517d60d736d072861e9061213273d99a4e6d3b701a9831824a24cb87b46",
    "HPSY.Thm3.n_unl": "2a825ec251a3ef95955f6b8b39104fd21acf785dd81b7a4a4c31b423d8f4a618",
    "HPSY.Thm3.per-point-margin": "bd7028807d60caeaefe0918ca43721916c950c197295e2fbd17b320bebd29b31",
    "HPSY.Thm3.union-over-A": "cdc156ff9c6df35d3749944727b0c157588c8b8e3b219d4a59e1f5b8286b5836",
    "PILLAR.Cor6.k2": "37321d11cf5a68bdc65027f05973524c066cdf068de95153f58ac2012045f078",
    "PILLAR.Lem1.excess-risk": "0c80be8360882b374a98b469a1f9bf13a49469cc57072858568a12343eb47989",
    "PILLAR.Thm1.n_lab": "085744c0670c6bbf760b0fdf0ef490fd324d279e7bfb29058d1a2fb5eeb31148",
    "PILLAR.Thm2.covariance-shift": "9c4d191e69dd03588d4aff7fe501817e45e2c347e8f56227e340dabf44b7fc79",
}
