#!/usr/bin/env python3
"""Every cooperative module of cmp/new: workgroup-memory accesses without
NonPrivatePointer (must be none), and the barriers' scopes and semantics."""
import glob, re, subprocess, collections, os
DIS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".venv-spirv-tools", "bin", "spirv-dis")
barriers, private, nonpriv, mods = collections.Counter(), 0, 0, 0
for spv in sorted(glob.glob("cmp/new/*/*/*.spv")):
    t = subprocess.run([DIS, spv], capture_output=True, text=True).stdout
    if "OpCapability CooperativeMatrixKHR" not in t: continue
    mods += 1
    consts = dict(re.findall(r"(%\w+) = OpConstant %uint (\d+)", t))
    wgptr = set(re.findall(r"(%\S+) = OpTypePointer Workgroup", t))
    wg = set(re.findall(r"(%\S+) = OpVariable (?:%\S+) Workgroup", t))
    for l in t.splitlines():
        m = re.match(r"\s*(%\S+) = Op(?:InBounds)?AccessChain (%\S+) ", l)
        if m and m[2] in wgptr: wg.add(m[1])
    for l in t.splitlines():
        m = re.match(r"\s*(?:%\S+ = )?Op(Load|Store|CooperativeMatrixLoadKHR|CooperativeMatrixStoreKHR) (?:%\S+ )?(%\S+)", l)
        b = re.match(r"\s*OpControlBarrier (%\S+) (%\S+) (%\S+)", l)
        if b: barriers[(consts.get(b[1]), consts.get(b[2]), hex(int(consts.get(b[3], "-1"))))] += 1
        if not m: continue
        ptr = m[2] if m[1] in ("Store", "CooperativeMatrixStoreKHR") else l.split()[4] if m[1] == "CooperativeMatrixLoadKHR" else l.split()[4]
        if ptr in wg:
            if "NonPrivatePointer" in l: nonpriv += 1
            else:
                private += 1; print("PRIVATE", spv, l.strip())
print("modules", mods, "workgroup accesses NonPrivatePointer", nonpriv, "private", private)
print("barriers (exec scope, mem scope, semantics):", dict(barriers))
