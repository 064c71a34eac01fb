#!/bin/sh
# Session 18 (issue 21, helper fa), device call 2: device checks of the
# committed build (check-nv, check-nv-bf16, the larger row problems in f16
# and bf16, check-stage, check-sparse-nv: every candidate), then the harness
# (the committed artifacts, the tree before as the variant `before`,
# FlashAttention-2 and cuDNN, 2 rounds), registers of both.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/lib
D=.b-fa; C=$D/chkf
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for c in fn-s0 fn-s1 fn-s2 fn-s3 fb-s0 fb-s1 fb-s2 fb-s3 fs-s0 fs-s1 fs-s2 fp-s0 fp-s1 rows rows-bf; do
  timeout 45 $C/ejk-tune-runner $C/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
done
wait
echo "checks took $(el)s"
for c in fn fb fs fp rows rows-bf; do
  cat /tmp/chk-$c*.log > /tmp/check-$c.log
  echo "$c: $(grep -c '^ejk\.' /tmp/check-$c.log) tables, $(grep -cE ': ok ' /tmp/check-$c.log) ok, $(grep -ciE 'wrong' /tmp/check-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/check-$c.log) failed, $(grep -c 'wrote ' /tmp/check-$c.log) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/check-*.log | grep -v "is not the device" | head -12 | tee -a $OUT/checks.txt
cat /tmp/check-*.log > $OUT/checks.log
for a in v/base/gfa-d128 final/gfa-d128 v/base/gfa-d128-causal final/gfa-d128-causal v/base/gfa-long final/gfa-long v/base/gfa-d64 final/gfa-d64; do
  timeout 4 $D/pipeline_stats attention_dispatch_0 4 $D/$a/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|spill|shared" | sed "s#^#$a #" | cut -c1-150
done > $OUT/stats.txt 2>&1
echo "stats done at $(el)s"; cat $OUT/stats.txt | head -20
# profile: the K^T (nokl) / V (novl) fragment loads from shared memory
# mostly removed (each reused across d / key tiles; outputs wrong)
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
for w in gfa-d128 gfa-long; do
  for v in final final/prof/nokl final/prof/novl final/prof/nokv final; do
    echo "$v/$w: $(B $D/$v/$w)"
  done
done 2>&1 | sed 's#bench: 12 runs, ##' | tee $OUT/sweep.log
echo "sweep done at $(el)s"
mkdir -p $OUT/h
timeout $(( 232 - $(el) )) python3 bench/gpu.py run --artifacts $D/final --runner $D/ejk-bench-run --workloads gfa-d128,gfa-d128-causal,gfa-long,gfa-long-causal,gfa-d64,gfa-d64-causal --variants before=$D/v/base --peers torch-flash,torch-cudnn --rounds 2 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^==" | tail -45
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
