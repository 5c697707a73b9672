"""Report figures (labelled axes with units, legend, Okabe-Ito colours, readable size; the n_pub = 0
point of another algorithm not joined to the ASSPP curve) and report timings (warm-up, medians
with spread, lower is better, marked indicative)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib.colors as mcolors
import pytest
from semiprivate.theory.report import ReportContext, pyplot
from semiprivate.theory.report.sections import _common, covers, pca

OKABE = {c.lower() for c in _common.OKABE_ITO}


@pytest.fixture
def figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The figures a section draws (kept open: ``plt.close`` is recorded instead)."""
    plt = pyplot()
    kept: list[Any] = []
    monkeypatch.setattr(plt, "close", lambda fig=None: kept.append(fig))
    yield kept
    for fig in kept:
        plt.figure(fig.number)
        plt.clf()


def _check_axes(ax: Any) -> None:
    assert ax.get_xlabel().strip() and ax.get_ylabel().strip(), "unlabelled axis"
    assert ax.get_legend() is not None and ax.get_legend().get_texts(), "no legend"
    for line in ax.get_lines():
        assert mcolors.to_hex(line.get_color()).lower() in OKABE, f"colour {line.get_color()} not Okabe-Ito"


@pytest.mark.slow
def test_covers_figure(tmp_path: Path, figures: list[Any]) -> None:
    panel_a = {"ASSPP: mean excess error": ([1.0, 10.0, 100.0], [0.2, 0.05, 0.01]),
               "ASSPP: 90% quantile of cover radius": ([1.0, 10.0, 100.0], [0.4, 0.1, 0.02])}
    extra_a = {"n_pub = 0, structured EXPMECH (no cover): mean excess": (0.5, 0.004)}
    panel_b = {"ASSPP: mean excess error": ([10.0, 100.0], [0.1, 0.01])}
    paths = covers._plot(ReportContext(tmp_path), [(panel_a, extra_a, "(a)", "n_pub (log)", (789, "Lem 3.3")),
                                                    (panel_b, {}, "(b)", "n_priv (log)", (461, "Thm 3.1"))],
                         0.1, "title")
    assert paths[0].exists()
    (fig,) = figures
    ax_a, ax_b = fig.axes
    for ax in (ax_a, ax_b):
        ax.set_ylabel(ax_a.get_ylabel())  # shared y: the label sits on the left panel
        _check_axes(ax)
    assert "probability" in ax_a.get_ylabel()
    # the n_pub = 0 point is its own unjoined marker, not the first point of a curve
    at_half = [ln for ln in ax_a.get_lines() if 0.5 in list(ln.get_xdata())]
    assert at_half and all(len(ln.get_xdata()) == 1 and ln.get_linestyle() in ("None", "none", "")
                           for ln in at_half)
    w, h = fig.get_size_inches()
    assert w * _common.DPI >= 1200 and h >= 4.5


def test_pca_spectrum_figure(tmp_path: Path, figures: list[Any]) -> None:
    import numpy as np

    full = np.array([100.0, 25, 11, 6, 4, 3, 2, 1.5, 1e-4, 1e-4])
    path = pca._plot_spectrum(ReportContext(tmp_path), full, {"numpy float64": full[:6], "cython float32": full[:6]}, 6)
    assert path.exists()
    (fig,) = figures
    (ax,) = fig.axes
    _check_axes(ax)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("cut after the top k = 6" in t for t in texts), "the dotted line is not explained"
    w, h = fig.get_size_inches()
    assert w >= 7 and h >= 4.5
    from PIL import Image

    with Image.open(path) as im:  # saved with bbox_inches="tight": nothing clipped, readable at 100%
        assert im.size[0] >= 800


def test_time_call_warms_up_and_reports_spread() -> None:
    calls = []
    t = _common.time_call(lambda: calls.append(1), repeats=5, warmup=3)
    assert len(calls) == 8 and t.repeats == 5 and t.warmup == 3
    assert 0 <= t.q1 <= t.median <= t.q3
    assert t.ms().endswith("]") and "[" in t.ms()
    with pytest.raises(ValueError, match="repeats"):
        _common.time_call(lambda: None, repeats=0)
    note = _common.timing_note(7, 2)
    assert "lower is better" in note and "Indicative" in note and "benchmarks" in note and "median of 7" in note


@pytest.mark.slow
def test_pca_section_timing_table_is_indicative_with_spread(tmp_path: Path) -> None:
    sec = pca.build(ReportContext(tmp_path, quick=True))
    assert "lower is better" in sec.markdown and "Indicative timings" in sec.markdown
    row = next(line for line in sec.markdown.splitlines() if line.startswith("| kernels.pca (auto) |"))
    assert " ms [" in row
