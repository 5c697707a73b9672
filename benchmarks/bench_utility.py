"""Test accuracy at equal privacy: the toolkit's semi-private learners side by side with the libraries
a practitioner would pick instead (diffprivlib, Opacus), a public-only floor and the non-private ceiling.

Setting (every method, the same splits): for each data set and seed, a stratified 20% test split, 10% of
all rows as public unlabelled rows (their labels dropped), the rest private and labelled; epsilon in
{0.1, 0.3, 1, 3, 10}, delta = 1e-5, replace-one neighbours (one labelled row replaced by another, the
public rows fixed).  Mean test accuracy and the 95% interval of the mean (Student t over the seeds).

Data: scikit-learn's digits, breast_cancer and wine (shipped with scikit-learn), and PILLAR.Def3
large-margin low-rank data (:class:`semiprivate.theory.halfspace_data.LargeMarginLowRank`, k = 5,
gamma = 0.1, tail = 0.3, signal rank 3, decay 1.3 -- the report's sweep) at d = 512 and d = 2048,
2000 rows per seed.

Tuning protocol, the same for all: fixed defaults, no per-data-set or per-epsilon tuning.  Every method
gets the same features: centred and scaled with the public rows' statistics
(:class:`semiprivate.theory.privacy.public_preprocessing.PublicStandardizer`; free, public data only).

Methods:

* ``ours: PCA + DP-GD``: :class:`semiprivate.theory.learners.multinomial.SemiPrivateMultinomial`
  (public PCA, ``k="auto"``, one multinomial full-batch DP-GD run, PLD-accounted).
* ``ours: PCA, k by private selection``: :class:`semiprivate.theory.privacy.model_selection.PrivateSearchCV`
  over k in {2, 5, 10, 20} (PILLAR Alg 2's exponential-mechanism selection on held-out private rows),
  each candidate at epsilon/4, selection at epsilon: total (epsilon, delta) (the search's own ``privacy_``).
* ``ours: random projection + DP-GD`` and ``ours: full dimension + DP-GD``: the same learner with
  ``projection="random"`` / ``"none"``.
* ``halfspace one-vs-rest DP-SGD``: :class:`semiprivate.theory.learners.halfspaces.SemiPrivateHalfspace`
  with its defaults (k = 10, C one-vs-rest tasks composed) on rows normalised to the unit sphere (the
  learner's documented input); full run, digits only (its calibration is slow).
* ``diffprivlib LogisticRegression``: objective perturbation (pure epsilon-DP, so (epsilon, 0) <=
  (epsilon, delta)); its analysis (Chaudhuri et al. 2011) is for data sets differing in one entry, i.e.
  replace-one: no conversion needed.  ``data_norm`` = the 90th percentile of the public rows' norms
  (rows above it are clipped by diffprivlib).  Run in its own environment (``--diffprivlib PYTHON``).
* ``Opacus DP-SGD``: a linear layer, cross-entropy, Poisson batches of expected size 128, 20 epochs,
  SGD lr 1, clip 1, on all features.  Opacus accounts add/remove neighbours; here its noise multiplier
  is calibrated by dp-accounting's PLD accountant under REPLACE_ONE for the same (q, steps)
  (re-accounted, not converted), so its guarantee is the same relation as every other row's.
  Run in its own environment (``--opacus PYTHON``).
* ``public only: constant``: predicts one fixed class (no private data, no labels): the floor.
* ``non-private logistic regression``: scikit-learn's ``LogisticRegression`` on the private rows:
  the ceiling (no guarantee).

Usage: ``python benchmarks/bench_utility.py [--quick] [--seeds N] [--out FILE]
[--diffprivlib /work/peers/diffprivlib/bin/python] [--opacus /work/peers/opacus/bin/python]``.
A peer whose interpreter is not given or not found is left out, and the table says so.
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    # one BLAS thread: the problems are small, and on a loaded 2-core machine threaded BLAS calls wait
    # for helper threads (a 200 x 2048 SVD: 17 s threaded, 0.5 s on one thread, measured here)
    os.environ.setdefault(_v, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

EPSILONS = (0.1, 0.3, 1.0, 3.0, 10.0)
DELTA = 1e-5
PUBLIC_SHARE = 0.1
TEST_SHARE = 0.2
SYN_ROWS = 2000
DRIVER = Path(__file__).with_name("utility_peers_driver.py")
DEFAULT_PEERS = {"diffprivlib": "/work/peers/diffprivlib/bin/python", "opacus": "/work/peers/opacus/bin/python"}
OPACUS = {"batch_size": 128, "epochs": 20, "lr": 1.0, "clip": 1.0}
SEARCH_KS = (2, 5, 10, 20)


@dataclass(frozen=True)
class Split:
    X_private: np.ndarray
    y_private: np.ndarray
    X_public: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    classes: np.ndarray


def _dataset(name: str) -> Callable[[int], tuple[np.ndarray, np.ndarray]]:
    """``seed -> (X, y)`` for a data set name (sklearn's are fixed; the synthetic ones draw 2000 rows)."""
    if name in ("digits", "breast_cancer", "wine"):
        from sklearn import datasets

        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
        return lambda seed: (X, y)
    from semiprivate.theory.halfspace_data import LargeMarginLowRank

    d = int(name.split("=")[1])
    D = LargeMarginLowRank(d, 5, 0.1, tail=0.3, signal_rank=3, decay=1.3, rng=0)
    return lambda seed: D.sample(SYN_ROWS, 1000 + seed)


def make_split(X: np.ndarray, y: np.ndarray, seed: int) -> Split:
    """:func:`semiprivate.theory.privacy.public_preprocessing.semi_private_split` (stratified test share, then a
    uniformly random public share of all rows, labels dropped)."""
    from semiprivate.theory.privacy.public_preprocessing import semi_private_split

    parts = semi_private_split(X, y, public_share=PUBLIC_SHARE, test_share=TEST_SHARE, rng=seed)
    return Split(*parts, classes=np.unique(y))


def _ci(a: list[float]) -> tuple[float, float]:
    from scipy import stats

    arr = np.asarray(a, dtype=np.float64)
    if arr.size < 2:
        return float(arr.mean()), float("nan")
    half = float(stats.t.ppf(0.975, arr.size - 1) * arr.std(ddof=1) / math.sqrt(arr.size))
    return float(arr.mean()), half


# ----------------------------------------------------------------------------------------- our methods
def _ours(kind: str) -> Callable[[Split, float, int], float]:
    from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial

    def run(s: Split, eps: float, seed: int) -> float:
        clf = SemiPrivateMultinomial(eps, DELTA, projection=kind, classes=s.classes, rng=seed)
        clf.fit(s.X_private, s.y_private, X_public=s.X_public)
        assert clf.privacy_[0] <= eps and clf.privacy_[1] <= DELTA
        return float(clf.score(s.X_test, s.y_test))

    return run


def _ours_search(s: Split, eps: float, seed: int) -> float:
    from semiprivate.theory.learners.multinomial import SemiPrivateMultinomial
    from semiprivate.theory.privacy.model_selection import PrivateSearchCV

    kmax = min(s.X_public.shape[1], s.X_public.shape[0] - 1)
    ks = sorted({min(k, kmax) for k in SEARCH_KS})
    base = SemiPrivateMultinomial(eps / len(ks), DELTA / len(ks), classes=s.classes)
    search = PrivateSearchCV(base, {"k": ks}, epsilon_select=eps, rng=seed)
    search.fit(s.X_private, s.y_private, X_public=s.X_public)
    assert search.privacy_[0] <= eps * (1 + 1e-9) and search.privacy_[1] <= DELTA * (1 + 1e-9), search.privacy_
    return float(search.score(s.X_test, s.y_test))


def _halfspace(s: Split, eps: float, seed: int) -> float:
    from semiprivate.theory.halfspace_data import normalize_rows
    from semiprivate.theory.learners.halfspaces import SemiPrivateHalfspace

    k = min(10, s.X_public.shape[1])
    clf = SemiPrivateHalfspace(eps, DELTA, k=k, classes=s.classes, rng=seed)
    clf.fit(normalize_rows(s.X_private), s.y_private, X_public=normalize_rows(s.X_public))
    assert clf.privacy_[0] <= eps
    return float(clf.score(normalize_rows(s.X_test), s.y_test))


def _public_constant(s: Split, eps: float, seed: int) -> float:
    return float(np.mean(s.y_test == s.classes[0]))


def _nonprivate(s: Split, eps: float, seed: int) -> float:
    from semiprivate.theory.privacy.public_preprocessing import PublicStandardizer
    from sklearn.linear_model import LogisticRegression

    sc = PublicStandardizer().fit(s.X_public)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = LogisticRegression(max_iter=2000).fit(sc.transform(s.X_private), s.y_private)
    return float(clf.score(sc.transform(s.X_test), s.y_test))


# ----------------------------------------------------------------------------------------- peers
def _replace_one_sigma(eps: float, q: float, steps: int) -> float:
    """Noise multiplier of Poisson-subsampled DP-SGD meeting (eps, DELTA) under REPLACE_ONE (dp-accounting PLD).

    The PLD accountant at discretisation 1e-3 (its epsilon is an upper bound at any discretisation;
    coarser is faster and slightly pessimistic, i.e. more noise for the peer, never less)."""
    import dp_accounting
    from dp_accounting.pld import PLDAccountant

    def make() -> Any:
        return PLDAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_ONE,
                             value_discretization_interval=1e-3)

    def event(sig: float) -> Any:
        return dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sig)), steps)

    sigma = float(dp_accounting.calibrate_dp_mechanism(make, event, eps, DELTA,
                                                       bracket_interval=dp_accounting.LowerEndpointAndGuess(0.1, 2.0),
                                                       tol=1e-4))
    assert make().compose(event(sigma)).get_epsilon(DELTA) <= eps
    return sigma


def _run_peer(peer: str, python: str, splits: list[Split], grid: list[tuple[int, float]]) -> dict[tuple[int, float], float]:
    """Run one peer on every (split index, epsilon) of ``grid`` in one subprocess; accuracies by job."""
    from semiprivate.theory.privacy.public_preprocessing import PublicStandardizer

    arrays: dict[str, np.ndarray] = {}
    norms: list[float] = []
    for i, s in enumerate(splits):
        sc = PublicStandardizer().fit(s.X_public)
        arrays[f"Xtr_{i}"] = sc.transform(s.X_private)
        arrays[f"ytr_{i}"] = np.searchsorted(s.classes, s.y_private)
        arrays[f"Xte_{i}"] = sc.transform(s.X_test)
        arrays[f"yte_{i}"] = np.searchsorted(s.classes, s.y_test)
        norms.append(float(np.quantile(np.linalg.norm(sc.transform(s.X_public), axis=1), 0.9)))
    jobs = []
    sigmas: dict[tuple[float, int, float], float] = {}
    for i, eps in grid:
        job: dict[str, Any] = {"split": i, "epsilon": eps, "seed": i, "n_classes": int(splits[i].classes.size)}
        if peer == "diffprivlib":
            job["data_norm"] = norms[i]
        else:
            n = splits[i].X_private.shape[0]
            bs = min(OPACUS["batch_size"], n)
            # Opacus's Poisson loader: sample rate 1 / len(loader) = 1 / ceil(n / bs), that many steps per epoch
            batches = int(math.ceil(n / bs))
            q, steps = 1.0 / batches, OPACUS["epochs"] * batches
            if (q, steps, eps) not in sigmas:  # the same n for every split of a data set
                sigmas[(q, steps, eps)] = _replace_one_sigma(eps, q, steps)
            job.update(OPACUS, batch_size=bs, noise_multiplier=sigmas[(q, steps, eps)], sample_rate=q, steps=steps)
        jobs.append(job)
    with tempfile.TemporaryDirectory() as tmp:
        data, spec = Path(tmp) / "data.npz", Path(tmp) / "jobs.json"
        np.savez(data, **arrays)
        spec.write_text(json.dumps(jobs))
        env = dict(os.environ, PYTHONPATH="", PYTHONSAFEPATH="1")
        res = subprocess.run([python, str(DRIVER), peer, str(data), str(spec)], capture_output=True, text=True,
                             env=env, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{peer} driver failed: {res.stderr[-2000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    return {(i, eps): float(a) for (i, eps), a in zip(grid, out["accuracies"], strict=True)}


def _peer_version(python: str, module: str) -> str:
    code = f"import {module}, sklearn, numpy, sys; print({module}.__version__, sklearn.__version__, numpy.__version__, " \
           "sys.version.split()[0])" if module == "diffprivlib" else \
           f"import {module}, torch, numpy, sys; print({module}.__version__, torch.__version__, numpy.__version__, " \
           "sys.version.split()[0])"
    res = subprocess.run([python, "-c", code], capture_output=True, text=True, check=False,
                         env=dict(os.environ, PYTHONPATH=""))
    return res.stdout.strip() if res.returncode == 0 else "unavailable"


# ----------------------------------------------------------------------------------------- main
METHOD_ORDER = ["ours: PCA + DP-GD (k auto)", "ours: PCA + DP-GD, k by private selection",
                "ours: random projection + DP-GD", "ours: full dimension + DP-GD", "halfspace one-vs-rest DP-SGD",
                "diffprivlib LogisticRegression", "Opacus DP-SGD (full features)", "public only: constant",
                "non-private logistic regression"]
OURS = METHOD_ORDER[:5]
PEERS = ["diffprivlib LogisticRegression", "Opacus DP-SGD (full features)"]


def run(quick: bool, seeds: int, peers: dict[str, str | None], datasets: list[str],
        epsilons: tuple[float, ...]) -> tuple[dict[str, Any], dict[str, float]]:
    """{dataset: {method: {eps: [accuracy per seed]}}} and the seconds spent per method."""
    inproc: dict[str, Callable[[Split, float, int], float]] = {
        "ours: PCA + DP-GD (k auto)": _ours("pca"),
        "ours: random projection + DP-GD": _ours("random"),
        "ours: full dimension + DP-GD": _ours("none"),
        "public only: constant": _public_constant,
    }
    if not quick:
        inproc["ours: PCA + DP-GD, k by private selection"] = _ours_search
        inproc["halfspace one-vs-rest DP-SGD"] = _halfspace
    results: dict[str, Any] = {}
    secs: dict[str, float] = {}
    for name in datasets:
        load = _dataset(name)
        splits = [make_split(*load(s), s) for s in range(seeds)]
        res: dict[str, dict[float, list[float]]] = {}
        for m, fn in inproc.items():
            if m == "halfspace one-vs-rest DP-SGD" and name != "digits":
                continue  # its one-vs-rest calibration takes ~15 s per epsilon here: digits only (the case)
            t0 = time.perf_counter()
            res[m] = {eps: [fn(sp, eps, i) for i, sp in enumerate(splits)] for eps in epsilons}
            secs[m] = secs.get(m, 0.0) + time.perf_counter() - t0
        t0 = time.perf_counter()
        ceiling = [_nonprivate(sp, 0.0, i) for i, sp in enumerate(splits)]
        secs["non-private logistic regression"] = secs.get("non-private logistic regression", 0.0) + \
            time.perf_counter() - t0
        res["non-private logistic regression"] = {eps: ceiling for eps in epsilons}
        grid = [(i, eps) for eps in epsilons for i in range(seeds)]
        for peer, label in (("diffprivlib", PEERS[0]), ("opacus", PEERS[1])):
            py = peers.get(peer)
            if not py:
                continue
            t0 = time.perf_counter()
            got = _run_peer(peer, py, splits, grid)
            secs[label] = secs.get(label, 0.0) + time.perf_counter() - t0
            res[label] = {eps: [got[(i, eps)] for i in range(seeds)] for eps in epsilons}
        results[name] = res
        print(f"# {name} done ({sum(secs.values()):.0f} s so far)", file=sys.stderr, flush=True)
    return results, secs


def table(results: dict[str, Any], epsilons: tuple[float, ...]) -> list[str]:
    """Markdown: one table per data set (method x epsilon, mean ± 95% CI) and the verdict rows."""
    rows: list[str] = []
    for name, res in results.items():
        rows += [f"**{name}**", "", "| method | " + " | ".join(f"eps={e:g}" for e in epsilons) + " |",
                 "|---|" + "---|" * len(epsilons)]
        for m in METHOD_ORDER:
            if m not in res:
                continue
            cells = []
            for e in epsilons:
                mean, half = _ci(res[m][e])
                cells.append(f"{mean:.3f} ± {half:.3f}")
            rows.append(f"| {m} | " + " | ".join(cells) + " |")
        verdicts = []
        for e in epsilons:
            ours = max((float(np.mean(res[m][e])), m) for m in OURS if m in res)
            peers = [(float(np.mean(res[m][e])), m) for m in PEERS if m in res]
            if not peers:
                verdicts.append("no peer")
                continue
            best_peer = max(peers)
            verdicts.append(f"{'MET' if ours[0] >= best_peer[0] else 'NOT MET'} ({ours[0]:.3f} vs {best_peer[0]:.3f})")
        rows += ["| best ours >= best peer | " + " | ".join(verdicts) + " |", ""]
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 seeds, epsilon in {0.3, 1, 3}, three data sets, no "
                    "private search / halfspace rows")
    ap.add_argument("--seeds", type=int, default=None, help="splits per data set (default 10; 3 with --quick)")
    ap.add_argument("--datasets", default=None, help="comma-separated (default: all five; with --quick: digits, wine "
                    "and synthetic d=512)")
    ap.add_argument("--diffprivlib", default=DEFAULT_PEERS["diffprivlib"], help="the diffprivlib environment's python")
    ap.add_argument("--opacus", default=DEFAULT_PEERS["opacus"], help="the Opacus environment's python")
    ap.add_argument("--out", type=Path, default=None, help="also write the markdown here")
    ap.add_argument("--json", type=Path, default=None, help="write every accuracy here")
    a = ap.parse_args(argv)
    seeds = a.seeds if a.seeds is not None else (3 if a.quick else 10)
    if seeds < 1:
        print("bench_utility: --seeds must be >= 1", file=sys.stderr)
        return 2
    epsilons = (0.3, 1.0, 3.0) if a.quick else EPSILONS
    peers = {p: (path if path and Path(path).exists() else None) for p, path in
             (("diffprivlib", a.diffprivlib), ("opacus", a.opacus))}
    names = a.datasets or ("digits,wine,synthetic d=512" if a.quick else
                           "digits,breast_cancer,wine,synthetic d=512,synthetic d=2048")
    datasets = [d.strip() for d in names.split(",") if d.strip()]
    t0 = time.perf_counter()
    results, secs = run(a.quick, seeds, peers, datasets, epsilons)
    wall = time.perf_counter() - t0
    cpu = "unknown"
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    rows = [f"Accuracy at equal privacy: delta = {DELTA:g}, replace-one, public unlabelled share {PUBLIC_SHARE:g}, "
            f"test share {TEST_SHARE:g}, {seeds} splits per data set (mean ± 95% t-interval of the mean).",
            f"Machine: {cpu}, {os.cpu_count()} cores (shared, loaded), Python {platform.python_version()}, one BLAS "
            f"thread; wall time {wall:.0f} s ({'--quick' if a.quick else 'full run'}).",
            "Peers: " + "; ".join(
                f"{p} {_peer_version(path, p) if path else 'not run (interpreter not found)'}"
                for p, path in peers.items()),
            "Seconds per method (all data sets): " + ", ".join(f"{m} {s:.0f}" for m, s in secs.items()), ""]
    rows += table(results, epsilons)
    if a.json is not None:
        a.json.write_text(json.dumps({d: {m: {str(e): v for e, v in r.items()} for m, r in res.items()}
                                      for d, res in results.items()}))
    text = "\n".join(rows) + "\n"
    if a.out is not None:
        a.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
