"""Runs DP-Sniper or StatDP on one case of their own benchmark, from their own checkouts; prints one JSON line.

Run by :mod:`benchmarks.audit_vs_peers` with the peers' interpreter (a separate environment holding their
dependencies: PyTorch, numba, mmh3, ...); imports nothing from ``semiprivate``.  Their code is not copied:
``--dpsniper`` / ``--statdp`` name their checkouts, which go on ``sys.path``.

* ``dpsniper CASE``: DP-Sniper's DD-Search (``dpsniper.search.ddsearch.DDSearch`` with ``DPSniper`` and the
  logistic-regression classifier, hyper-parameters, feature transforms, input domains and pattern
  generators of ``dpsniper/experiments/exp_default.py``), then the witness's high-precision estimate
  (``DDWitness.compute_eps_high_precision``), with ``DDConfig(n_train, n, n_check, n_final, confidence)``
  scaled to the budget (and ``c``, ``training_batch_size``: ``--c``, ``--training-batch-size``).  Samples:
  ``2 n_train + n + 2 n_check`` per ordered input pair (both orders of each StatDP pattern) plus
  ``2 n_final``.  With ``--dump FILE`` it also writes ``--dump-n`` outputs of their mechanism on every
  distinct input of the search (the two-sample checks of our implementation, one per input).
* ``statdpfixed CASE``: StatDP-Fixed, DP-Sniper's wrapper of StatDP (``statdpwrapper``: binary search over
  epsilon, post-processings, verification on ``2 n_final`` samples), on DP-Sniper's case names.
* ``statdp CASE``: StatDP's ``detect_counterexample`` (``statdp/core.py``) on its own algorithm
  (``statdp/algorithms.py``) and its own input generator at the claimed epsilon: the p-value of its
  test.  Samples: ``2 event_iterations`` per input pair (event selection) plus ``2 detect_iterations``.
  StatDP reports a p-value, not a lower bound on epsilon.  With ``--test-epsilons E1,E2,...`` it runs the
  test at every test epsilon in one ``detect_counterexample`` call, as its authors' ``examples/benchmark.py``
  does (their grid: 0.1, 0.2, ..., 1.9), each with the full event and detect iterations (samples times the
  grid's length); it then reports the p-value curve and, as its epsilon bound, the largest test epsilon whose
  p-value is below ``1 - confidence`` (0 when none): the reading of the authors' plots, where the curve of a
  wrong algorithm stays near 0 up to its true epsilon.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time


def _dpsniper_case(name: str):  # type: ignore[no-untyped-def]
    """(mechanism, input generator, output size, feature transform) as in exp_default.py."""
    from dpsniper.classifiers.feature_transformer import FlagsFeatureTransformer
    from dpsniper.input.input_domain import InputBaseType, InputDomain
    from dpsniper.input.pattern_generator import PatternGenerator
    from dpsniper.mechanisms.geometric import TruncatedGeometricMechanism
    from dpsniper.mechanisms.laplace import LaplaceMechanism
    from dpsniper.mechanisms.noisy_hist import NoisyHist1, NoisyHist2
    from dpsniper.mechanisms.parallel import LaplaceParallel, SVT34Parallel
    from dpsniper.mechanisms.prefix_sum import PrefixSum
    from dpsniper.mechanisms.rappor import OneTimeRappor, Rappor
    from dpsniper.mechanisms.report_noisy_max import ReportNoisyMax1, ReportNoisyMax2, ReportNoisyMax3, ReportNoisyMax4
    from dpsniper.mechanisms.sparse_vector_technique import (
        NumericalSVT,
        SparseVectorTechnique1,
        SparseVectorTechnique2,
        SparseVectorTechnique3,
        SparseVectorTechnique4,
        SparseVectorTechnique5,
        SparseVectorTechnique6,
    )

    f1 = PatternGenerator(InputDomain(1, InputBaseType.FLOAT, [-10, 10]), False)
    g05 = PatternGenerator(InputDomain(1, InputBaseType.INT, [0, 5]), False)
    h5 = PatternGenerator(InputDomain(5, InputBaseType.INT, [0, 10]), False)
    cw5 = PatternGenerator(InputDomain(5, InputBaseType.FLOAT, [-10, 10]), True)
    cw10 = PatternGenerator(InputDomain(10, InputBaseType.FLOAT, [-10, 10]), True)
    i1 = PatternGenerator(InputDomain(1, InputBaseType.INT, [-10, 10]), False)
    flags1 = FlagsFeatureTransformer([-1])
    r, otr, lp = Rappor(), OneTimeRappor(), LaplaceParallel(eps=0.005, n_parallel=20)
    table = {
        "Laplace": (LaplaceMechanism(), f1, 1, None),
        "TruncatedGeometric": (TruncatedGeometricMechanism(), g05, 1, None),
        "NoisyHist1": (NoisyHist1(), h5, 5, None),
        "NoisyHist2": (NoisyHist2(), h5, 5, None),
        "ReportNoisyMax1": (ReportNoisyMax1(), cw5, 1, None),
        "ReportNoisyMax2": (ReportNoisyMax2(), cw5, 1, None),
        "ReportNoisyMax3": (ReportNoisyMax3(), cw5, 1, None),
        "ReportNoisyMax4": (ReportNoisyMax4(), cw5, 1, None),
        "SVT1": (SparseVectorTechnique1(c=1, t=0.5), cw10, 20, flags1),
        "SVT2": (SparseVectorTechnique2(c=1, t=1), cw10, 20, flags1),
        "SVT3": (SparseVectorTechnique3(c=1, t=1), cw10, 30, FlagsFeatureTransformer([-1000.0, -2000.0])),
        "SVT4": (SparseVectorTechnique4(c=1, t=1), cw10, 20, flags1),
        "SVT5": (SparseVectorTechnique5(c=1, t=1), cw10, 10, None),
        "SVT6": (SparseVectorTechnique6(c=1, t=1), cw10, 10, None),
        "Rappor": (r, i1, r.filter_size, None),
        "OneTimeRappor": (otr, i1, otr.filter_size, None),
        "LaplaceParallel": (lp, f1, lp.get_n_parallel(), None),
        "SVT34Parallel": (SVT34Parallel(), cw10, 80, FlagsFeatureTransformer([-1, -1000.0, -2000.0])),
        "PrefixSum": (PrefixSum(), cw10, 10, None),
        "NumericalSVT": (NumericalSVT(), cw10, 10, None),
    }
    return table[name]


def run_dpsniper(args: argparse.Namespace) -> dict:
    import numpy as np
    import torch
    from dpsniper.attack.dpsniper import DPSniper
    from dpsniper.classifiers.classifier_factory import LogisticRegressionFactory
    from dpsniper.classifiers.torch_optimizer_factory import SGDOptimizerFactory
    from dpsniper.search.ddconfig import DDConfig
    from dpsniper.search.ddsearch import DDSearch
    from dpsniper.utils.initialization import initialize_dpsniper

    torch.set_num_threads(1)  # tiny steps: a thread pool per process only oversubscribes the cores
    mech, gen, out_size, transform = _dpsniper_case(args.case)
    np.random.seed(args.seed)  # noqa: NPY002 -- their mechanisms draw from NumPy's global state
    torch.manual_seed(args.seed)
    pairs = list(gen.get_input_pairs())
    if args.dump:  # every distinct input of the search, with dump_n outputs of their mechanism each
        inputs: list = []
        for a1, a2 in pairs:
            for a in (a1, a2):
                if not any(np.array_equal(np.asarray(a), np.asarray(b)) for b in inputs):
                    inputs.append(a)
        arrays = {f"a{k}": np.asarray(a) for k, a in enumerate(inputs)}
        arrays.update({f"b{k}": np.asarray(mech.m(a, args.dump_n)) for k, a in enumerate(inputs)})
        np.savez(args.dump, n_inputs=len(inputs), **arrays)
    config = DDConfig(c=args.c, n_train=args.n_train, n=args.n, n_check=args.n_check, n_final=args.n_final,
                      n_processes=args.processes, confidence=args.confidence,
                      training_batch_size=args.training_batch_size)
    factory = LogisticRegressionFactory(feature_transform=transform, in_dimensions=out_size,
                                        optimizer_factory=SGDOptimizerFactory(learning_rate=0.3, momentum=0.3,
                                                                              step_size=500),
                                        regularization_weight=0.001, epochs=args.epochs, label=args.case)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as out, initialize_dpsniper(config, out_dir=out):
        witness = DDSearch(mech, DPSniper(mech, factory, config), gen, config).run()
        witness.compute_eps_high_precision(mech, config)
    seconds = time.perf_counter() - t0
    samples = len(pairs) * (2 * args.n_train + args.n + 2 * args.n_check) + 2 * args.n_final
    return dict(tool="DP-Sniper", case=args.case, eps_lcb=float(witness.lower_bound), eps=float(witness.eps),
                a1=[float(x) for x in np.atleast_1d(witness.a1)], a2=[float(x) for x in np.atleast_1d(witness.a2)],
                seconds=seconds, samples=int(samples), ordered_pairs=len(pairs))


#: StatDP's own algorithms and settings (statdp/__main__.py and its tests): claim, extra kwargs, sensitivity,
#: input length
STATDP_CASES = {
    "noisy_max_v1a": (0.1, {}, "ALL_DIFFER", 5),
    "noisy_max_v1b": (0.1, {}, "ALL_DIFFER", 5),
    "noisy_max_v2a": (0.1, {}, "ALL_DIFFER", 5),
    "noisy_max_v2b": (0.1, {}, "ALL_DIFFER", 5),
    "histogram": (0.1, {}, "ONE_DIFFER", 5),
    "histogram_eps": (0.1, {}, "ONE_DIFFER", 5),
    "SVT": (0.1, {"N": 1, "T": 0.5}, "ALL_DIFFER", 10),
    "iSVT1": (0.1, {"N": 1, "T": 1}, "ALL_DIFFER", 10),
    "iSVT2": (0.1, {"N": 1, "T": 1}, "ALL_DIFFER", 10),
    "iSVT3": (0.1, {"N": 1, "T": 1}, "ALL_DIFFER", 10),
    "iSVT4": (0.1, {"N": 1, "T": 1}, "ALL_DIFFER", 10),
}


def run_statdp(args: argparse.Namespace) -> dict:
    import numpy as np
    import statdp
    from statdp import algorithms

    claim, kwargs, sens, length = STATDP_CASES[args.case]
    alg = getattr(algorithms, args.case)
    sensitivity = getattr(statdp, sens)
    n_inputs = len(statdp.generators.generate_databases(alg, length, {"epsilon": claim, **kwargs}, sensitivity))
    if args.dump:
        from statdp.generators import generate_databases

        d1, d2, kw = generate_databases(alg, length, {"epsilon": claim, **kwargs}, sensitivity)[0]
        prng = np.random.default_rng(args.seed)
        b1 = np.array([alg(prng, d1, **kw) for _ in range(args.dump_n)], dtype=np.float64)
        b2 = np.array([alg(prng, d2, **kw) for _ in range(args.dump_n)], dtype=np.float64)
        np.savez(args.dump, a1=np.asarray(d1, dtype=np.float64), a2=np.asarray(d2, dtype=np.float64), b1=b1, b2=b2)
    grid = tuple(sorted({float(e) for e in args.test_epsilons.split(",")} | {claim})) if args.test_epsilons else (claim,)
    t0 = time.perf_counter()
    res = statdp.detect_counterexample(alg, grid, {"epsilon": claim, **kwargs},
                                       num_input=(length,), event_iterations=args.event_iterations,
                                       detect_iterations=args.detect_iterations, cores=args.processes,
                                       sensitivity=sensitivity, quiet=True, loglevel=40)
    seconds = time.perf_counter() - t0
    at_claim = next(r for r in res if r[0] == claim)
    eps, p, d1, d2, kw, event = at_claim
    samples = len(grid) * (2 * n_inputs * args.event_iterations + 2 * args.detect_iterations)
    out = dict(tool="StatDP", case=args.case, p_value=float(p), claim=claim, d1=[float(x) for x in d1],
               d2=[float(x) for x in d2], event=str(event), seconds=seconds, samples=int(samples),
               input_pairs=n_inputs)
    if args.test_epsilons:
        curve = [(float(r[0]), float(r[1])) for r in res]
        out["curve"] = curve
        out["eps_lcb"] = max([e for e, pv in curve if pv < 1 - args.confidence], default=0.0)
    return out


#: DP-Sniper's case names (``exp_default.py``) -> statdpwrapper's (``experiments/mechanism_config.py``)
STATDP_FIXED_NAMES = {"Laplace": "LaplaceMechanism", "TruncatedGeometric": "TruncatedGeometricMechanism",
                      **{f"SVT{i}": f"SparseVectorTechnique{i}" for i in range(1, 7)}}


def run_statdp_fixed(args: argparse.Namespace) -> dict:
    """StatDP-Fixed as DP-Sniper's evaluation ran it (``statdpwrapper/experiments/base.py``'s ``run_statdp``):
    StatDP's test inside a binary search over epsilon, over the post-processings of ``mechanism_config.py``,
    then the found event re-estimated on ``2 n_final`` fresh samples (``eps_lcb``, DP-Sniper's estimator).
    Budget knobs set from outside their code: the module's ``n_samples_detector`` (``--detect-iterations``),
    ``event_iterations`` of every StatDP call (``--event-iterations``) and ``DDConfig(n_final, confidence)``."""
    import functools
    import json as _json

    import numpy as np
    import statdp.generators as sg
    import statdpwrapper.experiments.base as base
    import statdpwrapper.experiments.binary_search as bs
    from dpsniper.search.ddconfig import DDConfig
    from dpsniper.utils.my_logging import log
    from dpsniper.utils.my_multiprocessing import initialize_parallel_executor
    from dpsniper.utils.paths import set_output_directory
    from statdpwrapper.experiments.mechanism_config import (
        statdp_arguments_map,
        statdp_mechanism_map,
        statdp_num_inputs_map,
        statdp_postprocessing_map,
        statdp_sensitivity_map,
    )
    from statdpwrapper.postprocessing import get_postprocessed_algorithms

    name = STATDP_FIXED_NAMES.get(args.case, args.case)
    alg, pp, num_input = statdp_mechanism_map[name], statdp_postprocessing_map[name], statdp_num_inputs_map[name]
    sens, kwargs = statdp_sensitivity_map[name], statdp_arguments_map[name]
    np.random.seed(args.seed)  # noqa: NPY002
    base.n_samples_detector = args.detect_iterations
    base.config = DDConfig(n_final=args.n_final, n_processes=args.processes, confidence=args.confidence)
    bs.detect_counterexample = functools.partial(bs.detect_counterexample, event_iterations=args.event_iterations)
    n_pairs = len(sg.generate_databases(alg, num_input[0], dict(kwargs), sens))
    n_pps = len(get_postprocessed_algorithms(alg, pp))
    if args.dump:
        d1, d2, _ = sg.generate_databases(alg, num_input[0], dict(kwargs), sens)[0]
        prng = np.random.default_rng(args.seed)
        b1 = np.array([np.asarray(alg(prng, d1, **kwargs), dtype=np.float64) for _ in range(args.dump_n)])
        b2 = np.array([np.asarray(alg(prng, d2, **kwargs), dtype=np.float64) for _ in range(args.dump_n)])
        np.savez(args.dump, a1=np.asarray(d1, dtype=np.float64), a2=np.asarray(d2, dtype=np.float64), b1=b1, b2=b2)
    with tempfile.TemporaryDirectory() as out:
        set_output_directory(out)
        data = os.path.join(out, "data.log")
        log.configure("WARNING", log_file=os.path.join(out, "log.log"), data_file=data, file_level="INFO")
        t0 = time.perf_counter()
        with initialize_parallel_executor(args.processes, out):
            base.run_statdp(name, alg, pp, num_input, sens, dict(kwargs))
        seconds = time.perf_counter() - t0
        records = [_json.loads(line) for line in open(data) if line.strip()]
        if not any("statdp_result" in r for r in records):  # run_statdp logs its exception and returns
            errors = [ln for ln in open(os.path.join(out, "log.log")) if "Error" in ln or "Exception" in ln]
            raise RuntimeError(f"statdpwrapper found no result: {(errors or ['no log'])[-1].strip()[:200]}")
    probes = next(r["statdp_nof_probes"] for r in records if "statdp_nof_probes" in r)
    res = next(r["statdp_result"] for r in records if "statdp_result" in r)
    samples = probes * n_pps * (2 * n_pairs * args.event_iterations + 2 * args.detect_iterations) + 2 * args.n_final
    return dict(tool="StatDP-Fixed", case=args.case, eps_lcb=float(res["eps_lcb"]), eps=float(res["eps"]),
                postprocessing=res["postprocessing"], seconds=seconds, samples=int(samples), probes=int(probes),
                postprocessings=n_pps, input_pairs=n_pairs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tool", choices=["dpsniper", "statdp", "statdpfixed"])
    ap.add_argument("case")
    ap.add_argument("--dpsniper", default=os.environ.get("DPSNIPER_PATH"))
    ap.add_argument("--statdp", default=os.environ.get("STATDP_PATH"))
    ap.add_argument("--n-train", type=int, default=100_000)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--n-check", type=int, default=100_000)
    ap.add_argument("--n-final", type=int, default=1_000_000)
    ap.add_argument("--c", type=float, default=0.01, help="DP-Sniper's probability lower bound (DDConfig.c)")
    ap.add_argument("--training-batch-size", type=int, default=100_000, help="DDConfig.training_batch_size")
    ap.add_argument("--epochs", type=int, default=10, help="optimiser steps per training batch (exp_default.py: 10)")
    ap.add_argument("--event-iterations", type=int, default=100_000)
    ap.add_argument("--detect-iterations", type=int, default=500_000)
    ap.add_argument("--test-epsilons", default=None,
                    help="StatDP: comma-separated test epsilons (the p-value curve; the claim is always added)")
    ap.add_argument("--confidence", type=float, default=0.9)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dump", default=None)
    ap.add_argument("--dump-n", type=int, default=100_000)
    args = ap.parse_args()
    need = {"dpsniper": ["dpsniper"], "statdp": ["statdp"], "statdpfixed": ["statdp", "dpsniper"]}[args.tool]
    for which in need:  # statdpwrapper lives in the dp-sniper checkout and imports the statdp package
        path = getattr(args, which)
        if not path or not os.path.isdir(path):
            ap.error(f"--{which} (or {which.upper()}_PATH) must name a checkout, got {path!r}")
        sys.path.insert(0, path)
    run_tool = {"dpsniper": run_dpsniper, "statdp": run_statdp, "statdpfixed": run_statdp_fixed}[args.tool]
    out = run_tool(args)
    print("RESULT " + json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
