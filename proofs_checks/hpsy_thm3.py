"""HPSY Theorem 3 (halfspaces: PCA on public data + private SGD), Appendix C, Eqs. (9)-(15).

The proof's steps: Markov for the per-point event xi_1 (9), Chebyshev + a union bound over a
family of projection matrices for xi_2 (10)-(11), the reconstruction-error chain (13), and the
margin bounds (14)-(15).

Implements: the proofs_checks part of HPSY.Thm3. Check ids start with the paper key; verdicts are
recorded in :mod:`semiprivate.proofs_checks.expected`.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp
from semiprivate.proofs_checks._framework import (
    Check,
    Verdict,
    clopper_pearson,
    fmt,
    join,
    register,
    sympy_nonneg,
    sympy_zero,
)
from semiprivate.proofs_checks._links import bounds_module

ID = "HPSY.Thm3"
SEED = 20261121


def _top_eigvec_2x2(m11: float, m12: float, m22: float) -> tuple[float, float]:
    """Top eigenvector of a symmetric 2x2 matrix (closed form), normalised, sign fixed by a1 >= 0."""
    lam = 0.5 * (m11 + m22) + math.sqrt(0.25 * (m11 - m22) ** 2 + m12**2)
    if abs(m12) > 0:
        v = (lam - m22, m12)
    else:
        v = (1.0, 0.0) if m11 >= m22 else (0.0, 1.0)
    nrm = math.hypot(*v)
    a1, a2 = v[0] / nrm, v[1] / nrm
    if a1 < 0:
        a1, a2 = -a1, -a2
    return a1, a2


@register(f"{ID}.chebyshev-arithmetic")
def check_chebyshev() -> Check:
    """Eqs. (9)-(11): Markov for xi_1, the variance bound, Chebyshev with ell = 2 sqrt(kd/beta)."""
    R, b, n, k, d, ell = sp.symbols("R beta n k d ell", positive=True)
    # Markov: P[Z >= 4R/beta] <= E Z/(4R/beta) <= R/(4R/beta) = beta/4
    sympy_zero(R / (4 * R / b) - b / 4, "Markov ratio - beta/4")
    # complement of xi_1: |diff| < 2 sqrt(R/beta)
    sympy_zero(sp.sqrt(4 * R / b) - 2 * sp.sqrt(R / b), "sqrt(4R/beta) - 2sqrt(R/beta)")
    # Chebyshev: Var(R_hat) <= 2/n, threshold t = 2 ell/sqrt(n): 2/(n t^2) = 1/(2 ell^2) <= 1/ell^2
    t = 2 * ell / sp.sqrt(n)
    sympy_zero((2 / n) / t**2 - 1 / (2 * ell**2), "Chebyshev bound - 1/(2 ell^2)")
    val = (k * d / ell**2).subs(ell, 2 * sp.sqrt(k * d / b))
    sympy_zero(val - b / 4, "kd/ell^2 at ell = 2sqrt(kd/beta) - beta/4")
    sympy_zero(t.subs(ell, 2 * sp.sqrt(k * d / b)) - 4 * sp.sqrt(k * d / (b * n)), "threshold - 4sqrt(kd/(beta n))")
    # variance (11): for a projection P, ||x - Px||^4 = (x'x - x'Px)^2 <= (x'x)^2 <= 1 on the unit ball
    rng = np.random.default_rng(SEED)
    worst = 0.0
    for _ in range(200):
        dd = int(rng.integers(2, 8))
        kk = int(rng.integers(1, dd))
        A, _r = np.linalg.qr(rng.standard_normal((dd, kk)))
        x = rng.standard_normal(dd)
        x /= np.linalg.norm(x) * float(rng.uniform(1.0, 3.0))
        lhs = float(np.linalg.norm(x - A @ (A.T @ x)) ** 4)
        worst = max(worst, lhs - float(x @ x) ** 2)
    if worst > 1e-12:
        raise RuntimeError("variance bound violated")
    details = join([
        "Markov: P[xi_1] <= R/(4R/beta) = beta/4, and the complement gives (12) with 2 sqrt(R/beta) (sympy).",
        "Variance (11): for an orthogonal projection P, ||x - Px||^4 = (x'x - x'Px)^2 <= (x'x)^2 <= 1; checked on 200 "
        "seeded random (d, k, A, x) (the paper's bound 2 is loose by a factor 2).",
        "Chebyshev for the mean of n terms: Var <= 2/n, threshold 2 ell/sqrt(n): probability <= 1/(2 ell^2) <= 1/ell^2; "
        "with dk matrices and ell = 2sqrt(kd/beta): kd/ell^2 = beta/4 and the threshold is 4sqrt(kd/(beta n)) (sympy), "
        "matching (10). (13) then uses 2sqrt(dk/(beta n)), a factor-2 slip absorbed in the O(.).",
        "This arithmetic presumes a family of dk matrices (refuted by HPSY.Thm3.union-over-A: the family of top-k "
        "eigenvector matrices is not finite) and feeds a per-point margin through the Markov event xi_1 (refuted "
        "as used by HPSY.Thm3.per-point-margin). The verdict covers the arithmetic only, conditional on those "
        "premises; the proof step it belongs to is not established.",
    ])
    return Check(id=f"{ID}.chebyshev-arithmetic",
                 claim="HPSY Thm 3 proof, Eqs. (9)-(12): Markov gives P[xi_1] <= beta/4; Var <= 2 and Chebyshev with "
                       "ell = 2sqrt(kd/beta) give P[xi_2] <= beta/4 over a family of dk matrices.",
                 method="symbolic+simulation", verdict=Verdict.HOLDS_WITH_CONDITION, details=details,
                 condition="the premises |A| <= dk and the per-point use of xi_1, which HPSY.Thm3.union-over-A and "
                           "HPSY.Thm3.per-point-margin refute: the arithmetic is right, the proof step is not "
                           "established")


@register(f"{ID}.union-over-A")
def check_union_over_a() -> Check:
    """'|A| <= dk' for the set of top-k eigenvector matrices of PSD matrices."""
    # d = 2, k = 1: every unit vector (cos t, sin t) is the top eigenvector of R_t diag(1, 0) R_t'
    thetas = [0.0, math.pi / 5, math.pi / 3]
    vecs = []
    for th in thetas:
        c, s = math.cos(th), math.sin(th)
        m11, m12, m22 = c * c, c * s, s * s  # R diag(1,0) R'
        vecs.append(_top_eigvec_2x2(m11, m12, m22))
    distinct = len({(round(a, 12), round(b, 12)) for a, b in vecs})
    if distinct != 3:
        raise RuntimeError("expected three distinct top eigenvectors")
    # corrected argument: R(A) = E||x||^2 - tr(A' Sigma A); sup_A |R - R_hat| <= k ||Sigma - Sigma_hat||_op
    rng = np.random.default_rng(SEED + 1)
    worst_id = 0.0
    for _ in range(100):
        dd = int(rng.integers(2, 7))
        kk = int(rng.integers(1, dd))
        A, _r = np.linalg.qr(rng.standard_normal((dd, kk)))
        X = rng.standard_normal((50, dd))
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        S = X.T @ X / len(X)
        lhs = float(np.mean(np.sum((X - X @ A @ A.T) ** 2, axis=1)))
        rhs = float(np.trace(S) - np.trace(A.T @ S @ A))
        worst_id = max(worst_id, abs(lhs - rhs))
    if worst_id > 1e-10:
        raise RuntimeError("reconstruction identity failed")
    # simulation of the corrected bound: P[sup_A |R(A) - R_hat(A)| >= 2k/sqrt(beta n)] <= beta/4
    d, k, n, beta, trials = 6, 2, 40, 0.5, 1000
    lam = np.array([0.5, 0.2, 0.1, 0.1, 0.05, 0.05])
    sigma = np.diag(lam)
    thr = 2 * k / math.sqrt(beta * n)
    hits = 0
    max_sup = 0.0
    for _ in range(trials):
        # x = sqrt(d lam) * Rademacher coordinates / normalised to the sphere is not diagonal; use signs
        # with squared coordinates summing to one: coordinates +-sqrt(lam_i) (||x|| = 1, E xx' = diag(lam))
        signs = rng.choice([-1.0, 1.0], size=(n, d))
        X = signs * np.sqrt(lam)
        E = X.T @ X / n - sigma
        ev = np.linalg.eigvalsh(E)
        sup = max(abs(ev[-k:].sum()), abs(ev[:k].sum()))  # Ky Fan: sup_A tr(A'EA) / inf
        max_sup = max(max_sup, float(sup))
        hits += int(sup >= thr)
    lo, hi = clopper_pearson(hits, trials, 0.99)
    if hi > beta / 4:
        raise RuntimeError("simulation does not support the corrected bound")
    details = join([
        "The proof takes 'the set of all matrices whose columns are the top-k eigenvectors of some PSD matrix' and "
        "claims |A| <= dk, then union-bounds Chebyshev over A. That set is every d x k matrix with orthonormal "
        "columns: infinite.",
        "d = 2, k = 1: the top eigenvectors of R_t diag(1,0) R_t' for t = 0, pi/5, pi/3 are three distinct members "
        "(exact closed form), already more than dk = 2.",
        "Correct replacement (used here): R(A) - R_hat(A) = -tr(A'(Sigma - Sigma_hat)A) for the uncentred second "
        "moments (identity checked on 100 seeded random cases), so sup_A |R - R_hat| <= k ||Sigma - Sigma_hat||_op <= "
        "k ||Sigma - Sigma_hat||_F, and E||Sigma - Sigma_hat||_F^2 <= E||x||^4/n <= 1/n; Chebyshev gives "
        "sup_A |R - R_hat| < 2k/sqrt(beta n) w.p. >= 1 - beta/4. Since k <= d, 2k/sqrt(beta n) <= 4sqrt(kd/(beta n)): "
        "(10)'s conclusion survives with this argument.",
        f"Seeded simulation (d = {d}, k = {k}, n = {n}, beta = {beta}, {trials} samples; sup over A by Ky Fan): "
        f"{hits} exceedances of 2k/sqrt(beta n) = {fmt(thr)} (largest sup {fmt(max_sup, 3)}); 99% Clopper-Pearson upper "
        f"bound {fmt(hi)} <= beta/4.",
    ])
    return Check(id=f"{ID}.union-over-A",
                 claim="HPSY Thm 3 proof: the family A of top-k eigenvector matrices has |A| <= dk, so a union bound "
                       "over A gives (10).",
                 method="exact+simulation", verdict=Verdict.FAILS, details=details,
                 counterexample="d = 2, k = 1: (1,0), (cos pi/5, sin pi/5), (cos pi/3, sin pi/3) are each the top "
                                "eigenvector of a PSD matrix: |A| >= 3 > dk = 2 (in fact |A| is infinite).",
                 corrected="sup_A |R(A) - R_hat(A)| <= k ||Sigma_hat - Sigma||_F < 2k/sqrt(beta n) w.p. >= 1 - beta/4 "
                           "(uncentred second moments), which implies (10).")


@register(f"{ID}.per-point-margin")
def check_per_point() -> Check:
    """xi_1 is an event about a test point x, not about the sample: the margin is kept only on a
    (1 - beta/4)-fraction of D, which is then treated as 'with probability 1 - beta/2'."""
    beta = 0.1
    q = beta / 8
    alpha = q / 4
    gamma = 1 / math.sqrt(2)
    eta = q
    if not (gamma - math.sqrt(eta / beta) > 0 and alpha < q / 2):
        raise RuntimeError("bad parameters")
    rng = np.random.default_rng(SEED + 2)
    n_unl, trials = 20_000, 400
    fails = 0
    for _ in range(trials):
        u = rng.random(n_unl)
        sgn = rng.choice([-1.0, 1.0], size=n_unl)
        on_e2 = u < q
        x1 = np.where(on_e2, 0.0, sgn)
        x2 = np.where(on_e2, sgn, 0.0)
        m1, m2 = x1.mean(), x2.mean()
        c11 = float(np.mean(x1 * x1) - m1 * m1)
        c22 = float(np.mean(x2 * x2) - m2 * m2)
        c12 = float(np.mean(x1 * x2) - m1 * m2)
        a1, a2 = _top_eigvec_2x2(c11, c12, c22)
        # best error over outputs sign(w <a, x>), w in R (k = 1); labels sign(x1 + x2)
        # w > 0: errors on +-e1 iff a1 <= 0, on +-e2 iff a2 <= 0; w < 0 symmetric; w = 0 errs everywhere
        err_pos = (1 - q) * (a1 <= 0) + q * (a2 <= 0)
        err_neg = (1 - q) * (a1 >= 0) + q * (a2 >= 0)
        best = min(err_pos, err_neg, 1.0)
        fails += int(best > alpha)
    lo, hi = clopper_pearson(fails, trials, 0.99)
    if not lo > beta:
        raise RuntimeError("simulation did not confirm the counterexample")
    details = join([
        "Eq. (9)'s event xi_1 concerns a fresh test point x; Markov bounds its probability over x by beta/4. So when "
        "xi_2 fails to occur, the projected margin gamma - 2sqrt(R/beta) holds for all x outside a set of D-mass up "
        "to beta/4, not for all x 'with probability 1 - beta/2'; that mass is never charged to the error alpha.",
        f"Counterexample (d = 2, k = 1): x = +-e1 w.p. (1-q)/2 each, x = +-e2 w.p. q/2 each, q = beta/8, labels "
        f"sign(<w*, x>) with w* = (e1+e2)/sqrt(2). Then chi_gamma(w*) = 1 for gamma = 1/sqrt(2), Sigma_X = diag(1-q, q), "
        f"eta = q; beta = {beta}: gamma - sqrt(eta/beta) = {fmt(gamma - math.sqrt(eta / beta))} > 0.",
        "Step 1 returns a = top eigenvector of the (centred) empirical covariance; x2 -> -x2 preserves the law of "
        "S_unl and flips the sign of the off-diagonal entry, so P[a1 a2 <= 0] >= 1/2 for every n_unl. When "
        "a1 a2 <= 0, every output sign(w<a,x>) misclassifies one of +-e2 (or both +-e1): error >= q/2 for all w.",
        f"So with alpha = {fmt(alpha)} < q/2, P[error > alpha] >= 1/2 > beta whatever n_lab and n_unl are.",
        f"Seeded simulation (n_unl = {n_unl}, {trials} runs of Step 1 with centred PCA): {fails} runs where no output "
        f"reaches error <= alpha; 99% Clopper-Pearson interval [{fmt(lo)}, {fmt(hi)}], above beta = {beta}.",
    ])
    return Check(id=f"{ID}.per-point-margin",
                 claim="HPSY Thm 3 proof step (not the theorem's existence claim), (12)-(15): 'with probability at "
                       "least 1 - beta/2, the projected data is "
                       "separable by f_w* with margin gamma - O(sqrt(eta/beta))'.",
                 method="exact+simulation", verdict=Verdict.FAILS, details=details,
                 counterexample=f"d = 2, k = 1, beta = {beta}, q = {q}, alpha = {alpha}, gamma = 1/sqrt(2), eta = q: "
                                "P[every output has error >= q/2 > alpha] >= 1/2 > beta (symmetry argument; "
                                f"simulated {fails}/{trials}). This refutes the paper's Step 1 and proof step, not the "
                                "existence of a learner with the theorem's sample sizes.",
                 corrected="apply Markov at level alpha/2 instead of beta/4: the margin gamma - 2sqrt(2R/alpha) holds "
                           "outside a set of mass alpha/2, which is charged to the error; the labelled bound then "
                           "reads n_lab = O(sqrt(k)/(alpha eps (gamma - c sqrt(eta/alpha)))).")


@register(f"{ID}.centring")
def check_centring() -> Check:
    """(13): R_hat(A_hat) <= sum_{j>k} lambda_hat_j, with A_hat from the centred empirical covariance."""
    # sample-level: x in {(s, c), (-s, c)}: centred covariance diag(s^2, 0), A_hat = e1
    c = sp.Rational(4, 5)  # points (+-3/5, 4/5)
    r_hat = c**2  # ||x - e1 e1' x||^2 = c^2 for both points
    tail_centred = 0
    if not r_hat > tail_centred:
        raise RuntimeError("expected a violation")
    # population-level counterexample to the algorithm with centring
    cc = 0.99
    ss = math.sqrt(1 - cc * cc)
    q, beta, alpha = 0.004, 0.05, 0.002
    var1 = (1 - q) * ss * ss
    var2 = q * (1 - q) * (1 + cc) ** 2
    unc = sorted([(1 - q) * ss * ss, (1 - q) * cc * cc + q])
    eta = unc[0]
    gamma = min(cc, 1.0)
    ok = var1 > var2 and gamma - math.sqrt(eta / beta) > 0 and q > alpha
    if not ok:
        raise RuntimeError("bad parameters")
    # best error of sign(w x1) over w: w != 0 misclassifies one of the two positive atoms ((1-q)/2);
    # w = 0 (reading sign(0) = +1, the most favourable) errs on the negatives (q)
    best_err = min((1 - q) / 2, q)
    rng = np.random.default_rng(SEED + 3)
    n_unl, trials = 200_000, 40
    bad = 0
    for _ in range(trials):
        u = rng.random(n_unl)
        neg = u < q
        sgn = rng.choice([-1.0, 1.0], size=n_unl)
        x1 = np.where(neg, 0.0, sgn * ss)
        x2 = np.where(neg, -1.0, cc)
        m1, m2 = x1.mean(), x2.mean()
        a1, a2 = _top_eigvec_2x2(float(np.mean(x1 * x1) - m1 * m1), float(np.mean(x1 * x2) - m1 * m2),
                                 float(np.mean(x2 * x2) - m2 * m2))
        # projections of the three atoms; best error over w in {+1, -1} and w = 0 (sign(0) = +1)
        proj = np.array([a1 * ss + a2 * cc, -a1 * ss + a2 * cc, -a2])
        lab = np.array([1.0, 1.0, -1.0])
        mass = np.array([(1 - q) / 2, (1 - q) / 2, q])
        errs = [float(np.sum(mass * (np.sign(w * proj) != lab))) for w in (1.0, -1.0)] + [q]
        bad += int(min(errs) > alpha)
    details = join([
        "Step 1 of the proof's algorithm centres the data (Sigma_hat = (1/n) sum (x - xbar)(x - xbar)'), but (13) "
        "uses R_hat(A_hat) <= sum_{j>k} lambda_hat_j with R_hat the UNcentred reconstruction error; that holds only "
        "for the uncentred second-moment matrix (the theorem's Sigma_X = E[xx'] is uncentred).",
        f"Sample-level: S = {{(3/5, 4/5), (-3/5, 4/5)}}: centred covariance diag(9/25, 0), A_hat = e1, "
        f"R_hat(A_hat) = {r_hat} > 0 = sum_{{j>1}} lambda_hat_j (exact).",
        f"Theorem-level (population, exact): positives (+-s, c) w.p. (1-q)/2 each, negative (0, -1) w.p. q; c = {cc}, "
        f"q = {q}. w* = e2 has margin gamma = c = {cc}; uncentred Sigma_X = diag({fmt(unc[0])}, {fmt(unc[1])}) so "
        f"eta = {fmt(eta)} for k = 1 and gamma - sqrt(eta/beta) = {fmt(gamma - math.sqrt(eta / beta))} > 0 at "
        f"beta = {beta}. The centred covariance is diag({fmt(var1)}, {fmt(var2)}): its top eigenvector is e1, the "
        f"direction that carries no label information. Every output sign(w x1) has error >= {fmt(best_err)} > "
        f"alpha = {alpha}.",
        f"Seeded simulation of Step 1 with n_unl = {n_unl} ({trials} runs): in {bad}/{trials} runs no output "
        "reaches error <= alpha.",
    ])
    return Check(id=f"{ID}.centring",
                 claim="HPSY Thm 3 algorithm (Step 1, centred PCA) and proof step (13), not the theorem's existence "
                       "claim: R_hat(A_hat) <= sum_{j>k} lambda_hat_j for the top-k eigenvectors "
                       "A_hat of the centred empirical covariance used in Step 1.",
                 method="exact+simulation", verdict=Verdict.FAILS, details=details,
                 counterexample=f"positives (+-sqrt(1-c^2), c) and negative (0,-1) w.p. q, c = {cc}, q = {q}, "
                                f"beta = {beta}, alpha = {alpha}: centred PCA keeps e1, every output errs on >= "
                                f"{fmt(best_err)} of D (population); simulated {bad}/{trials}. This refutes the "
                                "paper's algorithm (centred PCA) and proof step (13), not the existence claim.",
                 corrected="use the uncentred second-moment matrix (1/n) sum x x' in Step 1 (or assume E[x] = 0); "
                           "then R_hat(A_hat) = sum_{j>k} lambda_hat_j exactly.")


@register(f"{ID}.n_unl")
def check_nunl() -> Check:
    """(14) needs n >= dk/(beta eta^2); the theorem states n_unl = O(kd/(beta gamma^2))."""
    g, b, C, c1 = sp.symbols("gamma beta C c_1", positive=True)
    k, d = sp.symbols("k d", positive=True)
    n = C * k * d / (b * g**2)
    # with eta = 0 the proof's margin loss is 2 sqrt(c1 sqrt(dk/(beta n)) / beta)
    loss = 2 * sp.sqrt(c1 * sp.sqrt(d * k / (b * n)) / b)
    loss_s = sp.simplify(loss)
    sympy_zero(loss_s**4 - 16 * c1**2 * g**2 / (C * b**2), "loss^4 - 16 c1^2 gamma^2/(C beta^2)")
    # loss > gamma  <=>  16 c1^2 gamma^2/(C beta^2) > gamma^4  <=>  gamma^2 beta^2 < 16 c1^2 / C
    ex = dict(C=1000.0, c1=1.0, beta=0.1, gamma=0.1)
    loss_val = 2 * math.sqrt(ex["c1"] * math.sqrt(ex["gamma"] ** 2 / ex["C"]) / ex["beta"])
    if not loss_val > ex["gamma"]:
        raise RuntimeError("example does not violate")
    # corrected: n >= 256 c1^2 dk/(beta^3 gamma^4) gives loss <= gamma/2 + 2 sqrt(eta/beta)
    eta = sp.Symbol("eta", nonnegative=True)
    n2 = 256 * c1**2 * d * k / (b**3 * g**4)
    inner = c1 * sp.sqrt(d * k / (b * n2))
    sympy_zero(sp.simplify(inner - b * g**2 / 16), "c1 sqrt(dk/(beta n)) - beta gamma^2/16")
    # 2 sqrt((beta gamma^2/16 + eta)/beta) <= 2 sqrt(gamma^2/16) + 2 sqrt(eta/beta)  (sqrt subadditive)
    lhs2 = 4 * (g**2 / 16 + eta / b)
    rhs2 = (g / 2 + 2 * sp.sqrt(eta / b)) ** 2
    sympy_nonneg(sp.expand(rhs2 - lhs2), "(gamma/2 + 2sqrt(eta/beta))^2 - 4(gamma^2/16 + eta/beta)")
    details = join([
        "(14) bounds the margin loss by 2sqrt((c1 sqrt(dk/(beta n)) + eta)/beta) and concludes gamma - "
        "O(sqrt(eta/beta)) 'by n >= O(dk/(beta eta^2))'; the theorem states n_unl = O(kd/(beta gamma^2)).",
        "At n = C kd/(beta gamma^2) and eta = 0 (exactly rank k, the best case) the loss is (16 c1^2 gamma^2/"
        "(C beta^2))^(1/4) (sympy), which exceeds gamma whenever gamma^2 beta^2 < 16 c1^2/C: for every constant C "
        "the proof's margin is <= 0 for small beta*gamma, so the stated n_unl is not established.",
        f"Example: C = {ex['C']:g}, c1 = 1, beta = gamma = 0.1: loss = {fmt(loss_val)} > gamma.",
        "This is a gap in the proof, not a counterexample to the theorem: with eta = 0 the data lie in a k-dimensional "
        "subspace and (uncentred) PCA recovers it exactly from k points in general position.",
        "What the steps do give: n_unl >= 256 c1^2 dk/(beta^3 gamma^4) makes c1 sqrt(dk/(beta n)) = beta gamma^2/16 "
        "(sympy) and then the loss is <= gamma/2 + 2sqrt(eta/beta) (sympy, sqrt subadditivity); or n_unl >= "
        "dk/(beta eta^2) for a loss O(sqrt(eta/beta)) when eta > 0.",
    ])
    mod = bounds_module("hpsy")
    links: tuple[str, ...] = ()
    if mod is not None:
        for kk, dd, bb, gg, cc in ((5, 100, 0.1, 0.5, 1.0), (1, 2, 0.1, 0.1, 1000.0)):
            want = math.ceil(cc * kk * dd / (bb * gg**2) - 1e-9)
            got = mod.hpsy_thm3_unlabeled(kk, dd, bb, gg, constant=cc)
            if abs(got - want) > 1:
                raise AssertionError(f"hpsy_thm3_unlabeled{(kk, dd, bb, gg, cc)} = {got}, verified {want}")
        for kk, dd, bb, gg in ((5, 100, 0.1, 0.5), (1, 2, 0.1, 0.1)):
            want = math.ceil(256 * kk * dd / (bb**3 * gg**4) - 1e-9)
            got = mod.hpsy_thm3_unlabeled(kk, dd, bb, gg, form="corrected")
            if abs(got - want) > 1:
                raise AssertionError(f"hpsy_thm3_unlabeled(form='corrected'){(kk, dd, bb, gg)} = {got}, want {want}")
        links = ("semiprivate.theory.bounds.hpsy.hpsy_thm3_unlabeled",)
        details += ("\n- semiprivate.theory.bounds.hpsy.hpsy_thm3_unlabeled = ceil(C kd/(beta gamma^2)) (2 points): with the default "
                    "form='paper' it implements the stated size, which this check shows the proof does not establish; "
                    "form='corrected' returns ceil(256 kd/(beta^3 gamma^4)) (2 points).")
    else:
        details += "\n- semiprivate.theory.bounds.hpsy not importable: link not checked."
    return Check(id=f"{ID}.n_unl", links=links,
                 claim="HPSY Thm 3 proof, Eqs. (13)-(14): at the stated n_unl = O(kd/(beta gamma^2)) the proof's "
                       "margin-loss bound 2sqrt((c1 sqrt(dk/(beta n)) + eta)/beta) is O(sqrt(eta/beta)).",
                 method="symbolic", verdict=Verdict.FAILS, details=details,
                 counterexample=f"eta = 0 (so O(sqrt(eta/beta)) = 0), beta = gamma = 0.1, c1 = 1, any C (e.g. "
                                f"{ex['C']:g}): at n_unl = C kd/(beta gamma^2) the proof's margin-loss bound is "
                                f"{fmt(loss_val)} > gamma.",
                 corrected="n_unl >= 256 c1^2 kd/(beta^3 gamma^4) gives projected margin >= gamma/2 - 2sqrt(eta/beta) "
                           "(on the points outside the Markov event).")
