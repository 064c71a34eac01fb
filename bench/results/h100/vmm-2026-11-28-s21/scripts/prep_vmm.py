#!/usr/bin/env python3
"""Prepares the vmm device call's own artifacts (run from .b-vmm/):
  dev/time/{old,new}/<workload>/   gfa-d128, gfa-long, gla, ssd compiled by
                                   old/ejkc (GLSL450) and new/ejkc (Vulkan
                                   memory model), bench/vulkan/h100.fingerprint
  dev/attn/<case>/                 dense flash attention check cases (f16 and
                                   bf16; the register softmax for NVIDIA and the
                                   shared-memory softmax under another vendor
                                   id) compiled by new/ejkc
and copies vmm_device.py beside them."""
import os, shutil, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "root", "bench", "vulkan"))
import linear, ssm  # noqa: E402
FP = os.path.join(HERE, "..", "bench", "vulkan", "h100.fingerprint")
STAGE = os.path.join(HERE, "stage.fingerprint")


def fa(b, s, h, hkv, d, dt, causal=False):
    tq, tk = f"tensor<{b}x{s}x{h}x{d}x{dt}>", f"tensor<{b}x{s}x{hkv}x{d}x{dt}>"
    a = " {causal}" if causal else ""
    return (f"func.func @main(%q: {tq}, %k: {tk}, %v: {tk}) -> {tq} {{\n"
            f"  %o = ejk.flash_attention %q, %k, %v{a} : {tq}, {tk}, {tk} -> {tq}\n"
            f"  return %o : {tq}\n}}\n")


def compile_(ejkc, text, out, fp=FP):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    src = out + ".mlir"
    open(src, "w").write(text)
    r = subprocess.run([os.path.join(HERE, ejkc), src, "--target", "vulkan",
                        "--fingerprint", fp, "--no-cache", "-o", out,
                        "--name", "kernel"], capture_output=True, text=True)
    print(out, "FAILED " + r.stderr[:300] if r.returncode else "ok")


workloads = {
    "gfa-d128": fa(4, 2048, 16, 16, 128, "f16"),
    "gfa-long": fa(1, 8192, 16, 16, 128, "f16"),
    "gla": linear.ir(4, 4096, 16, 128, 128, "bf16", "g"),
    "ssd": ssm.ir("ssd", ssm.M2, "f16", "DS", None, True),
}
for v in ("old", "new"):
    for w, text in workloads.items():
        compile_(f"{v}/ejkc", text, os.path.join(HERE, "dev", "time", v, w))
cases = {
    "d64": (2, 100, 4, 4, 64, False),
    "d64_causal_gqa": (2, 100, 8, 2, 64, True),
    "d128": (1, 257, 4, 4, 128, False),
    "d128_causal": (1, 300, 4, 2, 128, True),
    "d32_gqa": (1, 77, 8, 1, 32, False),
}
for name, (b, s, h, hkv, d, causal) in cases.items():
    for dt in ("f16", "bf16"):
        for fpn, fp in (("nv", FP), ("stage", STAGE)):
            compile_("new/ejkc", fa(b, s, h, hkv, d, dt, causal),
                     os.path.join(HERE, "dev", "attn", f"{name}_{dt}_{fpn}"), fp)
shutil.copy(os.path.join(HERE, "vmm_device.py"), os.path.join(HERE, "dev"))
