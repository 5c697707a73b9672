"""Report section: the PCA kernels (HPSY.Thm3 / PILLAR.Alg1, step 1) against their reference.

On synthetic low-rank data (rank r signal with spectrum 10/j plus small isotropic noise and a
non-zero mean) every available backend, dtype and method is compared with the NumPy reference
(:mod:`semiprivate.kernels._reference_pca`): subspace distance ``||P - P_ref||_2`` of the top-k projectors and
the largest eigenvalue error relative to lambda_1; streaming in chunks must equal the in-memory
result.  A small timing table puts ``semiprivate.kernels.pca`` next to the floor ``X.T @ X + eigh`` and
scikit-learn's ``covariance_eigh`` PCA (when installed), measured in the same run.  The full-size
benchmark is ``benchmarks/bench_pca.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from semiprivate.theory.report import ReportContext, Section, pyplot
from semiprivate.theory.report.sections._common import DPI, OKABE_ITO, Timing, style, time_call, timing_note

TITLE = "PCA kernels"
ORDER = 20

# float64 / float32 tolerances (the same as tests/kernels/pca/test_decomposition.py)
_TOL = {"float64": (1e-8, 1e-9), "float32": (1e-4, 1e-5)}


def _low_rank(n: int, d: int, r: int, seed: int) -> np.ndarray:
    g = np.random.default_rng(seed)
    basis = np.linalg.qr(g.standard_normal((d, r)))[0]
    Z = g.standard_normal((n, r)) * (10.0 / np.arange(1, r + 1))
    return Z @ basis.T + 0.01 * g.standard_normal((n, d)) + 3.0 * g.standard_normal(d)


def _dist(V: np.ndarray, W: np.ndarray) -> float:
    return float(np.linalg.norm(V.astype(np.float64) @ V.T.astype(np.float64) - W @ W.T, 2))


#: Okabe-Ito colours that read well as open markers on white (yellow does not).
_COLOURS = [OKABE_ITO[i] for i in (1, 5, 3, 6, 7, 2)]


def _interleaved(methods: dict[str, Callable[[], Any]], repeats: int, warmup: int) -> dict[str, Timing]:
    """Time every method in ``repeats`` interleaved rounds (one call each per round) after warm-up."""
    samples: dict[str, list[Timing]] = {name: [] for name in methods}
    for fn in methods.values():
        for _ in range(warmup):
            fn()
    for _ in range(repeats):
        for name, fn in methods.items():
            samples[name].append(time_call(fn, repeats=1, warmup=0))
    out = {}
    for name, ts in samples.items():
        q = np.quantile([t.median for t in ts], [0.25, 0.5, 0.75])
        out[name] = Timing(float(q[1]), float(q[0]), float(q[2]), repeats, warmup)
    return out


def _plot_spectrum(ctx: ReportContext, full: np.ndarray, spectra: dict[str, np.ndarray], k: int) -> Any:
    """Reference spectrum with every backend's top-k eigenvalues (PNG)."""
    plt = pyplot()
    style(plt)

    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    ax.semilogy(np.arange(1, len(full) + 1), full, "-", color=OKABE_ITO[0], lw=1.2,
                label="reference spectrum (NumPy, all eigenvalues)")
    markers = "osD^v<>p"
    for i, (name, lam) in enumerate(spectra.items()):
        ax.semilogy(np.arange(1, k + 1), lam, markers[i % len(markers)], ms=9 - 1.2 * i, mfc="none", mew=1.4,
                    color=_COLOURS[i % len(_COLOURS)], label=f"kernels.pca top-{k}: {name}")
    ax.axvline(k + 0.5, color=OKABE_ITO[0], ls=":", lw=1.2, label=f"cut after the top k = {k} components")
    ax.set_xlabel("eigenvalue index j (descending order)")
    ax.set_ylabel("eigenvalue lambda_j of the covariance\n(squared data units, log scale)")
    ax.set_title(f"PCA kernels: top-{k} eigenvalues of every backend on the reference spectrum", loc="left")
    ax.legend(loc="upper right", framealpha=0.9)
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    path = ctx.path("pca_spectrum.png")
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


def build(ctx: ReportContext) -> Section:
    from semiprivate import kernels
    from semiprivate.kernels._reference_pca import reference_pca

    n, d, r, k = (2000, 64, 8, 6) if ctx.quick else (100_000, 512, 12, 10)
    X = _low_rank(n, d, r, ctx.seed)
    V_ref, lam_ref, _, _ = reference_pca(X, k)
    backends = [b for b in kernels.available_backends()]
    rows = [
        f"Synthetic rank-{r} data, n={n:,}, d={d}, k={k} (HPSY Thm 3 / PILLAR Alg 1 step 1). Tolerances: "
        "float64 subspace 1e-8 / eigenvalue 1e-9, float32 1e-4 / 1e-5 (relative to lambda_1).",
        "",
        "| backend | dtype | method | subspace dist | eig rel err | streamed (chunks of 7) = in memory | within tol |",
        "|---|---|---|---|---|---|---|",
    ]
    ok = True
    spectra: dict[str, np.ndarray] = {}
    worst: dict[str, float] = {}  # dtype -> largest subspace distance over backends and methods
    for be in backends:
        for dt in ("float64", "float32"):
            for method in ("covariance", "randomized"):
                res = kernels.pca(X.astype(dt), k, backend=be, method=method, rng=ctx.seed)
                sub = _dist(res.components, V_ref)
                eig = float(np.max(np.abs(np.asarray(res.eigenvalues, dtype=np.float64) - lam_ref)) / lam_ref[0])
                sub_tol, eig_tol = _TOL[dt]
                if method == "randomized":  # range finder: exact-rank signal, accurate to the noise level
                    sub_tol, eig_tol = max(sub_tol, 1e-6), max(eig_tol, 1e-9)
                stream = "-"
                if method == "covariance":
                    Xs = X[:500].astype(dt)
                    a = kernels.pca([Xs[i : i + 7] for i in range(0, 500, 7)], k, backend=be)
                    b = kernels.pca(Xs, k, backend=be)
                    same = bool(np.allclose(a.components, b.components, atol=1e-10 if dt == "float64" else 1e-4))
                    stream = "yes" if same else "NO"
                    ok &= same
                    spectra[f"{be} {dt}"] = np.asarray(res.eigenvalues, dtype=np.float64)
                good = sub <= sub_tol and eig <= eig_tol
                worst[dt] = max(worst.get(dt, 0.0), sub)
                ok &= good
                rows.append(f"| {be} | {dt} | {method} | {sub:.1e} | {eig:.1e} | {stream} | {'yes' if good else 'NO'} |")

    # timing (same run, same data)
    Xt = X.astype(np.float64)
    reps, warm = (7, 2) if ctx.quick else (9, 2)
    # interleaved rounds: each round times every method once, so a burst of load on the shared
    # machine hits all of them rather than one
    methods: dict[str, Callable[[], Any]] = {
        "kernels.pca (auto)": lambda: kernels.pca(Xt, k),
        "floor: X.T@X + numpy.linalg.eigh": lambda: np.linalg.eigh(Xt.T @ Xt),
    }
    try:
        from sklearn.decomposition import PCA

        methods["sklearn PCA covariance_eigh"] = lambda: PCA(k, svd_solver="covariance_eigh").fit(Xt)
        skl = PCA(k, svd_solver="full").fit(X)
        skl_dist = _dist(skl.components_.T, V_ref)
        rows += ["", f"scikit-learn PCA (svd_solver='full') vs the reference: subspace distance {skl_dist:.1e}."]
    except ImportError:
        rows += ["", "scikit-learn is not installed: its timing and comparison are skipped."]
    timing = _interleaved(methods, reps, warm)
    floor = timing["floor: X.T@X + numpy.linalg.eigh"].median
    rows += [
        "",
        f"Timing, float64, n={n:,}, d={d}, k={k}. {timing_note(reps, warm)} Full-size figures: "
        "`benchmarks/bench_pca.py`.",
        "",
        "| method | median time [IQR] (lower is better) | x the floor (median) |",
        "|---|---|---|",
    ]
    rows += [f"| {name} | {t.ms()} | {t.median / floor:.2f} |" for name, t in timing.items()]

    full = np.sort(np.linalg.eigvalsh(np.cov(X, rowvar=False)))[::-1][: 2 * r]
    path = _plot_spectrum(ctx, full, spectra, k)
    rows += ["", f"![spectrum]({path.name})"]
    t_pca = timing["kernels.pca (auto)"].median
    summary = (
        f"{len(backends)} backend(s) x 2 dtypes x 2 methods {'agree' if ok else 'DISAGREE'} with the reference "
        f"(largest subspace distance {worst['float64']:.1e} in float64, {worst['float32']:.1e} in float32; "
        f"tolerances {_TOL['float64'][0]:g} / {_TOL['float32'][0]:g}, randomized >= 1e-6); "
        f"kernels.pca {t_pca / floor:.2f}x the X.T@X+eigh floor at n={n}, d={d}"
    )
    return Section(title=TITLE, markdown="\n".join(rows), files=[path], summary=summary, ok=ok)
