"""The release-sweep figure (``release_sweep.png``): mean airborne retention against sigma_rel."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def plot_sweep(rep: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sw = rep["release_sweep"]
    sig = [r["sigma_rel"] for r in sw]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    line, = ax.plot(sig, [r["mean_r_airborne"] for r in sw], "o-", label="airborne")
    if all(r.get("mean_r_airborne_ci95") for r in sw):
        ax.fill_between(sig, [r["mean_r_airborne_ci95"][0] for r in sw], [r["mean_r_airborne_ci95"][1] for r in sw],
                        color=line.get_color(), alpha=0.15, lw=0, label="airborne, 95 % interval")
    ax.plot(sig, [r["mean_r_after_ground"] for r in sw], "s--", label="after ground contact")
    ax.axhline(rep["settings"]["retention_threshold"], color="grey", lw=0.8, ls=":")
    ax.set_xlabel("sigma_rel (control released at)")
    ax.set_ylabel("mean retention r")
    ax.invert_xaxis()
    ax.set_ylim(-0.2, 1.0)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
