"""
HPSY Section 3.3: private labels needed for halfspaces, against the dimension
=============================================================================

For linear halfspaces with margin gamma whose data lie close to a k-dimensional subspace, HPSY
Theorem 3 (PCA on the public unlabelled data, then private SGD in k dimensions) needs a number of
private labels that does not grow with the ambient dimension d, while private SGD in R^d (BST14)
grows like sqrt(d) and the generic learner (ABM19) like d.  The bounds of the three (and of a
Johnson-Lindenstrauss projection), all with constant 1, as HPSY's comparison in Section 3.3:
"""

import matplotlib.pyplot as plt
from semiprivate.theory.bounds.compare import compare_halfspace_labelled

dims = [10, 30, 100, 300, 1000, 3000, 10000]
curves: dict[str, list[float]] = {}
for d in dims:
    table = compare_halfspace_labelled(dim=d, k=5, gamma=0.3, eta=1e-4, alpha=0.1, beta=0.1, epsilon=1.0, delta=1e-5)
    for row in table.rows:
        curves.setdefault(row.method, []).append(float("nan") if row.n_lab is None else row.n_lab)
    print(f"d = {d:5d}: fewest labels with {table.best().method}")

fig, ax = plt.subplots(figsize=(6, 4))
for method, values in curves.items():
    ax.loglog(dims, values, "o-", label=method)
ax.set_xlabel("ambient dimension d")
ax.set_ylabel("private labelled sample size (constant 1)")
ax.set_title("HPSY Sec 3.3: k = 5, gamma = 0.3, alpha = beta = 0.1, eps = 1")
ax.legend(fontsize=7)
fig.tight_layout()
