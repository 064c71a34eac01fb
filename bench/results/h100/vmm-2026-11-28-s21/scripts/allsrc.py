#!/usr/bin/env python3
"""Writes every bench/vulkan family's case sources (no compiling) into
OUT/<family>/<name>.mlir (+ OUT/<family>/<name>.fp naming the fingerprint):
the inputs of vmm's old/new ejkc comparison."""
import importlib, os, sys
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench", "vulkan"))
out = sys.argv[1]
for fam in ["linear", "delta", "sparse", "moe", "nsa", "paged", "ragged",
            "attention_grad", "mla", "ssm"]:
    m = importlib.import_module(fam)
    v = m.all_variants() if hasattr(m, "all_variants") else m.variants()
    d = os.path.join(out, fam)
    os.makedirs(d, exist_ok=True)
    for name, spec in v.items():
        fp = "stage" if isinstance(spec, dict) and spec.get("fingerprint") == "stage" else "nv"
        text = m.ir(*spec) if isinstance(spec, tuple) else m.ir(spec)
        open(os.path.join(d, name + ".mlir"), "w").write(text)
        open(os.path.join(d, name + ".fp"), "w").write(fp)
    print(fam, len(v))
# gen.py's flash-attention variants
g = {"__file__": os.path.join(ROOT, "bench", "vulkan", "gen.py")}
src = open(os.path.join(ROOT, "bench", "vulkan", "gen.py")).read()
src = src[:src.index("os.makedirs(os.path.join(HERE")]
exec(compile(src, "gen.py", "exec"), g)
d = os.path.join(out, "gen")
os.makedirs(d, exist_ok=True)
for name, dtype, causal, config in g["variants"]:
    open(os.path.join(d, name + ".mlir"), "w").write(g["ir"](dtype, causal, config))
    open(os.path.join(d, name + ".fp"), "w").write("nv")
print("gen", len(g["variants"]))
