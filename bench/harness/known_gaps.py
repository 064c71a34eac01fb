"""What limits ejk where a peer is faster: written from the measurements.

The generated known-gaps list of docs/benchmarks.md takes its explanation
from here, keyed by workload id; a gap without an entry reads "not analysed
yet", so a new gap is never silently explained by an old text.
"""
KNOWN_LIMITS = {
    "decode-gqa": (
        "ejk's flash-attention kernel has no decode path. Per call it (1) packs K and V "
        "into f32 buffers the runtime allocates for that call (K transposed per key "
        "block): 33.5 MB read and 33.5 MB written, plus fresh-page faults (about 730 per "
        "call, `/usr/bin/time` over 100 extra `ejk-run --bench` runs), before reading "
        "them again; (2) runs a grid of [1, 32, 1]: one workgroup per query head, a "
        "single query row in a register block built for 4 rows (3/4 of the FMAs of "
        "QK^T and PV wasted), and each K/V head read again by each of the 4 query heads "
        "that share it. ejk so moves several times the 33.5 MB of compulsory traffic "
        "(~3.7-7 GB/s of it against 39 GB/s of read bandwidth). What closes it: read "
        "K/V in place when Sq is small (no pack), give the 4 query heads of a KV group "
        "to the rows of one register block, and split the 4096 keys across workgroups "
        "(flash-decoding) with a combine step."),
    "decode-gqa-f16": (
        "as decode-gqa, and the pack widens f16 K/V to f32, so the kernel then reads "
        "twice the bytes of its f16 inputs."),
}
