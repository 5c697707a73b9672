"""Linear margin classifiers for private training: labels, losses, per-example gradients, clipping.

Implements: BST14.NoisySGD / DPSGD / PILLAR.Alg1 building blocks (the scaled hinge loss of SPEC Sec 7,
the documented reconstruction of PILLAR Eq. 1, lost in extraction).

Loss: the *scaled hinge loss* ``l(w; (z, y)) = max(0, 1 - y <w, z> / margin)``, (1/margin)-Lipschitz in
``w`` on the unit ball ``||z|| <= 1`` (``margin`` is the paper's gamma').  ``loss="logistic"``
(``log(1 + exp(-y <w, z> / margin))``, same Lipschitz constant) is offered for DP-SGD.  Labels are
``-1``/``+1``.

Per-example gradients of a linear model are rank one, ``g_i = c_i z_i`` with
``c_i = y_i phi'(y_i <w, z_i> / margin) / margin``, so ``||g_i|| = |c_i| ||z_i||``: clipping and
summing a batch cost two matrix-vector products, with no Python loop over examples and no
(batch x d) gradient matrix (:mod:`semiprivate.theory.privacy.dpsgd`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from semiprivate.validation import (
    POSITIVE_REAL,
    Integer,
    Optional,
    Options,
    Real,
    check_array,
    validate_params,
)

__all__ = [
    "LOSSES",
    "check_signed_labels",
    "loss_values",
    "per_example_gradients",
    "clip_factors",
    "zero_one_errors",
]

LOSSES = ("hinge", "logistic")

#: Radii of a constraint ball that the projections (:func:`_project`, Noisy SGD's step) handle in
#: float64: outside [1e-150, 1e150] the squared radius and the squared norms under- or overflow and a
#: row outside the ball would be left unprojected (rescale the features and the radius together).
RADIUS = Real(1e-150, 1e150)


@validate_params(length=Optional(Integer(0)))
def check_signed_labels(y: Any, name: str = "y", length: int | None = None) -> np.ndarray:
    """Labels as float64 in {-1, +1} (1-D, finite, the given length).

    Implements: BST14.NoisySGD / DPSGD input convention (halfspace labels are -1/+1, SPEC conventions).

    >>> check_signed_labels([1, -1, 1]).tolist()
    [1.0, -1.0, 1.0]
    >>> check_signed_labels([0, 1])
    Traceback (most recent call last):
    ...
    ValueError: y must contain only -1 and +1 (halfspace labels), got values [0, 1]
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string (the parameter name used in messages), got {type(name).__name__}")
    arr = check_array(y, name, ndim=1, dtype_kinds="biuf")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have {length} entries (one per row), got {arr.shape[0]}")
    vals = np.unique(arr)
    if not np.all(np.isin(vals, (-1, 1))):
        shown = [v.item() for v in vals[:6]]
        raise ValueError(f"{name} must contain only -1 and +1 (halfspace labels), got values {shown}")
    return arr.astype(np.float64)


def _check_features(Z: Any, name: str = "Z") -> np.ndarray:
    arr = check_array(Z, name, ndim=2, dtype_kinds="biuf")  # min_size=1: no row and no column is an error here
    return np.ascontiguousarray(arr, dtype=np.float64) if arr.dtype != np.float32 else np.ascontiguousarray(arr)


def _features_and_norms(Z: Any, name: str = "Z", float32: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Checked features and their row norms in one pass over Z: a NaN/inf entry makes its row's
    norm non-finite, and only then are the offending rows examined (for the error message).
    ``float32``: the features are converted to float32 first, and the norms (float64) are those of
    the float32 rows that the steps will use."""
    arr = check_array(Z, name, ndim=2, dtype_kinds="biuf", allow_nan=True, allow_inf=True)  # min_size=1
    if float32 or arr.dtype == np.float32:
        converted = arr.dtype != np.float32
        with np.errstate(over="ignore"):
            arr32 = np.ascontiguousarray(arr, dtype=np.float32)
        if converted and not np.isfinite(arr32).all():
            big = np.isfinite(arr) & ~np.isfinite(arr32)
            if big.any():
                i, j = np.argwhere(big)[0]
                raise ValueError(f"{name}[{i}, {j}] = {arr[i, j]:g} is beyond float32's range (|x| <= 3.4e38): "
                                 "use precision='float64' or rescale the features")
        arr = arr32
    else:
        arr = np.ascontiguousarray(arr, dtype=np.float64)
    norms = np.empty(arr.shape[0])
    step = max(1, (1 << 21) // arr.shape[1])  # float64 chunks of about 16 MiB
    with np.errstate(over="ignore", invalid="ignore"):
        for s in range(0, arr.shape[0], step):
            blk = np.asarray(arr[s:s + step], dtype=np.float64)
            norms[s:s + step] = np.sqrt(np.einsum("ij,ij->i", blk, blk))
    bad = ~np.isfinite(norms)
    if bad.any():
        rows = arr[bad]
        if np.isnan(rows).any():
            raise ValueError(f"{name} must not contain NaN")
        if np.isinf(rows).any():
            raise ValueError(f"{name} must not contain +-inf")
        norms[bad] = np.inf  # finite rows whose squared norm overflows: clipped to zero contribution
    return arr, norms


def _dphi(s: np.ndarray, loss: str) -> np.ndarray:
    """phi'(s) for the margin losses phi(s) = max(0, 1 - s) (hinge) and log(1 + e^-s) (logistic)."""
    if loss == "hinge":
        return np.where(s < 1.0, -1.0, 0.0)
    return -0.5 * (1.0 - np.tanh(0.5 * s))  # -1/(1 + e^s) = -expit(-s), overflow-free


@validate_params(loss=Options(*LOSSES), margin=POSITIVE_REAL)
def loss_values(w: Any, Z: Any, y: Any, *, loss: str = "hinge", margin: float = 1.0) -> np.ndarray:
    """Per-example losses ``phi(y <w, z> / margin)`` (scaled hinge or logistic).

    Implements: PILLAR.Alg1 (scaled hinge loss, SPEC Sec 7 reconstruction of PILLAR Eq. 1).

    >>> loss_values([1.0, 0.0], [[0.5, 0.0], [2.0, 0.0]], [1, 1], margin=1.0).tolist()
    [0.5, 0.0]
    """
    Zc = _check_features(Z)
    yc = check_signed_labels(y, length=Zc.shape[0])
    wv = check_array(w, "w", ndim=1, shape=(Zc.shape[1],))
    s = yc * (Zc @ wv) / float(margin)
    if loss == "hinge":
        return np.asarray(np.maximum(0.0, 1.0 - s))
    return np.asarray(np.logaddexp(0.0, -s))


@validate_params(loss=Options(*LOSSES), margin=POSITIVE_REAL)
def per_example_gradients(w: Any, Z: Any, y: Any, *, loss: str = "hinge", margin: float = 1.0) -> np.ndarray:
    """All per-example gradients ``g_i = c_i z_i`` as an (n, p) matrix (reference / tests).

    Implements: DPSGD (per-example gradients of a linear model).  The trainers never build this
    matrix: they use ``c`` and ``||z_i||`` directly (see the module docstring).

    >>> per_example_gradients([0.0, 0.0], [[0.5, 0.0]], [1], margin=0.5).tolist()
    [[-1.0, -0.0]]
    """
    Zc = _check_features(Z)
    yc = check_signed_labels(y, length=Zc.shape[0])
    wv = check_array(w, "w", ndim=1, shape=(Zc.shape[1],))
    m = float(margin)
    c = yc * _dphi(yc * (Zc @ wv) / m, loss) / m
    return np.asarray(c[:, None] * Zc)


def clip_factors(norms: np.ndarray, clip: float) -> np.ndarray:
    """``min(1, clip / ||g_i||)`` (1 where the norm is 0): the per-example clipping factors.

    Implements: DPSGD (per-example clipping, Abadi et al. 2016, Alg 1 line "clip gradient").

    >>> clip_factors(np.array([0.0, 0.5, 4.0]), 1.0).tolist()
    [1.0, 1.0, 0.25]
    """
    if not isinstance(norms, np.ndarray) or norms.dtype.kind != "f":
        norms = check_array(norms, "norms", ndim=1, dtype_kinds="iuf", min_size=0).astype(np.float64)
    POSITIVE_REAL.validate("clip", clip)
    out = np.ones_like(norms)
    big = norms > clip
    out[big] = clip / norms[big]
    return out


def _project(W: np.ndarray, radius: float | None) -> None:
    """In place: rows of W onto the L2 ball of the given radius (None: no projection)."""
    if radius is None:
        return
    nrm = np.sqrt(np.einsum("...p,...p->...", W, W))
    big = nrm > radius
    if np.any(big):
        if W.ndim == 1:
            W *= radius / nrm
        else:
            W[big] *= (radius / nrm[big])[:, None]


def _check_unit_ball(Z: np.ndarray, name: str, tol: float = 1e-9) -> float:
    # in float64 also for float32 rows: float32 arithmetic rounds ||z||^2 = 1 + 6e-8 down to 1, which
    # let rows of norm up to about 1 + 3e-8 > 1 + tol through (sensitivity above the calibrated one)
    norms = np.sqrt(np.einsum("ij,ij->i", Z, Z, dtype=np.float64))
    worst = float(norms.max()) if norms.size else 0.0
    if worst > 1.0 + tol:
        i = int(np.argmax(norms))
        raise ValueError(
            f"{name} rows must lie in the unit ball (||z|| <= 1; the Lipschitz constant and so the privacy "
            f"calibration assume it): row {i} has norm {worst:.10g}; normalise the rows first"
        )
    return worst


def _init_weights(w0: Any, p: int, runs: int | None) -> np.ndarray:
    if w0 is None:
        return np.zeros(p) if runs is None else np.zeros((runs, p))
    w = check_array(w0, "w0", ndim=1, shape=(p,)).astype(np.float64)
    return w.copy() if runs is None else np.tile(w, (runs, 1))


def zero_one_errors(W: Any, Z: Any, y: Any) -> np.ndarray:
    """#errors of each row of W on (Z, y), predicting +1 iff <w, z> > 0 (so sign(0) = -1).

    Implements: PILLAR.Alg2 (the selection score is -#errors, sensitivity 1).

    >>> zero_one_errors([[1.0, 0.0], [-1.0, 0.0]], [[1.0, 0.0], [-1.0, 0.0]], [1, -1]).tolist()
    [0, 2]
    """
    Wc = np.atleast_2d(check_array(W, "W", ndim=(1, 2), dtype_kinds="iuf")).astype(np.float64)
    Zc = _check_features(Z)
    if Wc.shape[1] != Zc.shape[1]:
        raise ValueError(f"W must have {Zc.shape[1]} columns (as Z), got shape {Wc.shape}")
    yc = check_signed_labels(y, length=Zc.shape[0])
    pred = np.where(Zc @ Wc.T > 0, 1.0, -1.0)  # (n, R)
    return np.asarray(np.count_nonzero(pred != yc[:, None], axis=0), dtype=np.int64)
