"""What limits ejk where a peer is faster: written from the measurements.

The generated known-gaps list of docs/benchmarks.md takes its explanation
from here, keyed by workload id; a gap without an entry reads "not analysed
yet", so a new gap is never silently explained by an old text.
"""
KNOWN_LIMITS = {
}
