"""The privacy table of every learner, wrapper, sanitizer and mechanism, generated from the project's registries.

Rows come from the release-boundary registry (every class of ``semiprivate.theory.learners`` and
``semiprivate.theory.privacy`` with a run method, and its tiny case: ``CASES`` in
``tests/theory/privacy/release/test_release_boundary_registry.py``); columns from

* the class itself: its declared privacy model (``privacy_model_``, the relation; a halfspace learner's from
  :data:`semiprivate.theory.learner_checks.HALFSPACE_MODELS`) and, from the budgets registry
  (``tests/theory/privacy/release/test_budgets_at_the_boundary.py``), its budget parameters;
* what ran: the tiny case is fitted once under a profiler that records every exact sampler of the kernels
  (discrete Laplace, discrete Gaussian, Bernoulli(exp), the exact exponential mechanism) and every float draw
  of a NumPy ``Generator`` (``laplace``, ``normal``, ``random``, ...) the run made: the sampler that really ran;
* the end-to-end registry (:data:`semiprivate.theory.learner_checks.REGISTRY`): the worst (epsilon, delta) its
  check finds (exact, or a statistical lower bound) against the claim; the slow statistical checks only with
  ``--slow``; a class the registry has no entry for says so;
* the claim: ``privacy_`` (or ``privacy``) of the fitted tiny case.

Then the speed of the exact samplers against NumPy's float ones (``bench_release_samplers.py``, same run).

    python benchmarks/privacy_table.py [--slow] [--reps 7] [--no-speed]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import inspect
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from semiprivate.kernels.noise import FLOAT_DRAWS

ROOT = Path(__file__).resolve().parent.parent
REGISTRIES = ROOT / "tests" / "theory" / "privacy" / "release"

#: The kernels' exact samplers, by (module, function): what a release's noise must come from.
EXACT = {("semiprivate.kernels.noise", "discrete_laplace"): "discrete Laplace",
         ("semiprivate.kernels.noise", "discrete_gaussian"): "discrete Gaussian",
         ("semiprivate.kernels.noise", "bernoulli_exp"): "Bernoulli(exp(-g))",
         ("semiprivate.kernels._reference", "reference_exact_sample"): "exact exponential mechanism",
         ("semiprivate.kernels._reference", "reference_exact_weighted_sample"): "exact weighted exponential mechanism"}

def _load(name: str) -> ModuleType:
    """A registry module of the test suite, loaded from its file (its tiny cases and class walks)."""
    path = REGISTRIES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_registry_{name}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _recording_generator(floats: set[str]) -> type:
    """A ``numpy.random.Generator`` subclass whose float draws made inside a release's run note their name in
    ``floats`` (``spawn`` keeps the type, so every child stream of a run records too)."""

    from semiprivate.theory.privacy.seeds import current_ticket

    def draw(name: str) -> Any:
        def method(self: Any, *args: Any, **kwargs: Any) -> Any:
            if current_ticket() is not None:  # inside a release's run (not the case's data generation)
                floats.add(f"Generator.{name}")
            return getattr(np.random.Generator, name)(self, *args, **kwargs)
        method.__name__ = name
        return method

    return type("RecordingGenerator", (np.random.Generator,), {n: draw(n) for n in FLOAT_DRAWS})


@contextlib.contextmanager
def _samplers_called() -> Iterator[tuple[set[str], set[str]]]:
    """Record, in this thread, the exact samplers and the float Generator draws called inside the block.

    Exact samplers by a profiler (Python calls of :data:`EXACT`); float draws by making every generator the run
    creates (``numpy.random.default_rng``, and the children it spawns) a recording subclass.
    """
    from semiprivate.theory.privacy.seeds import current_ticket

    exact: set[str] = set()
    floats: set[str] = set()
    recording = _recording_generator(floats)
    plain = np.random.default_rng

    def default_rng(seed: Any = None) -> Any:
        if isinstance(seed, np.random.Generator):
            return seed
        bits = seed if isinstance(seed, np.random.BitGenerator) else np.random.PCG64(seed)
        return recording(bits)

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            key = (frame.f_globals.get("__name__"), frame.f_code.co_name)
            if key in EXACT and current_ticket() is not None:
                exact.add(EXACT[key])

    before = sys.getprofile()
    np.random.default_rng = default_rng
    sys.setprofile(profile)
    try:
        yield exact, floats
    finally:
        sys.setprofile(before)
        np.random.default_rng = plain


def _claim(obj: Any) -> str:
    for attr in ("privacy_", "privacy"):
        value = getattr(obj, attr, None)
        if isinstance(value, tuple) and len(value) == 2:
            return f"({value[0]:.6g}, {value[1]:.3g})"
    return "none stated"


def _relation(cls: type, halfspace_models: dict[str, str]) -> str:
    model = halfspace_models.get(cls.__name__) or getattr(cls, "privacy_model_", None)
    return model if isinstance(model, str) else "not declared"


def _kind(cls: type) -> str:
    params = set(inspect.signature(cls).parameters)
    if params & {"estimator", "base_learner", "learner", "base", "steps"}:
        return "wrapper"
    if cls.__module__.startswith("semiprivate.theory.learners"):
        return "learner"
    return "sanitizer" if "sanitizers" in cls.__module__ else "mechanism"


def _checked(name: str, registry: dict[str, Any], slow: bool) -> tuple[str, str]:
    entry = registry.get(name)
    if entry is None:
        return "none (not in the end-to-end registry)", ""
    if entry.slow and not slow:
        return f"{entry.method} (slow; run with --slow)", ""
    result = entry.run()
    worst = f"eps {result.epsilon:.4g}, delta {result.delta:.3g}"
    return f"{entry.method}: {worst}", "holds" if result.holds else "FAILS"


def table(slow: bool) -> list[str]:
    from semiprivate.theory import learner_checks
    from semiprivate.theory.privacy.budget import BUDGET_PARAMETERS
    from semiprivate.theory.privacy.seeds import separate_seed_record

    boundary = _load("test_release_boundary_registry")
    budgets = _load("test_budgets_at_the_boundary")
    with_budget = budgets._budget_classes()
    rows = ["| class | kind | relation | budget parameters | sampler that ran (exact / float) | sampler the registry "
            "checks | worst found (registry) | claimed (tiny case) |", "|---|---|---|---|---|---|---|---|"]
    for name in sorted(boundary.CLASSES):
        cls = boundary.CLASSES[name]
        with separate_seed_record(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with _samplers_called() as (exact, floats):
                obj = boundary.CASES[name](None)
            checked, verdict = _checked(name, learner_checks.REGISTRY, slow)
        entry = learner_checks.REGISTRY.get(name)
        registry_sampler = entry.sampler if entry is not None else "-"
        if entry is not None and entry.probe is not None:
            with separate_seed_record():
                registry_sampler += f" (fit calls it: {'yes' if learner_checks.sampler_ran(name) else 'NO'})"
        ran = ", ".join(sorted(exact)) or "no exact sampler"
        ran += " / " + (", ".join(sorted(floats)) or "no float draw")
        params = sorted(set(BUDGET_PARAMETERS) & set(inspect.signature(cls).parameters)) if name in with_budget else []
        rows.append(f"| {name} | {_kind(cls)} | {_relation(cls, learner_checks.HALFSPACE_MODELS)} | "
                    f"{', '.join(params) or '-'} | {ran} | {registry_sampler} | {checked}"
                    f"{' (' + verdict + ')' if verdict else ''} | {_claim(obj)} |")
    return rows


def speed(reps: int) -> list[str]:
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_release_samplers.py"), "--reps",
                          str(reps)], capture_output=True, text=True, check=True).stdout
    return out.strip().splitlines()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--slow", action="store_true", help="also run the registry's slow statistical checks")
    ap.add_argument("--reps", type=int, default=7, help="repetitions of each timing (median)")
    ap.add_argument("--no-speed", action="store_true")
    args = ap.parse_args()
    print("\n".join(table(args.slow)))
    if not args.no_speed:
        print()
        print("\n".join(speed(args.reps)))


if __name__ == "__main__":
    main()
