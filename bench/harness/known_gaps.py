"""What limits ejk where a peer is faster: written from the measurements.

The generated known-gaps list of docs/benchmarks.md takes its explanation
from here, keyed by workload id; a gap without an entry reads "not analysed
yet", so a new gap is never silently explained by an old text.
"""
KNOWN_LIMITS = {
    "fa-d64": (
        "not the kernel: when this row falls behind, ejk was measured while a neighbour "
        "held one of the two cores. On the same day's quiet moments ejk ran fa-d64 in "
        "13.4-13.7 ms (321 GFLOP/s, 65 % of the FMA peak, 1.9x PyTorch's speed: "
        "bench/results/cpu-2026-11-23-subset.json); about 26 ms is its one-core time, "
        "which is what every repeat of the full run of 2026-11-23 caught. What does limit "
        "it is the online softmax, whose share of the work per score is twice that at "
        "D = 128 (docs/performance.md)."),
    "decode-gqa": (
        "since 2026-11-23 (session 3) ejk's CPU kernel has a decode path: the 4 query "
        "heads of a KV head are the rows of one workgroup and K/V are read in place (no "
        "pack dispatch), so the 33.5 MB of compulsory traffic is read once (it was read "
        "about six times: pack read + write, then once per query head). What it still "
        "lacks: the 4096 keys of a KV head are not split across workgroups, so the grid "
        "is 8 workgroups and a machine with more cores than KV heads x batch idles "
        "(flash-decoding's split with a combine step). On this 2-core machine a gap in "
        "this row is the neighbours' memory traffic: a memory-bound workload suffers "
        "most from it."),
    "decode-gqa-f16": (
        "as decode-gqa; the f16 K/V are widened to f32 in registers, so the kernel reads "
        "16.8 MB (before session 3 a pack dispatch widened them into 33.5 MB of f32 "
        "temporaries)."),
}
