"""How every figure looks and is written: page sizes, colours, fonts embedded in the PDF, and the files beside
it (the numbers as CSV, the caption as text). The same jobs give the same bytes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import matplotlib

# No display: figures are files. Set before pyplot is imported anywhere in the process.
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)

from experiments.jobstate import write_csv  # noqa: E402
from veriphy.files import atomic_write_bytes  # noqa: E402

#: A two-column page's text width (in): figures are drawn at the size they are printed, so 7-8 pt reads.
PAGE_WIDTH_IN = 7.0
PNG_DPI = 150

#: Airborne in blue, after the first ground contact in rose; across-frame (x) solid, up/down (y) dashed.
WINDOW_COLORS = {"airborne": "#1f5fa8", "after_ground": "#c8506e"}
WINDOW_LABELS = {"airborne": "airborne", "after_ground": "after contact"}
AXIS_STYLES = {"x": "-", "y": "--"}
AXIS_LABELS = {"x": "across-frame x", "y": "up/down y"}
CONTROL_BAND_COLOR = "#d9d9d9"
TIME_CMAP = "viridis"

RC = {
    "font.size": 7.5, "axes.titlesize": 7.5, "axes.labelsize": 7.5, "legend.fontsize": 6.5,
    "xtick.labelsize": 6.5, "ytick.labelsize": 6.5, "axes.linewidth": 0.6, "lines.linewidth": 1.1,
    # TrueType fonts embedded in the PDF (Type 42), not Type 3 outlines: text stays text on a page.
    "pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none",
    "savefig.bbox": "tight", "savefig.pad_inches": 0.02,
}


@contextmanager
def page_style():
    """The figures' matplotlib settings, only while a figure is drawn."""
    with matplotlib.rc_context(RC):
        yield


def new_figure(width_in: float, height_in: float, nrows: int, ncols: int, **kwargs: Any):
    """A figure of the given printed size and its (nrows, ncols) axes grid."""
    return plt.subplots(nrows, ncols, figsize=(width_in, height_in), squeeze=False, **kwargs)


def save_figure(fig, out_dir: Path, stem: str, rows: Iterable[Mapping[str, Any]], columns: list[str],
                caption: str) -> list[Path]:
    """``<stem>.png`` and ``.pdf`` (fixed metadata: the same figure gives the same bytes), ``<stem>.csv`` (the
    numbers the figure shows) and ``<stem>.txt`` (its caption); the figure is closed."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for ext, meta in (("png", {"Software": None}), ("pdf", {"CreationDate": None, "Producer": None})):
        path = out_dir / f"{stem}.{ext}"
        fig.savefig(path, dpi=PNG_DPI, metadata=meta)
        written.append(path)
    plt.close(fig)
    written.append(write_csv(out_dir / f"{stem}.csv", rows, columns))
    caption_path = out_dir / f"{stem}.txt"
    atomic_write_bytes(caption_path, (caption.strip() + "\n").encode())
    written.append(caption_path)
    return written


def fmt(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"
