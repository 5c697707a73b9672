"""The sparse-vector kernels: the NumPy reference equals the definition written row by row in plain
Python, and the compiled loop equals the reference bit for bit (ties, NaN, infinities, -0.0, strided
inputs, every cutoff)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from semiprivate.kernels import sparse_vector as sv

pytestmark = pytest.mark.skipif(sv._compiled() is None, reason="semiprivate.kernels._cython._svt is not built")


def _responses_by_definition(compare, thresholds, cutoff, values, above, below, aborted):
    out = []
    for r, row in enumerate(compare):
        count, resp = 0, []
        for j, v in enumerate(row):
            if cutoff is not None and count >= cutoff:
                resp.append(aborted)
            elif v >= thresholds[r]:
                resp.append(above if values is None else values[r][j])
                count += 1
            else:
                resp.append(below)
        out.append(resp)
    return np.array(out, dtype=np.float64)


def _keys_by_definition(x, cols, atoms, edges):
    radix = len(atoms) + 1
    keys = []
    for row in x:
        key, first = 0, None
        for j, c in enumerate(cols):
            v = row[c]
            code = next((i for i, a in enumerate(atoms) if a == v), len(atoms))
            if code == len(atoms) and first is None:
                first = v
            key += code * radix ** j
        if len(edges):
            if first is None:
                b = len(edges) + 1
            else:  # edges below v; NaN after every number
                b = len(edges) if math.isnan(first) else sum(e < first for e in edges)
            key = key * (len(edges) + 2) + b
        keys.append(key)
    return np.array(keys, dtype=np.int64)


def _tied_queries(g: np.random.Generator, n: int, m: int) -> np.ndarray:
    """Queries on a coarse grid (many ties with the thresholds), a few NaN and infinities."""
    x = np.round(g.laplace(0.0, 1.5, (n, m)) * 2) / 2
    x.flat[g.choice(x.size, 7, replace=False)] = [np.nan, np.inf, -np.inf, np.nan, -0.0, 0.0, np.inf]
    return x


@pytest.mark.parametrize("cutoff", [None, 1, 2, 5, 40])
@pytest.mark.parametrize("with_values", [False, True])
def test_responses_compiled_equals_reference_equals_definition(cutoff, with_values) -> None:
    g = np.random.default_rng(3 if cutoff is None else cutoff)
    compare = _tied_queries(g, 400, 12)
    thresholds = np.round(g.laplace(0.0, 1.0, 400) * 2) / 2
    thresholds[:3] = [np.nan, -np.inf, np.inf]
    values = g.standard_normal((400, 12)) if with_values else None
    kw = dict(cutoff=cutoff, values=values, above=7.0, below=-1000.0, aborted=-2000.0)
    ref = sv.sparse_vector_responses(compare, thresholds, backend="numpy", **kw)
    got = sv.sparse_vector_responses(compare, thresholds, backend="cython", **kw)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(ref, _responses_by_definition(compare.tolist(), thresholds.tolist(), cutoff,
                                                                None if values is None else values.tolist(),
                                                                7.0, -1000.0, -2000.0))
    if cutoff is not None and cutoff < 12:
        assert np.any(ref == -2000.0)  # the cutoff is exercised


def test_responses_of_strided_and_integer_inputs() -> None:
    g = np.random.default_rng(1)
    wide = np.round(g.laplace(0.0, 2.0, (300, 30)))
    compare = wide[:, 5:25:2]  # a strided view
    thr = wide[:, 0]  # a strided column
    ints = compare.astype(np.int64)
    for backend in ("numpy", "cython"):
        a = sv.sparse_vector_responses(compare, thr, cutoff=2, values=compare, backend=backend)
        np.testing.assert_array_equal(a, sv.sparse_vector_responses(np.ascontiguousarray(compare), thr.copy(),
                                                                    cutoff=2, values=compare.copy(), backend="numpy"))
        np.testing.assert_array_equal(sv.sparse_vector_responses(ints, thr, cutoff=2, backend=backend),
                                      sv.sparse_vector_responses(compare, thr, cutoff=2, backend="numpy"))


@pytest.mark.parametrize("binned", [False, True])
@pytest.mark.parametrize("n_atoms", [1, 3, 16])
def test_pattern_keys_compiled_equals_reference_equals_definition(binned, n_atoms) -> None:
    g = np.random.default_rng(n_atoms + 10 * binned)
    atoms = np.sort(g.choice(np.array([-2000.0, -1000.0, -1.0, -0.0, 1.0, 2.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0,
                                       10.0, 11.0, 12.0]), n_atoms, replace=False))
    n, d = 500, 9
    x = np.where(g.random((n, d)) < 0.7, g.choice(atoms, (n, d)), g.normal(0.0, 3.0, (n, d)))
    x[:5] = atoms[0]  # rows without a non-atom value
    x.flat[g.choice(x.size, 6, replace=False)] = [np.nan, np.inf, -np.inf, 0.0, -0.0, np.nan]
    cols = np.array([1, 2, 4, 5, 6, 8]) if n_atoms < 16 else np.array([0, 3, 7])
    edges = np.sort(g.normal(0.0, 3.0, 5)) if binned else np.array([])
    ref = sv.row_pattern_keys(x, cols, atoms, edges, backend="numpy")
    np.testing.assert_array_equal(sv.row_pattern_keys(x, cols, atoms, edges, backend="cython"), ref)
    np.testing.assert_array_equal(ref, _keys_by_definition(x.tolist(), cols.tolist(), atoms.tolist(), edges.tolist()))
    assert np.unique(ref).size > 20  # many distinct patterns: a wrong radix or bin would show
    strided = np.asfortranarray(x)
    np.testing.assert_array_equal(sv.row_pattern_keys(strided, cols, atoms, edges, backend="cython"), ref)


def _codes_by_definition(x, cols, atoms):
    return np.array([[next((i for i, a in enumerate(atoms) if a == row[c]), len(atoms)) for c in cols] for row in x],
                    dtype=np.int64)


@pytest.mark.parametrize("n_atoms", [1, 3, 16])
def test_pattern_codes_compiled_equals_reference_equals_definition(n_atoms) -> None:
    g = np.random.default_rng(n_atoms)
    atoms = np.sort(g.choice(np.array([-2000.0, -1000.0, -1.0, -0.0, 1.0, 2.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0,
                                       10.0, 11.0, 12.0]), n_atoms, replace=False))
    x = np.where(g.random((400, 7)) < 0.7, g.choice(atoms, (400, 7)), g.normal(0.0, 3.0, (400, 7)))
    x.flat[g.choice(x.size, 6, replace=False)] = [np.nan, np.inf, -np.inf, 0.0, -0.0, np.nan]
    cols = np.array([6, 0, 2, 3])  # any order, not all columns
    ref = sv.row_pattern_codes(x, cols, atoms, backend="numpy")
    assert ref.shape == (400, 4) and ref.dtype == np.int64
    np.testing.assert_array_equal(ref, _codes_by_definition(x.tolist(), cols.tolist(), atoms.tolist()))
    np.testing.assert_array_equal(sv.row_pattern_codes(x, cols, atoms, backend="cython"), ref)
    np.testing.assert_array_equal(sv.row_pattern_codes(np.asfortranarray(x), cols, atoms), ref)
    assert set(np.unique(ref).tolist()) == set(range(n_atoms + 1))  # every code occurs, the non-atom one too
    keys = ref @ ((n_atoms + 1) ** np.arange(4, dtype=np.int64))  # the keys are the codes in radix len(atoms) + 1
    np.testing.assert_array_equal(sv.row_pattern_keys(x, cols, atoms, np.array([])), keys)


def test_pattern_codes_bad_input_names_the_parameter() -> None:
    with pytest.raises(TypeError, match="^cols must be a non-empty 1-D array of column indices, got list$"):
        sv.row_pattern_codes(np.zeros((2, 2)), [0.5], np.array([0.0]))
    with pytest.raises(ValueError, match="^cols must index the 2 columns of x$"):
        sv.row_pattern_codes(np.zeros((2, 2)), np.array([2]), np.array([0.0]))
    with pytest.raises(ValueError, match="^atoms must have at least one value$"):
        sv.row_pattern_codes(np.zeros((2, 2)), np.array([1]), np.array([]))
    with pytest.raises(ValueError, match="^x must be a 2-D array \\(rows x queries\\), got 1 dimension\\(s\\)$"):
        sv.row_pattern_codes(np.zeros(2), np.array([0]), np.array([0.0]))


def test_cython_backend_missing_is_named_and_auto_falls_back(monkeypatch) -> None:
    compare = np.array([[1.0, 2.0], [0.0, 3.0]])
    want = sv.sparse_vector_responses(compare, np.array([1.5, 0.5]), cutoff=1, backend="numpy")
    monkeypatch.setattr(sv, "_compiled", lambda: None)
    with pytest.raises(ValueError, match="backend 'cython' is not available"):
        sv.sparse_vector_responses(compare, np.array([1.5, 0.5]), cutoff=1, backend="cython")
    np.testing.assert_array_equal(sv.sparse_vector_responses(compare, np.array([1.5, 0.5]), cutoff=1), want)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    (dict(compare=np.ones(3), thresholds=np.ones(3)), ValueError, "compare must be a 2-D array"),
    (dict(compare=np.ones((3, 2)), thresholds=np.ones(2)), ValueError, "thresholds must have 3 entries"),
    (dict(compare=np.ones((3, 2)), thresholds=np.ones(3), cutoff=0), ValueError, "cutoff must be None or an integer"),
    (dict(compare=np.ones((3, 2)), thresholds=np.ones(3), cutoff=1.5), TypeError, "cutoff"),
    (dict(compare=np.ones((3, 2)), thresholds=np.ones(3), values=np.ones((2, 2))), ValueError, "values must have"),
    (dict(compare=np.array([["a"]]), thresholds=np.ones(1)), TypeError, "compare must be a 2-D array of numbers"),
    (dict(compare=np.ones((3, 2)), thresholds=np.ones(3), below="x"), TypeError, "below must be a number"),
    (dict(compare=np.ones((3, 2)), thresholds=np.ones(3), backend="gpu"), ValueError, "backend"),
])
def test_responses_bad_input_names_the_parameter(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        sv.sparse_vector_responses(**kwargs)


@pytest.mark.parametrize(("args", "error", "match"), [
    ((np.ones((3, 2)), np.array([2]), np.ones(1), np.ones(0)), ValueError, "cols must index the 2 columns"),
    ((np.ones((3, 2)), np.array([0.5]), np.ones(1), np.ones(0)), TypeError, "cols must be"),
    ((np.ones((3, 2)), np.array([0]), np.ones(0), np.ones(0)), ValueError, "atoms must have at least one"),
    ((np.ones((3, 2)), np.array([0]), np.ones(1), np.ones((1, 1))), ValueError, "edges must be a 1-D array"),
    ((np.ones(3), np.array([0]), np.ones(1), np.ones(0)), ValueError, "x must be a 2-D array"),
])
def test_pattern_keys_bad_input_names_the_parameter(args, error, match) -> None:
    with pytest.raises(error, match=match):
        sv.row_pattern_keys(*args)


@pytest.mark.parametrize("backend", ["numpy", "cython"])
def test_responses_written_into_a_block_of_columns(backend) -> None:
    g = np.random.default_rng(4)
    compare, thr = g.laplace(0.0, 1.0, (200, 5)), g.laplace(0.0, 1.0, 200)
    wide = np.zeros((200, 12))
    res = sv.sparse_vector_responses(compare, thr, cutoff=2, values=compare, out=wide[:, 4:9], backend=backend)
    assert np.shares_memory(res, wide)
    np.testing.assert_array_equal(wide[:, 4:9], sv.sparse_vector_responses(compare, thr, cutoff=2, values=compare,
                                                                           backend="numpy"))
    assert not wide[:, :4].any() and not wide[:, 9:].any()
    for bad in (np.zeros((200, 5), dtype=np.float32), np.zeros((200, 6)), np.zeros(1000), np.broadcast_to(0.0, (200, 5))):
        with pytest.raises(TypeError, match="out must be None or a writeable float64 array"):
            sv.sparse_vector_responses(compare, thr, cutoff=2, out=bad, backend=backend)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: sv.sparse_vector_responses(None, np.ones(2)), TypeError, "compare must be a 2-D array of numbers, got NoneType"),
    (lambda: sv.sparse_vector_responses(True, np.ones(2)), TypeError, "compare must be a 2-D array of numbers, got bool"),
    (lambda: sv.sparse_vector_responses([[1.0], [1.0, 2.0]], np.ones(2)), TypeError,
     "compare must be a 2-D array of numbers, got list"),
    (lambda: sv.sparse_vector_responses(np.ones((2, 2)), True), TypeError,
     "thresholds must be a 1-D array of numbers, got bool"),
    (lambda: sv.sparse_vector_responses(np.ones((2, 2)), "ab"), TypeError,
     "thresholds must be a 1-D array of numbers, got str"),
    (lambda: sv.sparse_vector_responses(np.ones((2, 2)), [[1.0], [1.0, 2.0]]), TypeError,
     "thresholds must be a 1-D array of numbers, got list"),
    (lambda: sv.sparse_vector_responses(np.ones((2, 2)), np.array(["a", "b"])), TypeError,
     "thresholds must be a 1-D array of numbers, got dtype <U1"),
    (lambda: sv.sparse_vector_responses(np.ones((2, 2)), np.ones(2), cutoff=1.5), TypeError,
     "cutoff must be None or an integer >= 1, got float"),
    (lambda: sv.sparse_vector_responses(np.ones((2, 2)), np.ones(2), values=np.ones(2)), ValueError,
     r"values must be a 2-D array \(rows x queries\), got 1 dimension\(s\)"),
    (lambda: sv.sparse_vector_responses(np.ones((2, 2)), np.ones(2), above="x"), TypeError,
     r"above must be a number \(an output code\), got str"),
    (lambda: sv.sparse_vector_responses(np.ones((2, 2)), np.ones(2), aborted=None), TypeError,
     r"aborted must be a number \(an output code\), got NoneType"),
    (lambda: sv.row_pattern_keys(np.ones((2, 2)), np.array([[0]]), np.ones(1), np.ones(0)), TypeError,
     "cols must be a non-empty 1-D array of column indices, got ndarray"),
    (lambda: sv.row_pattern_keys(np.ones((2, 2)), np.array([0]), np.ones(1), np.ones((1, 1))), ValueError,
     r"edges must be a 1-D array, got 2 dimension\(s\)$"),
    (lambda: sv.row_pattern_keys(np.ones((2, 2)), np.array([0]), "ab", np.ones(0)), TypeError,
     "atoms must be a 1-D array of numbers, got str"),
    (lambda: sv.row_pattern_keys(np.ones((2, 2)), np.array([0]), np.ones(0), np.ones(0)), ValueError,
     "atoms must have at least one value"),
    (lambda: sv.row_pattern_keys(np.ones((2, 2)), np.array([0]), np.ones(1), np.ones(0), backend="gpu"), ValueError,
     "backend"),
])
def test_bad_input_messages_in_full(call, error, message) -> None:
    with pytest.raises(error, match=f"^{message}"):
        call()


def test_missing_compiled_module_message_says_what_to_do(monkeypatch) -> None:
    monkeypatch.setattr(sv, "_compiled", lambda: None)
    with pytest.raises(ValueError, match=r"^backend 'cython' is not available: semiprivate.kernels._cython._svt is "
                                         r"not built \(reinstall the package with a C compiler\), or pass "
                                         r"backend='numpy'$"):
        sv.row_pattern_keys(np.ones((2, 2)), np.array([0]), np.ones(1), np.ones(0), backend="cython")


class _Recorder:
    """Stands in for the compiled module: records which kernel ran."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def responses(self, *args) -> None:
        self.calls.append("responses")
        args[-1][...] = 0.0

    def pattern_keys(self, *args) -> None:
        self.calls.append("pattern_keys")
        args[-1][...] = 0


@pytest.mark.parametrize("backend", ["auto", "cython", "numpy"])
def test_backend_choice_runs_the_named_path(monkeypatch, backend) -> None:
    rec = _Recorder()
    monkeypatch.setattr(sv, "_compiled", lambda: rec)
    sv.sparse_vector_responses(np.ones((3, 2)), np.zeros(3), backend=backend)
    sv.row_pattern_keys(np.ones((3, 2)), np.array([0, 1]), np.ones(1), np.ones(0), backend=backend)
    assert rec.calls == ([] if backend == "numpy" else ["responses", "pattern_keys"])


def test_default_backend_is_the_compiled_loop_and_takes_integer_inputs() -> None:
    g = np.random.default_rng(6)
    x = np.round(g.laplace(0.0, 2.0, (300, 6)))
    thr = g.integers(-2, 3, 300)  # int64 thresholds: converted before the compiled loop
    np.testing.assert_array_equal(sv.sparse_vector_responses(x, thr, cutoff=2),
                                  sv.sparse_vector_responses(x, thr.astype(np.float64), cutoff=2, backend="numpy"))
    cols, atoms = np.array([0, 2, 3], dtype=np.int32), np.array([-1, 0, 1])  # int32 columns, int atoms
    edges = np.array([2.5])  # a single edge still bins
    want = _keys_by_definition(x.tolist(), cols.tolist(), atoms.tolist(), edges.tolist())
    np.testing.assert_array_equal(sv.row_pattern_keys(x, cols, atoms, edges), want)
    np.testing.assert_array_equal(sv.row_pattern_keys(x, cols, atoms, edges, backend="numpy"), want)
    assert np.any(want % 3 == 1) and np.any(want % 3 == 0)  # rows in both bins of the one edge


@pytest.mark.parametrize("backend", ["numpy", "cython"])
def test_keys_near_the_int64_limit_are_exact(backend) -> None:
    """16 atoms over 15 columns: radix 17, keys up to 17^15 ~ 2.9e18 > 2^53 (a float path would round)."""
    atoms = np.arange(16, dtype=np.float64)
    g = np.random.default_rng(9)
    x = g.integers(0, 17, (400, 15)).astype(np.float64)  # 16 is no atom: the code len(atoms)
    x[0] = 16.0
    want = _keys_by_definition(x.tolist(), list(range(15)), atoms.tolist(), [])
    assert want.max() > 2**60
    np.testing.assert_array_equal(sv.row_pattern_keys(x, np.arange(15), atoms, np.ones(0), backend=backend), want)
