"""semiprivate.kernels.pca on inputs it cannot or should not stream as they are.

NaN/inf: the error names the first bad row of X (and its column), not the streaming internals
(chunks, the accumulator).  A SciPy sparse matrix: a clear TypeError saying how to pass it.  A pandas
DataFrame (or any 2-D array-like with ``__array__``): read as its values, not iterated as if its column
labels were row chunks.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse
from semiprivate.kernels import pca


def _data(n: int = 3000, d: int = 6) -> np.ndarray:
    return np.random.default_rng(0).standard_normal((n, d)) * np.arange(1, d + 1)


@pytest.mark.parametrize("backend", ["numpy", "cython"])
@pytest.mark.parametrize("bad,kind", [(np.nan, "NaN"), (np.inf, "inf"), (-np.inf, "inf")])
@pytest.mark.parametrize("row", [0, 1234, 2999])
def test_nan_or_inf_names_the_row_and_column(backend, bad, kind, row) -> None:
    X = _data()
    X[row, 4] = bad
    X[row + 1 :, 1] = np.nan  # a later bad row is not the one reported
    with pytest.raises(ValueError, match=rf"^X must not contain NaN or inf: row {row} has {kind} \(column 4\)$") as e:
        pca(X, 2, backend=backend, chunk_rows=500)
    assert "chunk" not in str(e.value) and "accumulator" not in str(e.value)


def test_nan_in_chunks_names_the_rows_of_the_chunk() -> None:
    X = _data()
    X[2100, 0] = np.nan
    with pytest.raises(ValueError, match=r"^X must not contain NaN or inf .*in rows \[2000, 3000\)$") as e:
        pca([X[:1000], X[1000:2000], X[2000:]], 2)
    assert "accumulator" not in str(e.value)


@pytest.mark.parametrize("fmt", ["csr_matrix", "csc_matrix", "coo_array", "csr_array"])
def test_sparse_input_gets_a_clear_type_error(fmt) -> None:
    S = getattr(scipy.sparse, fmt)(_data(200, 4))
    with pytest.raises(TypeError, match=r"X is a SciPy sparse .* pca needs dense rows .*toarray\(\)"):
        pca(S, 2)


class _Frame:
    """A DataFrame stand-in: 2-D, ``__array__`` gives the values, iteration gives the column labels."""

    ndim = 2

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.shape = values.shape
        self.columns = [f"c{i}" for i in range(values.shape[1])]

    def __array__(self, dtype=None, copy=None):
        return self.values if dtype is None else self.values.astype(dtype)

    def __iter__(self):
        return iter(self.columns)


def test_dataframe_like_is_read_as_its_values() -> None:
    X = _data()
    got, want = pca(_Frame(X), 3), pca(X, 3)
    assert np.array_equal(got.components, want.components) and np.array_equal(got.eigenvalues, want.eigenvalues)


def test_pandas_dataframe() -> None:
    pd = pytest.importorskip("pandas")
    X = _data()
    got = pca(pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])]), 3)
    assert np.allclose(got.components, pca(X, 3).components)
