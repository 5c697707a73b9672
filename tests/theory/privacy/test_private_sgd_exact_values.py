"""Tests that pin down the private SGD modules (semiprivate.theory.privacy.linear, accounting, noisy_sgd, dpsgd,
pillar_selection, sgd_audits) where mutation testing found the suite silent.

Each test asserts what the code does (exact values, the error a caller gets, the privacy
derived from what ran), so that a mutant of the corresponding line fails it; see
scripts/mutation.sh and tests/MUTATION.md.  All deterministic (fixed seeds); the one
statistical check states its false-failure rate.
"""

from __future__ import annotations

import inspect
import math

import dp_accounting
import numpy as np
import pytest
from semiprivate.theory.privacy import accounting, linear, pillar_selection, sgd_audits
from semiprivate.theory.privacy import dpsgd as dpsgd_mod
from semiprivate.theory.privacy import noisy_sgd as noisy_sgd_mod
from semiprivate.theory.privacy.dpsgd import dp_sgd
from semiprivate.theory.privacy.linear import loss_values, per_example_gradients, zero_one_errors
from semiprivate.theory.privacy.noisy_sgd import NoisySGDResult, noisy_sgd
from semiprivate.theory.privacy.pillar_selection import alg2_selection_log_probabilities, pillar_alg2

# these tests compare calls of the private trainers under one seed (common random numbers, a parameter
# changed): each call is a release of its own, which the seed record would refuse
pytestmark = pytest.mark.usefixtures("seed_reuse_allowed")

# ------------------------------------------------------------ NoisySGDResult.accountant_epsilon


def test_noisy_sgd_result_accountant_uses_sigma_over_2nL_and_the_delta_asked(rdp_one_of_n):
    # L = 2.5 and n = 7: sigma / (2 n L) differs from sigma / (2 n / L), sigma / (2 / n L), sigma / (3 n L)
    res = NoisySGDResult(weights=np.zeros(2), sigma=120.0, step_size=0.1, steps=40, n=7, lipschitz=2.5,
                         privacy=(1.0, 1e-3))
    mult = 120.0 / (2.0 * 7 * 2.5)
    assert res.accountant_epsilon() == pytest.approx(rdp_one_of_n(7, mult, 40, 1e-3), rel=1e-12)
    # an explicit delta is used, not the run's
    assert res.accountant_epsilon(1e-8) == pytest.approx(rdp_one_of_n(7, mult, 40, 1e-8), rel=1e-12)
    assert res.accountant_epsilon(1e-8) > res.accountant_epsilon()


# ------------------------------------------------------------ zero_one_errors


def test_zero_one_errors_counts_both_signs_exactly():
    Z = [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -2.0]]
    y = [1, -1, -1, -1]
    W = [[1.0, 0.0], [-1.0, 0.0], [0.0, -1.0]]
    # w0 predicts +1, -1, -1 (sign(0) = -1), -1: all right; w1: -1, +1, -1, -1: 2 wrong;
    # w2: -1, -1, -1, +1: 2 wrong (row 0 and row 3)
    out = zero_one_errors(W, Z, y)
    assert out.tolist() == [0, 2, 2]
    assert out.dtype == np.int64
    # a single weight vector (1-d) is one candidate
    assert zero_one_errors([1.0, 0.0], Z, y).tolist() == [0]
    # integer weights are read as numbers
    assert zero_one_errors([[1, 0]], Z, y).tolist() == [0]


def test_zero_one_errors_bad_input_is_named():
    Z, y = [[0.5, 0.0]], [1]
    with pytest.raises(ValueError, match=r"W must have ndim in \(1, 2\), got ndim=3"):
        zero_one_errors([[[1.0, 0.0]]], Z, y)
    with pytest.raises(ValueError, match=r"^W must have 2 columns \(as Z\), got shape \(1, 3\)$"):
        zero_one_errors([[1.0, 0.0, 0.0]], Z, y)
    with pytest.raises(TypeError, match="W must have a dtype of kind 'iuf', got dtype bool"):
        zero_one_errors([[True, False]], Z, y)
    with pytest.raises(ValueError, match=r"y must have 1 entries \(one per row\), got 2"):
        zero_one_errors([[1.0, 0.0]], Z, [1, 1])


# ------------------------------------------------------------ loss values and per-example gradients


@pytest.mark.parametrize("fn", [loss_values, per_example_gradients])
def test_losses_and_gradients_check_w_and_y_shapes(fn):
    Z = [[0.5, 0.0], [0.0, 0.5]]
    with pytest.raises(ValueError, match=r"^w must have ndim in \(1,\), got ndim=2"):
        fn([[1.0, 0.0]], Z, [1, -1])
    with pytest.raises(ValueError, match=r"^w must have shape \(2,\), got \(3,\)$"):
        fn([1.0, 0.0, 0.0], Z, [1, -1])
    with pytest.raises(ValueError, match=r"^y must have 2 entries \(one per row\), got 3$"):
        fn([1.0, 0.0], Z, [1, -1, 1])
    with pytest.raises(ValueError, match=r"^y must have 2 entries \(one per row\), got 1$"):
        fn([1.0, 0.0], Z, [1])


# ------------------------------------------------------------ the plain DP-SGD reference


def test_reference_honours_normalizer_radius_and_integer_start():
    g = np.random.default_rng(5)
    Z = g.normal(size=(30, 3))
    y = np.where(Z[:, 0] > 0, 1.0, -1.0)
    kw = dict(noise_multiplier=0.7, sampling_rate=0.3, steps=12, clip=0.5, learning_rate=2.0)
    # the fast loop is the specification's equal bit for bit (tests/theory/privacy/test_private_sgd.py);
    # here with a normalizer, a binding projection radius and an integer starting point
    W_ref, sizes = dpsgd_mod._dp_sgd_reference(Z, y, normalizer=2.5, radius=0.05, w0=[0, 1, 0], rng=3, **kw)
    fast = dp_sgd(Z, y, normalizer=2.5, radius=0.05, w0=[0, 1, 0], rng=3, **kw)
    assert np.array_equal(W_ref, fast.weights)
    assert np.array_equal(sizes, fast.batch_sizes) and sizes.dtype == np.int64
    assert np.linalg.norm(W_ref) == pytest.approx(0.05)  # the projection binds
    W_norm1, _ = dpsgd_mod._dp_sgd_reference(Z, y, normalizer=1.0, radius=None, rng=3, **kw)
    W_norm4, _ = dpsgd_mod._dp_sgd_reference(Z, y, normalizer=4.0, radius=None, rng=3, **kw)
    # with no projection and a constant rate the iterate's noise part scales as 1 / normalizer:
    # the two runs differ (the normalizer is used, not replaced by q n = 9)
    W_default, _ = dpsgd_mod._dp_sgd_reference(Z, y, radius=None, rng=3, **kw)
    assert not np.allclose(W_norm1, W_norm4)
    assert not np.allclose(W_norm1, W_default) and not np.allclose(W_norm4, W_default)


# ------------------------------------------------------------ DPSGDResult.event


def test_dpsgd_result_event_is_the_run_composed():
    res = dp_sgd(np.eye(3) * 0.5, [1, -1, 1], noise_multiplier=1.3, sampling_rate=0.5, steps=4, rng=0)
    ev = res.event()
    assert isinstance(ev, dp_accounting.SelfComposedDpEvent) and ev.count == 4
    assert ev.event == dp_accounting.PoissonSampledDpEvent(0.5, dp_accounting.GaussianDpEvent(1.3))
    ev3 = res.event(3)
    assert ev3.count == 4 * 3 if isinstance(ev3, dp_accounting.SelfComposedDpEvent) else False


# ------------------------------------------------------------ PILLAR Alg 2


def _alg2_data(n: int = 20, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    Z = g.normal(size=(n, 2))
    Z /= 2 * np.linalg.norm(Z, axis=1, keepdims=True)
    return Z, np.where(Z[:, 0] > 0, 1, -1)


def test_alg2_holdout_sizes_and_the_smallest_training_set():
    Z, y = _alg2_data()
    res = pillar_alg2(Z, y, 1.0, 1e-3, repeats=2, holdout_fraction=0.01, n_steps=5, rng=0)
    assert res.budget["n_holdout"] == 1 and res.candidates.shape[0] == 2
    assert res.budget["n_train"] == 19 and res.budget["repeats"] == 2
    # n = 2, half held out: one training example is enough
    two = pillar_alg2(Z[:2], y[:2], 1.0, 1e-3, repeats=2, holdout_fraction=0.5, n_steps=1, rng=0)
    assert two.budget["n_train"] == 1 and two.budget["n_holdout"] == 1
    with pytest.raises(ValueError, match=r"holdout_fraction=0.9 leaves no training example out of n=2"):
        pillar_alg2(Z[:2], y[:2], 1.0, 1e-3, holdout_fraction=0.9, n_steps=1, rng=0)
    with pytest.raises(ValueError, match=r"^y must have 20 entries \(one per row\), got 21$"):
        pillar_alg2(Z, np.append(y, 1), 1.0, 1e-3, n_steps=3, rng=0)


def test_alg2_budget_is_composed_from_what_the_runs_report(monkeypatch):
    """The total is (max(R eps_run, eps_sel), R delta_run) with eps_run, delta_run read from the runs'
    own privacy, not eps / R: a run that reports more than eps / R raises the total."""
    real = pillar_selection.noisy_sgd

    def leaky(*args, **kwargs):
        out = real(*args, **kwargs)
        return NoisySGDResult(weights=out.weights, sigma=out.sigma, step_size=out.step_size, steps=out.steps,
                              n=out.n, lipschitz=out.lipschitz, privacy=(0.5, 2e-4))

    monkeypatch.setattr(pillar_selection, "noisy_sgd", leaky)
    Z, y = _alg2_data()
    res = pillar_alg2(Z, y, 1.0, 1e-3, repeats=3, n_steps=5, rng=0)
    assert res.budget["per_run"] == (0.5, 2e-4)
    assert res.budget["runs_total"] == (1.5, 3 * 2e-4)
    assert res.budget["selection"] == (1.0, 0.0)
    assert res.budget["total"] == (1.5, 3 * 2e-4) == res.privacy
    assert set(res.budget) == {"per_run", "runs_total", "selection", "total", "n_train", "n_holdout", "repeats"}
    assert res.runs.weights.shape == (3, 2) and np.array_equal(res.runs.weights, res.candidates)
    assert res.runs.steps == 5  # n_steps is passed to the runs (not |S1|^2 = 289)
    assert np.array_equal(res.weights, res.candidates[res.index])


def test_alg2_selection_probabilities_are_minus_half_eps_errors():
    cand = [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]
    Z = [[1.0, 0.0], [0.5, 0.5], [-1.0, 0.1]]
    y = [1, 1, -1]
    errs = zero_one_errors(cand, Z, y)
    lp = alg2_selection_log_probabilities(cand, Z, y, 0.8)
    want = -0.4 * errs - np.log(np.sum(np.exp(-0.4 * errs)))
    assert np.allclose(lp, want, rtol=0, atol=1e-12)


# ------------------------------------------------------------ BST14 Noisy SGD's one-run loop


def test_noisy_sgd_one_run_loop_projects_on_the_radius_asked():
    """The 1-d loop (n_runs=None) and the R-run loop (n_runs=1) draw the same numbers: equal iterates,
    here with a radius other than 1 that binds."""
    g = np.random.default_rng(12)
    Z = g.normal(size=(30, 3))
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    y = np.where(Z[:, 0] > 0, 1, -1)
    a = noisy_sgd(Z, y, 2.0, 1e-4, margin=0.3, radius=0.25, n_steps=200, rng=5)
    b = noisy_sgd(Z, y, 2.0, 1e-4, margin=0.3, radius=0.25, n_steps=200, n_runs=1, rng=5)
    assert np.allclose(a.weights, b.weights[0], rtol=0, atol=1e-12)


def test_noisy_sgd_hinge_is_inactive_at_margin_exactly_one():
    """phi(s) = max(0, 1 - s) has gradient 0 at s = 1 in both loops: start on the boundary
    (y <w0, z> / m = 1 exactly) and take one step."""
    Z, y = np.array([[0.5, 0.0], [0.5, 0.0]]), np.array([1, 1])
    kw = dict(margin=0.5, n_steps=1, w0=[1.0, 0.0], rng=3)
    a = noisy_sgd(Z, y, 1.0, 1e-3, **kw)
    b = noisy_sgd(Z, y, 1.0, 1e-3, n_runs=1, **kw)
    assert np.array_equal(a.weights, b.weights[0])
    # noise only: the step is -eta sigma xi (xi the run's first normal draw)
    g = np.random.default_rng(3)
    g.integers(0, 2, size=(1, 1))
    xi = g.standard_normal((1, 1, 2))[0, 0]
    want = np.array([1.0, 0.0]) - a.step_size * a.sigma * xi
    want *= min(1.0, 1.0 / np.linalg.norm(want))
    assert np.allclose(a.weights, want, rtol=0, atol=1e-12)


def test_noisy_sgd_step_size_uses_the_diameter_2_radius():
    """eta(1) = ||C|| / sqrt(n^2 L^2 + p sigma^2) with ||C|| = 2 radius (BST14), here radius 0.5."""
    Z = np.array([[0.5, 0.0], [0.0, 0.5], [0.3, 0.3]])
    res = noisy_sgd(Z, [1, -1, 1], 1.0, 1e-3, margin=0.5, radius=0.5, n_steps=1, rng=0)
    n, p, L = 3, 2, 2.0
    assert res.step_size == pytest.approx(1.0 / math.sqrt(n**2 * L**2 + p * res.sigma**2), rel=1e-12)


def test_noisy_sgd_starting_point_and_its_ball():
    Z, y = np.array([[0.5, 0.0], [0.0, 0.5]]), np.array([1, -1])
    # a start on the sphere, or within float rounding of it (factor 1 + 1e-12), is accepted
    noisy_sgd(Z, y, 1.0, 1e-3, n_steps=1, w0=[1.0, 0.0], rng=0)
    noisy_sgd(Z, y, 1.0, 1e-3, n_steps=1, w0=[1.0 + 1e-12, 0.0], rng=0)
    # every run starts at w0: the check is per row, not on the (R, p) matrix's norm
    many = noisy_sgd(Z, y, 1.0, 1e-3, n_steps=1, w0=[0.9, 0.0], n_runs=4, rng=0)
    assert many.weights.shape == (4, 2)
    for w0 in ([1.5, 0.0], [2.0 + 1e-9, 0.0]):
        with pytest.raises(ValueError, match=r"^w0 must lie in the constraint ball of radius 1.0$"):
            noisy_sgd(Z, y, 1.0, 1e-3, n_steps=1, w0=w0, rng=0)
    with pytest.raises(ValueError, match=r"^n_steps must be <= n\^2 = 4 \(BST14's privacy theorem covers n\^2 steps\), "
                                         r"got 5$"):
        noisy_sgd(Z, y, 1.0, 1e-3, n_steps=5, rng=0)


def test_noisy_sgd_rows_must_lie_in_the_unit_ball_up_to_1e_9():
    y = [1, -1, 1]
    noisy_sgd(np.array([[0.5, 0.0], [1.0 + 1e-9, 0.0], [0.0, 1.0]]), y, 1.0, 1e-3, n_steps=1, rng=0)
    with pytest.raises(ValueError, match=r"^Z rows must lie in the unit ball \(\|\|z\|\| <= 1; .*\): row 1 has norm 1.5; "
                                         r"normalise the rows first$"):
        noisy_sgd(np.array([[0.5, 0.0], [1.5, 0.0], [0.0, 1.2]]), y, 1.0, 1e-3, n_steps=1, rng=0)


def test_noisy_sgd_r_run_loop_takes_exactly_T_steps_when_blocks_are_shorter(monkeypatch):
    """Draws come in blocks of 2^20 // (R p) steps; with R p > 2^20 / T the last block is shorter
    and the loop must still stop at T steps (more steps than accounted would break the privacy)."""
    calls = []
    real = linear._dphi
    monkeypatch.setattr(noisy_sgd_mod, "_dphi", lambda s, loss: (calls.append(len(s)), real(s, loss))[1])
    Z, y = np.array([[0.5, 0.0], [0.0, 0.5]]), np.array([1, -1])
    R = 131_073  # R p = 262,146: blocks of 3 steps, T = 4
    res = noisy_sgd(Z, y, 1.0, 1e-3, n_runs=R, rng=0)
    assert res.steps == 4 and calls == [R] * 4


def test_noisy_sgd_progress_bar_settings(monkeypatch):
    seen = []
    real = noisy_sgd_mod.progress_bar

    def spy(progress, total, *, threshold, desc, unit="it"):
        seen.append((progress, total, threshold, desc, unit))
        return real(progress, total, threshold=threshold, desc=desc, unit=unit)

    monkeypatch.setattr(noisy_sgd_mod, "progress_bar", spy)
    monkeypatch.setattr(dpsgd_mod, "progress_bar", spy)
    Z, y = np.array([[0.5, 0.0], [0.0, 0.5]]), np.array([1, -1])
    noisy_sgd(Z, y, 1.0, 1e-3, rng=0)
    dp_sgd(Z, y, noise_multiplier=1.0, sampling_rate=0.5, steps=3, rng=0)
    assert seen == [(None, 4, 100_000, "Noisy SGD", "step"), (None, 3, 2000, "DP-SGD", "step")]


# ------------------------------------------------------------ the canary audit cases


def test_dpsgd_canary_case_is_the_worst_case_pair_and_runs_what_it_claims():
    cases = sgd_audits.audit_cases(include_broken=True)
    dp = cases[0]
    (D0, D1), = dp["pairs"]
    assert np.array_equal(D0[0], np.zeros((1, 2))) and np.array_equal(D0[1], [1.0])
    assert np.array_equal(D1[0], [[0.0, 0.0], [1.0, 0.0]]) and np.array_equal(D1[1], [1.0, 1.0])
    assert "add/remove-one" in dp["claim"] and dp["trials_scale"] == 1.0
    sigma = accounting.calibrate_noise_multiplier(1.0, 1e-5, 1.0, 1, relation="add_or_remove_one")
    mech = dp["mechanism"]
    # the mechanism is one DP-SGD step at q = 1 and normaliser 1 with the caller's generator
    want = dp_sgd(D1[0], D1[1], noise_multiplier=sigma, sampling_rate=1.0, steps=1, normalizer=1.0, n_runs=5,
                  rng=11).weights
    assert np.array_equal(mech(D1, 5, rng=11), want)
    assert not np.array_equal(mech(D1, 5, rng=12), want)
    # and what it does: D1's output is (1, 0) + N(0, sigma^2 I), D0's is N(0, sigma^2 I)
    # (means within 6 standard errors: false-failure rate < 1e-8 per coordinate)
    out1, out0 = mech(D1, 20000, rng=0), mech(D0, 20000, rng=1)
    se = sigma / math.sqrt(20000)
    assert np.all(np.abs(out1.mean(axis=0) - [1.0, 0.0]) < 6 * se)
    assert np.all(np.abs(out0.mean(axis=0)) < 6 * se)
    assert out1.std(axis=0) == pytest.approx([sigma, sigma], rel=0.05)
    broken = cases[2]
    assert broken["private"] is False and broken["epsilon"] == dp["epsilon"]
    assert broken["mechanism"](D1, 20000, rng=0).std(axis=0) == pytest.approx([sigma / 2] * 2, rel=0.05)


def test_audit_cases_names_claims_and_the_bst14_canary():
    cases = sgd_audits.audit_cases()
    assert [c["name"] for c in cases] == [
        "semiprivate.theory.privacy.dpsgd.dp_sgd (DPSGD, canary added, q=1, T=1)",
        "semiprivate.theory.privacy.noisy_sgd.noisy_sgd (BST14, canary replaced, n=3, T=9)",
        "BROKEN dp_sgd, noise multiplier / 2",
        "BROKEN noisy_sgd with noise / 100",
    ]
    assert [c["private"] for c in cases] == [True, True, False, False]
    assert [c["trials_scale"] for c in cases] == [1.0, 0.2, 5.0, 0.2]
    assert cases[0]["claim"] == "Abadi et al.: (eps, delta) by dp-accounting RDP, add/remove-one"
    assert cases[1]["claim"] == "BST14 Thm 2.1 as SPEC states it (replace-one)"
    assert len(sgd_audits.audit_cases(include_broken=False)) == 2
    # the claims are the runs' own (eps, delta): DP-SGD calibrated to eps 1 at delta 1e-5, BST14 at (1, 1e-5)
    assert cases[0]["epsilon"] == pytest.approx(1.0, abs=1e-6) and cases[0]["epsilon"] <= 1.0
    assert (cases[1]["epsilon"], cases[1]["delta"]) == pytest.approx((1.0, 1e-5), rel=1e-9)
    assert cases[3]["epsilon"] == cases[1]["epsilon"] and cases[3]["delta"] == 1e-5
    bst = cases[1]
    (B0, B1), = bst["pairs"]
    assert np.array_equal(B0[0], np.zeros((3, 2))) and np.array_equal(B0[1], np.ones(3))
    assert np.array_equal(B1[0], [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]]) and np.array_equal(B1[1], np.ones(3))
    # the mechanism is BST14 Noisy SGD at (1, 1e-5) with the caller's generator, one output row per run
    want = noisy_sgd(B1[0], B1[1], 1.0, 1e-5, n_runs=4, rng=9).weights
    assert np.array_equal(bst["mechanism"](B1, 4, rng=9), want)
    assert not np.array_equal(bst["mechanism"](B1, 4, rng=10), want)


def test_dp_sgd_float32_clips_to_C_times_1_minus_2_pow_minus_21():
    """The documented float32 clipping bound C (1 - 2^-21): one noiseless full-batch step from w = 0
    on one example whose gradient is far above C moves w by exactly the clipped term (float32
    rounding of the term: <= 2^-23 relative, below the 2^-22 that separates 2^-21 from 2^-22)."""
    for C in (1.0, 0.37):
        Z = np.array([[100.0, 0.0]], dtype=np.float32)
        res = dp_sgd(Z, [1], noise_multiplier=0.0, sampling_rate=1.0, steps=1, clip=C, normalizer=1.0,
                     precision="float32", rng=0)
        assert abs(np.linalg.norm(res.weights) / C - (1.0 - 2.0**-21)) < 2.0**-23
        exact = dp_sgd(Z.astype(np.float64), [1], noise_multiplier=0.0, sampling_rate=1.0, steps=1, clip=C,
                       normalizer=1.0, rng=0)
        assert np.linalg.norm(exact.weights) == pytest.approx(C, rel=1e-15)


class _ForcedBatches:
    """A generator whose binomial batch sizes are scripted (the rest drawn by a real generator): drives
    DP-SGD's one-run loop into its rare branch, a Poisson batch beyond the preallocated buffer."""

    def __init__(self, sizes, seed):
        self.sizes, self.g = list(sizes), np.random.default_rng(seed)

    def binomial(self, n, q):
        return self.sizes.pop(0)

    def choice(self, *args, **kwargs):
        return self.g.choice(*args, **kwargs)

    def standard_normal(self, *args, **kwargs):
        return self.g.standard_normal(*args, **kwargs)


def test_dp_sgd_one_run_batch_beyond_the_buffer_equals_the_reference(monkeypatch):
    g = np.random.default_rng(4)
    n, p = 120, 64  # q = 0.05: buffer of int(6 + 8 sqrt(6) + 16) = 41 rows; batches of 60, 100 and 119 exceed it
    Z = g.normal(size=(n, p))
    y = np.where(Z[:, 0] > 0, 1.0, -1.0)
    batches = [5, 60, 7, 100, 119, 41, 42]
    w = np.zeros(p)
    sizes = np.empty(len(batches), dtype=np.int64)
    znorm = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    dpsgd_mod._dp_sgd_one_run(w, Z, y, znorm, _ForcedBatches(batches, 8), sizes, 0.05, 0.7, 1.0, 0.5, 1.1, 6.0, "hinge",
                        None, "constant", False, _NoBar())
    monkeypatch.setattr(dpsgd_mod, "as_generator", lambda rng: rng)  # the reference takes the scripted generator as is
    ref, ref_sizes = dpsgd_mod._dp_sgd_reference(Z, y, noise_multiplier=1.1, sampling_rate=0.05, steps=len(batches),
                                           clip=0.7, margin=0.5, normalizer=6.0, rng=_ForcedBatches(batches, 8))
    assert sizes.tolist() == batches == ref_sizes.tolist()
    assert np.array_equal(w, ref)


class _NoBar:
    n = 0

    def update(self, k):
        self.n += k


def test_dp_sgd_float32_step_runs_both_products_in_float32():
    """precision="float32": s = fl32(Z_b w) and G = fl32(Z_b^T c), as documented (one noiseless full-batch step)."""
    g = np.random.default_rng(6)
    Z = g.normal(size=(50, 7)).astype(np.float32)
    y = np.where(g.random(50) < 0.5, 1.0, -1.0)
    w0 = g.normal(size=7) * 0.3
    res = dp_sgd(Z, y, noise_multiplier=0.0, sampling_rate=1.0, steps=1, clip=0.8, margin=0.4, normalizer=1.0,
                 w0=w0, precision="float32", rng=0)
    s = (Z @ w0.astype(np.float32)).astype(np.float64)
    coef = y * np.where(y * s / 0.4 < 1.0, -1.0, 0.0) / 0.4
    znorm = np.sqrt(np.einsum("ij,ij->i", Z.astype(np.float64), Z.astype(np.float64)))
    coef *= linear.clip_factors(np.abs(coef) * znorm, 0.8 * (1.0 - 2.0**-21))
    G = (Z.T @ coef.astype(np.float32)).astype(np.float64)
    assert np.array_equal(res.weights, w0 - G)


def test_clip_factors_reads_lists_and_integers_and_names_bad_input():
    out = linear.clip_factors([0, 2, 4], 1.0)  # a list of integers: read as float64 norms
    assert out.dtype == np.float64 and out.tolist() == [1.0, 0.5, 0.25]
    out = linear.clip_factors(np.array([0, 2, 4]), 2.0)  # an integer array
    assert out.dtype == np.float64 and out.tolist() == [1.0, 1.0, 0.5]
    assert linear.clip_factors([], 1.0).shape == (0,)
    f32 = linear.clip_factors(np.array([2.0, 0.5], dtype=np.float32), 1.0)  # float arrays are used as they are
    assert f32.dtype == np.float32 and f32.tolist() == [0.5, 1.0]
    with pytest.raises(ValueError, match=r"^norms must have ndim in \(1,\), got ndim=2"):
        linear.clip_factors([[1.0]], 1.0)
    with pytest.raises(TypeError, match=r"^norms must have a dtype of kind 'iuf', got dtype bool"):
        linear.clip_factors([True], 1.0)
    with pytest.raises(ValueError, match=r"^clip must be in \(0, inf\), got 0.0"):
        linear.clip_factors([1.0], 0.0)
    with pytest.raises(ValueError, match=r"^clip must be in \(0, inf\), got 0.0"):
        linear.clip_factors(np.array([1.0]), 0.0)


def test_dp_sgd_runs_together_and_labels_checked():
    g = np.random.default_rng(2)
    Z = g.normal(size=(12, 3))
    y = np.where(Z[:, 1] > 0, 1, -1)
    kw = dict(noise_multiplier=0.0, sampling_rate=1.0, steps=4, clip=0.6, margin=0.5, w0=[0.1, -0.2, 0.3], rng=0)
    one = dp_sgd(Z, y, **kw)
    three = dp_sgd(Z, y, n_runs=3, **kw)  # noiseless full batches: every run is the single run
    assert three.weights.shape == (3, 3)
    assert np.allclose(three.weights, one.weights[None, :], rtol=0, atol=1e-12)
    assert one.batch_sizes.dtype == np.int64 and three.batch_sizes.dtype == np.int64
    assert one.batch_sizes.tolist() == [12] * 4 == three.batch_sizes.tolist()
    with pytest.raises(ValueError, match=r"^y must have 12 entries \(one per row\), got 13$"):
        dp_sgd(Z, np.append(y, 1), noise_multiplier=1.0, sampling_rate=0.5, steps=2, rng=0)


def test_dp_sgd_r_run_path_schedule_projection_normalizer_and_noise_scale():
    g = np.random.default_rng(3)
    Z = g.normal(size=(10, 3))
    y = np.where(Z[:, 0] > 0, 1, -1)
    kw = dict(noise_multiplier=0.0, sampling_rate=1.0, steps=5, clip=0.6, margin=0.5, radius=0.3, normalizer=2.0,
              learning_rate=0.7, lr_schedule="inv_sqrt", w0=[0.1, 0.0, -0.1], rng=0)
    one = dp_sgd(Z, y, **kw)  # the one-run loop: bit-equal to the plain reference (tests/theory/privacy)
    two = dp_sgd(Z, y, n_runs=2, **kw)
    assert np.allclose(two.weights, one.weights[None, :], rtol=0, atol=1e-12)
    assert (two.clip, two.learning_rate, two.normalizer, two.steps) == (0.6, 0.7, 2.0, 5)
    assert (one.clip, one.learning_rate, one.normalizer, one.noise_multiplier) == (0.6, 0.7, 2.0, 0.0)
    # the noise added per step is N(0, (sigma C)^2 I): one step from w = 0 on a zero row (gradient 0),
    # std over 20,000 runs within 5% of sigma C = 1 (a 7-standard-error band: false failure < 1e-11)
    noisy = dp_sgd(np.zeros((1, 2)), [1], noise_multiplier=2.0, sampling_rate=1.0, steps=1, clip=0.5,
                   normalizer=1.0, n_runs=20_000, rng=1)
    assert noisy.weights.std(axis=0) == pytest.approx([1.0, 1.0], rel=0.05)


def test_dp_sgd_runs_sample_their_own_batches():
    """Each of the R runs draws its own Poisson batch (independent runs are what the audits count):
    noiseless runs differ; runs whose batch is empty (the last ones included) still take their step."""
    g = np.random.default_rng(4)
    Z = g.normal(size=(8, 2))
    y = np.where(Z[:, 0] > 0, 1, -1)
    res = dp_sgd(Z, y, noise_multiplier=0.0, sampling_rate=0.5, steps=1, normalizer=1.0, n_runs=50, rng=0)
    assert len({tuple(w) for w in res.weights}) > 10
    sparse = dp_sgd(Z[:2], y[:2], noise_multiplier=1.0, sampling_rate=0.05, steps=3, n_runs=64, rng=1)
    assert sparse.weights.shape == (64, 2) and np.all(np.isfinite(sparse.weights))


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_dp_sgd_float32_batches_beyond_the_buffer_stay_float32(loss):
    """precision="float32" with Poisson batches beyond the preallocated buffer (60 and 100 rows > 41):
    every step is s = fl32(Z_b fl32(w)), G = fl32(Z_b^T fl32(c)) with c clipped at C (1 - 2^-21), plus
    N(0, (sigma C)^2 I) noise, bit for bit (a grown buffer in float64 would round differently; with the
    logistic loss a float64 s = Z_b w changes the coefficients too, the hinge only reads its sign)."""
    g = np.random.default_rng(9)
    n, p = 120, 64
    Z = g.normal(size=(n, p)).astype(np.float32)
    y = np.where(Z[:, 0] > 0, 1.0, -1.0)
    batches = [5, 60, 7, 100, 41]
    C, m, sig, norm, lr = 0.7, 0.5, 1.1, 6.0, 1.0
    znorm = np.sqrt(np.einsum("ij,ij->i", Z.astype(np.float64), Z.astype(np.float64)))
    w = np.zeros(p)
    dpsgd_mod._dp_sgd_one_run(w, Z, y, znorm, _ForcedBatches(batches, 8), np.empty(len(batches), dtype=np.int64), 0.05,
                        C, lr, m, sig, norm, loss, None, "constant", True, _NoBar())
    want = np.zeros(p)
    draws = np.random.default_rng(8)
    for k in batches:
        idx = draws.choice(n, size=k, replace=False)
        Zb = Z[idx]
        s = (Zb @ want.astype(np.float32)).astype(np.float64)
        coef = y[idx] * linear._dphi(y[idx] * s / m, loss) / m
        coef *= linear.clip_factors(np.abs(coef) * znorm[idx], C * (1.0 - 2.0**-21))
        G = (Zb.T @ coef.astype(np.float32)).astype(np.float64)
        G += draws.standard_normal(p) * (sig * C)
        G *= lr / norm
        want -= G
    assert np.array_equal(w, want)


# --- feature checks shared by the trainers -------------------------------------------------------------

_ENTRY_POINTS = {
    "dp_sgd": lambda Z: dp_sgd(Z, [1, -1], noise_multiplier=1.0, sampling_rate=1.0, steps=1, rng=0),
    "dp_sgd float32": lambda Z: dp_sgd(Z, [1, -1], noise_multiplier=1.0, sampling_rate=1.0, steps=1, rng=0,
                                       precision="float32"),
    "noisy_sgd": lambda Z: noisy_sgd_mod.noisy_sgd(Z, [1, -1], 1.0, 1e-5, rng=0),
    "loss_values": lambda Z: linear.loss_values(np.zeros(2), Z, [1, -1]),
    "per_example_gradients": lambda Z: linear.per_example_gradients(np.zeros(2), Z, [1, -1]),
}
_BAD_Z = [
    (np.array([0.1, 0.2]), ValueError, r"^Z must have ndim in \(2,\), got ndim=1 \(shape \(2,\)\)$"),
    (np.zeros((2, 2, 1)), ValueError, r"^Z must have ndim in \(2,\), got ndim=3"),
    (np.array([["a", "b"], ["c", "d"]]), TypeError, r"^Z must have a dtype of kind 'biuf', got dtype <U1$"),
    (np.array([[np.nan, 0.0], [0.1, 0.2]]), ValueError, r"^Z must not contain NaN$"),
    (np.array([[0.1, 0.2], [-np.inf, 0.0]]), ValueError, r"^Z must not contain \+-inf$"),
]


@pytest.mark.parametrize("entry", sorted(_ENTRY_POINTS))
@pytest.mark.parametrize("Z, exc, msg", _BAD_Z)
def test_bad_features_are_named_Z_with_what_is_wrong(entry, Z, exc, msg):
    with pytest.raises(exc, match=msg):
        _ENTRY_POINTS[entry](Z)


def test_float32_conversion_names_the_entry_beyond_float32_range_and_nothing_else():
    """precision="float32" on float64 features: an entry beyond float32's range is named with its
    position; a NaN elsewhere (also non-finite after conversion) is reported as a NaN, not as out of range."""
    run = _ENTRY_POINTS["dp_sgd float32"]
    with pytest.raises(ValueError, match=r"^Z\[1, 0\] = -5e\+38 is beyond float32's range \(\|x\| <= 3\.4e38\): "
                                         r"use precision='float64' or rescale the features$"):
        run(np.array([[0.1, 0.2], [-5e38, 0.0]]))
    with pytest.raises(ValueError, match=r"^Z must not contain NaN$"):
        run(np.array([[0.1, np.nan], [0.3, 0.0]]))
    with pytest.raises(ValueError, match=r"^Z must not contain \+-inf$"):
        run(np.array([[0.1, 0.2], [np.inf, 0.0]]))


def test_unit_ball_check_of_float32_rows_is_exact():
    """A float32 row of norm 1 + 3e-8 (> 1 + 1e-9) is outside the unit ball: float32 arithmetic rounds its
    squared norm 1 + 2^-24 to 1, which let it through (sensitivity above the one noisy_sgd calibrates to)."""
    Z = np.array([[1.0, 2.0**-12], [0.5, 0.0]], dtype=np.float32)
    with pytest.raises(ValueError, match=r"row 0 has norm 1\.00000003; normalise the rows first$"):
        noisy_sgd_mod.noisy_sgd(Z, [1, -1], 1.0, 1e-5, rng=0)
    noisy_sgd_mod.noisy_sgd(np.array([[1.0, 0.0], [0.5, 0.0]], dtype=np.float32), [1, -1], 1.0, 1e-5, rng=0)  # norm 1 exactly


# --- BLAS threads -----------------------------------------------------------------------------------------


def _blas_threads() -> set[int]:
    from threadpoolctl import threadpool_info

    return {int(d["num_threads"]) for d in threadpool_info() if d["user_api"] == "blas"}


def test_small_steps_run_blas_on_one_thread_and_leave_openmp_alone(monkeypatch):
    """Per-step work up to _SINGLE_THREAD_BLAS_MAX entries runs BLAS (only BLAS) on one thread; above it
    the thread count is left as it is."""
    from semiprivate import kernels
    from semiprivate.kernels import threads
    from threadpoolctl import threadpool_info, threadpool_limits

    kernels.exponential_mechanism([0.0, 1.0], 1.0, rng=0)  # loads the kernels' OpenMP runtime (when built with it)
    threads.blas_controller.cache_clear()  # the first call builds the (cached) controller
    if not _blas_threads():
        pytest.skip("no BLAS library visible to threadpoolctl")
    with threadpool_limits(limits=2):
        outer = {(d["user_api"], d["filepath"]): d["num_threads"] for d in threadpool_info()}
        for work in (10, dpsgd_mod._SINGLE_THREAD_BLAS_MAX):
            with dpsgd_mod._blas_single_thread(work):
                inside = {(d["user_api"], d["filepath"]): d["num_threads"] for d in threadpool_info()}
                assert _blas_threads() == {1}, work
                assert all(v == outer[k] for k, v in inside.items() if k[0] != "blas"), work
        with dpsgd_mod._blas_single_thread(dpsgd_mod._SINGLE_THREAD_BLAS_MAX + 1):
            inside = {(d["user_api"], d["filepath"]): d["num_threads"] for d in threadpool_info()}
            assert inside == outer


# --- Noisy SGD: multi-block runs and the broken-noise variant ------------------------------------------


def test_noisy_sgd_one_run_over_several_blocks_matches_the_batched_path():
    """One run (n_runs=None) and n_runs=1 make the same draws and the same updates, also when the T = n^2
    steps span several blocks of draws (p = 2^17 columns: blocks of 8 steps, T = 16)."""
    g = np.random.default_rng(3)
    Z = g.normal(size=(4, 1 << 17))
    Z /= 2.0 * np.linalg.norm(Z, axis=1, keepdims=True)
    y = np.array([1.0, -1.0, 1.0, -1.0])
    one = noisy_sgd_mod.noisy_sgd(Z, y, 1.0, 1e-5, rng=5)
    batched = noisy_sgd_mod.noisy_sgd(Z, y, 1.0, 1e-5, n_runs=1, rng=5)
    assert one.steps == batched.steps == 16
    np.testing.assert_allclose(one.weights, batched.weights[0], rtol=1e-12, atol=1e-12)


def test_broken_noisy_sgd_of_the_audit_follows_noisy_sgds_law_at_divisor_one():
    """The audit's broken variant is Noisy SGD with the noise divided: at divisor 1 its law is noisy_sgd's
    (mean of coordinate 0 over 4000 runs each, z-test at 4.5 standard errors: false-failure rate < 1e-5)."""
    Z = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    y = np.ones(3)
    a = sgd_audits._noisy_sgd_noise_divided(Z, y, 1.0, 1e-5, 1.0, 4000, 1)[:, 0]
    b = noisy_sgd_mod.noisy_sgd(Z, y, 1.0, 1e-5, n_runs=4000, rng=2).weights[:, 0]
    se = math.sqrt(a.var() / a.size + b.var() / b.size)
    assert abs(a.mean() - b.mean()) < 4.5 * se
    c = sgd_audits._noisy_sgd_noise_divided(Z, y, 1.0, 1e-5, 100.0, 4000, 1)[:, 1]  # coordinate 1: noise only
    assert c.std() < 0.05 * b.std() if b.std() > 0 else True
    assert "noise_factor" not in inspect.signature(noisy_sgd_mod.noisy_sgd).parameters


# --- audit cases ----------------------------------------------------------------------------------------


def test_audit_cases_are_the_documented_pairs_claims_and_mechanisms():
    """The four cases of sgd_audits.audit_cases: claims read from runs, true epsilons by the PLD accountant, and
    mechanisms that run what they say, seeded (broken DP-SGD at noise / 2: the spread of 4000 runs'
    outputs, ratio within 10%, false-failure rate < 1e-6; broken Noisy SGD at noise / 100)."""
    cases = sgd_audits.audit_cases()
    assert [c["private"] for c in cases] == [True, True, False, False]
    ar = "add_or_remove_one"  # the canary is added: the audit's pair is add/remove
    sigma = accounting.calibrate_noise_multiplier(1.0, 1e-5, 1.0, 1, relation=ar)
    dp_ok, bst_ok, dp_bad, bst_bad = cases
    assert dp_ok["epsilon"] == dp_bad["epsilon"] == pytest.approx(accounting.dpsgd_epsilon(sigma, 1.0, 1, 1e-5,
                                                                                            relation=ar), rel=1e-12)
    assert dp_ok["true_epsilon"] == pytest.approx(accounting.dpsgd_epsilon(sigma, 1.0, 1, 1e-5, accountant="pld",
                                                                           relation=ar))
    assert dp_bad["true_epsilon"] == pytest.approx(accounting.dpsgd_epsilon(sigma / 2, 1.0, 1, 1e-5, accountant="pld",
                                                                            relation=ar))
    assert dp_bad["true_epsilon"] > 1.5
    assert bst_ok["true_epsilon"] is None and bst_bad["true_epsilon"] is None
    assert bst_bad["epsilon"] == bst_ok["epsilon"] and bst_bad["delta"] == 1e-5
    assert [c["claim"] for c in cases] == ["Abadi et al.: (eps, delta) by dp-accounting RDP, add/remove-one",
                                           "BST14 Thm 2.1 as SPEC states it (replace-one)",
                                           "claims the calibrated epsilon", "claims BST14 Thm 2.1"]
    assert [c["trials_scale"] for c in cases] == [1.0, 0.2, 5.0, 0.2]
    assert len(sgd_audits.audit_cases(include_broken=False)) == 2

    def spread(case):  # type: ignore[no-untyped-def]
        out = case["mechanism"](case["pairs"][0][1], 4000, rng=1)
        assert np.array_equal(out, case["mechanism"](case["pairs"][0][1], 4000, rng=1))  # seeded
        return float(np.std(out[:, 1]))  # coordinate 1: noise only (the canary moves coordinate 0)

    assert spread(dp_bad) / spread(dp_ok) == pytest.approx(0.5, rel=0.1)
    # Noisy SGD projects onto the unit ball, so spreads do not scale with the noise: the broken case is
    # noisy_sgd's run on the same data (eps 1, margin 1, radius 1) with the noise drawn / 100, seeded
    B1 = bst_bad["pairs"][0][1]
    want = sgd_audits._noisy_sgd_noise_divided(B1[0], B1[1], 1.0, 1e-5, 100.0, 300, 1)
    assert np.array_equal(bst_bad["mechanism"](B1, 300, rng=1), want)
    assert np.array_equal(bst_ok["mechanism"](B1, 300, rng=1), noisy_sgd_mod.noisy_sgd(B1[0], B1[1], 1.0, 1e-5, n_runs=300,
                                                                               rng=1).weights)
    assert spread(bst_bad) < spread(bst_ok) / 2


def test_feature_norms_cover_every_row_past_one_chunk():
    """The row norms are computed in chunks of 2^21 / p rows: with p = 1 and 2^21 + 10 rows the last
    10 rows are in a second chunk, and every norm is |z|."""
    Z = np.linspace(-1.0, 1.0, (1 << 21) + 10)[:, None]
    Z[-10:, 0] = np.arange(1, 11) / 20.0
    arr, norms = linear._features_and_norms(Z)
    assert np.array_equal(norms, np.abs(Z[:, 0]))


def test_rows_whose_squared_norm_overflows_get_norm_inf_quietly():
    """A finite row whose squared norm overflows float64 gets norm +inf (so DP-SGD's clip factor C / inf
    drops it), with no overflow warning (the test configuration turns warnings into errors)."""
    import warnings

    Z = np.array([[1e200, 1e200], [0.3, 0.4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        arr, norms = linear._features_and_norms(Z)
    assert norms[0] == np.inf and norms[1] == pytest.approx(0.5, rel=1e-15)


@pytest.mark.slow
@pytest.mark.parametrize("eps, q, T, c", [(1.0, 0.05, 200, 1), (8.0, 1.0, 1, 1), (0.5, 1.0, 3, 1), (0.05, 0.01, 50, 2),
                                          (3.0, 0.2, 20, 3), (100.0, 1.0, 1, 1), (20.0, 1.0, 1, 1)])
def test_calibrated_noise_multiplier_is_the_smallest_that_meets_epsilon(eps, q, T, c):
    """calibrate_noise_multiplier returns sigma with eps(sigma) <= epsilon and eps(sigma (1 - 1e-6)) > epsilon
    (the smallest noise up to the documented 1e-6 relative), for noise above 1, below 1 (eps 8 at q = 1:
    sigma ~ 0.6; eps 20: ~ 0.25, found by halving from 1/2) and below 1/8 (eps 100: sigma ~ 0.0975, where a
    tolerance not scaled by the bracket would be too coarse), with compositions (c runs compose: the same
    event as c T steps)."""
    s = accounting.calibrate_noise_multiplier(eps, 1e-5, q, T, compositions=c)
    assert accounting.dpsgd_epsilon(s, q, T, 1e-5, compositions=c) <= eps
    assert accounting.dpsgd_epsilon(s * (1 - 1e-6), q, T, 1e-5, compositions=c) > eps
    if c > 1:
        assert s == accounting.calibrate_noise_multiplier(eps, 1e-5, q, T * c)
        assert s > accounting.calibrate_noise_multiplier(eps, 1e-5, q, T) * (1 + 1e-3)


def test_labels_and_initial_weights_are_checked_and_named():
    with pytest.raises(ValueError, match=r"^y must have ndim in \(1,\), got ndim=2 \(shape \(1, 2\)\)$"):
        linear.check_signed_labels([[1, -1]])
    with pytest.raises(TypeError, match=r"^y must have a dtype of kind 'biuf', got dtype <U1$"):
        linear.check_signed_labels(["a", "b"])
    with pytest.raises(ValueError, match=r"^y must contain only -1 and \+1 \(halfspace labels\), "
                                         r"got values \[0, 2, 3, 4, 5, 6\]$"):  # the first six offending values
        linear.check_signed_labels([0, 2, 3, 4, 5, 6, 7, 8])
    with pytest.raises(TypeError, match=r"^name must be a string \(the parameter name used in messages\), got int$"):
        linear.check_signed_labels([1], 5, None)
    run = lambda w0: dp_sgd(np.zeros((2, 2)), [1, -1], noise_multiplier=1.0, sampling_rate=1.0, steps=1, w0=w0)  # noqa: E731
    with pytest.raises(ValueError, match=r"^w0 must have shape \(2,\), got \(1,\)$"):
        run([0.0])
    with pytest.raises(ValueError, match=r"^w0 must have ndim in \(1,\), got ndim=2 \(shape \(1, 2\)\)$"):
        run([[0.0, 0.0]])


def test_calibration_floor_is_two_to_the_minus_ten():
    """Noise below 2^-10 is not searched: a target that 2^-10 already meets gets exactly 2^-10; a target
    just above eps(2^-10) gets the smallest noise in (2^-10, 2^-9] to 1e-6 relative.  Shown under add/remove
    (RDP): under replace-one, RDP's group-of-two conversion has no finite epsilon at such small noise."""
    ar = {"relation": "add_or_remove_one"}
    assert accounting.calibrate_noise_multiplier(1e7, 1e-5, 1.0, 1, **ar) == 2.0**-10
    target = accounting.dpsgd_epsilon(1.5e-3, 1.0, 1, 1e-5, **ar)
    s = accounting.calibrate_noise_multiplier(target, 1e-5, 1.0, 1, **ar)
    assert 2.0**-10 < s <= 2.0**-9
    assert (accounting.dpsgd_epsilon(s, 1.0, 1, 1e-5, **ar) <= target
            < accounting.dpsgd_epsilon(s * (1 - 1e-6), 1.0, 1, 1e-5, **ar))


def test_calibration_searches_noise_up_to_two_to_the_thirty_inclusive():
    """The documented ceiling: noise multipliers up to 2^30 inclusive are searched.  At delta 1e-12 the RDP
    epsilon still falls between sigma = 2^29, 6e8 and 2^30 (by ~100 ulps, from the top order's term), so the
    target eps(6e8) needs noise in (2^29, 2^30]; a target below eps(2^30) is refused with the full message."""
    e29, e6, e30 = (accounting.dpsgd_epsilon(s, 1.0, 1, 1e-12) for s in (2.0**29, 6e8, 2.0**30))
    assert e29 > e6 > e30 > 0
    s = accounting.calibrate_noise_multiplier(e6, 1e-12, 1.0, 1)
    assert 2.0**29 < s <= 2.0**30 and accounting.dpsgd_epsilon(s, 1.0, 1, 1e-12) <= e6
    with pytest.raises(ValueError) as err:
        accounting.calibrate_noise_multiplier(0.019, 1e-12, 1.0, 1)
    assert str(err.value) == ("epsilon=0.019 is too small for this budget split: no noise multiplier <= 2^30 reaches "
                              "it at delta=1e-12 with sampling rate 1, 1 steps and 1 composition(s); raise epsilon or "
                              "lower the number of steps / classes")


def test_alg2_selection_draws_from_the_given_generator():
    """The exponential-mechanism selection of Alg 2 uses the caller's generator: the same seed gives the same
    selected run, while over seeds the (near-uniform, eps = 0.05 over 8 runs) selection varies.  A selection
    drawn from fresh entropy would give a different index on a repeat with probability ~7/8 per seed."""
    Z, y = _alg2_data()
    picks = []
    for seed in range(6):
        a, b = (pillar_alg2(Z, y, 0.05, 1e-3, repeats=8, n_steps=2, rng=seed).index for _ in range(2))
        assert a == b, seed
        picks.append(a)
    assert len(set(picks)) > 1


@pytest.mark.slow
def test_calibration_brackets_with_the_requested_accountant():
    """With the PLD accountant the bracket is searched with PLD too: at eps = eps_PLD(0.98) (one Gaussian step,
    add/remove: the bracket search is the same under either relation, and PLD is ~4x cheaper at sensitivity C
    than at replace-one's 2C) the PLD noise 0.98 lies below 1 while the looser RDP accountant needs ~1.048 > 1,
    so a bracket found with RDP, [1, 2], holds no PLD root."""
    kw = {"relation": "add_or_remove_one"}
    target = accounting.dpsgd_epsilon(0.98, 1.0, 1, 1e-5, accountant="pld", **kw)
    assert accounting.dpsgd_epsilon(1.0, 1.0, 1, 1e-5, **kw) > target  # RDP at sigma = 1 misses the target
    s = accounting.calibrate_noise_multiplier(target, 1e-5, 1.0, 1, accountant="pld", **kw)
    assert s == pytest.approx(0.98, rel=1e-6)
    assert accounting.dpsgd_epsilon(s, 1.0, 1, 1e-5, accountant="pld", **kw) <= target
    assert accounting.dpsgd_epsilon(s * (1 - 1e-6), 1.0, 1, 1e-5, accountant="pld", **kw) > target
