"""Runs diffprivlib's LogisticRegression or an Opacus DP-SGD linear classifier on prepared splits; prints JSON.

Run by :mod:`benchmarks.bench_utility` with each peer's own interpreter (its own virtual environment:
diffprivlib 0.6.6 needs a scikit-learn older than the project's; Opacus needs PyTorch); imports nothing
from ``semiprivate``.  Input: an ``.npz`` file holding, for each split ``i``, ``Xtr_i``, ``ytr_i``,
``Xte_i``, ``yte_i`` (features already centred and scaled with statistics of the public rows, as every
method of the benchmark gets them) and a JSON job list ``jobs`` of ``{"split": i, "epsilon": e, ...}``.
Output: one JSON line ``{"accuracies": [...], "seconds": [...]}`` in job order.

* ``diffprivlib``: ``diffprivlib.models.LogisticRegression(epsilon=e, data_norm=job["data_norm"])``
  (objective perturbation with the Vector mechanism, pure epsilon-DP; multi-class one-vs-rest with
  epsilon / C per class, diffprivlib's own split); ``data_norm`` is fixed from the public rows by the caller.
* ``opacus``: ``torch.nn.Linear(d, C)`` trained with ``opacus.PrivacyEngine.make_private`` (Poisson
  sampling, per-sample clipping ``job["clip"]``, noise multiplier ``job["noise_multiplier"]`` given by the
  caller, who calibrated it with dp-accounting under replace-one neighbours), SGD with
  ``job["lr"]``, ``job["epochs"]`` epochs of expected batch ``job["batch_size"]``, cross-entropy loss.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np


def _diffprivlib(data, jobs):  # type: ignore[no-untyped-def]
    from diffprivlib.models import LogisticRegression

    accs, secs = [], []
    for job in jobs:
        i = job["split"]
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = LogisticRegression(epsilon=float(job["epsilon"]), data_norm=float(job["data_norm"]),
                                     random_state=int(job["seed"]))
            clf.fit(data[f"Xtr_{i}"], data[f"ytr_{i}"])
            accs.append(float(np.mean(clf.predict(data[f"Xte_{i}"]) == data[f"yte_{i}"])))
        secs.append(time.perf_counter() - t0)
    return accs, secs


def _opacus(data, jobs):  # type: ignore[no-untyped-def]
    import torch
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset

    torch.set_num_threads(1)
    accs, secs = [], []
    for job in jobs:
        i = job["split"]
        t0 = time.perf_counter()
        torch.manual_seed(int(job["seed"]))
        X = torch.tensor(data[f"Xtr_{i}"], dtype=torch.float32)
        y = torch.tensor(data[f"ytr_{i}"], dtype=torch.long)
        C = int(job["n_classes"])
        model = torch.nn.Linear(X.shape[1], C)
        opt = torch.optim.SGD(model.parameters(), lr=float(job["lr"]))
        loader = DataLoader(TensorDataset(X, y), batch_size=int(job["batch_size"]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            engine = PrivacyEngine(accountant="rdp", secure_mode=False)
            model, opt, loader = engine.make_private(module=model, optimizer=opt, data_loader=loader,
                                                     noise_multiplier=float(job["noise_multiplier"]),
                                                     max_grad_norm=float(job["clip"]), poisson_sampling=True)
            loss_fn = torch.nn.CrossEntropyLoss()
            for _ in range(int(job["epochs"])):
                for xb, yb in loader:
                    opt.zero_grad()
                    if len(xb) == 0:  # an empty Poisson batch (data-independent coins): no step
                        continue
                    loss_fn(model(xb), yb).backward()
                    opt.step()
        with torch.no_grad():
            pred = model(torch.tensor(data[f"Xte_{i}"], dtype=torch.float32)).argmax(1).numpy()
        accs.append(float(np.mean(pred == data[f"yte_{i}"])))
        secs.append(time.perf_counter() - t0)
    return accs, secs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("peer", choices=["diffprivlib", "opacus"])
    ap.add_argument("data")
    ap.add_argument("jobs")
    a = ap.parse_args()
    data = np.load(a.data)
    with open(a.jobs) as fh:
        jobs = json.load(fh)
    accs, secs = (_diffprivlib if a.peer == "diffprivlib" else _opacus)(data, jobs)
    print(json.dumps({"accuracies": accs, "seconds": secs}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
