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
        "ejk's flash-attention kernel has no decode path (checked in the artifact's "
        "manifest). Per call it (1) runs a pack dispatch (grid [64, 8, 1]) that copies K "
        "(transposed per 128-key block) and V into two f32 temporaries of 16.8 MB each: "
        "33.5 MB read and 33.5 MB written before the kernel reads them again; (2) runs "
        "the attention with a grid of [1, 32, 1]: one workgroup per query head, its "
        "single query row in a register block of 4 rows (rows past Sq repeat the last, "
        "so 3/4 of the QK^T and PV FMAs are wasted), and each K/V head read again by "
        "each of the 4 query heads that share it. ejk so moves several times the 33.5 MB "
        "of compulsory traffic. What closes it: read K/V in place when Sq is small (no "
        "pack), give the 4 query heads of a KV group to the rows of one register block, "
        "and split the 4096 keys across workgroups (flash-decoding) with a combine "
        "step. PyTorch's and IREE's times also spread widely on this shared machine "
        "(3 to 10 ms over the runs of the day): a memory-bound workload suffers most "
        "from a neighbour's traffic."),
    "decode-gqa-f16": (
        "as decode-gqa, and the pack widens f16 K/V to f32 (16.8 MB read, 33.5 MB "
        "written), so the kernel then reads twice the bytes of its f16 inputs."),
}
