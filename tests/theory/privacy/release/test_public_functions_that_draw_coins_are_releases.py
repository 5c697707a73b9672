"""Every public function of ``theory.privacy`` and ``theory.learners`` that draws coins is a release.

A public DP function (DP-SGD, BST14's noisy SGD, PILLAR's Alg 2, the multinomial DP-GD, BNS15's
LabelBoostProcedure) goes through the seed record and secure mode exactly as the classes' runs do: it is
marked ``@released_function`` (``theory.privacy._release``).  The registry test below finds the functions
that draw coins (an ``rng``/``random_state``/``seed`` parameter, or a call of a coin source in its body) in
every module's ``__all__``, so a new one added without the mark fails; the few that are not releases are
declared with their reason (a stale entry fails too).  The behavioural tests are deterministic (a fixed seed
on two neighbouring datasets is refused or accepted, no statistics).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap

import numpy as np
import pytest
import semiprivate.theory.learners as learners
import semiprivate.theory.privacy as privacy
from semiprivate.theory.classes import Thresholds
from semiprivate.theory.learners.labelboost_procedure import label_boost_procedure
from semiprivate.theory.privacy._release import RNG_NAMES
from semiprivate.theory.privacy.dpsgd import dp_sgd
from semiprivate.theory.privacy.multinomial_dpgd import multinomial_dp_gd
from semiprivate.theory.privacy.noisy_sgd import noisy_sgd
from semiprivate.theory.privacy.pillar_selection import pillar_alg2
from semiprivate.theory.privacy.seeds import secure_mode

#: where coins are made (``semiprivate.validation.as_generator``, ``_release.child_streams`` / ``fit_stream``) and
#: NumPy's own constructors
COIN_SOURCES = frozenset({"as_generator", "child_streams", "fit_stream", "default_rng", "RandomState", "Generator"})

#: public functions that draw coins and are not releases of private data, each with its reason
NOT_RELEASES = {
    "semiprivate.theory.privacy._release.child_streams": "the coin source itself (registers streams for the run)",
    "semiprivate.theory.privacy._release.fit_stream": "the coin source itself (the first child of child_streams)",
    "semiprivate.theory.privacy._release.base_streams":
        "gives a wrapper's base its child streams inside the wrapper's run (the wrapper's run is the release)",
    "semiprivate.theory.privacy._held_out_search.split_held_out":
        "a data-independent split inside a search's run; it releases nothing itself",
    "semiprivate.theory.privacy.public_preprocessing.semi_private_split":
        "an experiment helper that splits a data set into private, public and test rows (no release)",
    "semiprivate.theory.privacy.random_stopping.sample_runs":
        "draws random stopping's hidden run count K inside RandomStoppingSearchCV's run; K is never released",
    "semiprivate.theory.learners.reduction.priv_samp":
        "ABM19 Alg 3, a step inside ReductionLearner's run: its output holds private rows, it is no release",
    "semiprivate.theory.learners.reduction.pub_samp": "ABM19 Alg 4: draws public rows from D0 (a data generator)",
    "semiprivate.theory.learners.disjunctions.thm2_instance":
        "an experiment: draws its own data and fits a learner whose fit is the release (a Released class)",
}


def _public_functions():
    out = {}
    for pkg in (privacy, learners):
        for info in pkgutil.iter_modules(pkg.__path__):
            mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
            for name in getattr(mod, "__all__", ()):
                obj = getattr(mod, name, None)
                if inspect.isfunction(obj) and obj.__module__ == mod.__name__:
                    out[f"{mod.__name__}.{name}"] = obj
    return out


def _calls_a_coin_source(fn) -> bool:
    body = inspect.unwrap(fn)
    tree = ast.parse(textwrap.dedent(inspect.getsource(body)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in COIN_SOURCES:
                return True
    return False


def _draws_coins(fn) -> bool:
    return any(p in RNG_NAMES for p in inspect.signature(fn).parameters) or _calls_a_coin_source(fn)


def _is_release(fn) -> bool:
    return fn.__code__.co_qualname == "released_function.<locals>.run"


def test_every_public_function_that_draws_coins_is_a_release():
    funcs = _public_functions()
    drawing = {k for k, f in funcs.items() if _draws_coins(f)}
    assert {"semiprivate.theory.privacy.dpsgd.dp_sgd", "semiprivate.theory.privacy.exponential.sample"} <= drawing
    missing = sorted(k for k in drawing if not _is_release(funcs[k]) and k not in NOT_RELEASES)
    assert not missing, f"public functions that draw coins but are not @released_function: {missing}"
    stale = sorted(k for k in NOT_RELEASES if k not in drawing or _is_release(funcs[k]))
    assert not stale, f"stale NOT_RELEASES entries: {stale}"


def test_the_scan_finds_a_coin_source_called_in_the_body():
    def draws(n):  # no rng parameter: its coins come from fresh entropy inside
        from semiprivate.validation import as_generator
        return as_generator(None).integers(n)

    def plain(n):
        return n + 1

    assert _draws_coins(draws) and not _draws_coins(plain)


_r = np.random.default_rng(0)
_Z = _r.normal(size=(20, 3))
_Z /= 1.5 * np.linalg.norm(_Z, axis=1, keepdims=True)
_Y = np.where(_Z[:, 0] > 0, 1, -1)
_Y2 = _Y.copy()
_Y2[0] = -_Y2[0]  # a neighbour: one label flipped

RUNS = {
    "dp_sgd": lambda y, s: dp_sgd(_Z, y, noise_multiplier=1.0, sampling_rate=1.0, steps=2, rng=s),
    "noisy_sgd": lambda y, s: noisy_sgd(_Z, y, 1.0, 1e-5, n_steps=3, rng=s),
    "pillar_alg2": lambda y, s: pillar_alg2(_Z, y, 1.0, 1e-5, repeats=2, n_steps=3, rng=s),
    "multinomial_dp_gd": lambda y, s: multinomial_dp_gd(_Z, (y > 0).astype(int), 2, noise_multiplier=1.0, steps=2,
                                                        rng=np.random.default_rng(s)),
    "label_boost_procedure": lambda y, s: label_boost_procedure(Thresholds(4), [1, 9, 12], (y[:3] > 0).astype(int),
                                                                [3, 5], rng=s),
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_one_seed_on_two_neighbouring_datasets_is_refused(name):
    run = RUNS[name]
    run(_Y, 5)
    run(_Y, 5)  # the same release again: allowed
    with pytest.raises(ValueError, match=rf"{name}: rng=.* already used by a different release"):
        run(_Y2, 5)
    run(_Y2, 6)  # another seed: allowed


@pytest.mark.parametrize("name", sorted(RUNS))
def test_secure_mode_refuses_a_user_seed_and_accepts_fresh_entropy(name):
    run = RUNS[name]
    with secure_mode(True):
        with pytest.raises(ValueError, match="secure mode"):
            run(_Y, 5)
        if name == "multinomial_dp_gd":
            multinomial_dp_gd(_Z, (_Y > 0).astype(int), 2, noise_multiplier=1.0, steps=2, rng=None)
        else:
            run(_Y, None)
