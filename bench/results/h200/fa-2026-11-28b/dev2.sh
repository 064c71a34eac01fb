#!/bin/sh
# Session 19 (issue 21, helper fa), device call 2: the sweep (ejk-bench-run:
# the committed heuristic's cm2 artifacts of gfa-d128 / gfa-long against the
# KHR kernel with the lazy rescale, 128 x 64 x 8 and 128 x 32 x 8,
# interleaved), then the harness (the committed artifacts, the KHR variant,
# FlashAttention-2 and cuDNN in the same run, outputs checked).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/s19/lib
D=.b-fa/s19; V=$D/v2
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
for w in gfa-d128 gfa-long; do
  for v in fin/$w x/$w/128-64-8 x/$w/128-32-8 fin/$w x/$w/128-64-8; do
    [ $(el) -gt 45 ] && break
    echo "$v: $(B $V/$v)"
  done
done 2>&1 | sed 's#bench: 12 runs, ##' | tee $OUT/sweep.log
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
mkdir -p $OUT/h
timeout $(( 228 - $(el) )) python3 bench/gpu.py run --artifacts $V/fin --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long,gfa-d128-causal,gfa-long-causal,gfa-d64,gfa-d64-causal --variants khr=$V/khr --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^==" | tail -40
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
