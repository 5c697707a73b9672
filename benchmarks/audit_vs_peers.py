"""Benchmark: our auditor beside DP-Sniper and StatDP, each run here, on their own mechanisms and input pairs.

Implements: AUDIT (side-by-side comparison with published DP testers).

DP-Sniper (Bichsel et al., S&P 2021, ``eth-sri/dp-sniper``) and StatDP (Ding et al., CCS 2018,
``cmla-psu/statdp``) run from their own checkouts, outside this repository, in their own Python
environment (PyTorch, numba, mmh3, ...): :mod:`benchmarks.peers_driver` is started with that
interpreter for every case and prints the tool's result.  Paths: ``--dpsniper`` / ``DPSNIPER_PATH``,
``--statdp`` / ``STATDP_PATH``, ``--peers-python`` / ``PEERS_PYTHON``.

For each case, in the same run:

* **theirs**: DP-Sniper's DD-Search on its mechanism and its StatDP input patterns (both orders), with
  ``DDConfig`` scaled to the budget the way its defaults are set (:func:`dpsniper_config`: ``n_train = n =
  n_check = --n``, ``n_final = 18.69 n``, the published ``c = 0.01``
  (``0.01 / sqrt(n / 10.7e6)`` with ``*-scaled-c``), one training batch with the default's 1,070 optimiser steps; ``--dpsniper-config``), lower bound
  ``eps_lcb`` at confidence 0.9; or StatDP's test at the claimed epsilon on its own algorithm and inputs
  (``event_iterations = --n``, ``detect_iterations = 5 n``): flagged when its p-value is below 0.1.
* **ours**: :func:`semiprivate.theory.audit.audit_pairs` on our implementation of the same mechanism
  (:mod:`semiprivate.theory.audit.examples`) and the same input pairs (each pair once: the auditor tests both
  directions), at the same confidence 0.9, with at most as many samples as the peer drew (selection
  included, split over the distinct inputs; ``--interval``: our tests' bound, by default one conditional
  test on Poisson-sized batches, whose sizes are capped at the planned trials).  Default design: ``estimate_on="best"`` (the two-stage audit:
  the best test chosen on a choice batch, the rest of the samples spent on its two inputs, as the peers
  spend theirs on one witness); ``--designs best,all`` also runs the spread design (every pair's events on
  every input) with the same seed and samples, in the "our other designs" column.
* **StatDP-Fixed** (``--statdp-fixed``): DP-Sniper's wrapper of StatDP (``statdpwrapper``), the "StatDP-Fixed"
  column of DP-Sniper's evaluation: StatDP's test in a binary search over epsilon over post-processings, the
  found event re-estimated on ``2 n_final`` fresh samples, ``eps_lcb`` at confidence 0.9; its samples are
  ``probes x post-processings x (2 pairs event_iterations + 2 detect_iterations) + 2 n_final``, ours at most
  that many on our implementation and DP-Sniper's input pairs.
* **same distribution?**: their mechanism's outputs on every input of DP-Sniper's search (StatDP: the first pair; ``--dump-n`` per input,
  written by the driver) against ours, by an audit-style two-sample test: the auditor bounds the epsilon
  between "their outputs" and "our outputs" as if they were neighbouring inputs (claim 1e-9, confidence 0.9);
  a bound of 0 means no detectable difference.

Seeds: every tool gets ``--seed`` (NumPy's global state and PyTorch for DP-Sniper; StatDP seeds nothing:
its ``run_algorithm`` draws from a fresh ``default_rng()``, as released); ours ``rng=seed + case index``.
Only ours is reproducible: DP-Sniper draws its samples in its pool's spawned workers, which reseed NumPy and
PyTorch from OS entropy (``dpsniper/utils/my_multiprocessing.py``, ``_init_worker_process``), so the same
``--seed`` gives other bounds from run to run (Laplace, ``--n 25000 --seed 0``: 0.0790, then 0.0514).

Usage (once, outside the repository: checkouts of the GitHub repositories eth-sri/dp-sniper and
cmla-psu/statdp in /work/peers/dp-sniper and /work/peers/statdp, and an environment for them)::

    python -m venv /work/peers/venv
    /work/peers/venv/bin/pip install torch==2.13.0 tensorboard numpy pandas matplotlib scikit-learn mmh3 numba tqdm \
        sympy coloredlogs scipy   # DP-Sniper's classifiers import tensorboard; torch: a CPU build (plain torch may pull CUDA)
    DPSNIPER_PATH=/work/peers/dp-sniper STATDP_PATH=/work/peers/statdp PEERS_PYTHON=/work/peers/venv/bin/python \
        python benchmarks/audit_vs_peers.py [--n 100000] [--only SVT1,PrefixSum] [--statdp-only] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT / "benchmarks"))

import audit_power as ap  # noqa: E402
from semiprivate.kernels._backend import cpu_model  # noqa: E402
from semiprivate.theory.audit import audit_pairs  # noqa: E402
from semiprivate.theory.audit.examples import Laplace, ReportNoisyMax  # noqa: E402
from semiprivate.theory.audit.options import AuditOptions  # noqa: E402

CONFIDENCE = 0.9
DRIVER = Path(__file__).resolve().parent / "peers_driver.py"

@dataclass
class StatDPSVT:
    """StatDP's own sparse-vector algorithms (``statdp/algorithms.py``: ``SVT``, ``iSVT1``-``iSVT4``), vectorised over
    the draws with the same noise scales, comparisons, cutoff and output post-processing:

    * ``SVT`` (Lyu et al. Alg. 1, eps-DP): ``rho ~ Lap(2/eps)``, ``nu_i ~ Lap(4N/eps)``, above iff
      ``q_i + nu_i >= T + rho``, stop after N aboves; output the number of belows;
    * ``iSVT1``: no query noise; ``iSVT2``: ``nu_i ~ Lap(2/eps)``, no cutoff; ``iSVT3``: ``rho ~ Lap(4/eps)``,
      ``nu_i ~ Lap(4/(3 eps))``, strict ``>``, cutoff N: each outputs the Hamming distance of the answers to
      "first half above" (positions never answered count as different, as ``zip_longest`` pads with None);
    * ``iSVT4``: ``nu_i ~ Lap(2N/eps)``, strict ``>``, the noisy query output instead of "above": the pair
      (number of belows, last output) with a below coded 0, as NumPy converts StatDP's ``False``.
    """

    variant: str
    eps: float = 0.1
    n_above: int = 1
    t: float = 1.0

    def __call__(self, a: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        e, N, m = self.eps, self.n_above, a.size
        rho_scale, nu_scale, strict, cutoff = {
            "SVT": (2 / e, 4 * N / e, False, True), "iSVT1": (2 / e, 0.0, False, False),
            "iSVT2": (2 / e, 2 / e, False, False), "iSVT3": (4 / e, 4 / (3 * e), True, True),
            "iSVT4": (2 / e, 2 * N / e, True, True)}[self.variant]
        noisy_t = self.t + rng.laplace(0.0, rho_scale, (size, 1))
        noisy = a + (rng.laplace(0.0, nu_scale, (size, m)) if nu_scale > 0 else np.zeros((size, m)))
        above = noisy > noisy_t if strict else noisy >= noisy_t
        answered = (np.cumsum(above, axis=1) - above < N) if cutoff else np.ones_like(above)
        below_count = np.count_nonzero(answered & ~above, axis=1).astype(np.float64)
        if self.variant == "SVT":
            return below_count
        if self.variant == "iSVT4":
            last = answered.shape[1] - 1 - np.argmax(answered[:, ::-1], axis=1)  # last answered position
            rows = np.arange(size)
            last_out = np.where(above[rows, last], noisy[rows, last], 0.0)
            return np.column_stack([below_count, last_out])
        pattern = np.arange(m) < m // 2
        return np.count_nonzero(~answered | (above != pattern), axis=1).astype(np.float64)


#: StatDP's own algorithms -> (our implementation, claim, whether the claim holds, input length, component-wise)
STATDP_OURS: dict[str, tuple[Any, float, bool, int, bool]] = {
    "noisy_max_v1a": (ReportNoisyMax(), 0.1, True, 5, True),
    "noisy_max_v1b": (ReportNoisyMax(value=True), 0.1, False, 5, True),
    "noisy_max_v2a": (ReportNoisyMax(noise="exp"), 0.1, True, 5, True),
    "noisy_max_v2b": (ReportNoisyMax(noise="exp", value=True), 0.1, False, 5, True),
    "histogram": (Laplace(), 0.1, True, 5, False),  # the first bin of a + Lap(1/eps)
    "histogram_eps": (Laplace(eps=10.0), 0.1, False, 5, False),  # the first bin of a + Lap(eps)
    "SVT": (StatDPSVT("SVT", t=0.5), 0.1, True, 10, True),
    "iSVT1": (StatDPSVT("iSVT1"), 0.1, False, 10, True),
    "iSVT2": (StatDPSVT("iSVT2"), 0.1, False, 10, True),
    "iSVT3": (StatDPSVT("iSVT3"), 0.1, False, 10, True),
    "iSVT4": (StatDPSVT("iSVT4"), 0.1, False, 10, True),
}


#: what is known of the true epsilon of StatDP's SVT variants on their inputs (Lyu, Su, Li, VLDB 2017; Ding et al.)
STATDP_NOTES = {
    "SVT": "<= 0.1 (Lyu et al. Alg. 1)",
    "iSVT1": "inf (no query noise: on the x-shaped pair a Hamming distance of 0 is impossible for one input)",
    "iSVT2": "> 0.1 (query noise not scaled, no cutoff)",
    "iSVT3": "> 0.1 (Lyu et al. Alg. 4: ((1 + 6N) / 4) eps = 0.175 before post-processing)",
    "iSVT4": "> 0.1 (Lyu et al. Alg. 3: outputs the noisy query)",
}


class _Served:
    """A 'mechanism' serving pre-drawn outputs in order: input 0 their outputs, input 1 ours."""

    def __init__(self, theirs: np.ndarray, ours: np.ndarray) -> None:
        self.rows = [theirs, ours]
        self.pos = [0, 0]

    def __call__(self, which: int, size: int, rng: Any) -> np.ndarray:
        i = int(which)
        out = self.rows[i][self.pos[i]:self.pos[i] + size]
        if out.shape[0] != size:
            raise ValueError("two-sample check ran out of drawn outputs")
        self.pos[i] += size
        return out


def same_distribution(theirs: np.ndarray, ours: np.ndarray, seed: int) -> float:
    """Epsilon lower bound (confidence 0.9) between their and our outputs: 0 when indistinguishable."""
    n = min(len(theirs), len(ours))
    sel = n // 5
    res = audit_pairs(_Served(theirs[:n], ours[:n]), [(0, 1)], epsilon=1e-9, trials=n - sel,
                      options=AuditOptions(selection_trials=sel), confidence=CONFIDENCE, rng=seed)
    return float(res.epsilon_lower_bound)


#: DP-Sniper's defaults (``dpsniper/search/ddconfig.py``): n_train = n = n_check, n_final, c, training batch
DPS_DEFAULT_N, DPS_DEFAULT_FINAL, DPS_DEFAULT_C, DPS_DEFAULT_BATCH = 10_700_000, 200_000_000, 0.01, 100_000
#: optimiser steps of DP-Sniper's default training (107 batches x 10 epochs)
DPS_STEPS = 1_070


def dpsniper_config(n: int, mode: str = "fullbatch") -> dict[str, Any]:
    """DP-Sniper's ``DDConfig`` and training at ``n_train = n = n_check = n``, scaled the way its defaults are set.

    Every mode but ``"unscaled"`` rescales from the defaults (``DDConfig``: 10,700,000, ``n_final`` 200,000,000,
    ``c = 0.01``, training batch 100,000; ``exp_default.py``: 10 optimiser steps per batch, so 107 x 10 = 1,070
    steps over 100,000-sample gradients) by ``f = n / 10,700,000``: ``n_final = 18.69 n`` (the defaults' ratio, to a
    multiple of 1,000); ``c`` stays the published 0.01, except in the ``*-scaled-c`` modes: ``c = 0.01 / sqrt(f)``
    capped at 0.25 (c is the event's target probability under the second input; the final estimate's relative
    error is about ``1 / sqrt(c n_final)``; at n = 100,000, c = 0.103), which helps on Laplace and NoisyHist1 but
    caps what DP-Sniper can show below the true eps on 11 of the 15 finite cases (SVT4 0.098 of 0.172 at n =
    100,000: its event has mass exactly c under the second input).  The training:

    * ``"fullbatch"`` (default): one batch of ``n_train`` samples and 1,070 optimiser steps on it: the default's
      step count with each gradient over at least as many samples as the default's (up to 100,000);
    * ``"steps"``: batches of ``100,000 f`` samples, 10 steps each: the default's 107 batches and 1,070 steps,
      each gradient over ``100,000 f`` samples (noisier: 935 samples at n = 100,000);
    * ``"unscaled"``: the previous harness (``n_final = 10 n``, default c, batch 100,000 and 10 steps per batch:
      10 steps in all at n = 100,000)."""
    if mode == "unscaled":
        return dict(n_final=10 * n, c=DPS_DEFAULT_C, training_batch_size=DPS_DEFAULT_BATCH, epochs=10)
    f = n / DPS_DEFAULT_N
    n_final = max(1000, int(round(n * DPS_DEFAULT_FINAL / DPS_DEFAULT_N / 1000.0)) * 1000)
    # the scaled c helps where the loss is flat over the tail events (Laplace, NoisyHist1) but caps what DP-Sniper
    # can show below the true eps elsewhere (at n = 100,000: SVT4 0.098 of 0.172, OneTimeRappor 0.40 of 0.60),
    # so the default keeps the published c; "scaled-c" modes use it
    c = min(0.25, DPS_DEFAULT_C / math.sqrt(f)) if mode.endswith("scaled-c") else DPS_DEFAULT_C
    if mode.startswith("steps"):
        return dict(n_final=n_final, c=c, training_batch_size=max(100, int(round(DPS_DEFAULT_BATCH * f))), epochs=10)
    return dict(n_final=n_final, c=c, training_batch_size=n, epochs=DPS_STEPS)


#: StatDP's authors' test epsilons (``examples/benchmark.py``: ``x / 10 for x in range(1, 20)``), used by
#: ``--statdp-sweep``: StatDP is run at every one (its full iterations each, as they run it) and its bound is the
#: largest test epsilon whose p-value is below ``1 - CONFIDENCE``; ours gets the same total samples
STATDP_SWEEP = tuple(x / 10.0 for x in range(1, 20))


def peer(args: argparse.Namespace, tool: str, case: str, dump: Path) -> dict[str, Any]:
    n = args.n
    cmd = [args.peers_python, str(DRIVER), tool, case, "--seed", str(args.seed), "--processes", str(args.processes),
           "--confidence", str(CONFIDENCE), "--dump", str(dump), "--dump-n", str(args.dump_n)]
    if tool == "dpsniper":
        cfg = dpsniper_config(n, args.dpsniper_config)
        cmd += ["--dpsniper", args.dpsniper, "--n-train", str(n), "--n", str(n), "--n-check", str(n),
                "--n-final", str(cfg["n_final"]), "--c", repr(cfg["c"]),
                "--training-batch-size", str(cfg["training_batch_size"]), "--epochs", str(cfg["epochs"])]
    elif tool == "statdpfixed":
        cmd += ["--dpsniper", args.dpsniper, "--statdp", args.statdp, "--event-iterations", str(n),
                "--detect-iterations", str(n), "--n-final", str(10 * n)]
    else:
        cmd += ["--statdp", args.statdp, "--event-iterations", str(n), "--detect-iterations", str(5 * n)]
        if args.statdp_sweep:
            cmd += ["--test-epsilons", ",".join(f"{e:g}" for e in STATDP_SWEEP)]
    t0 = time.perf_counter()
    # one thread per process in the peers' workers too (torch, numba, BLAS): their pools of 2 on 2 cores
    # only oversubscribe them
    env = {**os.environ, "PYTHONPATH": "", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd="/tmp", env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return dict(error=(proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"],
                seconds=time.perf_counter() - t0)


def trials_within(samples: int, n_data: int) -> int:
    """Largest estimation trials per input with ``n_data * (n + selection(n)) <= samples``."""
    per = samples // n_data
    lo, hi = 0, per
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if mid + ap.selection_trials(mid) <= per:
            lo = mid
        else:
            hi = mid - 1
    return lo


def ours(mechanism: Any, pairs: list[tuple[np.ndarray, np.ndarray]], claim: float, samples: int, seed: int,
         **kw: Any) -> dict[str, Any]:
    n_data = len({a.tobytes() for p in pairs for a in p})
    n = trials_within(samples, n_data)
    t0 = time.perf_counter()
    res = audit_pairs(mechanism, pairs, epsilon=claim, trials=n, confidence=CONFIDENCE, rng=seed,
                      options=AuditOptions(**kw))
    return dict(lb=res.epsilon_lower_bound, flagged=res.violation, seconds=time.perf_counter() - t0,
                samples=res.trials_used)


def ours_beside(row: dict[str, Any], args: argparse.Namespace, mechanism: Any, pairs: list[tuple[np.ndarray, np.ndarray]],
                seed: int, dump: Path, **kw: Any) -> None:
    """Our audit of ``row``'s case with the peer's sample count, once per design of ``--designs`` (same
    seed; ``row["ours"]`` is the first), and the two-sample check of their dumped outputs against ours."""
    samples = row["theirs"]["samples"]
    row["ours_by"] = {d: ours(mechanism, pairs, row["claim"], samples, seed, estimate_on=d, interval=args.interval, **kw)
                      for d in args.designs}
    row["ours"] = row["ours_by"][args.designs[0]]
    if getattr(args, "skip_two_sample", False):
        row["two_sample"], row["two_sample_inputs"] = math.nan, 0
        return
    d = np.load(dump)
    g = np.random.default_rng(args.seed)
    keys = [str(k) for k in range(int(d["n_inputs"]))] if "n_inputs" in d else ["1", "2"]  # every input, or one pair
    row["two_sample"] = max(same_distribution(_rows(d[f"b{k}"]), _rows(mechanism(d[f"a{k}"], len(d[f"b{k}"]), g)),
                                              args.seed + i) for i, k in enumerate(keys))
    row["two_sample_inputs"] = len(keys)


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    tmp = Path(args.tmp)
    tmp.mkdir(parents=True, exist_ok=True)
    wanted = {t.strip() for t in args.only.split(",")} if args.only else None
    fixed = {t.strip() for t in args.statdp_fixed.split(",")} if args.statdp_fixed else set()
    for i, case in enumerate(ap.cases()):
        if case.name not in fixed:
            continue
        dump = tmp / f"sdpf_{i}.npz"
        theirs = peer(args, "statdpfixed", case.name, dump)
        row = dict(tool="StatDP-Fixed", case=case.name, claim=case.claim, private=case.private,
                   true=ap.true_epsilon(case.name, case.mechanism, case.pairs) if case.compute_true else None,
                   true_note=case.true_note, theirs=theirs)
        if "error" not in theirs:
            ours_beside(row, args, case.mechanism, case.pairs, args.seed + 200 + i, dump, **case.audit_kwargs)
        rows.append(row)
        print(_line(row), flush=True)
    if fixed:
        return rows
    if not args.statdp_only:
        for i, case in enumerate(ap.cases()):
            if case.name not in _DPSNIPER_NAMES or (wanted and case.name not in wanted):
                continue
            dump = tmp / f"dps_{i}.npz"
            theirs = peer(args, "dpsniper", case.name, dump)
            row: dict[str, Any] = dict(tool="DP-Sniper", case=case.name, claim=case.claim, private=case.private,
                                       true=ap.true_epsilon(case.name, case.mechanism, case.pairs)
                                       if case.compute_true else None, true_note=case.true_note, theirs=theirs)
            if "error" not in theirs:
                ours_beside(row, args, case.mechanism, case.pairs, args.seed + i, dump, **case.audit_kwargs)
            rows.append(row)
            print(_line(row), flush=True)
    for j, (name, (mech, claim, private, length, cw)) in enumerate(STATDP_OURS.items()):
        if wanted and name not in wanted:
            continue
        dump = tmp / f"statdp_{j}.npz"
        theirs = peer(args, "statdp", name, dump)
        pairs = ap.statdp_patterns(length, cw, -math.inf, math.inf)
        row = dict(tool="StatDP", case=name, claim=claim, private=private, true=None,
                   true_note=STATDP_NOTES.get(name, ""), theirs=theirs)
        if "error" not in theirs:
            ours_beside(row, args, mech, pairs, args.seed + 100 + j, dump)
        rows.append(row)
        print(_line(row), flush=True)
    return rows


_DPSNIPER_NAMES = ["Laplace", "TruncatedGeometric", "NoisyHist1", "NoisyHist2", "ReportNoisyMax1", "ReportNoisyMax2",
                   "ReportNoisyMax3", "ReportNoisyMax4", "SVT1", "SVT2", "SVT3", "SVT4", "SVT5", "SVT6", "Rappor",
                   "OneTimeRappor", "LaplaceParallel", "SVT34Parallel", "PrefixSum", "NumericalSVT"]


def _rows(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x[:, 0] if x.ndim == 2 and x.shape[1] == 1 else x


def _f(x: float | None) -> str:
    if x is None:
        return "—"
    return "inf" if math.isinf(x) else f"{x:.4f}"


def _line(r: dict[str, Any]) -> str:
    t = r["theirs"]
    if "error" in t:
        return f"| {r['tool']} | {r['case']} | {_f(r['claim'])} | — | failed: {' '.join(t['error'])[:80]} | — | — | — | — | — | — | — | — |"
    true = _f(r["true"]) if r["true"] is not None else (r["true_note"] or "—")
    if r["tool"] in ("DP-Sniper", "StatDP-Fixed"):
        their_bound, their_flag = _f(t["eps_lcb"]), t["eps_lcb"] > r["claim"]
    elif "eps_lcb" in t:  # StatDP swept over STATDP_SWEEP: its bound, and the p-value at the claim
        their_bound, their_flag = f"{_f(t['eps_lcb'])} (p = {t['p_value']:.3g})", t["p_value"] < 1 - CONFIDENCE
    else:
        their_bound, their_flag = f"p = {t['p_value']:.3g}", t["p_value"] < 1 - CONFIDENCE
    o = r["ours"]

    def right(flag: bool) -> str:
        return "right" if flag == (not r["private"]) else "**wrong**"

    others = " / ".join(f"{d}: {_f(v['lb'])} ({'flag' if v['flagged'] else 'pass'})"
                        for d, v in r.get("ours_by", {}).items() if v is not o)
    return (f"| {r['tool']} | {r['case']} | {r['claim']:.4f} | {true} | {their_bound} | {_f(o['lb'])} | "
            f"{others or '—'} | "
            f"{'flag' if their_flag else 'pass'} ({right(their_flag)}) | {'flag' if o['flagged'] else 'pass'} "
            f"({right(o['flagged'])}) | {t['seconds']:.1f} / {o['seconds']:.1f} | {t['samples']:,} / {o['samples']:,} | "
            f"{r['two_sample']:.4f} ({r.get('two_sample_inputs', 2)} inputs) |")


HEADER = ("| peer | case | claim | true eps | their bound | our bound | our other designs | their verdict | our verdict "
          "| time s (theirs / ours) | samples (theirs / ours) | ours vs theirs: eps between outputs |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|")


def summary(rows: list[dict[str, Any]]) -> str:
    done = [r for r in rows if "error" not in r["theirs"]]
    dps = [r for r in done if r["tool"] == "DP-Sniper"]
    lines = [f"cases run: {len(done)} of {len(rows)}"]
    ours_right = sum(r["ours"]["flagged"] == (not r["private"]) for r in done)
    lines.append(f"verdicts right: ours {ours_right}/{len(done)}; DP-Sniper "
                 f"{sum((r['theirs']['eps_lcb'] > r['claim']) == (not r['private']) for r in dps)}/{len(dps)}; StatDP "
                 f"{sum((r['theirs']['p_value'] < 1 - CONFIDENCE) == (not r['private']) for r in done if r['tool'] == 'StatDP')}"
                 f"/{sum(r['tool'] == 'StatDP' for r in done)}")
    lines.append(f"our bound >= DP-Sniper's: {sum(r['ours']['lb'] >= r['theirs']['eps_lcb'] for r in dps)}/{len(dps)}")
    sw = [r for r in done if r["tool"] == "StatDP" and "eps_lcb" in r["theirs"]]
    if sw:
        lines.append(f"StatDP swept over {STATDP_SWEEP[0]:g}..{STATDP_SWEEP[-1]:g} (rule: its bound is the largest "
                     f"test epsilon with p < {1 - CONFIDENCE:g}): our bound >= theirs "
                     f"{sum(r['ours']['lb'] >= r['theirs']['eps_lcb'] for r in sw)}/{len(sw)}")
    fx = [r for r in done if r["tool"] == "StatDP-Fixed"]
    if fx:
        lines.append(f"StatDP-Fixed: verdicts right {sum((r['theirs']['eps_lcb'] > r['claim']) == (not r['private']) for r in fx)}"
                     f"/{len(fx)}; our bound >= theirs {sum(r['ours']['lb'] >= r['theirs']['eps_lcb'] for r in fx)}/{len(fx)}")
    lines.append(f"our wall time <= theirs: {sum(r['ours']['seconds'] <= r['theirs']['seconds'] for r in done)}/{len(done)}")
    return "\n".join(lines)


def _fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Fixed cost (s) and cost per million samples (s) of the line through two (samples, seconds) points."""
    (s1, t1), (s2, t2) = points
    b = (t1 - t2) / (s1 - s2) if s1 != s2 else math.nan
    return t1 - b * s1, b * 1e6


def time_split(big: list[dict[str, Any]], small: list[dict[str, Any]]) -> str:
    """Per case and tool: wall time split into a fixed cost and a cost per million samples, from the run at
    ``--n`` and the run at ``--time-split F`` of it (two points, same machine, one after the other)."""
    lines = ["| peer | case | theirs: fixed s | theirs: s per 1e6 samples | ours: fixed s | ours: s per 1e6 samples |",
             "|---|---|---|---|---|---|"]
    by = {(r["tool"], r["case"]): r for r in small if "error" not in r["theirs"]}
    for r in big:
        q = by.get((r["tool"], r["case"]))
        if q is None or "error" in r["theirs"]:
            continue
        tf, tv = _fit([(r["theirs"]["samples"], r["theirs"]["seconds"]), (q["theirs"]["samples"], q["theirs"]["seconds"])])
        of, ov = _fit([(r["ours"]["samples"], r["ours"]["seconds"]), (q["ours"]["samples"], q["ours"]["seconds"])])
        lines.append(f"| {r['tool']} | {r['case']} | {tf:.2f} | {tv:.3f} | {of:.2f} | {ov:.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dpsniper", default=os.environ.get("DPSNIPER_PATH"), help="eth-sri/dp-sniper checkout")
    p.add_argument("--statdp", default=os.environ.get("STATDP_PATH"), help="cmla-psu/statdp checkout")
    p.add_argument("--peers-python", default=os.environ.get("PEERS_PYTHON"),
                   help="interpreter of the environment holding the peers' dependencies (torch, numba, mmh3, ...)")
    p.add_argument("--n", type=int, default=100_000, help="DP-Sniper's n_train = n = n_check (the rest scaled by "
                   "dpsniper_config); StatDP's event_iterations (detect_iterations = 5 n)")
    p.add_argument("--dpsniper-config", choices=["fullbatch", "steps", "fullbatch-scaled-c", "steps-scaled-c", "unscaled"],
                   default="fullbatch",
                   help="how DP-Sniper is scaled to --n (dpsniper_config): one batch with its default 1,070 optimiser "
                        "steps (default), its default 107 batches x 10 steps of smaller batches, or the previous "
                        "harness's knobs")
    p.add_argument("--time-split", type=float, default=None, metavar="F",
                   help="also run both tools at F n (fresh seed) and split each tool's wall time into a fixed cost and "
                        "a cost per sample (the line through the two runs)")
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dump-n", type=int, default=100_000)
    p.add_argument("--only", default=None, help="comma-separated case names")
    p.add_argument("--statdp-only", action="store_true")
    p.add_argument("--statdp-sweep", action="store_true",
                   help="run StatDP over its authors' test epsilons 0.1..1.9 (STATDP_SWEEP), each at --n event and 5 n "
                        "detect iterations; its bound is the largest test epsilon with p < 1 - confidence; our audit "
                        "gets the same total samples")
    p.add_argument("--statdp-fixed", default=None,
                   help="comma-separated DP-Sniper case names to run StatDP-Fixed on (DP-Sniper's statdpwrapper: binary "
                        "search over epsilon with post-processing, --n event and detect iterations, 10 n final samples); "
                        "only these run")
    p.add_argument("--designs", default="best",
                   help="comma-separated estimate_on values of audit_pairs ('best': two-stage, one witness on the "
                        "whole estimation budget; 'all': every pair's events on every input); the first gives the "
                        "'our bound' column, the others the 'our other designs' column, same seed and samples")
    p.add_argument("--interval", choices=["poisson-conditional", "clopper-pearson"], default="poisson-conditional",
                   help="our tests' bound (audit_pairs's interval): one conditional test on Poisson-sized batches "
                        "(default), or two one-sided Clopper-Pearson intervals (the form of DP-Sniper's bound)")
    p.add_argument("--tmp", default="/tmp/audit_vs_peers")
    p.add_argument("--out", default=None, help="also write the markdown table here")
    args = p.parse_args(argv)
    args.designs = [d.strip() for d in args.designs.split(",") if d.strip()]
    if not args.designs or not set(args.designs) <= {"all", "best"}:
        p.error(f"--designs must list 'best' and/or 'all', got {args.designs!r}")
    for path, name in ((args.dpsniper, "--dpsniper (or DPSNIPER_PATH)"), (args.statdp, "--statdp (or STATDP_PATH)")):
        if not path or not Path(path).is_dir():
            p.error(f"{name} must name a checkout outside the repository, got {path!r}")
        if Path(path).resolve().is_relative_to(ROOT):
            p.error(f"{name} must lie outside the repository, got {path!r}")
    if not args.peers_python or not Path(args.peers_python).exists():
        p.error(f"--peers-python (or PEERS_PYTHON) must name the peers' interpreter, got {args.peers_python!r}")
    head = (f"CPU: {cpu_model()}; cores: {os.cpu_count()}; load average: {os.getloadavg()}; confidence {CONFIDENCE}; "
            f"--n {args.n:,}; seed {args.seed}; our designs (estimate_on) {', '.join(args.designs)}; "
            f"our interval {args.interval}")
    cfg = dpsniper_config(args.n, args.dpsniper_config)
    head += (f"\nDP-Sniper ({args.dpsniper_config}, dpsniper_config): n_final {cfg['n_final']:,}, training_batch_size "
             f"{cfg['training_batch_size']:,}, {cfg['epochs']} optimiser steps per batch, c = {cfg['c']:.4f}")
    head += ("\nStatDP: " + (f"swept over its authors' test epsilons {STATDP_SWEEP[0]:g}..{STATDP_SWEEP[-1]:g} "
                              f"({len(STATDP_SWEEP)} tests, each with --n event and 5 n detect iterations); its bound "
                              f"is the largest test epsilon with p < {1 - CONFIDENCE:g}, its verdict the p-value at "
                              "the claim" if args.statdp_sweep else "one test at the claimed epsilon (its p-value)"))
    print(head + "\n\n" + HEADER, flush=True)
    t0 = time.perf_counter()
    rows = run(args)
    text = "\n".join([head, "", HEADER] + [_line(r) for r in rows] + ["", summary(rows),
                                                                      f"total {time.perf_counter() - t0:.0f} s"])
    print("\n" + summary(rows))
    if args.time_split:
        small = argparse.Namespace(**{**vars(args), "n": max(1000, int(args.time_split * args.n)),
                                      "seed": args.seed + 1000, "skip_two_sample": True})
        split = time_split(rows, run(small))
        print("\n" + split)
        text += "\n\n" + split
    if args.out:
        Path(args.out).write_text(text + "\n")
        Path(args.out).with_suffix(".json").write_text(json.dumps(rows, default=float, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
