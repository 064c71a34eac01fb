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
        "since 2026-11-26 a flash_attention decode runs the paged family's decode kernel "
        "(docs/ops/paged.md): the 4 query heads of a KV head share a workgroup, K/V are "
        "read once in place, the keys split across workgroups when there are fewer than "
        "4 per core, rows prefetched ahead. What limits it: dense K/V rows of one KV head "
        "lie 4 KiB apart ([B, S, Hkv, D] f32), so every row is its own memory page and "
        "neither the hardware prefetchers nor the TLB help; and on this 2-core virtual "
        "machine the read rate itself moves 21-38 GB/s with the neighbours' traffic."),
    "decode-gqa-f16": (
        "as decode-gqa; the f16 K/V are widened to f32 in registers, so the kernel reads "
        "16.8 MB (2 KiB between rows of a KV head)."),
}
