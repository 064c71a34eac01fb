#!/usr/bin/env python3
"""For each cooperative module of cmp/new: the storage-buffer bindings it both
reads and writes (candidates for cross-invocation traffic through a buffer
inside one dispatch)."""
import glob, re, subprocess, collections, os
DIS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".venv-spirv-tools", "bin", "spirv-dis")
res = collections.Counter()
for spv in sorted(glob.glob("cmp/new/*/*/*.spv")):
    t = subprocess.run([DIS, "--raw-id", spv], capture_output=True, text=True).stdout
    if "CooperativeMatrixKHR" not in t: continue
    binding, sc, base = {}, {}, {}
    for l in t.splitlines():
        m = re.match(r"\s*OpDecorate (%\d+) Binding (\d+)", l)
        if m: binding[m[1]] = int(m[2])
        m = re.match(r"\s*(%\d+) = OpVariable %\d+ StorageBuffer", l)
        if m: base[m[1]] = m[1]
        m = re.match(r"\s*(%\d+) = Op(?:InBounds)?(?:Ptr)?AccessChain %\d+ (%\d+)", l)
        if m and m[2] in base: base[m[1]] = base[m[2]]
    reads, writes = set(), set()
    for l in t.splitlines():
        m = re.match(r"\s*%\d+ = Op(?:Load|CooperativeMatrixLoadKHR) %\d+ (%\d+)", l)
        if m and m[1] in base: reads.add(binding[base[m[1]]])
        m = re.match(r"\s*Op(?:Store|CooperativeMatrixStoreKHR) (%\d+)", l)
        if m and m[1] in base: writes.add(binding[base[m[1]]])
    both = sorted(reads & writes)
    if both:
        print(spv, "read+write bindings", both)
