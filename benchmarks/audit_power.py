"""Benchmark: audit power on DP-Sniper's / StatDP's mechanism set, against their published bounds.

Implements: AUDIT (benchmark against published testers).

Mechanisms, parameters, input pairs and the confidence level are those of the DP-Sniper S&P 2021
evaluation (Bichsel, Steffen, Bogunovic, Vechev, "DP-Sniper: Black-Box Discovery of Differential
Privacy Violations using Classifiers"; repository ``eth-sri/dp-sniper``):

* mechanisms: ``dpsniper/mechanisms/*.py`` (Laplace, TruncatedGeometric (Balcer-Vadhan GeoSample),
  NoisyHist1/2 and ReportNoisyMax1-4 (StatDP, Ding et al. CCS 2018, Algs. 5-10), SVT1-6 (Lyu, Su,
  Li, PVLDB 2017, Algs. 1-6), RAPPOR and one-time RAPPOR (Erlingsson et al. CCS 2014), parallel
  Laplace, SVT3+SVT4 in parallel, PrefixSum and NumericalSVT (Wang et al. PLDI 2019)) and the
  Laplace mechanism with Mironov's snapping fix (``LaplaceFixed``), rewritten here with the same
  distributions, the same output codes and the same parameters (``eps = 0.1`` everywhere;
  ``dpsniper/experiments/exp_default.py`` sets c, T, the parallel sizes and ``eps = 0.005`` per
  copy of parallel Laplace);
* input pairs: StatDP's patterns (``dpsniper/input/pattern_generator.py``): "one above / one
  below" for one-entry neighbourhoods (StatDP's ONE_DIFFER: Laplace, TruncatedGeometric,
  NoisyHist, RAPPOR, parallel Laplace), all eight patterns for component-wise neighbourhoods
  (ALL_DIFFER: ReportNoisyMax, the SVTs, PrefixSum, NumericalSVT), with the same dimensions
  (1, 5 or 10) and clipping to the same domains.  DP-Sniper also runs every pair swapped; the
  auditor tests both directions of each pair, so a pair is listed once;
* confidence 0.9 (``DDConfig.confidence``), the level of their published lower bounds.

Published lower bounds (PUBLISHED below) are the ``eps_lcb`` entries of the reference logs of that
evaluation, ``eth-sri/dp-sniper:eval_sp2021/reference-results/*.log`` (commit ee087b2):
``dd_search_reg_data.log`` (DP-Sniper, logistic regression), ``dd_search_mlp_data.log`` (DP-Sniper,
neural network), ``statdp_1_data.log`` / ``statdp_2_data.log`` (two runs of StatDP with
DP-Sniper's post-processing and a 200,000,000-sample verification of its witness, "StatDP-Fixed"),
``floating_point_data.log`` / ``floating_fixed_data.log`` (the floating-point experiment).  Their
samples: every ordered input pair gets ``2 n_train + n + 2 n_check = 53,500,000`` samples in the
search and the best witness ``2 n_final = 400,000,000`` more (``dpsniper/search/ddconfig.py``
defaults, ``dpsniper/attack/dpsniper.py``); StatDP-Fixed's final estimate is the same 400,000,000.

True epsilon on these pairs (column "true eps"): closed form where the output is a bijection of
independent Laplace noise (Laplace, NoisyHist, PrefixSum, parallel Laplace: sum over coordinates
of |shift| / scale), exact rational arithmetic for GeoSample, per-bit randomized-response ratios
for RAPPOR (bits of the Bloom filter through MurmurHash3, as ``mmh3.hash``), one-dimensional
numerical integration for ReportNoisyMax (index and value) and for the SVTs with c = 1 (the
output given the threshold noise is a product of independent comparisons), see
:func:`true_epsilon`.  "inf" where an output has probability 0 on one side only.

Noise of the sparse-vector cases: in this benchmark's audit (:func:`run`), SVT1-6, SVT34Parallel and
NumericalSVT draw every noise from the exact discrete Laplace of the published scale (``exact=True`` of :mod:`semiprivate.theory.audit.examples`; the
integer-noise algorithms, eps-DP by the same proofs), so no float Laplace reaches a released value and the
audited mechanism is the one a careful implementation runs.  Their law differs slightly from DP-Sniper's float
mechanisms, so a bound here is for the integer-noise variant; for c = 1 the true epsilon is the exact sum
over the integer noise.  ``cases()`` without ``exact_noise`` keeps DP-Sniper's float mechanisms for
runs beside the peers (``audit_vs_peers.py``), which must sample the mechanism the peers sample.

Output structure: nothing is declared for the SVT cases (no ``categorical=``, no user events).  Their
outputs are float vectors of codes (Alg. 4: 1 / 0 / -1; Alg. 3: the noisy value, -1000 / -2000), and
the auditor encodes such coded columns itself (:func:`semiprivate.theory.audit.selection.atom_blocks`: whole-row
patterns per block of coded columns, refined by the bin of the first value, and cross-fitted
likelihood-ratio-ordered sets of patterns).  Declaring ``categorical=range(10)`` would not reach
those events: declared coordinates get per-coordinate value events and pairwise joint events only.

Budgets.  ``--trials N`` gives every dataset ``N`` estimation trials (plus the auditor's selection
batch, ``min(max(10,000, N // 4), 500,000)``).  ``--share F`` gives every case the same fraction
``F`` of DP-Sniper's samples *for that case* (:func:`their_samples`), selection included, split
evenly over the case's distinct datasets (:func:`trials_for_share`); ``--budget theirs`` is the
older rule "4/5 of their samples as estimation trials".  The share is one number fixed before
any case is run and each case is audited once at its budget, so every bound keeps its stated
confidence (no escalation: re-auditing an inconclusive case at a larger budget would be a
second test of the same claim and would need its own correction).  DP-Sniper spends more on
cases with more input pairs (the SVT family: eight pairs, 1,256,000,000 samples), and so does
the share.

Device sampling.  ``--device cupy`` draws the outputs of every case but the three Laplace ones on a
GPU (:class:`semiprivate.theory.audit.device.OnDevice`: cuRAND noise, the same array operations; the
auditor still selects, counts and bounds on the host, with ``--workers`` threads).  The bounds are
then those of the device's random streams, not the CPU rows' streams, at the same budgets.

Usage: ``python benchmarks/audit_power.py [--quick] [--trials N | --share F | --budget ours|theirs] [--seeds S ...]
[--device cpu|cupy]``.
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from semiprivate.kernels._backend import cpu_model  # noqa: E402
from semiprivate.theory.audit import AuditOptions, audit_pairs  # noqa: E402
from semiprivate.theory.audit.device import OnDevice  # noqa: E402
from semiprivate.theory.audit.examples import (  # noqa: E402
    EPS,  # every mechanism's eps in DP-Sniper's exp_default.py and statdpwrapper's mechanism_config.py
    SVT,
    Laplace,
    LaplaceParallel,
    LaplaceSnapping,
    NoisyHist,
    NumericalSVT,
    PrefixSum,
    Rappor,
    ReportNoisyMax,
    SVT34Parallel,
    TruncatedGeometric,
    bloom_bits,
)

CONFIDENCE = 0.9  # DDConfig.confidence: the level of the published lower bounds
N_TRAIN = N_SEL = N_CHECK = 10_700_000  # DDConfig defaults
N_FINAL = 200_000_000  # DDConfig.n_final: samples per input of the final estimate
SEARCH_PER_ORDERED_PAIR = 2 * N_TRAIN + N_SEL + 2 * N_CHECK

# eps_lcb of the reference logs (see the module docstring); None: no entry in that log.
PUBLISHED: dict[str, dict[str, float | None]] = {
    "Laplace": dict(dps_reg=0.0968, dps_mlp=0.0976, statdp_1=0.0998, statdp_2=0.0996),
    "TruncatedGeometric": dict(dps_reg=0.1156, dps_mlp=0.1155, statdp_1=0.1159, statdp_2=0.1169),
    "NoisyHist1": dict(dps_reg=0.0978, dps_mlp=0.0977, statdp_1=0.0828, statdp_2=0.0994),
    "NoisyHist2": dict(dps_reg=4.6020, dps_mlp=4.6015, statdp_1=9.7169, statdp_2=10.0022),
    "ReportNoisyMax1": dict(dps_reg=0.0923, dps_mlp=0.0925, statdp_1=0.0920, statdp_2=0.0921),
    "ReportNoisyMax2": dict(dps_reg=0.0975, dps_mlp=0.0979, statdp_1=0.0996, statdp_2=0.0997),
    "ReportNoisyMax3": dict(dps_reg=0.2478, dps_mlp=0.2488, statdp_1=0.1991, statdp_2=0.1961),
    "ReportNoisyMax4": dict(dps_reg=0.3463, dps_mlp=0.3534, statdp_1=0.1960, statdp_2=0.1988),
    "SVT1": dict(dps_reg=0.0858, dps_mlp=0.0858, statdp_1=0.0298, statdp_2=0.0298),
    "SVT2": dict(dps_reg=0.0859, dps_mlp=0.0852, statdp_1=0.0316, statdp_2=0.0407),
    "SVT3": dict(dps_reg=0.1716, dps_mlp=0.1822, statdp_1=0.0231, statdp_2=0.1793),
    "SVT4": dict(dps_reg=0.1687, dps_mlp=0.1696, statdp_1=0.1709, statdp_2=0.1719),
    "SVT5": dict(dps_reg=1.7612, dps_mlp=1.7610, statdp_1=14.3143, statdp_2=14.3143),
    "SVT6": dict(dps_reg=0.2720, dps_mlp=0.2698, statdp_1=0.3220, statdp_2=0.3200),
    "Rappor": dict(dps_reg=0.2930, dps_mlp=0.3008, statdp_1=0.2416, statdp_2=0.0243),
    "OneTimeRappor": dict(dps_reg=0.5978, dps_mlp=0.5999, statdp_1=0.4706, statdp_2=0.0602),
    "LaplaceParallel": dict(dps_reg=0.0350, dps_mlp=0.0299, statdp_1=0.0126, statdp_2=0.0135),
    "SVT34Parallel": dict(dps_reg=0.2610, dps_mlp=0.2616, statdp_1=0.1371, statdp_2=0.1963),
    "PrefixSum": dict(dps_reg=0.5040, dps_mlp=0.5774, statdp_1=0.3516, statdp_2=0.3446),
    "NumericalSVT": dict(dps_reg=0.0343, dps_mlp=0.0345, statdp_1=None, statdp_2=None),
    "Laplace (float bits)": dict(dps_reg=None, dps_mlp=0.2521, statdp_1=None, statdp_2=None),
    "LaplaceFixed (snapping)": dict(dps_reg=None, dps_mlp=0.0979, statdp_1=None, statdp_2=None),
}


def best_published(name: str) -> float | None:
    vals = [v for v in PUBLISHED[name].values() if v is not None]
    return max(vals) if vals else None


# --- input pairs (StatDP patterns as in dpsniper/input/pattern_generator.py) -------------------


def statdp_patterns(dim: int, component_wise: bool, lo: float, hi: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """StatDP's input patterns for ``dim`` queries, clipped to ``[lo, hi]`` (no swapped copies)."""
    a1 = np.ones(dim)
    half = dim // 2
    a2s = [np.r_[0.0, np.ones(dim - 1)], np.r_[2.0, np.ones(dim - 1)]]
    pairs = [(a1, a2) for a2 in a2s]
    if component_wise:
        a2s = [np.r_[2.0, np.zeros(dim - 1)], np.r_[0.0, 2.0 * np.ones(dim - 1)],
               np.r_[2.0 * np.ones(half), np.zeros(dim - half)], 2.0 * np.ones(dim), np.zeros(dim)]
        pairs += [(a1, a2) for a2 in a2s]
        pairs.append((np.r_[np.ones(half), np.zeros(dim - half)], np.r_[np.zeros(half), np.ones(dim - half)]))
    return [(np.clip(a, lo, hi), np.clip(b, lo, hi)) for a, b in pairs]


# --- mechanisms: semiprivate.theory.audit.examples (module-level classes: picklable for executors) ---


# --- exact true epsilon on the benchmark pairs -------------------------------------------------


def _laplace_logcdf(u: np.ndarray, b: float) -> np.ndarray:
    return np.where(u < 0, u / b - math.log(2), np.log1p(-0.5 * np.exp(-np.abs(u) / b)))


def _laplace_logsf(u: np.ndarray, b: float) -> np.ndarray:
    return _laplace_logcdf(-u, b)


def _laplace_logpdf(u: np.ndarray, b: float) -> np.ndarray:
    return -np.abs(u) / b - math.log(2 * b)


def _grid(lo: float, hi: float, n: int = 400_001) -> np.ndarray:
    return np.linspace(lo, hi, n)


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(x - m), axis=axis))


def rnm_index_probs(a: np.ndarray, b: float, noise: str) -> np.ndarray:
    """P[argmax(a + Z) = i], Z iid Laplace(b) or Exp(b), by integration over the maximum."""
    t = _grid(a.min() - 40 * b, a.max() + 40 * b)
    u = t[None, :] - a[:, None]
    if noise == "laplace":
        lpdf, lcdf = _laplace_logpdf(u, b), _laplace_logcdf(u, b)
    else:
        with np.errstate(divide="ignore"):
            lpdf = np.where(u >= 0, -u / b - math.log(b), -np.inf)
            lcdf = np.where(u > 0, np.log1p(-np.exp(-np.maximum(u, 0) / b)), -np.inf)
    tot = lcdf.sum(axis=0)
    with np.errstate(invalid="ignore"):
        dens = np.exp(lpdf + tot[None, :] - lcdf)
    dens = np.nan_to_num(dens)
    return np.trapezoid(dens, t, axis=1)


def rnm_value_logdensity(a: np.ndarray, b: float, t: np.ndarray) -> np.ndarray:
    """log density of max(a + Z), Z iid Laplace(b), on the grid ``t``."""
    u = t[None, :] - a[:, None]
    lpdf, lcdf = _laplace_logpdf(u, b), _laplace_logcdf(u, b)
    return _logsumexp(lpdf + lcdf.sum(axis=0)[None, :] - lcdf, axis=0)


def _dlap_logpmf(x: np.ndarray, b: float) -> np.ndarray:
    """log P[X = x] of the discrete Laplace of scale ``b`` on the integers (CKS20 Def. 3):
    ``(1 - q) / (1 + q) q^|x|`` with ``q = exp(-1 / b)``."""
    q = math.exp(-1.0 / b)
    return math.log((1.0 - q) / (1.0 + q)) - np.abs(x) / b


def _dlap_logsf(k: np.ndarray, b: float) -> np.ndarray:
    """log P[X >= k] of the discrete Laplace of scale ``b``, for integers ``k``: ``q^k / (1 + q)`` from
    ``k = 1`` on, ``1 - q^(1 - k) / (1 + q)`` below (symmetry)."""
    lq1 = math.log1p(math.exp(-1.0 / b))
    with np.errstate(over="ignore", divide="ignore"):  # each branch is finite where it is used
        upper = -k / b - lq1
        lower = np.log1p(-np.exp(np.minimum(-(1.0 - k) / b - lq1, 0.0)))
    return np.where(k >= 1, upper, lower)


def svt_output_probs(mech: SVT, a: np.ndarray) -> dict[tuple[int, ...], float]:
    """Exact output distribution of SVT Algs. 1, 2, 4, 5, 6 with c = 1 by integration over rho:
    given rho the comparisons are independent (Alg. 2 with c = 1 stops at its first above, so its
    redraw never matters).  With ``mech.exact`` (integer noise, the discrete Laplace of the same scales)
    the integral is a sum over the integers ``|rho| <= 60 rho_scale`` (the rest weighs below ``e^-60``) and a
    query is above iff its integer noise is at least ``ceil(u)``."""
    if mech.c != 1 or mech.variant == 3:
        raise ValueError(f"variant/c: exact SVT probabilities need c = 1 and a variant without values, got "
                         f"variant={mech.variant}, c={mech.c}")
    rho_s, nu_s = mech.scales()
    if mech.exact:
        r = np.arange(-math.ceil(60 * rho_s), math.ceil(60 * rho_s) + 1, dtype=np.float64)
        logw = _dlap_logpmf(r, rho_s)
    else:
        r = _grid(-60 * rho_s, 60 * rho_s, 20_001 if mech.variant in (5, 6) else 200_001)
        logw = _laplace_logpdf(r, rho_s)
    u = (r[None, :] + mech.t) - a[:, None]  # query i is above iff nu_i >= u_i

    def integral(values: np.ndarray, axis: int = -1) -> np.ndarray:
        return values.sum(axis=axis) if mech.exact else np.trapezoid(values, r, axis=axis)

    if nu_s > 0 and mech.exact:
        k = np.ceil(u)
        lab, lbe = _dlap_logsf(k, nu_s), _dlap_logsf(1.0 - k, nu_s)  # P[nu < k] = P[nu >= 1 - k]
    elif nu_s > 0:
        lab, lbe = _laplace_logsf(u, nu_s), _laplace_logcdf(u, nu_s)
    else:
        with np.errstate(divide="ignore"):
            lab, lbe = np.where(u <= 0, 0.0, -np.inf), np.where(u <= 0, -np.inf, 0.0)
    m = a.size
    out: dict[tuple[int, ...], float] = {}
    if mech.variant in (5, 6):  # all 2^m patterns at once: log P = codes @ log P[above] + ...
        codes = ((np.arange(2 ** m)[:, None] >> np.arange(m)[None, :]) & 1).astype(np.float64)
        fin_ab, fin_be = np.maximum(lab, -1e300), np.maximum(lbe, -1e300)  # 0 * -inf would be nan
        lp = logw[None, :] + codes @ fin_ab + (1 - codes) @ fin_be
        probs = integral(np.exp(lp), axis=1)
        return {tuple(int(x) for x in row): float(pr) for row, pr in zip(codes, probs)}
    prefix = np.zeros_like(r)
    for i in range(m):  # first above at i: 0^i 1 (-1)^(m-i-1)
        lp = logw + prefix + lab[i]
        out[tuple([0] * i + [1] + [-1] * (m - i - 1))] = float(integral(np.exp(lp)))
        prefix = prefix + lbe[i]
    out[tuple([0] * m)] = float(integral(np.exp(logw + prefix)))
    return out


def _max_log_ratio(p: np.ndarray, q: np.ndarray) -> float:
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    if np.any((p > 0) != (q > 0)):
        return math.inf
    keep = p > 0
    return float(np.max(np.abs(np.log(p[keep]) - np.log(q[keep]))))


def true_epsilon(name: str, mechanism: Any, pairs: list[tuple[np.ndarray, np.ndarray]]) -> float | None:
    """The exact max privacy loss over ``pairs`` (None when not computed here)."""
    vals = []
    for a, b in pairs:
        if isinstance(mechanism, LaplaceParallel):
            vals.append(mechanism.n_parallel * abs(float(a[0] - b[0])) * mechanism.eps)
        elif isinstance(mechanism, (Laplace, NoisyHist, PrefixSum)):
            # a bijection of a + Lap(scale) per coordinate: sum |shift| / scale
            broken = isinstance(mechanism, NoisyHist) and mechanism.broken
            scale = mechanism.eps if broken else 1 / mechanism.eps
            vals.append(float(np.abs(a - b).sum()) / scale)
        elif isinstance(mechanism, TruncatedGeometric):
            fa, d = mechanism.cdf_numerators(int(a[0]))
            fb, _ = mechanism.cdf_numerators(int(b[0]))
            pa = [Fraction(x - y, d) for x, y in zip(fa, [0] + fa[:-1])]
            pb = [Fraction(x - y, d) for x, y in zip(fb, [0] + fb[:-1])]
            vals.append(_max_log_ratio(np.array([float(x) for x in pa]), np.array([float(x) for x in pb])))
        elif isinstance(mechanism, Rappor):
            p1, p0 = mechanism.bit_probabilities()
            diff = int(np.sum(bloom_bits(int(a[0])) != bloom_bits(int(b[0]))))
            vals.append(diff * math.log(p1 / p0))
        elif isinstance(mechanism, ReportNoisyMax):
            bsc = 2 / mechanism.eps
            if mechanism.value and mechanism.noise != "laplace":
                return math.inf  # max >= max(a): the interval below the larger max has probability 0 on one side
            if mechanism.value:
                t = _grid(-40 * bsc, 40 * bsc)
                lr = rnm_value_logdensity(a, bsc, t) - rnm_value_logdensity(b, bsc, t)
                # tail limits: lower sum(b - a)/bsc, upper log(sum e^{a/bsc} / sum e^{b/bsc})
                lower = float((b - a).sum() / bsc)
                upper = float(np.log(np.exp(a / bsc).sum() / np.exp(b / bsc).sum()))
                vals.append(max(float(np.max(np.abs(lr))), abs(lower), abs(upper)))
            else:
                vals.append(_max_log_ratio(rnm_index_probs(a, bsc, mechanism.noise),
                                           rnm_index_probs(b, bsc, mechanism.noise)))
        elif isinstance(mechanism, SVT) and mechanism.c == 1 and mechanism.variant != 3:
            pa, pb = svt_output_probs(mechanism, a), svt_output_probs(mechanism, b)
            keys = sorted(set(pa) | set(pb))
            vals.append(_max_log_ratio(np.array([pa.get(k, 0.0) for k in keys]),
                                       np.array([pb.get(k, 0.0) for k in keys])))
        else:
            return None
    return max(vals)


# --- cases ---------------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    mechanism: Any
    pairs: list[tuple[np.ndarray, np.ndarray]]
    claim: float
    private: bool  # is the claim right on these pairs?
    true_note: str = ""  # stated when the true eps is not computed (or holds beyond these pairs)
    audit_kwargs: dict[str, Any] = field(default_factory=dict)
    compute_true: bool = True  # False: the real-arithmetic value would not be the true one


def cases(exact_noise: bool = False) -> list[Case]:
    """The benchmark's cases.  ``exact_noise=True`` (what :func:`run`, this benchmark's audit, uses): the
    sparse-vector ones (SVT1-6, SVT34Parallel, NumericalSVT) draw their noise from the exact discrete Laplace of
    the published scales (``exact=True``: the integer-noise algorithms, eps-DP by the same proofs, no float
    Laplace on a released value, host only); their true epsilon is the exact sum over the integer noise
    (:func:`svt_output_probs`).  ``False`` (default): DP-Sniper's float mechanisms, for side-by-side runs with
    the peers on the same mechanism (``benchmarks/audit_vs_peers.py``)."""
    x = bool(exact_noise)
    one_float = statdp_patterns(1, False, -10, 10)
    one_int05 = statdp_patterns(1, False, 0, 5)
    one_int = statdp_patterns(1, False, -10, 10)
    hist5 = statdp_patterns(5, False, 0, 10)
    cw5 = statdp_patterns(5, True, -10, 10)
    cw10 = statdp_patterns(10, True, -10, 10)
    geo = TruncatedGeometric()
    rap, otr = Rappor(), Rappor(one_time=True, f=0.95)
    C = Case
    return [
        C("Laplace", Laplace(), one_float, EPS, True),
        C("TruncatedGeometric", geo, one_int05, math.log1p(2.0 ** -geo.k), True),
        C("NoisyHist1", NoisyHist(), hist5, EPS, True),
        C("NoisyHist2", NoisyHist(broken=True), hist5, EPS, False),
        C("ReportNoisyMax1", ReportNoisyMax(), cw5, EPS, True),
        C("ReportNoisyMax2", ReportNoisyMax(noise="exp"), cw5, EPS, True),
        C("ReportNoisyMax3", ReportNoisyMax(value=True), cw5, EPS, False),
        C("ReportNoisyMax4", ReportNoisyMax(noise="exp", value=True), cw5, EPS, False),
        C("SVT1", SVT(1, t=0.5, exact=x), cw10, EPS, True),
        C("SVT2", SVT(2, exact=x), cw10, EPS, True),
        C("SVT3", SVT(3, exact=x), cw10, EPS, False, "> 0.1 (Lyu et al.: Alg. 3 is not eps-DP)"),
        C("SVT4", SVT(4, exact=x), cw10, EPS, False),
        C("SVT5", SVT(5, exact=x), cw10, EPS, False),
        C("SVT6", SVT(6, exact=x), cw10, EPS, False),
        C("Rappor", rap, one_int, rap.claim(), True),
        C("OneTimeRappor", otr, one_int, otr.claim(), True),
        C("LaplaceParallel", LaplaceParallel(), one_float, 20 * 0.005, True),
        C("SVT34Parallel", SVT34Parallel(exact=x), cw10, 2 * EPS, False, "> 0.2 (contains Lyu Alg. 3)"),
        C("PrefixSum", PrefixSum(), cw10, EPS, False),
        C("NumericalSVT", NumericalSVT(exact=x), cw10, EPS, True, "<= 0.1 (Wang et al. 2019)"),
        C("Laplace (float bits)", Laplace(), one_float, EPS, False,
          "> 0.1 in doubles (Mironov 2012; DP-Sniper's bit features)", audit_kwargs={"float_bits": True},
          compute_true=False),
        C("LaplaceFixed (snapping)", LaplaceSnapping(), one_float, EPS, True, "<= 0.1 (Mironov 2012, Thm 1)"),
    ]


def their_samples(case: Case) -> int:
    """DP-Sniper's samples for this case: search over every ordered pair + the final estimate."""
    return 2 * len(case.pairs) * SEARCH_PER_ORDERED_PAIR + 2 * N_FINAL


def selection_trials(n: int) -> int:
    """The auditor's selection batch per dataset at ``n`` estimation trials (``audit_pairs``'s default)."""
    return min(max(10_000, n // 4), 500_000)


def trials_for_share(case: Case, share: float) -> int:
    """Largest estimation trials ``n`` per dataset with ``n_data * (n + selection_trials(n))`` at most
    ``share * their_samples(case)`` (``n_data`` distinct datasets of the case)."""
    if not 0.0 < share <= 1.0:
        raise ValueError(f"share must be in (0, 1], got {share}")
    n_data = len({a.tobytes() for p in case.pairs for a in p})
    per = int(share * their_samples(case)) // n_data
    lo, hi = 0, per  # n + selection_trials(n) is increasing in n: bisect
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if mid + selection_trials(mid) <= per:
            lo = mid
        else:
            hi = mid - 1
    if lo < 1000:
        raise ValueError(f"share {share} leaves {case.name} fewer than 1,000 trials per dataset")
    return lo


def _supported(kwargs: dict[str, Any]) -> dict[str, Any]:
    params = set(inspect.signature(audit_pairs).parameters) | AuditOptions.knob_names()
    return {k: v for k, v in kwargs.items() if k in params}


def _selected(name: str, only: str) -> bool:
    """``only``: comma-separated tokens; a token equal to a case name selects that case only,
    any other token selects the names containing it (case-insensitive)."""
    for tok in (t.strip().lower() for t in only.split(",") if t.strip()):
        if tok == name.lower() or (tok not in {c.lower() for c in PUBLISHED} and tok in name.lower()):
            return True
    return False


#: cases whose claim is about the host's doubles (NumPy's Laplace draws, the snapping of NumPy's uniforms)
HOST_ONLY = ("Laplace", "Laplace (float bits)", "LaplaceFixed (snapping)")


def run(trials: int | str, seed: int, only: str | None = None, confidence: float = CONFIDENCE,
        true_eps: bool = True, share: float | None = None, estimate_on: str = "best",
        workers: int = 0, device: str = "cpu", interval: str = "poisson-conditional",
        pooled: bool = True) -> list[dict[str, Any]]:
    """Audit every case; ``trials="theirs"`` gives each dataset 4/5 of DP-Sniper's samples for the case
    (divided by the datasets) as estimation trials; ``share=F`` overrides ``trials`` with
    :func:`trials_for_share` (the fraction ``F`` of their samples, selection included); ``estimate_on``
    is passed to ``audit_pairs`` (``"best"``: the two-stage design, the same total samples), and so is
    ``interval`` (``"poisson-conditional"``: one conditional test per witness on Poisson-sized batches;
    ``"clopper-pearson"``: two one-sided intervals, the form of the published bounds).

    ``workers >= 1``: the estimation batches run on a pool of that many threads (``audit_pairs``'s
    ``executor``; NumPy's generators and array operations release the GIL), in seeded batches whose
    counts do not depend on the number of workers; ``0``: the sequential single-stream path.
    ``device="cupy"``: the cases not in :data:`HOST_ONLY` sample on the GPU (:class:`OnDevice`)."""
    rows = []
    pool = ThreadPoolExecutor(workers) if workers >= 1 else None
    for i, case in enumerate(cases(exact_noise=True)):
        if only and not _selected(case.name, only):
            continue
        n_data = len({a.tobytes() for p in case.pairs for a in p})
        if share is not None:
            n = trials_for_share(case, share)
        else:
            n = (their_samples(case) * 4 // (5 * n_data)) if trials == "theirs" else int(trials)
        extra = _supported(case.audit_kwargs)
        t0 = time.perf_counter()
        exact_host = bool(getattr(case.mechanism, "exact", False))  # the exact samplers run on the host only
        on = "cupy" if device == "cupy" and case.name not in HOST_ONLY and not exact_host else "cpu"
        mech = OnDevice(case.mechanism) if on == "cupy" else case.mechanism
        res = audit_pairs(mech, case.pairs, epsilon=case.claim, trials=n, confidence=confidence,
                          rng=seed + i, options=AuditOptions(estimate_on=estimate_on, executor=pool, interval=interval,
                                                             pooled=pooled, **extra))
        dt = time.perf_counter() - t0
        te = true_epsilon(case.name, case.mechanism, case.pairs) if true_eps and case.compute_true else None
        rows.append(dict(name=case.name, claim=case.claim, true=te, true_note=case.true_note,
                         private=case.private, lb=res.epsilon_lower_bound, flagged=res.violation,
                         right=res.violation == (not case.private), seconds=dt, samples=res.trials_used,
                         theirs=their_samples(case), published=best_published(case.name), trials=n, seed=seed + i,
                         device=on,
                         missing=sorted(set(case.audit_kwargs) - set(extra)),
                         witness=res.witness.describe() if res.witness is not None else ""))
    if pool is not None:
        pool.shutdown()
    return rows


def _fmt(x: float | None) -> str:
    if x is None:
        return "—"
    return "inf" if math.isinf(x) else f"{x:.4f}"


def table(rows: list[dict[str, Any]], label: str = "ours") -> str:
    lines = [f"| mechanism | claim | true eps | our bound ({label}) | DP-Sniper reg / MLP | StatDP-Fixed 1 / 2 "
             "| ours >= best? | flagged | verdict right? | our samples | their samples | time (s) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    n_fin = n_beat = 0
    ratios = []
    for r in rows:
        pub = PUBLISHED[r["name"]]
        true = _fmt(r["true"]) if r["true"] is not None else r["true_note"]
        best = r["published"]
        finite = r["true"] is not None and math.isfinite(r["true"])
        beat = best is not None and r["lb"] >= best
        if finite and best is not None:
            n_fin += 1
            n_beat += beat
        ratios.append(r["samples"] / r["theirs"])
        note = (f" (no {', '.join(r['missing'])})" if r["missing"] else "") + (" [gpu]" if r.get("device") == "cupy" else "")
        lines.append(
            f"| {r['name']}{note} | {r['claim']:.4f} | {true} | {r['lb']:.4f} | {_fmt(pub['dps_reg'])} / "
            f"{_fmt(pub['dps_mlp'])} | {_fmt(pub['statdp_1'])} / {_fmt(pub['statdp_2'])} | "
            f"{'yes' if beat else 'no'} | {'yes' if r['flagged'] else 'no'} | {'yes' if r['right'] else '**NO**'} | "
            f"{r['samples']:,} | {r['theirs']:,} | {r['seconds']:.1f} |")
    n_right = sum(r["right"] for r in rows)
    lines.append("")
    lines.append(f"verdicts right: {n_right}/{len(rows)}")
    lines.append(f"our bound >= best published, cases with a finite computed true eps: {n_beat}/{n_fin}"
                 f" ({100 * n_beat / max(n_fin, 1):.0f}%; target 80%)")
    lines.append(f"our bound >= best published, all cases with a published bound: "
                 f"{sum(r['published'] is not None and r['lb'] >= r['published'] for r in rows)}/"
                 f"{sum(r['published'] is not None for r in rows)}")
    for tool, keys in (("DP-Sniper (reg/MLP)", ("dps_reg", "dps_mlp")), ("StatDP-Fixed (runs 1/2)", ("statdp_1", "statdp_2"))):
        have = [(r["lb"], max(v for k in keys if (v := PUBLISHED[r["name"]][k]) is not None)) for r in rows
                if any(PUBLISHED[r["name"]][k] is not None for k in keys)]
        lines.append(f"our bound >= {tool}: {sum(lb >= b for lb, b in have)}/{len(have)}")
    if ratios:
        lines.append(f"samples ours / DP-Sniper's: median {float(np.median(ratios)):.4f}, max {max(ratios):.4f}")
        lines.append(f"time: median {float(np.median([r['seconds'] for r in rows])):.1f} s per case, "
                     f"total {sum(r['seconds'] for r in rows):.0f} s")
    return "\n".join(lines)


def _gpu_name() -> str:
    try:
        import cupy  # type: ignore[import-not-found]

        props = cupy.cuda.runtime.getDeviceProperties(0)
        return f"{props['name'].decode()} (CuPy {cupy.__version__})"
    except Exception as exc:  # noqa: BLE001 -- no CuPy or no device: say so and stop
        raise SystemExit(f"--device cupy needs CuPy and a CUDA device ({type(exc).__name__}: {exc})") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="100,000 estimation trials per dataset")
    ap.add_argument("--trials", type=int, default=None, help="estimation trials per dataset (default 1,000,000)")
    ap.add_argument("--budget", choices=["ours", "theirs"], default="ours",
                    help="'theirs': each dataset gets 4/5 of DP-Sniper's samples for the case divided by the "
                         "number of datasets (selection takes the rest); slow")
    ap.add_argument("--confidence", type=float, default=CONFIDENCE, help="default 0.9, as DP-Sniper's bounds")
    ap.add_argument("--share", type=float, default=None,
                    help="every case gets this fraction of DP-Sniper's samples for the case (selection included), "
                         "split over its datasets; overrides --trials / --budget")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seeds", type=int, nargs="*", default=None,
                    help="several seeds: one table per seed and a flag-rate summary per case")
    ap.add_argument("--only", default=None, help="comma-separated case names or substrings of them")
    ap.add_argument("--designs", default="best",
                    help="comma-separated estimate_on values of audit_pairs ('best': two-stage, the default; 'all': "
                         "spread over every dataset); several: one table each, same seeds and samples, and a "
                         "side-by-side table of the bounds")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="threads for the estimation batches (default: the number of CPUs); the counts do not "
                         "depend on it; 0: the sequential single-stream path of the tables before 2026-11-27")
    ap.add_argument("--device", choices=["cpu", "cupy"], default="cpu",
                    help="cupy: sample every case but the Laplace ones on the GPU (needs CuPy and a CUDA device)")
    ap.add_argument("--interval", choices=["poisson-conditional", "clopper-pearson"], default="poisson-conditional",
                    help="the bound of each test (audit_pairs's interval): one conditional test on Poisson-sized "
                         "batches (default), or two one-sided Clopper-Pearson intervals (the published bounds' form)")
    ap.add_argument("--no-pooled", action="store_true",
                    help="without the pooled two-direction tests (audit_pairs's pooled=False; on by default with the "
                         "conditional interval)")
    args = ap.parse_args(argv)
    if args.workers < 0:
        ap.error(f"--workers must be >= 0, got {args.workers}")
    designs = [d.strip() for d in args.designs.split(",") if d.strip()]
    if not designs or not set(designs) <= {"all", "best"}:
        ap.error(f"--designs must list 'best' and/or 'all', got {args.designs!r}")
    if args.trials is not None and args.trials < 1000:
        ap.error(f"--trials must be >= 1000, got {args.trials}")
    if args.share is not None and not 0.0 < args.share <= 1.0:
        ap.error(f"--share must be in (0, 1], got {args.share}")
    trials: int | str = "theirs" if args.budget == "theirs" else (args.trials or (100_000 if args.quick else 1_000_000))
    print(f"CPU: {cpu_model()}; cores: {os.cpu_count()}; load average: {os.getloadavg()}; numpy {np.__version__}; "
          f"estimation threads: {args.workers or 'none (sequential)'}; interval: {args.interval}"
          f"; pooled tests: {'off' if args.no_pooled else 'on'}")
    if args.device == "cupy":
        print(f"sampling on {_gpu_name()} (cases but {', '.join(HOST_ONLY)}); counting on the host")
    if args.share is not None:
        print(f"eps {EPS:g} (DP-Sniper / StatDP settings); budget: {args.share:g} of DP-Sniper's samples per case")
        label = f"{args.share:g} of their samples"
    else:
        print(f"eps {EPS:g} (DP-Sniper / StatDP settings); estimation trials per dataset: {trials:,}"
              if trials != "theirs" else "budget: DP-Sniper's samples per case")
        label = "their budget" if trials == "theirs" else f"{trials:,}/dataset"
    seeds = args.seeds if args.seeds else [args.seed]
    by_design: dict[str, list[list[dict[str, Any]]]] = {}
    print(f"confidence {args.confidence:g}; seed(s) {seeds}; published bounds: eth-sri/dp-sniper "
          "eval_sp2021/reference-results (90% confidence, 200,000,000-sample final estimates)\n")
    for design in designs:
        every: list[list[dict[str, Any]]] = []
        for sd in seeds:
            rows = run(trials, sd, args.only, args.confidence, share=args.share, estimate_on=design,
                       workers=args.workers, device=args.device, interval=args.interval,
                       pooled=not args.no_pooled)
            every.append(rows)
            print(f"estimate_on={design!r}" + (f", seed {sd}:" if len(seeds) > 1 else ":"))
            print(table(rows, f"{label}, {design}"), flush=True)
        by_design[design] = every
        if len(seeds) > 1:
            print("\n" + seed_summary(every))
    if len(designs) > 1:
        print("\n" + design_summary(by_design))
    return 0


def design_summary(by_design: dict[str, list[list[dict[str, Any]]]]) -> str:
    """Per case and seed: the bound of each design (same seed, same samples) and which is higher."""
    names = list(by_design)
    lines = ["| mechanism | seed | true eps | " + " | ".join(f"bound ({d})" for d in names) + " | samples | higher |",
             "|---|---|---|" + "---|" * len(names) + "---|---|"]
    first = by_design[names[0]]
    for k, rows in enumerate(first):
        for j, r0 in enumerate(rows):
            rs = [by_design[d][k][j] for d in names]
            top = max(r["lb"] for r in rs)
            higher = "tie" if all(r["lb"] == top for r in rs) else ", ".join(d for d, r in zip(names, rs) if r["lb"] == top)
            true = _fmt(r0["true"]) if r0["true"] is not None else r0["true_note"]
            lines.append(f"| {r0['name']} | {r0['seed']} | {true} | " + " | ".join(f"{r['lb']:.4f}" for r in rs)
                         + f" | {r0['samples']:,} | {higher} |")
    return "\n".join(lines)


def seed_summary(every: list[list[dict[str, Any]]]) -> str:
    """Per case over the seeds: the bounds, how often flagged, how often the verdict was right."""
    lines = ["| mechanism | claim | private? | trials/dataset | bounds per seed | flagged | verdict right |",
             "|---|---|---|---|---|---|---|"]
    for j, r0 in enumerate(every[0]):
        rs = [rows[j] for rows in every]
        lines.append(f"| {r0['name']} | {r0['claim']:.4f} | {'yes' if r0['private'] else 'no'} | {r0['trials']:,} | "
                     + ", ".join(f"{r['lb']:.4f}" for r in rs)
                     + f" | {sum(r['flagged'] for r in rs)}/{len(rs)} | {sum(r['right'] for r in rs)}/{len(rs)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
