#!/bin/sh
# Session 19 (issue 21, helper fa), device call 1: device checks (A: lazy
# rescale on every candidate of check-coop f16/bf16 and the larger row
# problems; B: lazy + Q staged, the candidates where that differs from A, and
# the block-sparse one), registers, the sweep (ejk-bench-run: variants, the
# profile without K^T / V fragment loads), then the harness (base artifacts,
# variants lazy and q2l, FlashAttention-2 and cuDNN in the same run).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/s19/lib
D=.b-fa/s19; V=$D/v; C=$D/chk
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for c in an-s0 an-s1 an-s2 an-s3 ab-s0 ab-s1 ab-s2 ab-s3 a-rows a-rows-bf b-nv b-nb b-rows b-rows-bf b-sn; do
  timeout 60 $C/ejk-tune-runner $C/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
done
wait
echo "checks took $(el)s" | tee $OUT/checks.txt
for c in an ab a-rows a-rows-bf b-nv b-nb b-rows b-rows-bf b-sn; do
  cat /tmp/chk-$c*.log > /tmp/check-$c.log
  echo "$c: $(grep -cE ': ok ' /tmp/check-$c.log) ok, $(grep -ciE 'wrong' /tmp/check-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/check-$c.log) failed, $(grep -c 'wrote ' /tmp/check-$c.log) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/check-*.log | grep -v "is not the device" | head -12 | tee -a $OUT/checks.txt
cat /tmp/check-*.log > $OUT/checks.log
mkdir -p $OUT/h
timeout 115 python3 bench/gpu.py run --artifacts $V/base --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long,gfa-d128-causal,gfa-long-causal,gfa-d64,gfa-d64-causal --variants lazy=$V/lazy,q2l=$V/q2l --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^==" | tail -45
for a in base/gfa-d128 lazy/gfa-d128 qs/gfa-d128/64-32-2 qsl/gfa-d128/64-32-2 qsln/gfa-d128/64-32-2 qsl/gfa-d128/128-16-4 qreg/gfa-d128/64-32-2 base/gfa-d64 lazy/gfa-d64; do
  timeout 4 .b-fa/pipeline_stats attention_dispatch_0 4 $V/$a/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|spill|shared" | sed "s#^#$a #" | cut -c1-150
done > $OUT/stats.txt 2>&1
echo "stats done at $(el)s"; head -30 $OUT/stats.txt
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { # WORKLOAD VARIANT...
  w=$1; shift
  for v in "$@"; do
    [ $(el) -gt 226 ] && break
    if [ -d $V/$v/artifact ]; then echo "$v: $(B $V/$v)"; elif [ -d $V/$v/$w/artifact ]; then echo "$v/$w: $(B $V/$v/$w)"; fi
  done
}
{
S gfa-d128 base lazy qs/gfa-d128/64-32-2 qsl/gfa-d128/64-32-2 qsln/gfa-d128/64-32-2 qsl/gfa-d128/128-16-4 qsl/gfa-d128/64-16-2 qreg/gfa-d128/64-32-2 prof/nokl prof/novl prof/nokv base
S gfa-long base lazy qs/gfa-long/64-32-2 qsl/gfa-long/64-32-2 qsln/gfa-long/64-32-2 prof/nokl prof/novl prof/nokv base
S gfa-d128-causal base lazy qsl/gfa-d128-causal/64-32-2 base
S gfa-long-causal base lazy qsl/gfa-long-causal/64-32-2 base
S gfa-d64 base lazy base
S gfa-d64-causal base lazy base
S bf16 bf16/base bf16/lazy bf16/qsl bf16/base
} 2>&1 | sed 's#bench: 12 runs, ##' | tee $OUT/sweep.log
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
