#!/usr/bin/env python3
"""Compiles gfa-d128 variants (heuristic and fixed configs, fp16 on the
cooperative-matrix path, f32 on the portable path) ahead of time for the
H100/H200 from its saved fingerprint into DIR/art/<name>/:

    python3 bench/vulkan/gen.py DIR        (default DIR: devrun)

Then copy build/lib/Runtime/libejk_runtime.so.1 to DIR/lib/, an
ejk-bench-run (bench/runner) to DIR/, bench.py and ssm.py to DIR/, and run
`python3 DIR/bench.py` on the GPU machine (docs/performance-vulkan.md)."""
import os, subprocess, sys
SRC = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(SRC))
EJKC = os.path.join(ROOT, "build", "bin", "ejkc")
FP = os.path.join(SRC, "h100.fingerprint")
HERE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "devrun")

def ir(dtype, causal, config):
    t = f"tensor<4x2048x16x128x{dtype}>"
    attrs = []
    if causal:
        attrs.append("causal")
    if config:
        attrs.append("config = #ejk.config<" + ", ".join(f"{k} = {v}" for k, v in config.items()) + ">")
    a = (" {" + ", ".join(attrs) + "}") if attrs else ""
    return (f"func.func @fa(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
            f"  %o = ejk.flash_attention %q, %k, %v{a} : {t}, {t}, {t} -> {t}\n"
            f"  return %o : {t}\n}}\n")

variants = []
for causal in (False, True):
    c = "_causal" if causal else ""
    variants.append((f"f16{c}_heur", "f16", causal, None))
    for bq, bk, w in ((64, 16, 4), (32, 32, 2), (32, 16, 2)):
        variants.append((f"f16{c}_q{bq}k{bk}w{w}", "f16", causal, dict(block_q=bq, block_k=bk, num_subgroups=w)))
    variants.append((f"f32{c}_heur", "f32", causal, None))
    for bq, bk, w in ((32, 64, 4), (128, 64, 8), (128, 64, 16), (64, 128, 8), (64, 64, 16)):
        variants.append((f"f32{c}_q{bq}k{bk}w{w}", "f32", causal, dict(block_q=bq, block_k=bk, num_subgroups=w)))

os.makedirs(os.path.join(HERE, "art"), exist_ok=True)
ok = 0
for name, dtype, causal, config in variants:
    src = os.path.join(HERE, "art", name + ".mlir")
    open(src, "w").write(ir(dtype, causal, config))
    r = subprocess.run([EJKC, src, "--target", "vulkan", "--fingerprint", FP, "--no-cache",
                        "-o", os.path.join(HERE, "art", name), "--name", "kernel"],
                       capture_output=True, text=True)
    if r.returncode:
        print(f"{name}: FAILED {r.stderr.strip()[:300]}")
    else:
        ok += 1
        print(f"{name}: ok")
print(f"{ok}/{len(variants)} compiled")
