"""Interleaved timing rounds for the linear family's GPU benches
(linear.py, delta.py): fla's own time moves up to 25 % within one process
on an H200, so each case times ejk and its peer in turn, several rounds,
and reports the medians of the rounds."""
import os
import shutil

import ejk_runtime


def copy_beside(out):
    """Copies this module into the bench directory `out` (beside the
    script that imports it)."""
    shutil.copy(os.path.abspath(__file__), out)


def time_rounds(mod, peer, entry, rounds=None):
    """Times `mod` (median of 10 invokes by GPU timestamps, each
    dispatch's median too) and `peer` (ejk_runtime.cuda_median_ms; None
    skips it) in turn for `rounds` rounds (LINEAR_ROUNDS, default 3) and
    stores the rounds and their medians in `entry`: ejk_median_ms,
    dispatch_median_us, fla_median_ms, ejk_over_fla."""
    if rounds is None:
        rounds = int(os.environ.get("LINEAR_ROUNDS", "3"))
    mid = lambda xs: sorted(xs)[len(xs) // 2]
    entry["clocks_before"] = ejk_runtime.clocks()
    ejk_rounds, fla_rounds, per = [], [], []
    for _ in range(rounds):
        ejk_runtime.warm(mod.invoke, 0.5)
        ts = []
        for _ in range(10):
            mod.invoke()
            ts.append(mod.last_time_us() / 1e3)
            per.append(mod.dispatch_times_us())
        ejk_rounds.append(mid(ts))
        if peer is not None:
            fla_rounds.append(ejk_runtime.cuda_median_ms(peer))
    entry["clocks_after"] = ejk_runtime.clocks()
    entry["ejk_rounds_ms"] = ejk_rounds
    entry["ejk_median_ms"] = mid(ejk_rounds)
    if per and all(len(x) == len(per[0]) for x in per):
        entry["dispatch_median_us"] = [mid([x[i] for x in per])
                                       for i in range(len(per[0]))]
    if fla_rounds:
        entry["fla_rounds_ms"] = fla_rounds
        entry["fla_median_ms"] = mid(fla_rounds)
        entry["ejk_over_fla"] = entry["ejk_median_ms"] / entry["fla_median_ms"]


def time_group(mods, peer, entries, rounds=None):
    """Times the modules `mods` (name: Module, bound to the same inputs)
    and `peer` in turn, each round every module then the peer, for
    `rounds` rounds (LINEAR_ROUNDS, default 3; the module order reversed
    every other round), and stores in `entries[name]` what time_rounds
    stores (fla_* from the peer's rounds of the whole group)."""
    if rounds is None:
        rounds = int(os.environ.get("LINEAR_ROUNDS", "3"))
    mid = lambda xs: sorted(xs)[len(xs) // 2]
    names = list(mods)
    ejk_rounds = {n: [] for n in names}
    per = {n: [] for n in names}
    fla_rounds = []
    for n in names:
        entries[n]["clocks_before"] = ejk_runtime.clocks()
    for r in range(rounds):
        for n in (names if r % 2 == 0 else names[::-1]):
            mod = mods[n]
            ejk_runtime.warm(mod.invoke, 0.3)
            ts = []
            for _ in range(10):
                mod.invoke()
                ts.append(mod.last_time_us() / 1e3)
                per[n].append(mod.dispatch_times_us())
            ejk_rounds[n].append(mid(ts))
        if peer is not None:
            fla_rounds.append(ejk_runtime.cuda_median_ms(peer))
    after = ejk_runtime.clocks()
    for n in names:
        entry = entries[n]
        entry["clocks_after"] = after
        entry["ejk_rounds_ms"] = ejk_rounds[n]
        entry["ejk_median_ms"] = mid(ejk_rounds[n])
        if per[n] and all(len(x) == len(per[n][0]) for x in per[n]):
            entry["dispatch_median_us"] = [mid([x[i] for x in per[n]])
                                           for i in range(len(per[n][0]))]
        if fla_rounds:
            entry["fla_rounds_ms"] = fla_rounds
            entry["fla_median_ms"] = mid(fla_rounds)
            entry["ejk_over_fla"] = entry["ejk_median_ms"] / entry["fla_median_ms"]
