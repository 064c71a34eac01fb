#!/bin/sh
# Session 18 (issue 21, helper fa), device call 1: device checks of the
# candidates (A: early + staged output + 2 blocks a workgroup, f16/bf16;
# B: staged output + 4 blocks), the harness (bench/gpu.py: base artifacts,
# the main variants, FlashAttention-2 and cuDNN in the same run), then the
# sweep (ejk-bench-run, every variant and the profile removals), registers.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/lib
D=.b-fa; V=$D/v; C=$D/chk3
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for c in an-s0 an-s1 an-s2 an-s3 ab-s0 ab-s1 ab-s2 ab-s3 bn-s0 bn-s1 bn-s2 a-rows a-rows-bf b-rows; do
  timeout 45 $C/ejk-tune-runner $C/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
done
wait
echo "checks took $(el)s"
for c in an ab bn a-rows a-rows-bf b-rows; do
  cat /tmp/chk-$c*.log > /tmp/check-$c.log
  echo "$c: $(grep -c '^ejk\.' /tmp/check-$c.log) tables, $(grep -cE ': ok ' /tmp/check-$c.log) ok, $(grep -ciE 'wrong' /tmp/check-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/check-$c.log) failed, $(grep -c 'wrote ' /tmp/check-$c.log) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/check-*.log | grep -v "is not the device" | head -12 | tee -a $OUT/checks.txt
cat /tmp/check-*.log > $OUT/checks.log
mkdir -p $OUT/h
timeout 140 python3 bench/gpu.py run --artifacts $V/base --runner $D/ejk-bench-run --workloads gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal --variants eo=$V/eo,r2o=$V/r2o,r4o=$V/r4o --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^\s+round|^==" | tail -40
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { # WORKLOAD VARIANT...
  w=$1; shift
  for v in "$@"; do
    [ $(el) -gt 226 ] && break
    [ -d $V/$v/$w/artifact ] && echo "$v/$w: $(B $V/$v/$w)"
  done
}
{
S gfa-d128 base early ost eo r2 r2o r4o r8o noout noq noqo base
S gfa-d128-causal base early ost eo r2 r2o r4o r8o base
for m in sweep/k512 sweep/k1024 base/gfa-d128 sweep/k4096 sweep/k8192; do
  [ $(el) -gt 226 ] && break
  echo "$m: $(B $V/$m)"
done
S gfa-long base early eo r2o r4o r8o base
S gfa-long-causal base early eo r2o r4o r8o base
for a in base/gfa-d128 eo/gfa-d128 r2o/gfa-d128 r4o/gfa-d128 base/gfa-d128-causal r2o/gfa-d128-causal; do
  [ $(el) -gt 226 ] && break
  timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|spill|shared" | sed "s#^#$a #" | cut -c1-150
done
S gfa-d64 base ost eo r2o base
S gfa-d64-causal base ost eo r2o base
for m in bf16/base bf16/eo bf16/r2o bf16/r4o; do
  [ $(el) -gt 230 ] && break
  echo "$m: $(B $V/$m)"
done
} 2>&1 | sed 's#bench: 12 runs, ##' | tee $OUT/sweep.log
echo "done at $(el)s" >> $OUT/sweep.log
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
