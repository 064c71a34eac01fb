"""The GPU's clocks around each measurement of bench/gpu.py.

An idle NVIDIA GPU drops its SM clock (345 MHz on the H100 machine) and a few
warm-up calls do not bring it back, so a time taken after an idle gap can read
several times slow. A background thread polls nvidia-smi for the SM clock, the
maximum and application clocks and the active throttle reasons; each
measurement then keeps the samples just before and just after its timed
window (and any inside it), and is flagged when one of them shows the SM
clock below the application clock: "capped" when a power or thermal limit
held it there (the card's speed under that load), "suspect" otherwise (an
idle clock not yet back up).
"""
import subprocess
import threading
import time

# Newer drivers call the throttle reasons "clocks_event_reasons" (the old
# name is deprecated): the first query nvidia-smi answers is used.
QUERIES = tuple(f"clocks.sm,clocks.max.sm,clocks.applications.graphics,{r}.active"
                for r in ("clocks_throttle_reasons", "clocks_event_reasons"))
# The bits of clocks_throttle_reasons.active (NVML's nvmlClocksEventReason*).
REASONS = {0x1: "idle", 0x2: "applications clocks setting", 0x4: "software power cap",
           0x8: "hardware slowdown", 0x10: "sync boost", 0x20: "software thermal slowdown",
           0x40: "hardware thermal slowdown", 0x80: "hardware power brake",
           0x100: "display clock setting"}


# Reasons that hold a busy GPU below its application clock: the card's limit
# under that load, so a time taken under them stands. Below the application
# clock without one of them (e.g. idle, still ramping up), a time is suspect.
CAPS = {"software power cap", "hardware slowdown", "software thermal slowdown",
        "hardware thermal slowdown", "hardware power brake"}


def reasons(mask):
    return [name for bit, name in REASONS.items() if mask & bit] or ["none"]


def query(index, fields):
    """One sample of GPU `index`: unix time, SM/max/application MHz (the
    application clock is the maximum where the GPU reports none), reason bits."""
    r = subprocess.run(["nvidia-smi", "-i", str(index), f"--query-gpu={fields}",
                        "--format=csv,noheader,nounits"], capture_output=True, text=True,
                       timeout=10)
    values = [f.strip() for f in r.stdout.strip().split(",")]
    if r.returncode != 0 or len(values) != 4:
        raise RuntimeError((r.stderr or r.stdout).strip()[:200] or f"exit {r.returncode}")
    sm, max_sm = int(values[0]), int(values[1])
    app = int(values[2]) if values[2].isdigit() else max_sm
    return {"t": time.time(), "sm_mhz": sm, "max_sm_mhz": max_sm, "app_mhz": app,
            "reasons": int(values[3], 16)}


class ClockMonitor:
    """Polls nvidia-smi every `period_s` while in a `with` block; `error` says
    why there are no samples (no nvidia-smi, the CPU self-test)."""

    def __init__(self, index=0, period_s=0.1):
        self.index, self.period_s = index, period_s
        self.samples, self.error, self.fields = [], None, None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self):
        for fields in QUERIES:
            try:
                self.samples.append(query(self.index, fields))
            except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as e:
                self.error = f"no GPU clock samples: {' '.join(str(e).split())[:200]}"
                continue
            self.fields, self.error = fields, None
            self._thread.start()
            break
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _poll(self):
        while not self._stop.wait(self.period_s):
            try:
                self.samples.append(query(self.index, self.fields))
            except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as e:
                self.error = f"nvidia-smi stopped answering: {' '.join(str(e).split())[:200]}"
                return

    def device(self):
        """The clocks the flags compare with: {max_sm_mhz, app_mhz} or {error}."""
        if not self.samples:
            return {"error": self.error}
        return {k: self.samples[0][k] for k in ("max_sm_mhz", "app_mhz")}

    def window(self, t0, t1):
        """The samples around a timed window [t0, t1] (unix seconds): the last
        one before it, any inside, the first after it (waited for)."""
        if not self.samples:
            return {"error": self.error}
        deadline = time.time() + 5 * self.period_s + 1
        while self.samples[-1]["t"] < t1 and self._thread.is_alive() and \
                time.time() < deadline:
            time.sleep(self.period_s / 4)
        samples = list(self.samples)
        before = [s for s in samples if s["t"] <= t0][-1:] or samples[:1]
        inside = [s for s in samples if t0 < s["t"] < t1]
        after = [s for s in samples if s["t"] >= t1][:1]
        seen = before + inside + after
        low = [s for s in seen if s["sm_mhz"] < s["app_mhz"]]
        return {"before": _public(before[0]), "after": _public(after[0]) if after else None,
                "inside": len(inside), "min_sm_mhz": min(s["sm_mhz"] for s in seen),
                "max_sm_mhz": max(s["sm_mhz"] for s in seen),
                "below_app_clock": bool(low),
                "below_without_cap": any(not CAPS & set(reasons(s["reasons"])) for s in low),
                "low_reasons": sorted({r for s in low for r in reasons(s["reasons"])})}


def _public(sample):
    return {"sm_mhz": sample["sm_mhz"], "app_mhz": sample["app_mhz"],
            "reasons": reasons(sample["reasons"]), "t": round(sample["t"], 3)}

