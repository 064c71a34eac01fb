#!/bin/sh
# Issue 21, helper cm2, device call 2: the heuristic as committed (base:
# ejkc with the H200 fingerprint, which now picks cm2 = 2 for gfa-d128 and
# gfa-long) against the KHR kernels (khr: the same fingerprint without its
# cooperative_matrix2 line) and FlashAttention-2 through bench/gpu.py, whose
# output check compares base (cm2) with PyTorch f32; gfa-long-causal, which
# call 1 did not reach, with cm2 = 1 and 2 as variants; then an interleaved
# ejk-bench-run sweep.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-cm2/dev6/lib
D=.b-cm2/dev6
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
mkdir -p $OUT/h
timeout 150 python3 bench/gpu.py run --artifacts $D/base --runner $D/ejk-bench-run \
  --workloads gfa-d128,gfa-long,gfa-long-causal --variants khr=$D/khr,c2=$D/c2,c1=$D/c1 \
  --peers torch-flash,torch-f32 --rounds 2 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h \
  > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | tail -40
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
{
for r in 1 2; do
  for v in khr/gfa-long-causal c2/gfa-long-causal c1/gfa-long-causal base/gfa-d128 khr/gfa-d128 base/gfa-long khr/gfa-long; do
    [ $(el) -gt 215 ] && break
    echo "$v: $(B $D/$v)"
  done
done
} > $OUT/sweep.log 2>&1
cat $OUT/sweep.log
echo "done at $(el)s"
