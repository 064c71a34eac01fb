"""ejk's ring attention (mpirun -np 4 ejk-ring-run) against ejKernel's XLA
ring_attention under shard_map on 4 JAX host devices, same inputs.

usage: ring_conformance.py WORK_DIR   (ejkc, ejk-ring-run, mpirun on PATH)

ejKernel's XLA einsum needs num_kv_heads == num_heads, so the cases have no
GQA; it returns no lse, so only outputs are compared, with ejk-run
--check's f32 tolerances (1e-4 + 1e-4 |ref|). The gradients are compared
too: ejk's ring backward (ejk-ring-run --backward) against jax.vjp of
ejKernel's ring attention (its custom VJP, _ring_attention_bwd) with the
same d_output, same tolerances. The gradients go through ejKernel's
internal _ring_attention with causal_block_size given (the query chunk,
what the public ring_attention defaults it to): the public function passes
None and defaults it only inside the primal body, so under jax.vjp the
custom VJP's forward and backward get None and _chunk_attention_bias drops
the causal mask altogether (a causal ring differentiates as non-causal;
docs/ops/ring.md).

Cases in SEGMENTS also pass packed sequences: the same segment ids for
queries and keys (ejKernel's q_segment_ids/kv_segment_ids, sharded along
the sequence like q/k; ejk-ring-run --q-segments/--kv-segments). Their ids
are non-negative: ejKernel masks a negative id as padding, ejk treats it as
an ordinary id.
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
    "packed-causal": (128, 2, 32, "causal", dict(causal=True)),
    "packed": (128, 2, 32, "", dict()),
}
# Segment lengths of the packed cases (shards of 32 rows): segments that end
# inside a shard and that cross one or two shard boundaries.
SEGMENTS = {"packed-causal": [7, 50, 1, 40, 30], "packed": [20, 70, 38]}


def segment_ids(name):
    lengths = SEGMENTS[name]
    return np.repeat(np.arange(len(lengths), dtype=np.int32),
                     lengths)[None, :]


def ejk_ring(work, name, q, k, v, d_o):
    s, h, d, attrs, _ = CASES[name]
    local = s // RANKS
    t = "tensor<1x%dx%dx%dxf32>" % (local, h, d)
    lse = "tensor<1x%dx%dxf32>" % (h, local)
    st = "tensor<1x%dxi32>" % local
    seg_args = seg_ops = ""
    seg_flags = []
    if name in SEGMENTS:
        seg_args = ", %%qs: %s, %%ks: %s" % (st, st)
        seg_ops = " q_segment_ids(%%qs : %s) kv_segment_ids(%%ks : %s)" % (
            st, st)
        segs = os.path.join(work, "segs.npy")
        np.save(segs, segment_ids(name))
        seg_flags = ["--q-segments", segs, "--kv-segments", segs]
    mlir = os.path.join(work, "ring.mlir")
    with open(mlir, "w") as f:
        f.write("func.func @ring(%%q: %s, %%k: %s, %%v: %s%s) -> (%s, %s) {\n"
                "  %%o, %%l = ejk.ring_attention %%q, %%k, %%v%s "
                "{ring_size = %d : i64%s} : %s, %s, %s -> %s, %s\n"
                "  return %%o, %%l : %s, %s\n}\n" % (
                    t, t, t, seg_args, t, lse, seg_ops, RANKS,
                    (", " + attrs) if attrs else "", t, t, t, t, lse, t,
                    lse))
    paths = []
    for n, a in (("q", q), ("k", k), ("v", v), ("do", d_o)):
        paths.append(os.path.join(work, n + ".npy"))
        np.save(paths[-1], a)
    art = os.path.join(work, "art")
    out = os.path.join(work, "o.npy")
    grads = [os.path.join(work, x + ".npy") for x in ("dq", "dk", "dv")]
    ring = ["timeout", "120", "mpirun", "-np", str(RANKS), "ejk-ring-run",
            os.path.join(art, "ring.json"), "--entry", "ring",
            "--q", paths[0], "--k", paths[1], "--v", paths[2]] + seg_flags
    for cmd in (["ejkc", mlir, "-o", art], ring + ["--out", out],
                ring + ["--backward", "--do", paths[3], "--dq", grads[0],
                        "--dk", grads[1], "--dv", grads[2]]):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if p.returncode:
            sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    return [np.load(x) for x in [out] + grads]


def ejkernel_ring(name, q, k, v, d_o):
    import jax
    from jax import shard_map
    from jax.sharding import Mesh, PartitionSpec as P
    from ejkernel.kernels._xla.ring_attention import ring_attention
    from ejkernel.kernels._xla.ring_attention._interface import _ring_attention
    kwargs = CASES[name][4]
    mesh = Mesh(np.array(jax.devices()[:RANKS]), ("sp",))
    spec = P(None, "sp", None, None)
    seg_spec = P(None, "sp")
    # Without segment ids the ids are all 0: one segment, no masking.
    segs = segment_ids(name) if name in SEGMENTS else \
        np.zeros(q.shape[:2], dtype=np.int32)
    use_segs = name in SEGMENTS

    def f(q, k, v, segs):
        seg = dict(q_segment_ids=segs, kv_segment_ids=segs) if use_segs \
            else {}
        return ring_attention(q, k, v, axis_name="sp", **seg, **kwargs)
    chunk = min(512, q.shape[1] // RANKS)  # ring_attention's default chunk

    def f_grad(q, k, v, segs):
        # ring_attention's call of _ring_attention, causal_block_size given.
        causal = kwargs.get("causal", False)
        seg = segs if use_segs else None
        return _ring_attention(
            q, k, v, None, seg, seg, None, None, None, "sp", True,
            kwargs.get("softmax_scale"), chunk, chunk,
            chunk if causal else None, True, None, 0.0, jax.numpy.float32,
            jax.checkpoint_policies.nothing_saveable,
            jax.lax.Precision.DEFAULT, True, kwargs.get("sliding_window"),
            kwargs.get("logits_soft_cap"), 0, causal)

    def mapped(fn):
        return shard_map(fn, mesh=mesh, in_specs=(spec, spec, spec, seg_spec),
                         out_specs=spec, check_vma=False)

    def grads(q, k, v, d_o):
        fn = mapped(f_grad)
        return jax.vjp(lambda q, k, v: fn(q, k, v, segs), q, k, v)[1](d_o)
    out = jax.jit(mapped(f))(q, k, v, segs)
    return [np.asarray(x) for x in (out,) + jax.jit(grads)(q, k, v, d_o)]


def main():
    work = sys.argv[1]
    for name in CASES:
        s, h, d = CASES[name][:3]
        rng = np.random.default_rng(len(name))
        q, k, v, d_o = (rng.standard_normal((1, s, h, d), dtype=np.float32)
                        for _ in range(4))
        case_dir = os.path.join(work, name)
        os.makedirs(case_dir, exist_ok=True)
        ours = ejk_ring(case_dir, name, q, k, v, d_o)
        refs = ejkernel_ring(name, q, k, v, d_o)
        for what, x, ref in zip(("", " backward dq", " backward dk",
                                 " backward dv"), ours, refs):
            err = np.abs(x - ref)
            ok = bool(np.all(err <= 1e-4 + 1e-4 * np.abs(ref)))
            print("%s%s: %s (max error %.2g)" % (
                name, what, "matches ejKernel" if ok else "MISMATCH",
                err.max()))


if __name__ == "__main__":
    main()
