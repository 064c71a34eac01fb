#!/bin/sh
# Here (issue 21, helper cm2, call 1): the artifacts dev1.sh runs, in
# .b-cm2/dev5: the KHR kernels as the heuristic picks them (base), the cm2
# kernels ejkc emits (c1: cm2 = 1, c2: cm2 = 2, c3: cm2 = 3 on three
# workloads; all block_q 128, block_k 64, 8 subgroups), the device checks
# (bench/vulkan/cm2_check.sh), the runner and the runtime. Needs numpy for
# bench/gpu.py prepare.
set -eu
D=.b-cm2/dev5
rm -rf $D && mkdir -p $D/lib
python3 bench/gpu.py prepare --out $D/base \
  --workloads gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal \
  --fingerprint bench/results/h200/device.fingerprint
for n in 1 2; do python3 bench/vulkan/cm2_prepare.py $D/base $D/c$n --cm2 $n; done
python3 bench/vulkan/cm2_prepare.py $D/base $D/c3 --cm2 3 --workloads gfa-d128,gfa-long,gfa-d64
sh bench/vulkan/cm2_check.sh $D
cp build/bin/ejk-bench-run build/bin/ejk-tune-runner $D/
cp build/lib/Runtime/libejk_runtime.so.1 $D/lib/
cp bench/results/h200/cm2-2026-11-28b/dev1.sh $D/dev.sh
# There: for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; sh .b-cm2/dev5/dev.sh
# (carry .gl and .b-cm2/dev5).
