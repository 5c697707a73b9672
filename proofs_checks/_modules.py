"""The list of check modules (one per SPEC item / paper step) and their loader."""

from __future__ import annotations

import importlib

MODULES: tuple[str, ...] = (
    "hpsy_lem1",
    "hpsy_lem2",
    "hpsy_thm1",
    "hpsy_thm2",
    "hpsy_thm3",
    "abm19_lem3_3",
    "abm19_thm3_1",
    "abm19_lem4_4",
    "abm19_cl4_5",
    "abm19_thm4_1",
    "abm19_thm4_2",
    "bns15_obs3_2",
    "bns15_thm3_3",
    "bns15_cor3_4",
    "bns15_cl4_2",
    "bns15_lem4_1",
    "bns15_lem4_6",
    "bns15_cl4_5",
    "bns15_cl4_8",
    "bns15_cl4_9",
    "bns15_rem4_10",
    "bns15_obs4_7",
    "bns15_cl4_11",
    "bns15_thm4_13",
    "bns15_thm4_16",
    "bns15_cor4_17_18",
    "bns15_thm5_5",
    "bns15_thm5_6",
    "bns15_cl5_7",
    "bns15_prop_a1",
    "pillar_lem1",
    "pillar_thm2",
    "pillar_alg2",
    "pillar_cor4",
    "pillar_thm5",
)


def load_all() -> None:
    """Import every check module (registration happens at import)."""
    for name in MODULES:
        importlib.import_module(f"semiprivate.proofs_checks.{name}")
