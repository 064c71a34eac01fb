#!/usr/bin/env python3
"""Old vs new ejkc artifacts of cmp/: every file byte for byte; each .spv
classified as cooperative (declares CooperativeMatrixKHR, capability 6022) or
portable; spirv-val (SPIRV-Tools 2025.5) on every new module. A portable
module that differs, a cooperative one that does not, or a new module the
validator rejects is an error."""
import glob, os, struct, subprocess, sys, collections
VAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".venv-spirv-tools", "bin", "spirv-val")
def caps(path):
    w = open(path, "rb").read()
    words = struct.unpack("<%dI" % (len(w) // 4), w)
    i, out, model = 5, set(), None
    while i < len(words):
        n, op = words[i] >> 16, words[i] & 0xffff
        if op == 17: out.add(words[i + 1])
        if op == 14: model = words[i + 2]
        i += n
    return out, model
stats = collections.Counter(); bad = []
for new in sorted(glob.glob("cmp/new/*/*/*")):
    old = new.replace("cmp/new/", "cmp/old/", 1)
    same = os.path.exists(old) and open(old, "rb").read() == open(new, "rb").read()
    fam = new.split("/")[2]
    if new.endswith(".spv"):
        c, model = caps(new)
        coop = 6022 in c
        r = subprocess.run([VAL, "--target-env", "vulkan1.3", new], capture_output=True, text=True)
        ok = r.returncode == 0
        kind = "coop" if coop else "portable"
        stats[(fam, kind, "same" if same else "differs", "valid" if ok else "INVALID", "Vulkan" if model == 3 else "GLSL450")] += 1
        if coop and (same or model != 3 or not ok): bad.append((new, "coop", same, model, r.stderr.strip()[:200]))
        if not coop and (not same or model != 1): bad.append((new, "portable", same, model, r.stderr.strip()[:200]))
    elif new.endswith(".json"):
        stats[(fam, "json", "same" if same else "differs")] += 1
for k, n in sorted(stats.items()): print(n, *k)
print("problems:", len(bad))
for b in bad[:40]: print(*b)
