#!/usr/bin/env python3
"""Writes the integration tests of ejk.block_sparse_attention_grad, for the
CPU (this folder) and for Vulkan (../../Vulkan/attention-sparse-grad).

Each entry runs the block-sparse forward and then the backward on its
output and lse, and --check compares dq, dk and dv with the reference
evaluator (the dense backward under the forward's mask made explicit).
Inputs come from ../../Inputs/block_sparse_inputs.py (`blocks_rc` masks
have one dead query-block row and one dead key-block column per head, so
rows that see nothing and keys nobody sees are exercised). Some entries
also run the backward twice and compare the bytes (reproducibility). Run
from this folder: python3 generate.py.
"""

import os
from dataclasses import dataclass, field


@dataclass
class Case:
    name: str
    seed: int
    b: int = 1
    sq: int = 64
    sk: int = 64
    hq: int = 2
    hkv: int = 2
    d: int = 32
    dv: int = 0  # 0: the same as d
    dtype: str = "f32"
    qbs: int = 16
    kbs: int = 16
    density: float = 0.5
    blocks: tuple = (1, 2)  # (batch|1, heads|1); () for no block mask
    attrs: dict = field(default_factory=dict)
    bias: tuple = ()
    mask: tuple = ()
    segments: bool = False
    config: str = ""  # an explicit CPU #ejk.config for the backward
    twice: bool = False  # run twice, compare the bytes


def tensor(shape, dtype):
    return "tensor<" + "x".join(str(s) for s in shape) + "x" + dtype + ">"


def shape_text(shape):
    return "x".join(str(s) for s in shape)


def ceil_div(a, b):
    return (a + b - 1) // b


def attr_dict(c, config):
    attrs = {"q_block_size": f"{c.qbs} : i64", "kv_block_size": f"{c.kbs} : i64"}
    attrs.update(c.attrs)
    if config:
        attrs["config"] = config
    return " {" + ", ".join(f"{k} = {v}" for k, v in attrs.items()) + "}"


def operands(c):
    """(name, kind, dtype, shape) of every function argument, in order."""
    dv = c.dv or c.d
    ops = [("q", "normal", c.dtype, (c.b, c.sq, c.hq, c.d)),
           ("k", "normal", c.dtype, (c.b, c.sk, c.hkv, c.d)),
           ("v", "normal", c.dtype, (c.b, c.sk, c.hkv, dv)),
           ("do", "normal", c.dtype, (c.b, c.sq, c.hq, dv))]
    if c.blocks:
        ops.append(("bm", "blocks_rc", "i1",
                    (c.blocks[0], c.blocks[1], ceil_div(c.sq, c.qbs),
                     ceil_div(c.sk, c.kbs))))
    if c.bias:
        ops.append(("bias", "normal", "f32", (c.bias[0], c.bias[1], c.sq, c.sk)))
    if c.mask:
        ops.append(("mask", "mask", "i1", (c.mask[0], c.mask[1], c.sq, c.sk)))
    if c.segments:
        ops.append(("qs", "segments", "i32", (c.b, c.sq)))
        ops.append(("ks", "segments", "i32", (c.b, c.sk)))
    return ops


def entry(c, target):
    ops = operands(c)
    types = {n: tensor(s, dt) for n, _, dt, s in ops}
    dv = c.dv or c.d
    o = types["do"]
    lse = tensor((c.b, c.hq, c.sq), "f32")
    args = ", ".join(f"%{n}: {types[n]}" for n, _, _, _ in ops)
    opt = ""
    if c.bias:
        opt += f" bias(%bias : {types['bias']})"
    if c.mask:
        opt += f" mask(%mask : {types['mask']})"
    if c.segments:
        opt += (f" q_segment_ids(%qs : {types['qs']})"
                f" kv_segment_ids(%ks : {types['ks']})")
    bm = ", %bm" if c.blocks else ""
    bmt = f", {types['bm']}" if c.blocks else ""
    qkv = f"{types['q']}, {types['k']}, {types['v']}"
    results = f"{types['q']}, {types['k']}, {types['v']}"
    config = c.config if target == "cpu" else ""
    return (
        f"func.func @{c.name}({args}) -> ({results}) {{\n"
        f"  %o, %lse = ejk.block_sparse_attention %q, %k, %v{bm}{opt}{attr_dict(c, '')}\n"
        f"      : {qkv}{bmt} -> {o}, {lse}\n"
        f"  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, %o, %do, %lse{bm}{opt}{attr_dict(c, config)}\n"
        f"      : {qkv}, {o}, {o}, {lse}{bmt}\n"
        f"      -> {results}\n"
        f"  return %dq, %dk, %dv : {results}\n"
        f"}}\n")


def runs(c, target):
    ops = operands(c)
    d = f"%t.{c.name}"
    specs = " ".join(f"{n}:{kind}:{dt}:{shape_text(s)}" for n, kind, dt, s in ops)
    inputs = " ".join(f"--input {d}/{n}.npy" for n, _, _, _ in ops)
    tgt = " --target vulkan" if target == "vulkan" else ""
    lines = [
        f"// RUN: rm -rf {d} && mkdir -p {d} && %python %S/../../Inputs/block_sparse_inputs.py {d} {c.seed} {c.density} {specs}",
        f"// RUN: ejk-run %s --entry {c.name}{tgt} {inputs} --check | FileCheck %s",
    ]
    if c.twice:
        for run in ("a", "b"):
            outs = " ".join(f"--output {d}/{g}_{run}.npy" for g in ("dq", "dk", "dv"))
            lines.append(f"// RUN: ejk-run %s --entry {c.name}{tgt} {inputs} {outs}")
        for g in ("dq", "dk", "dv"):
            lines.append(f"// RUN: cmp {d}/{g}_a.npy {d}/{g}_b.npy")
    return lines


FILES = {
    "densities.mlir": (
        "Random block masks of 0 to 100 % density (one dead query-block row "
        "and one dead key-block column per head in between: zero dq rows, "
        "zero dk/dv rows), per-head and broadcast masks, partial blocks, and "
        "runs twice compared byte for byte.",
        [
            Case("density_0", 1, density=0.0, blocks=(1, 1), attrs={"causal": "false"}),
            Case("density_25", 2, b=2, density=0.25, blocks=(2, 2), attrs={"causal": "false"}, twice=True),
            Case("density_50", 3, sq=96, sk=128, qbs=32, kbs=32, density=0.5, attrs={"causal": "false"}, twice=True),
            Case("density_75", 4, qbs=16, kbs=32, density=0.75, blocks=(1, 1), attrs={"causal": "false"}),
            Case("density_100", 5, density=1.0, blocks=(1, 1), attrs={"causal": "false"}),
            Case("broadcast_batch", 6, b=2, density=0.5, blocks=(1, 2), attrs={"causal": "false"}),
            Case("partial_blocks", 7, sq=50, sk=70, qbs=16, kbs=32, density=0.6, attrs={"causal": "false"}),
            Case("big_blocks", 8, sq=128, sk=256, qbs=64, kbs=128, density=0.5, attrs={"causal": "false"}),
            Case("one_block", 9, sq=40, sk=30, qbs=64, kbs=64, density=1.0, attrs={"causal": "false"}),
        ]),
    "builders.mlir": (
        "Every mask builder, with and without a block mask: causal (the "
        "default, both alignments, Sq != Sk so that keys nobody sees exist), "
        "local window, causal window, chunked causal.",
        [
            Case("causal_default", 11, sq=80, sk=80, density=0.6),
            Case("causal_sq_lt_sk", 12, sq=32, sk=64, density=0.7),
            Case("causal_bottom_right", 13, sq=48, sk=80, density=0.7,
                 attrs={"mask_alignment": '"bottom_right"'}),
            Case("causal_no_blocks", 14, sq=64, sk=64, blocks=()),
            Case("local_window", 15, sq=64, sk=64, density=0.8,
                 attrs={"causal": "false", "sliding_window": "array<i64: 16, 8>"}),
            Case("causal_window", 16, sq=80, sk=80, density=0.8,
                 attrs={"sliding_window": "array<i64: 20>"}),
            Case("window_no_blocks", 17, sq=64, sk=96, blocks=(),
                 attrs={"causal": "false", "sliding_window": "array<i64: 12, 30>"}),
            Case("chunked_causal", 18, sq=96, sk=96, density=0.8,
                 attrs={"chunk_size": "24 : i64"}),
            Case("chunked_bottom_right", 19, sq=40, sk=72, density=1.0, blocks=(),
                 attrs={"chunk_size": "16 : i64", "mask_alignment": '"bottom_right"'}),
        ]),
    "options.mlir": (
        "GQA and MQA, Dv != D, f16 and bf16, token mask, segments, bias, soft "
        "cap and scale, and both dQ forms (fused where the heuristic or the "
        "config picks it on the CPU).",
        [
            Case("gqa_4_1", 21, hq=4, hkv=1, density=0.5, blocks=(1, 4), attrs={"causal": "false"}),
            Case("gqa_dv", 22, sq=32, sk=96, hq=4, hkv=2, d=48, dv=16, density=0.5, blocks=(1, 4),
                 attrs={"causal": "false"}),
            Case("gqa_causal", 23, b=2, hq=6, hkv=2, density=0.6, blocks=(2, 6)),
            Case("f16", 24, dtype="f16", density=0.5, attrs={"causal": "false"}, twice=True),
            Case("bf16", 25, dtype="bf16", density=0.5),
            Case("mask_segments", 26, b=2, density=0.7, blocks=(2, 1), mask=(1, 2), segments=True,
                 attrs={"causal": "false"}),
            Case("bias_softcap", 27, density=0.6, bias=(1, 2),
                 attrs={"logits_soft_cap": "5.0 : f32", "softmax_scale": "0.3 : f32"}),
            Case("fused_dq", 28, density=0.5, attrs={"causal": "false"},
                 config="#ejk.config<block_q = 16, block_k = 16, fuse_dq = 1>"),
            Case("separate_dq", 29, b=2, hq=4, hkv=4, kbs=32, density=0.5, blocks=(2, 4),
                 config="#ejk.config<block_q = 8, block_k = 32, dq_block_q = 16, dq_block_k = 16>"),
            Case("d128", 30, sq=64, sk=64, d=128, qbs=32, kbs=32, density=0.5, attrs={"causal": "false"}),
        ]),
}


def write(target, folder):
    for fname, (doc, cases) in FILES.items():
        lines = [f"// ejk.block_sparse_attention_grad on {'Vulkan' if target == 'vulkan' else 'the CPU'}: {doc}",
                 "// Generated by test/Integration/CPU/attention-sparse-grad/generate.py.", ""]
        if target == "vulkan":
            lines.insert(1, "// REQUIRES: vulkan")
        for c in cases:
            lines += runs(c, target)
        lines += ["", "// CHECK-NOT: FAILED", "// CHECK: result 0 ({{.*}}): {{.*}}: ok",
                  "// CHECK: result 1 ({{.*}}): {{.*}}: ok",
                  "// CHECK: result 2 ({{.*}}): {{.*}}: ok", ""]
        body = "\n".join(lines) + "\n" + "\n".join(entry(c, target) for c in cases)
        with open(os.path.join(folder, fname), "w") as f:
            f.write(body)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    write("cpu", here)
    write("vulkan", os.path.join(here, "../../Vulkan/attention-sparse-grad"))
