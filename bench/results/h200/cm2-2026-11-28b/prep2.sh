#!/bin/sh
# Here (issue 21, helper cm2, call 2): the artifacts dev2.sh runs, in
# .b-cm2/dev6: base = bench/gpu.py prepare with the H200 fingerprint (the
# committed heuristic: cm2 = 2 for gfa-d128 and gfa-long), khr = the same
# with the fingerprint's cooperative_matrix2 line removed, c1/c2 = cm2 = 1/2
# for gfa-long-causal. Needs numpy for bench/gpu.py prepare.
set -eu
D=.b-cm2/dev6
rm -rf $D && mkdir -p $D/lib
grep -v '^cooperative_matrix2=' bench/results/h200/device.fingerprint > $D/h200-khr.fingerprint
W=gfa-d128,gfa-long,gfa-long-causal
python3 bench/gpu.py prepare --out $D/base --workloads $W --fingerprint bench/results/h200/device.fingerprint
python3 bench/gpu.py prepare --out $D/khr --workloads $W --fingerprint $D/h200-khr.fingerprint
python3 bench/vulkan/cm2_prepare.py $D/base $D/c2 --cm2 2 --workloads gfa-long-causal
python3 bench/vulkan/cm2_prepare.py $D/base $D/c1 --cm2 1 --workloads gfa-long-causal
cp build/bin/ejk-bench-run $D/ && cp build/lib/Runtime/libejk_runtime.so.1 $D/lib/
cp bench/results/h200/cm2-2026-11-28b/dev2.sh $D/dev.sh
# There: for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; sh .b-cm2/dev6/dev.sh
# (carry .gl and .b-cm2/dev6).
