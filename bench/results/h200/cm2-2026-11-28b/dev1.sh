#!/bin/sh
# Issue 21, helper cm2, device call 1: the cm2 kernels that ejkc now emits
# (bench/vulkan/cm2_prepare.py: c1 = cm2 1, V with K; c2 = cm2 2, V after
# the softmax; c3 = cm2 3, c2 with tensor-addressed loads) against the KHR
# kernels (base: the heuristic's configs) and FlashAttention-2 in one run:
# 1. device checks of every cm2 variant (bench/vulkan/cm2_check.sh);
# 2. bench/gpu.py with --variants (outputs checked against PyTorch f32);
# 3. an interleaved ejk-bench-run sweep (KHR first and last).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-cm2/dev5/lib
D=.b-cm2/dev5
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
timeout 50 $D/ejk-tune-runner $D/cm2-check --runs 2 --force --out /tmp/chk.json > $OUT/checks.log 2>&1
echo "checks rc $? at $(el)s" | tee $OUT/checks.txt
grep -E "ok|wrong|failed|error" $OUT/checks.log | grep -ciE ": ok " | sed 's/^/ok lines: /' | tee -a $OUT/checks.txt
grep -iE "wrong|failed|error" $OUT/checks.log | head -8 | tee -a $OUT/checks.txt
mkdir -p $OUT/h
timeout 150 python3 bench/gpu.py run --artifacts $D/base --runner $D/ejk-bench-run \
  --workloads gfa-d128,gfa-long,gfa-d64,gfa-d128-causal,gfa-d64-causal,gfa-long-causal \
  --variants c1=$D/c1,c2=$D/c2,c3=$D/c3 --peers torch-flash,torch-f32 --rounds 2 --runs 10 \
  --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^\s+round" | tail -45
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
{
for w in gfa-d128 gfa-long gfa-d128-causal gfa-d64; do
  for v in base c1 c2 c3 base c1 c2; do
    [ $(el) -gt 222 ] && break
    [ -d $D/$v/$w/artifact ] && echo "$v/$w: $(B $D/$v/$w)"
  done
done
} > $OUT/sweep.log 2>&1
cat $OUT/sweep.log
nvidia-smi --query-gpu=name,clocks.sm --format=csv >> $OUT/smi.txt
echo "done at $(el)s"
