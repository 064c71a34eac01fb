"""The PNG chart: grouped bars per workload, ejk and each peer, in % of peak."""
from harness.peers import PEERS
from harness.report import fmt_ms

COLORS = {"ejk": "#d62728", "ejkernel": "#1f77b4", "torch": "#ff7f0e", "jax": "#2ca02c",
          "iree": "#9467bd",
          "iree-fused": "#8c564b"}


def write_chart(result, path):
    """Writes the chart; returns None, or why it was not written."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (bench/setup.sh installs it)"

    systems = ["ejk"] + [n for n in PEERS if n in result["peers"]]
    labels = {"ejk": "ejk"}
    labels.update({n: result["peers"][n]["label"] for n in systems[1:]})
    rows = result["results"]
    width = 0.8 / len(systems)
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(rows) + 2), 5.5))
    top = 0.0
    for i, name in enumerate(systems):
        for j, row in enumerate(rows):
            m = row["ejk"] if name == "ejk" else row["peers"].get(name, {})
            x = j + (i - (len(systems) - 1) / 2) * width
            if "pct_peak" not in m:
                why = ("not compiled yet" if m.get("skipped") else
                       m.get("status") if name != "ejk" else "error")
                ax.text(x, 0.5, why if why != "skipped" else "not installed",
                        ha="center", va="bottom", fontsize=6, color="gray", rotation=90)
                continue
            wrong = m.get("status") in ("mismatch", "unchecked")
            ax.bar(x, m["pct_peak"], width, color=COLORS.get(name, "gray"),
                   hatch="//" if wrong else None, edgecolor="white" if wrong else None,
                   label=labels[name] if j == 0 else None)
            ax.text(x, m["pct_peak"], " " + fmt_ms(m["median_ms"]), ha="center", va="bottom",
                    fontsize=6, rotation=90)
            top = max(top, m["pct_peak"])
    # Legend entries for systems whose first workload had no bar.
    handles, shown = ax.get_legend_handles_labels()
    for name in systems:
        if labels[name] not in shown:
            handles.append(plt.Rectangle((0, 0), 1, 1, color=COLORS.get(name, "gray")))
            shown.append(labels[name])
    ax.legend(handles, shown, fontsize=8, loc="upper right")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["workload"] for r in rows], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("% of the machine's peak (bar label: median ms)")
    ax.set_ylim(0, max(10.0, top * 1.25))
    m = result["machine"]
    ax.set_title(f"CPU, {result['settings']['threads']} threads, {m['cpu']} ({m['isa']}), "
                 f"{result['date'][:10]}\npeak measured in the run: "
                 f"{m['peak']['fma_gflops']:.0f} GFLOP/s FMA (compute-bound workloads), "
                 f"{m['peak']['read_gbps']:.1f} GB/s read (decode); hatched: output not "
                 f"verified against ejk", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None
