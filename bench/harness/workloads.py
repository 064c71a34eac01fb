"""The standard workloads of WORKLOADS.md: shapes, inputs, FLOP/byte counts, IR.

Every system (ejk and each peer) gets exactly the arrays `make_inputs`
returns, written once as .npy files; this module is the single place where a
workload's shape, dtype and counting convention are defined.
"""
from dataclasses import dataclass, field, asdict

import numpy as np

NP_DTYPES = {"f32": np.float32, "f16": np.float16}


@dataclass(frozen=True)
class Workload:
    """One benchmark case. `op` is attention, attention_bwd (the backward
    alone, from a forward's output and lse), attention_fwdbwd (forward then
    backward), selective_scan, ssd or grouped_matmul."""
    id: str
    op: str
    dtype: str
    dims: dict = field(default_factory=dict)
    causal: bool = False
    # Which peak the throughput is compared with: "fma" (GFLOP/s) or
    # "read" (GB/s of compulsory traffic, for memory-bound decode).
    bound: str = "fma"
    note: str = ""

    def to_json(self):
        return asdict(self)

    # --- counting conventions -------------------------------------------
    def flops(self):
        d = self.dims
        if self.op in ATTENTION_OPS:
            # The two matmuls only (FlashAttention / ggml convention); the
            # backward counts 2.5 forwards (FlashAttention's convention:
            # five matmuls, recomputation not counted).
            f = 4 * d["B"] * d["Hq"] * d["Sq"] * d["Sk"] * d["D"]
            f = f // 2 if self.causal else f
            return {"attention": f, "attention_bwd": f * 5 // 2,
                    "attention_fwdbwd": f * 7 // 2}[self.op]
        if self.op == "selective_scan":
            # Per (b, t, d, n): dt*A, dt*u*B and the two multiply-adds of the
            # state update and the output; exp not counted (as ejk's manifest).
            return 6 * d["B"] * d["L"] * d["D"] * d["N"]
        if self.op == "ssd":
            # The recurrence's work, which no algorithm avoids: per head and
            # step the state update and the output, 2 P N multiply-adds. It
            # does not depend on the chunk length (the chunked algorithm adds
            # an intra-chunk quadratic part that grows with the chunk, and
            # ejk chooses its chunk; the model's chunk_size = 256 is only the
            # peers'), so "% of peak" is a lower bound on the efficiency.
            return 4 * d["B"] * d["H"] * d["L"] * d["P"] * d["N"]
        if self.op == "grouped_matmul":
            # Every row times its group's matrix (the groups cover the rows).
            return 2 * d["M"] * d["K"] * d["N"]
        raise ValueError(self.op)

    def bytes_moved(self):
        """Compulsory traffic: every input read once, the output written once."""
        return sum(a.nbytes for a in self.make_inputs(shapes_only=True)) + self.output_nbytes()

    def output_nbytes(self):
        return sum(int(np.prod(s)) for s in self.output_shapes()) * np.dtype(
            NP_DTYPES[self.dtype]).itemsize

    def output_shapes(self):
        """Every result of the entry, in order (the gradients: dq, dk, dv)."""
        d = self.dims
        if self.op in ("attention_bwd", "attention_fwdbwd"):
            kv = (d["B"], d["Sk"], d["Hkv"], d["D"])
            return [self.output_shape(), kv, kv]
        return [self.output_shape()]

    def output_shape(self):
        """The first result's shape."""
        d = self.dims
        if self.op in ATTENTION_OPS:
            return (d["B"], d["Sq"], d["Hq"], d["D"])
        if self.op == "selective_scan":
            return (d["B"], d["L"], d["D"])
        if self.op == "grouped_matmul":
            return (d["M"], d["N"])
        return (d["B"], d["L"], d["H"], d["P"])

    # --- inputs ------------------------------------------------------------
    def input_names(self):
        if self.op == "attention":
            return ["q", "k", "v"]
        if self.op == "attention_bwd":
            return ["q", "k", "v", "o", "do", "lse"]
        if self.op == "attention_fwdbwd":
            return ["q", "k", "v", "do"]
        if self.op == "selective_scan":
            return ["u", "delta", "A", "B", "C", "D", "z"]
        if self.op == "grouped_matmul":
            return ["lhs", "rhs", "group_sizes"]
        return ["x", "dt", "A", "B", "C", "D"]

    def make_inputs(self, seed=0, shapes_only=False):
        """The arrays in entry-argument order (BSHD layouts, as ejk's ops)."""
        d, dt = self.dims, NP_DTYPES[self.dtype]
        rng = np.random.default_rng(seed)

        def normal(shape, dtype=dt, scale=1.0, shift=0.0):
            if shapes_only:
                return np.empty(shape, dtype)
            return (rng.standard_normal(shape, dtype=np.float32) * scale + shift).astype(dtype)

        def uniform(shape, lo, hi):
            if shapes_only:
                return np.empty(shape, np.float32)
            return rng.uniform(lo, hi, shape).astype(np.float32)

        if self.op in ATTENTION_OPS:
            qkv = [normal((d["B"], d["Sq"], d["Hq"], d["D"])),
                   normal((d["B"], d["Sk"], d["Hkv"], d["D"])),
                   normal((d["B"], d["Sk"], d["Hkv"], d["D"]))]
            if self.op == "attention":
                return qkv
            do = normal((d["B"], d["Sq"], d["Hq"], d["D"]))
            if self.op == "attention_fwdbwd":
                return qkv + [do]
            if shapes_only:
                o, lse = np.empty(do.shape, dt), np.empty((d["B"], d["Hq"], d["Sq"]), np.float32)
            else:
                o, lse = attention_forward(*qkv, self.causal)
            return qkv + [o.astype(dt), do, lse]
        if self.op == "selective_scan":
            b, l, c, n = d["B"], d["L"], d["D"], d["N"]
            # delta before softplus around -2 keeps steps small, as trained
            # Mamba models do; A negative so the state decays.
            return [normal((b, l, c)), normal((b, l, c), scale=0.5, shift=-2.0),
                    -uniform((c, n), 0.5, 4.0), normal((b, l, 1, n)),
                    normal((b, l, 1, n)), normal((c,), np.float32), normal((b, l, c))]
        if self.op == "grouped_matmul":
            # Tokens sorted by expert, E equal groups (balanced routing).
            m, e = d["M"], d["E"]
            sizes = np.empty((e,), np.int32) if shapes_only else np.full((e,), m // e, np.int32)
            return [normal((m, d["K"])), normal((e, d["K"], d["N"])), sizes]
        b, l, h, p, n, g = d["B"], d["L"], d["H"], d["P"], d["N"], d["G"]
        return [normal((b, l, h, p)), normal((b, l, h), scale=0.5, shift=-2.0),
                -uniform((h,), 1.0, 8.0), normal((b, l, g, n)), normal((b, l, g, n)),
                normal((h,), np.float32)]

    # --- ejk IR ------------------------------------------------------------
    def entry(self):
        return {"attention": "attention", "attention_bwd": "attention_bwd",
                "attention_fwdbwd": "attention_fwdbwd", "selective_scan": "scan", "ssd": "ssd",
                "grouped_matmul": "moe"}[self.op]

    def ejk_ir(self):
        """The entry function ejk compiles, one ejk op over the inputs."""
        arrays = self.make_inputs(shapes_only=True)
        types = [tensor_type(a.shape, a.dtype) for a in arrays]
        out = tensor_type(self.output_shape(), NP_DTYPES[self.dtype])
        args = ", ".join(f"%{n}: {t}" for n, t in zip(self.input_names(), types))
        if self.op in ("attention_bwd", "attention_fwdbwd"):
            return self._grad_ir(args, types)
        if self.op == "attention":
            attrs = " {causal}" if self.causal else ""
            body = (f"%o = ejk.flash_attention %q, %k, %v{attrs} : "
                    f"{types[0]}, {types[1]}, {types[2]} -> {out}")
        elif self.op == "selective_scan":
            body = (f"%o = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : {types[5]}) "
                    f"z(%z : {types[6]}) {{delta_softplus}} : "
                    f"{', '.join(types[:5])} -> {out}")
        elif self.op == "grouped_matmul":
            body = (f"%o = ejk.grouped_matmul %lhs, %rhs, %group_sizes : "
                    f"{', '.join(types)} -> {out}")
        else:
            body = (f"%o = ejk.ssd %x, %dt, %A, %B, %C D(%D : {types[5]}) "
                    f"{{chunk_size = {self.dims['chunk']} : i64, dt_softplus}} : "
                    f"{', '.join(types[:5])} -> {out}")
        return (f"func.func @{self.entry()}({args}) -> {out} {{\n"
                f"  {body}\n  return %o : {out}\n}}\n")


    def _grad_ir(self, args, types):
        """forward (fwdbwd only) and flash_attention_grad; one op a line."""
        d, elem = self.dims, NP_DTYPES[self.dtype]
        q, kv = types[0], types[1]
        lse = tensor_type((d["B"], d["Hq"], d["Sq"]), np.float32)
        attrs = " {causal}" if self.causal else ""
        lines = []
        if self.op == "attention_fwdbwd":
            lines.append(f"%o, %lse = ejk.flash_attention %q, %k, %v{attrs} : "
                         f"{q}, {kv}, {kv} -> {q}, {lse}")
        lines.append(f"%dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, "
                     f"%lse{attrs} : {q}, {kv}, {kv}, {q}, {q}, {lse} -> {q}, {kv}, {kv}")
        outs = ", ".join(tensor_type(s, elem) for s in self.output_shapes())
        body = "".join(f"  {l}\n" for l in lines)
        return (f"func.func @{self.entry()}({args}) -> ({outs}) {{\n{body}"
                f"  return %dq, %dk, %dv : {outs}\n}}\n")


ATTENTION_OPS = ("attention", "attention_bwd", "attention_fwdbwd")


def attention_forward(q, k, v, causal):
    """(output, lse) of softmax(q kᵀ / √D) v in BSHD layouts, f64 per head (the
    backward workload's inputs: a real forward's, so that P = exp(s − lse) is
    what a training step sees). Top-left causal (Sq = Sk here)."""
    b, sq, hq, dh = q.shape
    sk, hkv = k.shape[1], k.shape[2]
    o = np.empty(q.shape, np.float32)
    lse = np.empty((b, hq, sq), np.float32)
    allowed = np.tril(np.ones((sq, sk), bool)) if causal else None
    for bi in range(b):
        for h in range(hq):
            kh = h // (hq // hkv)
            s = q[bi, :, h].astype(np.float64) @ k[bi, :, kh].astype(np.float64).T
            s /= np.sqrt(dh)
            if causal:
                s = np.where(allowed, s, -np.inf)
            m = s.max(axis=1, keepdims=True)
            p = np.exp(s - m)
            total = p.sum(axis=1, keepdims=True)
            o[bi, :, h] = (p @ v[bi, :, kh].astype(np.float64)) / total
            lse[bi, h] = (m + np.log(total))[:, 0]
    return o, lse


def tensor_type(shape, dtype):
    elem = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
            np.dtype(np.int32): "i32"}[np.dtype(dtype)]
    return "tensor<" + "x".join(str(s) for s in shape) + "x" + elem + ">"


def _fa(wid, b, s, h, d, causal):
    return Workload(wid, "attention", "f32", dict(B=b, Sq=s, Sk=s, Hq=h, Hkv=h, D=d), causal)


def _fa_grad(wid, b, s, h, d, causal, op):
    return Workload(wid, "attention_" + op, "f32", dict(B=b, Sq=s, Sk=s, Hq=h, Hkv=h, D=d),
                    causal, note="FLOPs: backward = 2.5 x forward (FlashAttention's "
                                 "convention), forward + backward = 3.5 x")


def _decode(wid, dtype):
    return Workload(wid, "attention", dtype, dict(B=1, Sq=1, Sk=4096, Hq=32, Hkv=8, D=128),
                    bound="read",
                    note="q, k, v all " + dtype + " (ejk's flash_attention takes one element type)")


# The CPU table of WORKLOADS.md, in its order.
CPU_WORKLOADS = [
    _fa("fa-d128", 1, 2048, 16, 128, False),
    _fa("fa-d128-causal", 1, 2048, 16, 128, True),
    _fa_grad("fa-d128-bwd", 1, 2048, 16, 128, False, "bwd"),
    _fa_grad("fa-d128-bwd-causal", 1, 2048, 16, 128, True, "bwd"),
    _fa_grad("fa-d128-fwdbwd", 1, 2048, 16, 128, False, "fwdbwd"),
    _fa_grad("fa-d128-fwdbwd-causal", 1, 2048, 16, 128, True, "fwdbwd"),
    _fa("fa-d64", 1, 1024, 16, 64, False),
    _fa("fa-d64-causal", 1, 1024, 16, 64, True),
    _decode("decode-gqa", "f32"),
    _decode("decode-gqa-f16", "f16"),
    Workload("mamba1", "selective_scan", "f32", dict(B=1, L=2048, D=2048, N=16),
             note="softplus on dt, D skip, z gate (silu)"),
    Workload("mamba2", "ssd", "f32", dict(B=1, L=2048, H=32, P=64, N=128, G=1, chunk=256),
             note="softplus on dt, D skip, no gate"),
    Workload("moe", "grouped_matmul", "f32", dict(M=4096, E=16, K=1024, N=512),
             note="MoE expert matmul: 4096 tokens sorted by expert, 16 experts of 256 "
                  "tokens each"),
]

# A shape that runs in milliseconds, for the test suite's smoke run.
SMOKE_WORKLOADS = [
    Workload("smoke-gqa-causal", "attention", "f32",
             dict(B=1, Sq=64, Sk=64, Hq=4, Hkv=2, D=32), True),
    Workload("smoke-bwd-gqa-causal", "attention_bwd", "f32",
             dict(B=1, Sq=64, Sk=64, Hq=4, Hkv=2, D=32), True),
    Workload("smoke-fwdbwd", "attention_fwdbwd", "f32",
             dict(B=1, Sq=48, Sk=48, Hq=2, Hkv=2, D=32)),
]

ALL = {w.id: w for w in CPU_WORKLOADS + SMOKE_WORKLOADS}

# The GPU table of WORKLOADS.md (fp16 inputs, fp32 accumulation), for the
# GPU half of the harness, bench/gpu.py (docs/benchmarks.md, "GPU").
GPU_WORKLOADS = [
    Workload(f"g{w}{'-causal' if c else ''}", "attention", "f16",
             dict(B=b, Sq=s, Sk=s, Hq=h, Hkv=h, D=d), c)
    for w, b, s, h, d in (("fa-d128", 4, 2048, 16, 128), ("fa-d64", 4, 2048, 32, 64),
                          ("fa-long", 1, 8192, 16, 128))
    for c in (False, True)
] + [Workload("gdecode", "attention", "f16", dict(B=32, Sq=1, Sk=4096, Hq=32, Hkv=8, D=128),
              bound="read", note="paged decode in WORKLOADS.md; dense KV until ejk pages")]
