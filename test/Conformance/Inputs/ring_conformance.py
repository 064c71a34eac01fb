"""ejk's ring attention (mpirun -np 4 ejk-ring-run) against ejKernel's XLA
ring_attention under shard_map on 4 JAX host devices, same inputs.

usage: ring_conformance.py WORK_DIR   (ejkc, ejk-ring-run, mpirun on PATH)

ejKernel's XLA einsum needs num_kv_heads == num_heads, so the cases have no
GQA; it returns no lse, so only outputs are compared, with ejk-run
--check's f32 tolerances (1e-4 + 1e-4 |ref|).
"""
import os
import subprocess
import sys

RANKS = 4
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=%d" % RANKS

import numpy as np  # noqa: E402

# name: (seq, heads, dim, ejk attributes, ejKernel keyword arguments)
CASES = {
    "causal": (128, 2, 32, "causal", dict(causal=True)),
    "causal-window": (128, 2, 32,
                      "causal, sliding_window = array<i64: 40, 24>",
                      dict(causal=True, sliding_window=(40, 24))),
    "window-softcap": (128, 2, 32,
                       "sliding_window = array<i64: 20, 33>, "
                       "logits_soft_cap = 3.0 : f32, softmax_scale = 0.3 : f32",
                       dict(sliding_window=(20, 33), logits_soft_cap=3.0,
                            softmax_scale=0.3)),
}


def ejk_ring(work, name, q, k, v):
    s, h, d, attrs, _ = CASES[name]
    local = s // RANKS
    t = "tensor<1x%dx%dx%dxf32>" % (local, h, d)
    lse = "tensor<1x%dx%dxf32>" % (h, local)
    mlir = os.path.join(work, "ring.mlir")
    with open(mlir, "w") as f:
        f.write("func.func @ring(%%q: %s, %%k: %s, %%v: %s) -> (%s, %s) {\n"
                "  %%o, %%l = ejk.ring_attention %%q, %%k, %%v "
                "{ring_size = %d : i64, %s} : %s, %s, %s -> %s, %s\n"
                "  return %%o, %%l : %s, %s\n}\n" % (
                    t, t, t, t, lse, RANKS, attrs, t, t, t, t, lse, t, lse))
    paths = []
    for n, a in (("q", q), ("k", k), ("v", v)):
        paths.append(os.path.join(work, n + ".npy"))
        np.save(paths[-1], a)
    art = os.path.join(work, "art")
    out = os.path.join(work, "o.npy")
    for cmd in (["ejkc", mlir, "-o", art],
                ["timeout", "120", "mpirun", "-np", str(RANKS), "ejk-ring-run",
                 os.path.join(art, "ring.json"), "--entry", "ring",
                 "--q", paths[0], "--k", paths[1], "--v", paths[2],
                 "--out", out]):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if p.returncode:
            sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return np.load(out)


def ejkernel_ring(name, q, k, v):
    import jax
    from jax import shard_map
    from jax.sharding import Mesh, PartitionSpec as P
    from ejkernel.kernels._xla.ring_attention import ring_attention
    kwargs = CASES[name][4]
    mesh = Mesh(np.array(jax.devices()[:RANKS]), ("sp",))
    spec = P(None, "sp", None, None)

    def f(q, k, v):
        return ring_attention(q, k, v, axis_name="sp", **kwargs)
    g = jax.jit(shard_map(f, mesh=mesh, in_specs=(spec, spec, spec),
                          out_specs=spec, check_vma=False))
    return np.asarray(g(q, k, v))


def main():
    work = sys.argv[1]
    for name in CASES:
        s, h, d = CASES[name][:3]
        rng = np.random.default_rng(len(name))
        q, k, v = (rng.standard_normal((1, s, h, d), dtype=np.float32)
                   for _ in range(3))
        case_dir = os.path.join(work, name)
        os.makedirs(case_dir, exist_ok=True)
        ours = ejk_ring(case_dir, name, q, k, v)
        ref = ejkernel_ring(name, q, k, v)
        err = np.abs(ours - ref)
        ok = bool(np.all(err <= 1e-4 + 1e-4 * np.abs(ref)))
        print("%s: %s (max error %.2g)" % (
            name, "matches ejKernel" if ok else "MISMATCH", err.max()))


if __name__ == "__main__":
    main()
