"""The peers ejk is compared with, one module each.

A peer module defines:
  NAME, LABEL          -- the short id (command line, JSON) and the display name
  OPS                  -- the workload ops it can run
  DESCRIPTION          -- how the workload is given to it (for the docs)
  limit_threads(n)     -- called before anything is imported: environment
                          variables that bound the peer's threads
  version()            -- imports the framework, returns its version
  build(workload, arrays, threads) -> (run, to_numpy)
                       -- prepares (and compiles) the computation on the
                          given inputs; run() executes it once and returns
                          when the result is complete; to_numpy(result)
                          converts a result to a numpy array in ejk's layout.
Peers are only imported inside bench/harness/worker.py, one process per
(peer, workload), so that one framework's thread pool never competes with
the next one's measurement.
"""
# Module name per peer id, in the order the table shows them.
PEERS = {"ejkernel": "ejkernel_xla", "torch": "torch_sdpa", "jax": "jax_xla", "iree": "iree_cpu",
         "iree-fused": "iree_fused"}
