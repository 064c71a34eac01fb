#!/usr/bin/env python3
"""Compiles flash-linear-attention's Triton kernels for the linear benches
(linear.py, delta.py) before they run, in parallel processes, so that a
device call does not spend minutes compiling them one after another.

  there:  python3 DIR/fla_warm.py [--shards N] [simple] [gla] [delta]
          (fla 0.6.0 on PYTHONPATH as for the benches) calls each named
          fla function once at its bench shape, bf16 and f16, each family
          in its own process (with --shards N, in N processes, each
          compiling every N-th config of each of fla's autotuners: their
          compilations, not their choice, run in parallel), and waits for
          all of them.

Triton keeps the compiled kernels in its on-disk cache, which the benches'
own processes then read. The warm-up runs with FLA_CACHE_RESULTS=0: its
autotuning (the families' processes share the GPU; a shard sees only
some configs) is not kept, so each bench process autotunes again over
all of fla's configs from the cached binaries, alone on the GPU, and
fla's configs are chosen as in a run without the warm-up.

Run in the background while the ejk-only parts (chk cases, pipeline
statistics) run, then the timed benches. Measured on an H200 (2026-11-27,
session 16, two calls): `simple` 84-85 s, `gla` 198 s (chunk_gla's
autotuned kernels; with `gla` a 240 s call has little time left after it).
"""
import os
import subprocess
import sys
import time

SHAPES = {
    # family: (B, T, H, K, V), as in linear.py / delta.py
    "simple": (16, 16384, 8, 128, 128),
    "gla": (4, 4096, 16, 128, 128),
    "delta": (4, 4096, 16, 128, 128),
}


def shard_autotuners(shard, shards):
    """Keeps every `shards`-th config (from `shard`) of each Triton
    autotuner loaded in this process (at least one each): the process then
    compiles only those, and a one-config autotuner runs its config
    without timing it."""
    import gc
    from triton.runtime.autotuner import Autotuner
    for obj in gc.get_objects():
        if isinstance(obj, Autotuner) and len(obj.configs) > 1:
            n = len(obj.configs)
            obj.configs = (obj.configs[shard::shards]
                           or [obj.configs[shard % n]])


def warm(family, shard=0, shards=1):
    import torch
    import torch.nn.functional as F
    b, t, h, k, v = SHAPES[family]
    # Import every kernel first, so that sharding sees all autotuners.
    from fla.ops.simple_gla import chunk_simple_gla  # noqa: F401
    from fla.ops.gla import chunk_gla  # noqa: F401
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule  # noqa: F401
    if shards > 1:
        shard_autotuners(shard, shards)
    gpu = torch.device("cuda")
    for dt in (torch.bfloat16, torch.float16):
        q = torch.randn(b, t, h, k, device=gpu).to(dt)
        kk = torch.randn(b, t, h, k, device=gpu).to(dt)
        vv = torch.randn(b, t, h, v, device=gpu).to(dt)
        scale = k ** -0.5
        if family == "simple":
            from fla.ops.simple_gla import chunk_simple_gla
            gamma = torch.full((h,), -0.01, device=gpu)
            chunk_simple_gla(q, kk, vv, g_gamma=gamma, scale=scale)
        elif family == "gla":
            from fla.ops.gla import chunk_gla
            g = (F.logsigmoid(torch.randn(b, t, h, k, device=gpu)) / 16).to(dt)
            chunk_gla(q, kk, vv, g, scale=scale)
        else:
            from fla.ops.gated_delta_rule import chunk_gated_delta_rule
            beta = torch.sigmoid(torch.randn(b, t, h, device=gpu)).to(dt)
            g = (F.logsigmoid(torch.randn(b, t, h, device=gpu)) / 16).to(dt)
            chunk_gated_delta_rule(q, kk, vv, g, beta, scale=scale,
                                   use_qk_l2norm_in_kernel=True)
        torch.cuda.synchronize()


def main(argv):
    if len(argv) == 5 and argv[1] == "--one":
        warm(argv[2], int(argv[3]), int(argv[4]))
        return 0
    args = argv[1:]
    shards = 1
    if args[:1] == ["--shards"]:
        shards, args = int(args[1]), args[2:]
    families = args or list(SHAPES)
    env = dict(os.environ, FLA_CACHE_RESULTS="0")
    start = time.time()
    procs = {(f, i): subprocess.Popen([sys.executable, os.path.abspath(__file__),
                                       "--one", f, str(i), str(shards)], env=env)
             for f in families for i in range(shards)}
    status = 0
    for (f, i), p in procs.items():
        rc = p.wait()
        print(f"fla_warm {f} shard {i}/{shards}: exit {rc} after "
              f"{time.time() - start:.0f} s", flush=True)
        status = status or rc
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
