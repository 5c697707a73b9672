"""What a new user hits: silent wrong numbers, tracebacks instead of messages, misleading
messages, required arguments, dangling references, house rules.

Every test calls the public entry point a user calls (function, class or ``main(argv)`` of the
command line) and checks the exception type, that the message names the parameter, or the exit
status 2 with a message and no traceback."""

from __future__ import annotations

import inspect
import math
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


# -----------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [-1.0, math.nan, 0.0, math.inf])
def test_gaussian_delta_rejects_a_bad_noise_level(sigma: float) -> None:
    from semiprivate.theory.privacy.mechanisms import gaussian_delta

    with pytest.raises(ValueError, match=r"sigma must be .*\(0, inf\)"):
        gaussian_delta(1.0, sigma)


def test_gaussian_delta_still_computes_valid_inputs() -> None:
    from semiprivate.theory.privacy.mechanisms import gaussian_delta

    assert gaussian_delta(1.0, 1.0) == pytest.approx(0.126937, abs=1e-6)
    assert gaussian_delta(0.0, 1.0) == pytest.approx(2 * 0.5 - 2 * 0.30853753872598688, rel=1e-9)  # 2 Phi(1/2) - 1
    with pytest.raises(ValueError, match="epsilon"):
        gaussian_delta(-0.5, 1.0)
    with pytest.raises(TypeError, match="sensitivity"):
        gaussian_delta(1.0, 1.0, "1")


# -----------------------------------------------------------------------------


def test_report_only_unknown_section_is_an_error_and_keeps_the_report(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.theory.report.cli import main

    (tmp_path / "report.md").write_text("previous full report")
    assert main(["--only", "nosuchsection", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "nosuchsection" in err and "covers" in err and "Traceback" not in err
    assert (tmp_path / "report.md").read_text() == "previous full report"


def test_run_report_api_rejects_unknown_sections_before_writing(tmp_path: Path) -> None:
    """The same rule from Python: run_report(only=[unknown]) raises naming ``only`` and the known
    sections, and leaves the previous report alone; bad flags are rejected before anything runs."""
    from semiprivate.theory.report import run_report

    (tmp_path / "report.md").write_text("previous full report")
    with pytest.raises(ValueError, match=r"only names unknown section\(s\) \['nosuchsection'\]; known: .*covers"):
        run_report(tmp_path, only=["nosuchsection"], echo=False)
    with pytest.raises(ValueError, match=r"^only must name at least one section"):
        run_report(tmp_path, only=[], echo=False)
    with pytest.raises(TypeError, match=r"^only must be None or a list"):
        run_report(tmp_path, only="covers", echo=False)  # a str is not a list of names
    with pytest.raises(TypeError, match=r"^quick must be a bool"):
        run_report(tmp_path, quick="yes", echo=False)
    assert (tmp_path / "report.md").read_text() == "previous full report"


def test_report_help_lists_the_sections(capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.theory.report.cli import main, section_names

    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert {"covers", "pca", "audit", "bounds"} <= set(section_names())
    for name in section_names():
        assert re.search(rf"^\s+{name}\s", out, re.M), f"--help does not list section {name}"


# -----------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "name"), [
    (lambda s: s.clopper_pearson(5, 3), "k"),
    (lambda s: s.clopper_pearson(-1, 3), "k"),
    (lambda s: s.clopper_pearson(1, 0), "n"),
    (lambda s: s.clopper_pearson(math.nan, 3), "k"),
    (lambda s: s.clopper_pearson(1, 3, 1.5), "confidence"),
    (lambda s: s.cp_lower(1, 3, 0.0), "alpha"),
    (lambda s: s.cp_upper([1, 2], [3, 4, 5], 0.05), "k"),
    (lambda s: s.epsilon_bound(1.5, 0.2, 0.0), "p_lower"),
    (lambda s: s.epsilon_bound(0.5, -0.2, 0.0), "q_upper"),
    (lambda s: s.epsilon_bound(0.5, 0.2, 2.0), "delta"),
], ids=["k>n", "k<0", "n=0", "k=nan", "confidence", "alpha", "shapes", "p>1", "q<0", "delta"])
def test_statistics_reject_bad_input(call: Any, name: str, names_word: Callable[[str, str], bool]) -> None:
    from semiprivate.theory.audit import stats

    with pytest.raises(ValueError) as info:
        call(stats)
    assert names_word(str(info.value), name), str(info.value)


def test_statistics_unchanged_on_valid_input() -> None:
    from semiprivate.theory.audit import clopper_pearson, epsilon_bound

    lo, hi = clopper_pearson(5, 10)
    assert (round(float(lo), 4), round(float(hi), 4)) == (0.1871, 0.8129)
    assert float(epsilon_bound(0.5, 0.5 / math.e, 0.0)) == pytest.approx(1.0)
    assert float(epsilon_bound(0.01, 0.1, 0.05)) == -math.inf


def test_hockey_stick_does_not_broadcast() -> None:
    from semiprivate.theory.audit import hockey_stick

    with pytest.raises(ValueError, match="same length"):
        hockey_stick([0.5, 0.5], [1.0], 1.0)
    assert hockey_stick([0.5, 0.5], [0.25, 0.75], 0.0) == 0.25


# ----------------------------------------------------------------------------- and the CLI rule


def test_bound_underflow_is_a_message_from_cli_and_api(capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.theory.bounds import evaluate
    from semiprivate.theory.bounds.abm19 import abm19_private_sample_size
    from semiprivate.theory.bounds.cli import main

    assert main(["ABM19.Thm3.1", "vc_dim=10", "alpha=1e-300", "beta=0.01", "epsilon=1"]) == 2
    err = capsys.readouterr().err
    assert "alpha=1e-300" in err and "float" in err and "Traceback" not in err
    with pytest.raises(ValueError, match="alpha=1e-300"):
        evaluate("ABM19.Thm3.1", vc_dim=10, alpha=1e-300, beta=0.01, epsilon=1.0)
    with pytest.raises(ValueError, match="float range"):  # the function itself: no ZeroDivisionError
        abm19_private_sample_size(10, 1e-300, 0.01, 1.0)


def test_huge_integer_names_the_parameter(capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.theory.bounds import evaluate
    from semiprivate.theory.bounds.cli import main

    big = 10**310
    assert main(["ABM19.Lem3.3", "vc_dim=10", "alpha=0.05", f"n_pub={big}"]) == 2
    assert "n_pub is too large" in capsys.readouterr().err
    with pytest.raises(ValueError, match="n_pub is too large"):
        evaluate("ABM19.Lem3.3", vc_dim=10, alpha=0.05, n_pub=big)


def test_audit_and_report_cli_user_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.theory.audit_suite import main as audit_main
    from semiprivate.theory.report.cli import main as report_main

    assert audit_main(["--seed", "-1", "--only", "LaplaceMechanism"]) == 2
    assert "--seed" in capsys.readouterr().err
    assert audit_main(["--trials", "0"]) == 2
    assert report_main(["--out", "/proc/nope", "--quick"]) == 2
    assert "/proc/nope" in capsys.readouterr().err
    afile = tmp_path / "afile"
    afile.write_text("")
    assert report_main(["--out", str(afile), "--only", "build"]) == 2


@pytest.mark.parametrize("argv", [
    ["bound", "ABM19.Thm3.1", "vc_dim=10", "alpha=1e-300", "beta=0.01", "epsilon=1"],
    ["audit", "--seed", "-1"],
    ["report", "--out", "/proc/nope", "--quick"],
    ["bound", "ABM19.Lem3.3", "vc_dim=x", "alpha=0.05", "n_pub=3"],
])
def test_no_traceback_from_the_command_line(argv: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "semiprivate", *argv], capture_output=True, text=True, check=False,
                          cwd=ROOT)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.strip()


def test_an_escaping_user_error_is_a_message(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate import cli
    from semiprivate.theory.report import cli as report_cli

    def boom(argv: list[str]) -> int:
        raise ValueError("some value was wrong")

    monkeypatch.delenv("SEMIPRIVATE_DEBUG", raising=False)
    monkeypatch.setattr(report_cli, "main", boom)
    assert cli.main(["report"]) == 2
    assert "semiprivate report: error: some value was wrong" in capsys.readouterr().err


# -----------------------------------------------------------------------------


def test_no_reference_outside_the_repository() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "../shared" not in readme and "python -m semiprivate spec" in readme


def test_help_theory_lists_modules_that_exist() -> None:
    import importlib

    from semiprivate import theory

    doc = theory.__doc__ or ""
    listed = re.findall(r"``([a-z_]+)``", doc.split("Sub-packages")[1].split("Sampling and PCA")[0])
    assert "graphs" in listed and listed
    for name in listed:
        importlib.import_module(f"semiprivate.theory.{name}")  # ModuleNotFoundError = a dangling reference


# -----------------------------------------------------------------------------


def test_solver_searches_far_enough_and_keeps_messages_short() -> None:
    from semiprivate.theory.bounds import solve
    from semiprivate.theory.bounds._core import MATH, BoundOverflowError, smallest_integer
    from semiprivate.theory.bounds.abm19 import _lem33_log

    n = solve("ABM19.Lem3.3", "n_pub", vc_dim=10, alpha=1e-200, beta=0.01)
    assert 1e204 < n < 1e205
    assert _lem33_log(MATH, n, 10, 1e-200) <= math.log(0.01) < _lem33_log(MATH, n - 10**190, 10, 1e-200)
    with pytest.raises(BoundOverflowError) as info:
        smallest_integer(lambda k: False, 8 * 10**201)
    assert len(str(info.value)) < 200 and "e+201" in str(info.value)


# -----------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "exc", "name"), [
    (lambda: __import__("semiprivate.theory.combinatorics", fromlist=["x"]).growth_function(None, 3), TypeError,
     "concept_class"),
    (lambda: __import__("semiprivate.theory.covers", fromlist=["x"]).build_cover(None, [1]), TypeError, "concept_class"),
    (lambda: __import__("semiprivate.theory.bounds", fromlist=["x"]).evaluate("ABM19.Lem9.9"), ValueError, "ABM19.Lem9.9"),
    (lambda: __import__("semiprivate.theory.distributions", fromlist=["x"]).uniform_points(-1, 4), ValueError, "n"),
    (lambda: __import__("semiprivate.theory.classes", fromlist=["x"]).FiniteClass([]), ValueError, "table"),
    (lambda: __import__("semiprivate.theory.audit", fromlist=["x"]).audit_pairs(lambda d, s, r: np.zeros(s), [[0.0]],
                                                                      epsilon=1), ValueError, "pairs"),
], ids=["growth_function", "build_cover", "evaluate", "uniform_points", "FiniteClass", "audit_pairs"])
def test_messages_name_the_parameter(call: Any, exc: type[Exception], name: str) -> None:
    with pytest.raises(exc) as info:
        call()
    assert name in str(info.value), str(info.value)


def test_unknown_bound_is_also_a_key_error_for_dict_like_use() -> None:
    from semiprivate.theory.bounds import UnknownBoundError, get_bound

    with pytest.raises(KeyError):
        get_bound("ABM19.Lem9.9")
    with pytest.raises(UnknownBoundError, match="case-sensitive.*'ABM19.Lem3.3'"):
        get_bound("abm19.lem3.3")


def test_parameter_spelling_names_the_bound_and_the_accepted_name(capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.theory.bounds import evaluate
    from semiprivate.theory.bounds.cli import main

    with pytest.raises(TypeError, match=r"ABM19.Lem3.3 has no parameter 'VC' \(did you mean 'vc_dim'\?\)"):
        evaluate("ABM19.Lem3.3", VC=10, alpha=0.05, n_pub=100)
    with pytest.raises(TypeError, match=r"did you mean 'alpha'"):
        evaluate("ABM19.Lem3.3", vc_dim=10, Alpha=0.05, n_pub=100)
    assert main(["ABM19.Lem3.3", "VC=10", "alpha=0.05", "n_pub=100"]) == 2
    assert "did you mean 'vc_dim'" in capsys.readouterr().err


@pytest.mark.parametrize(("bound_id", "old", "new", "rest"), [
    ("ABM19.Lem3.3", "d", "vc_dim", {"alpha": 0.05, "n_pub": 20000}),
    ("BNS15.Thm3.3.n", "d", "bits", {"vc_dim": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}),
    ("BNS15.Cor4.17", "d", "bits", {"ell": 2, "alpha": 0.1, "beta": 0.05, "epsilon": 1.0}),
    ("HPSY.Thm1.n_unl", "d", "dim", {"beta": 0.01, "p_min": 0.01}),
    ("HPSY.Sec3.3.BST14", "d", "dim", {"alpha": 0.1, "epsilon": 1.0}),
    ("BNS15.Cl4.9", "vc", "vc_dim", {"alpha": 0.1, "beta": 0.1}),
    ("BNS15.PropA.1", "h_size", "n_hypotheses", {"epsilon": 1.0, "gap": 0.1, "m": 200}),
])
def test_an_old_parameter_name_warns_naming_the_new_one(bound_id: str, old: str, new: str, rest: dict[str, Any],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """``d`` meant a VC dimension, bits per point or an ambient dimension depending on the paper: the old
    name still works, in the API with a DeprecationWarning and in the CLI with a warning line, each
    naming the bound's own new name; the value is the one the new name gives."""
    from semiprivate.theory.bounds import evaluate
    from semiprivate.theory.bounds.cli import main

    value = 40 if new in ("dim", "bits") else 10
    with pytest.warns(DeprecationWarning, match=f"'{old}' is deprecated, use '{new}'"):
        got = evaluate(bound_id, **{old: value}, **rest)
    assert got == evaluate(bound_id, **{new: value}, **rest)
    with pytest.raises(TypeError, match=f"both '{old}' .* and '{new}'"):
        evaluate(bound_id, **{old: value, new: value}, **rest)
    argv = [bound_id, f"{old}={value}", *(f"{k}={v}" for k, v in rest.items())]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert f"'{old}' is deprecated, use '{new}'" in captured.err and f"{bound_id}: value" in captured.out


def test_no_bound_takes_an_ambiguous_parameter_name() -> None:
    """No registered bound or solver has a parameter ``d``, ``vc`` or ``h_size`` any more."""
    from semiprivate.theory.bounds import list_bounds

    for b in list_bounds():
        names = {p.name for p in b.params} | {p.name for s in b.solvers.values() for p in s.params}
        assert not names & {"d", "vc", "h_size"}, (b.id, sorted(names))


def test_sampler_error_bounds_huge_n() -> None:
    """n beyond what an array can index is a ValueError naming n (short message, not 400 digits);
    n where the bound is vacuous (gamma >= 1) names n and backend; the largest n still works."""
    from semiprivate.kernels._exponential import MAX_CANDIDATES, sampler_error_bounds

    with pytest.raises(ValueError, match=r"^n must be an integer in \[1, 9223372036854775807\]") as exc:
        sampler_error_bounds(10**400, 1.0)
    assert len(str(exc.value)) < 200
    with pytest.raises(ValueError, match=r"^n must"):
        sampler_error_bounds(MAX_CANDIDATES + 1, 1.0)
    with pytest.raises(ValueError, match=r"n=9007199254740992 .*backend='numpy'.*vacuous"):
        sampler_error_bounds(2**53, 1.0, backend="numpy")
    with pytest.raises(ValueError, match=r"backend='cython'.*vacuous"):  # 2**52 + 2048 chunked stages
        sampler_error_bounds(MAX_CANDIDATES, 1.0)
    b = sampler_error_bounds(2**62, 1.0)  # chunked: 2**51 stages, the bound holds (gamma ~ 1/2)
    assert 0.49 < b["gamma"] < 0.51 and b["epsilon_fp"] > 2.0
    assert 0.49 < sampler_error_bounds(2**51, 1.0, backend="numpy")["gamma"] < 0.51


# -----------------------------------------------------------------------------


def _audit(mech: Any, **kw: Any) -> Any:
    from semiprivate.theory.audit import audit_mechanism

    return audit_mechanism(mech, 0.0, 1.0, epsilon=1.0, trials=20_000, rng=0, **kw)


def test_audit_messages() -> None:
    with pytest.raises(ValueError, match="returned None.*vectorize"):
        _audit(lambda d, s, r: None)
    with pytest.raises(ValueError, match="NaN"):
        _audit(lambda d, s, r: np.full(s, np.nan))

    def one_output(data: Any, rng: Any) -> float:
        return float(data + rng.laplace())

    with pytest.raises(TypeError, match="vectorize"):
        _audit(one_output)
    from semiprivate.theory.audit import vectorize

    assert _audit(vectorize(one_output)).epsilon_lower_bound >= 0


def test_dict_and_inf_outputs() -> None:
    def dicts(data: Any, size: int, rng: Any) -> list[dict[str, int]]:
        return [{"a": int(x)} for x in (rng.random(size) < 0.5 + 0.1 * data)]

    assert _audit(dicts).epsilon_lower_bound >= 0

    def with_inf(data: Any, size: int, rng: Any) -> np.ndarray:
        x = data + rng.laplace(size=size)
        x[x > 3] = np.inf
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning may leak
        res = _audit(with_inf)
    assert 0 < res.epsilon_lower_bound <= 1.0


def test_report_names_data_and_neighbour() -> None:
    from semiprivate.theory.privacy.mechanisms import LaplaceMechanism

    res = _audit(LaplaceMechanism(1.0))
    text = res.report()
    assert "P[M(data) in E]" in text and "P[M(neighbour) in E]" in text and "M(A)" not in text


# -----------------------------------------------------------------------------


def test_gaussian_delta_zero_message_is_one_sentence() -> None:
    from semiprivate.theory.privacy.mechanisms import GaussianMechanism

    with pytest.raises(ValueError) as info:
        GaussianMechanism(1.0, 0.0)
    msg = str(info.value)
    assert "needs delta > 0" in msg and msg.count("needs") == 1 and "LaplaceMechanism" in msg


def test_classic_gaussian_calibration_message_is_one_sentence() -> None:
    from semiprivate.theory.privacy.mechanisms import gaussian_sigma

    with pytest.raises(ValueError) as info:
        gaussian_sigma(2.0, 1e-5, method="classic")
    msg = str(info.value)
    assert msg == "DR14 Thm A.1 (classic Gaussian calibration) needs epsilon < 1 (got epsilon=2.0)"


# -----------------------------------------------------------------------------


def test_learners_required_arguments_and_repr() -> None:
    from semiprivate.theory.classes import Thresholds
    from semiprivate.theory.learners import ASSPP, GenericPrivateLearner, ReductionLearner

    for cls, required in ((ASSPP, "concept_class"), (GenericPrivateLearner, "concept_class"),
                          (ReductionLearner, "base_learner"), (ReductionLearner, "D0")):
        p = inspect.signature(cls).parameters[required]
        assert p.default is inspect.Parameter.empty, f"{cls.__name__}.{required} looks optional"
    # one protocol, fit(X, y, X_public=None): ASSPP's public sample is still required, by a message naming it
    assert inspect.signature(ASSPP.fit).parameters["X_public"].default is None
    with pytest.raises(TypeError, match="X_public is required"):
        ASSPP(1.0, concept_class=Thresholds(4)).fit([1, 2], [1, 0])
    with pytest.raises(TypeError, match="concept_class"):
        ASSPP(1.0)  # type: ignore[call-arg]
    learner = ASSPP(1.0, concept_class=Thresholds(4))
    with pytest.raises(ValueError) as info:
        learner.fit([1, 2], [1, 0], [[1, 2], [3, 4]])
    assert "X_public" in str(info.value) and "T_pub" not in str(info.value)
    assert repr(learner) == "ASSPP(epsilon=1.0, delta=0.0, concept_class=Thresholds(d=4), rng=None)"
    assert repr(GenericPrivateLearner(0.5, concept_class=Thresholds(3))).startswith(
        "GenericPrivateLearner(epsilon=0.5, delta=0.0, concept_class=Thresholds(d=3)")


# -----------------------------------------------------------------------------


def test_bound_help_lists_what_the_solver_needs(capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.theory.bounds.cli import main

    assert main(["ABM19.Lem3.3", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--solve n_pub" in out and re.search(r"^\s+beta:", out, re.M)


def test_parameter_descriptions_agree_with_their_constraints() -> None:
    from semiprivate.theory.bounds import list_bounds

    for b in list_bounds():
        for p in b.params:
            if re.search(r"\bin \(0, 1\)", p.description):
                assert "(0, 1)" in p.constraint.describe(), (b.id, p.name, p.description, p.constraint.describe())


def test_repeated_parameter_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.theory.bounds.cli import main

    assert main(["ABM19.Lem3.3", "vc_dim=10", "alpha=0.05", "n_pub=100", "alpha=0.1"]) == 2
    assert "alpha given twice" in capsys.readouterr().err


def test_strict_false_never_returns_a_negative_sample_size() -> None:
    from semiprivate.theory.bounds.hpsy import hpsy_thm3

    c = hpsy_thm3(100, 5, 0.1, 0.1, 1.0, 0.1, 0.01, strict=False)
    assert not c.valid and c.value is None and "negative sample size" in c.reason
    ok = hpsy_thm3(100, 5, 0.1, 0.1, 1.0, 0.5, 0.001, strict=False)
    assert ok.valid and ok.value.n_lab > 0


# -----------------------------------------------------------------------------


def test_exponential_mechanism_error_counts() -> None:
    from semiprivate.theory.privacy.exponential import log_output_distribution, sample

    with pytest.raises(ValueError, match=r"errors must be non-negative"):
        sample([-1, 0, 2], 1.0, rng=0)
    with pytest.raises(ValueError, match=r"errors must be non-negative"):
        log_output_distribution([0, -0.5], 1.0)
    # error counts are whole numbers; real-valued scores go through kernels.exponential_mechanism
    with pytest.raises(ValueError, match=r"errors must be whole numbers"):
        sample([0.5, 1.5], 1.0, rng=0)
    assert "pandas Series" in (sample.__doc__ or "")


@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_pandas_series_gives_positions_not_labels(backend: str) -> None:
    """Documented: a Series is read by position; the result is a position, never an index label
    (labels 30, 10, 20 are chosen so that a label could not pass for a position)."""
    pd = pytest.importorskip("pandas")
    from semiprivate import kernels
    from semiprivate.theory.privacy.exponential import sample

    scores = pd.Series([0.0, 0.0, 1e4], index=[30, 10, 20])  # best entry: position 2, label 20
    assert kernels.exponential_mechanism(scores, 1.0, rng=0, backend=backend) == 2
    draws = kernels.exponential_mechanism(scores, 1.0, size=50, rng=1, backend=backend)
    assert set(np.asarray(draws).tolist()) == {2}
    assert scores.index[2] == 20  # how to get the label, as the docstring says
    errors = pd.Series([5, 0, 5], index=["a", "b", "c"])  # fewest errors: position 1, label "b"
    assert int(sample(errors, 1e4, rng=0)) == 1
    assert "not an index label" in (kernels.exponential_mechanism.__doc__ or "")


# ----------------------------------------------------------------------------- house


@pytest.mark.slow
@pytest.mark.parametrize(("module", "forbidden"), [
    ("semiprivate.theory.classes.base", "semiprivate.theory.privacy"),
    ("semiprivate.theory.classes", "semiprivate.theory.privacy"),
    ("semiprivate.theory.audit", "semiprivate.theory.learners"),
])
def test_house_import_direction(module: str, forbidden: str) -> None:
    code = (f"import sys, importlib, pkgutil; m = importlib.import_module({module!r});"
            "[importlib.import_module(i.name) for i in pkgutil.walk_packages(getattr(m, '__path__', []), "
            "m.__name__ + '.')];"
            f"print(sorted(k for k in sys.modules if k == {forbidden!r} or k.startswith({forbidden!r} + '.')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", f"{module} imports {proc.stdout.strip()}"


def test_house_error_counts_of_is_one_function() -> None:
    from semiprivate.theory.classes.base import error_counts_of as a
    from semiprivate.theory.privacy.exponential import error_counts_of as b

    assert a is b
    assert a([[0, 0, 1], [1, 1, 1]], [0, 0, 1]).tolist() == [0, 2]


# ----------------------------------------------------------------------------- strategies


def test_strategies_check_arguments_when_built() -> None:
    """semiprivate.theory.audit.strategies rejects bad arguments when the strategy is built (not at the first
    draw inside @given), naming the parameter."""
    from semiprivate.theory.audit import strategies as aud_st

    for call, exc, name in [
        (lambda: aud_st.datasets(min_size=3, max_size=2), ValueError, "max_size"),
        (lambda: aud_st.replace_one_pairs(low=float("nan")), ValueError, "low"),
        (lambda: aud_st.add_remove_pairs(labelled=1), TypeError, "labelled"),
        (lambda: aud_st.records(dim=0), ValueError, "dim"),
        (lambda: aud_st.records(low=0.2, high=0.8, integer=True), ValueError, "low..high"),
        (lambda: aud_st.query_vectors(2, sensitivity=-1.0), ValueError, "sensitivity"),
        (lambda: aud_st.query_vectors(2, integer=True, sensitivity=0.5), ValueError, "sensitivity"),
        (lambda: aud_st.query_vectors(2, mode="some"), ValueError, "mode"),
        (lambda: aud_st.neighbouring_datasets("bogus"), ValueError, "kind"),
    ]:
        with pytest.raises(exc, match=rf"^{re.escape(name)}"):
            call()


def test_integer_records_stay_inside_low_high() -> None:
    """integer=True draws the integers in [ceil(low), floor(high)] (int() truncation drew 0 for
    low=0.5 and -1..0 for low=-1.5, high=-0.5's neighbours)."""
    from hypothesis import given, settings
    from semiprivate.theory.audit import strategies as aud_st

    seen: set[int] = set()

    @settings(max_examples=200, database=None, derandomize=True)
    @given(x=aud_st.records(low=0.5, high=2.5, integer=True))
    def check(x: int) -> None:
        assert 1 <= x <= 2
        seen.add(x)

    check()
    assert seen == {1, 2}


# ----------------------------------------------------------------------------- README, as a new user


def _readme_blocks() -> list[tuple[str, str]]:
    """(info string, body) of every fenced block of README.md."""
    text = (ROOT / "README.md").read_text()
    return [(m.group(1).strip(), m.group(2)) for m in re.finditer(r"^```([^\n]*)\n(.*?)^```", text, re.M | re.S)]


def _readme_shell_examples() -> list[tuple[str, list[str], int]]:
    """(command after ``python -m semiprivate``, expected output lines, expected exit code) of every
    ``$ python -m semiprivate ...`` line of the README."""
    out: list[tuple[str, list[str], int]] = []
    for _info, body in _readme_blocks():
        current: list[Any] | None = None  # [cmd, lines, rc] of the last command of THIS block
        for line in body.splitlines():
            if line.startswith("$ "):
                cmd = line[2:].split("  #")[0].strip()
                current = [cmd, [], 0] if cmd.startswith("python -m semiprivate ") else None
                if current is not None:
                    out.append(current)  # type: ignore[arg-type]
            elif current is not None and line.strip():
                m = re.fullmatch(r"exit=(\d+)", line.strip())
                if m:
                    current[2] = int(m.group(1))
                else:
                    current[1].append(line)
    return [(c, list(lines), rc) for c, lines, rc in out]


@pytest.mark.parametrize(("cmd", "expected", "rc"), _readme_shell_examples(), ids=lambda v: str(v)[:60])
def test_readme_shell_examples_print_what_the_readme_says(cmd: str, expected: list[str], rc: int) -> None:
    import shlex

    argv = shlex.split(cmd.split(";")[0])[3:]  # drop "python -m semiprivate" and a trailing '; echo "exit=$?"'
    proc = subprocess.run([sys.executable, "-m", "semiprivate", *argv], capture_output=True, text=True, timeout=120)
    printed = (proc.stdout + proc.stderr).splitlines()
    assert proc.returncode == rc, (cmd, proc.stdout, proc.stderr)
    for line in expected:
        assert line in printed, f"README says {cmd!r} prints {line!r}; it printed:\n" + "\n".join(printed)
    assert "Traceback" not in proc.stderr


def test_readme_shell_examples_are_found() -> None:
    cmds = [c for c, _e, _r in _readme_shell_examples()]
    assert any("--solve n_pub" in c for c in cmds) and any("HPSY.Lem2" in c for c in cmds)


def test_readme_python_examples_run_and_print_what_the_readme_says(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's doctest block passes; the kernels tour and the audit example run as written, and
    the audit prints the lower bound and witness event the README quotes."""
    import doctest

    blocks = [body for info, body in _readme_blocks() if info == "python"]
    doc = [b for b in blocks if b.lstrip().startswith(">>>")]
    assert doc
    for body in doc:
        test = doctest.DocTestParser().get_doctest(body, {}, "README", "README.md", 0)
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        runner.run(test)
        assert runner.failures == 0
    tour = next(b for b in blocks if "kernels.available_backends()" in b)
    exec(compile(tour, "README.md (kernels tour)", "exec"), {})
    audit = next(b for b in blocks if "def noisy_sum" in b)
    ns: dict[str, Any] = {}
    exec(compile(audit, "README.md (audit example)", "exec"), ns)
    printed = capsys.readouterr().out
    # the quoted sentence, with the bound within 0.01 (the audit's event search is refined over time)
    readme = (ROOT / "README.md").read_text()
    claim = re.search(r"`res\.report\(\)` prints `epsilon lower bound = ([0-9.]+) (at confidence 0\.95 -> [^`]*)`",
                      readme)
    shown = re.search(r"epsilon lower bound = ([0-9.]+) (at confidence [^\n]*)", printed)
    assert claim is not None and shown is not None, printed
    assert abs(float(claim.group(1)) - float(shown.group(1))) <= 0.01 and claim.group(2) == shown.group(2)
    assert re.search(r"with the witness event \(here `\{x (<=|>) -?[0-9.]+\}`\)", readme)
    assert re.search(r"event E = \{x (<=|>) -?[0-9.]+\}", printed)
    with pytest.raises(AssertionError, match=r"mechanism noisy_sum is not\s+\(0\.25, 0\)-DP"):
        ns["assert_private"](ns["noisy_sum"], np.array([0.0, 1.0]), np.array([1.0, 1.0]), epsilon=0.25,
                             trials=10**5, rng=0)


def test_proofs_checks_bad_out_fails_before_running_the_checks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    import semiprivate.proofs_checks.__main__ as pc_main

    def no_run() -> Any:
        raise AssertionError("the checks ran although --out cannot be written")

    monkeypatch.setattr(pc_main, "run_all", no_run)
    assert pc_main.main(["--out", str(tmp_path / "missing-dir" / "R.md")]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "cannot write there" in err and "Traceback" not in err
    assert not (tmp_path / "missing-dir").exists()


def test_unknown_bound_id_message_says_see_list_once(capsys: pytest.CaptureFixture[str]) -> None:
    from semiprivate.cli import main

    assert main(["bound", "NOSUCH.Thm1"]) == 2
    err = capsys.readouterr().err
    assert "NOSUCH.Thm1" in err and err.count("--list") == 1
