"""Turns measurements into rows: throughput, % of peak, ratios, agreement."""
import numpy as np

from harness.peers import PEERS

# Agreement with ejk's output: |peer - ejk| <= atol + rtol * |ejk| everywhere.
TOLERANCE = {"f32": (1e-3, 1e-3), "f16": (2e-2, 2e-2)}


def compare(actual, expected, dtype):
    """(agrees, max abs error, message) of a peer output against ejk's."""
    if actual.shape != expected.shape:
        return False, None, f"shape {actual.shape} != ejk's {expected.shape}"
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    if not np.all(np.isfinite(a)):
        return False, None, "non-finite values"
    err = np.abs(a - e)
    atol, rtol = TOLERANCE[dtype]
    bad = err > atol + rtol * np.abs(e)
    max_err = float(err.max()) if err.size else 0.0
    if bad.any():
        return False, max_err, (f"{int(bad.sum())} of {bad.size} elements beyond "
                                f"atol {atol:g} + rtol {rtol:g} (max abs error {max_err:.3g})")
    return True, max_err, ""


def throughput(w, ms):
    """(value, unit) of a time on workload w: GFLOP/s, or GB/s when memory-bound."""
    if w.bound == "read":
        return w.bytes_moved() / (ms * 1e-3) * 1e-9, "GB/s"
    return w.flops() / (ms * 1e-3) * 1e-9, "GFLOP/s"


def pct_of_peak(w, ms, peak):
    value, _ = throughput(w, ms)
    ref = peak["read_gbps"] if w.bound == "read" else peak["fma_gflops"]
    return 100.0 * value / ref


def finish_row(w, ejk, peers, peak):
    """Adds throughput, % of peak and ejk/peer speed ratios to one workload's row."""
    row = {"workload": w.id, "spec": w.to_json(), "flops": w.flops(),
           "bytes": w.bytes_moved(), "ejk": ejk, "peers": peers}
    if "median_ms" in ejk:
        value, unit = throughput(w, ejk["median_ms"])
        ejk.update(throughput=value, unit=unit, pct_peak=pct_of_peak(w, ejk["median_ms"], peak))
    for p in peers.values():
        if "median_ms" not in p:
            continue
        value, unit = throughput(w, p["median_ms"])
        p.update(throughput=value, unit=unit, pct_peak=pct_of_peak(w, p["median_ms"], peak))
        # ejk/peer as a speed ratio: > 1 means ejk is faster. Only for a peer
        # that computed the same thing.
        if "median_ms" in ejk and p.get("status") == "ok":
            p["ejk_over_peer"] = p["median_ms"] / ejk["median_ms"]
    return row


def fmt_ms(ms):
    """Milliseconds with about three significant digits."""
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 10 else (
        f"{ms:.2f}" if ms >= 1 else f"{ms:.3f}")


def peer_cell(p):
    status = p.get("status")
    if status in ("ok", "mismatch", "unchecked"):
        ms = fmt_ms(p["median_ms"])
        if status == "ok" and "ejk_over_peer" in p:
            return f"{ms} x{p['ejk_over_peer']:.2f}"
        return ms + {"ok": "", "mismatch": " WRONG", "unchecked": " (unchecked)"}[status]
    return {"n/a": "n/a", "skipped": "-", "error": "error"}.get(status, "?")


def text_table(result):
    """The stdout table."""
    peers = [n for n in PEERS if n in result["peers"]]
    m = result["machine"]
    lines = [f"machine: {m['cpu']}, {result['settings']['threads']} threads, {m['isa']}; "
             f"peak FMA {m['peak']['fma_gflops']:.1f} GFLOP/s, read "
             f"{m['peak']['read_gbps']:.1f} GB/s; load average {m['loadavg_start'][0]:.2f} "
             f"-> {m['loadavg_end'][0]:.2f}",
             "peer cells: median ms and xR = ejk speed / peer speed (R > 1: ejk faster)"]
    head = f"{'workload':<22}{'ejk ms (min)':>16}{'throughput':>18}{'% peak':>8}"
    head += "".join(f"{n:>18}" for n in peers)
    lines.append(head)
    for row in result["results"]:
        e = row["ejk"]
        if "median_ms" in e:
            cells = (f"{fmt_ms(e['median_ms'])} ({fmt_ms(e['min_ms'])})",
                     f"{e['throughput']:.1f} {e['unit']}", f"{e['pct_peak']:.1f}")
        else:
            cells = ("skipped" if e.get("skipped") else "error", "", "")
        line = f"{row['workload']:<22}{cells[0]:>16}{cells[1]:>18}{cells[2]:>8}"
        line += "".join(f"{peer_cell(row['peers'].get(n, {})):>18}" for n in peers)
        lines.append(line)
    notes = []
    for row in result["results"]:
        if row["ejk"].get("skipped") or row["ejk"].get("error"):
            notes.append(f"{row['workload']}: ejk: "
                         f"{row['ejk'].get('skipped') or row['ejk'].get('error')}")
        for n, p in row["peers"].items():
            if p.get("status") in ("error", "mismatch"):
                notes.append(f"{row['workload']}: {n}: {p['status']}: {p.get('message', '')}")
    for n, info in result["peers"].items():
        if "error" in info:
            notes.append(f"{n}: not available: {info['error']}")
    return "\n".join(lines + notes)
