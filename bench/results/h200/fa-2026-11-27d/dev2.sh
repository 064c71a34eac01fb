#!/bin/sh
# Device call 2 (issue 21, helper fa): device checks of the final build
# (check-nv, check-nv-bf16: 4 shards each; check-stage: 3) and the pipeline
# statistics (registers) of the tree's and the final kernels; the harness
# (bench/gpu.py run: ejk's final artifacts, FlashAttention-2 and cuDNN in
# the same run, outputs compared); then the sweep (ejk-bench-run median of
# 15 after 300 ms): per workload bound (the tree before), fin, noaddr.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/lib
D=.b-fa
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for c in nv-s0 nv-s1 nv-s2 nv-s3 nb-s0 nb-s1 nb-s2 nb-s3 st-s0 st-s1 st-s2; do
  timeout 55 $D/chk2/ejk-tune-runner $D/chk2/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
done
wait
echo "checks took $(( $(date +%s) - t0 ))s"
for c in nv nb st; do
  cat /tmp/chk-$c-s*.log > /tmp/check-$c.log
  echo "$c: $(grep -c '^ejk\.' /tmp/check-$c.log) tables, $(grep -cE ': ok ' /tmp/check-$c.log) ok, $(grep -ciE 'wrong' /tmp/check-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/check-$c.log) failed, $(grep -c 'wrote ' /tmp/check-$c.log) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/check-*.log | grep -v "is not the device" | head -12 | tee -a $OUT/checks.txt
cat /tmp/check-*.log > $OUT/checks.log
while read ep nb spv; do
  timeout 8 $D/pipeline_stats $ep $nb $spv 2>&1 | grep -iE "register|spill|shared" | sed "s#$D/##; s#/artifact/[^\t]*##" | cut -f1,3,4
done < $D/stats-args.txt > $OUT/stats.txt 2>&1
grep -i "register count" $OUT/stats.txt
echo "stats done at $(( $(date +%s) - t0 ))s"
mkdir -p $OUT/h
timeout 100 python3 bench/gpu.py run --artifacts $D/fin --runner $D/ejk-bench-run --workloads gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.8 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(( $(date +%s) - t0 ))s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^\s+round|^==" | tail -16
B() { timeout 15 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 15 --warmup 1 --warmup-ms 300 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
for w in gfa-d128 gfa-d64-causal gfa-d128-causal gfa-d64 gfa-long-causal gfa-long; do
  for v in bound fin noaddr; do
    echo "$v/$w: $(B $D/$v/$w)"
  done
done 2>&1 | sed 's#bench: 15 runs, ##' | tee $OUT/sweep.log
for v in bound fin; do echo "bf16/$v/gfa-d128: $(B $D/bf16b/$v)"; done 2>&1 | sed 's#bench: 15 runs, ##' | tee -a $OUT/sweep.log
echo "bound/gfa-d128 again: $(B $D/bound/gfa-d128)" | sed 's#bench: 15 runs, ##' | tee -a $OUT/sweep.log
echo "total $(( $(date +%s) - t0 ))s"
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
