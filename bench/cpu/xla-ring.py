"""ejKernel's XLA ring_attention on RANKS JAX host devices: the peer of
ejk's ring over MPI in bench/cpu/ring-run.sh (docs/ops/ring.md).

usage: xla-ring.py RANKS SEQ HEADS DIM [REPEAT]

B1 SEQ HEADS DIM causal f32, the sequence sharded over a mesh axis of
RANKS host devices (--xla_force_host_platform_device_count) and
ring_attention called under shard_map with its defaults (chunks of 512),
as test/Conformance/Inputs/ring_conformance.py calls it. Prints the first
call (compile and run) and the best of REPEAT timed calls.
"""
import os
import sys
import time

ranks, seq, heads, dim = map(int, sys.argv[1:5])
repeat = int(sys.argv[5]) if len(sys.argv) > 5 else 2
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_force_host_platform_device_count=%d" %
                           ranks)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax import shard_map  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402
from ejkernel.kernels._xla.ring_attention import ring_attention  # noqa: E402

mesh = Mesh(np.array(jax.devices()[:ranks]), ("sp",))
spec = P(None, "sp", None, None)
ring = jax.jit(shard_map(
    lambda q, k, v: ring_attention(q, k, v, axis_name="sp", causal=True),
    mesh=mesh, in_specs=(spec, spec, spec), out_specs=spec, check_vma=False))
rng = np.random.default_rng(7)
q, k, v = (jax.device_put(
    rng.standard_normal((1, seq, heads, dim), dtype=np.float32),
    NamedSharding(mesh, spec)) for _ in range(3))
t0 = time.perf_counter()
ring(q, k, v).block_until_ready()
first = time.perf_counter() - t0
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    ring(q, k, v).block_until_ready()
    times.append(time.perf_counter() - t0)
print("xla ring_attention: %d host devices (%s, %d CPUs), B1 S%d H%d D%d "
      "causal f32: first call %.1f ms, best of %d %.1f ms" %
      (ranks, jax.__version__, os.cpu_count(), seq, heads, dim, first * 1e3,
       repeat, min(times) * 1e3))
