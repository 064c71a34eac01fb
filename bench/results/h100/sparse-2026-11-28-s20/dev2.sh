#!/bin/sh
# Device call 2 (issue 19, helper "sparse", session 19, H100): the chk
# inputs regenerated in the background (gen_inputs.py: not carried), the
# timing first, one process, 3 rounds (warm-up 0.6 s, then 0.3 s a module):
# ejk dense (main's), the tree and prep2.sh's variants (@p, @pq, @pu, @puq
# at 10/25/50/100 %, @pu/@puq/@q bf16 and causal, @u, @q; profile @f8,
# @f8d, @pf8, @pf8d, @a6, @pa6, @e, @eo, @eq, @el, @eqol), FlexAttention at 25 %; then in
# parallel: sparse.py's chk cases @p, @pq, @pu, @puq (all), @q (a subset),
# check-sparse-nv @pu and @puq (3 shards each), the driver's register
# counts (stats.py, pipeline_stats). From the repository root
# with carry [".gl", ".b-sparse/sp", ".b-sparse/chk", ".b-sparse/dev2.sh",
# ".b-sparse/gen_inputs.py", ".b-sparse/stats.py", ".b-sparse/pipeline_stats"]:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; sh .b-sparse/dev2.sh
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=$OUT/all.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/smi.txt
python3 .b-sparse/gen_inputs.py .b-sparse/sp gen 6 > /tmp/gen.log 2>&1 &
T='gsparse_(10|25|50|100)(@(p|pq|pu|puq))?|gsparse_25_(bf16|causal)(@(pu|puq|q))?|gsparse_(10|25|50|100)@q|gsparse_25@(u|f8|f8d|pf8|pf8d|a6|pa6|e|eo|eq|el|eqol)'
SPARSE_ROUNDS=3 SPARSE_F32=0 SPARSE_WARM=0.6,0.3 SPARSE_FLEX='gsparse_25' SPARSE_CASES="$T" timeout 150 python3 .b-sparse/sp/sparse.py run .b-sparse/sp > $OUT/sparse.log 2>&1
echo "sparse rc $? at $(el)s" >> $L
wait
cat /tmp/gen.log >> $L
grep -E "^bar" $OUT/sparse.log | cut -c1-400 >> $L
grep -E "^round" $OUT/sparse.log | cut -c1-5000 >> $L
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
left=$(( 212 - $(el) ))
echo "checks get ${left}s" >> $L
if [ $left -gt 15 ]; then
  S='chk_job_groups_256|chk_density_0|chk_density_25_d128|chk_cfg_two_buffers_d128|chk_partial_blocks|chk_density_100|chk_many_jobs|chk_bf16_density_25_d128'
  i=0
  for re in 'chk_.*@pu' 'chk_.*@puq' 'chk_.*@p' 'chk_.*@pq' "($S)@q"; do
    i=$((i+1)); mkdir -p /tmp/c$i
    OUT=/tmp/c$i SPARSE_CASES="$re" timeout $left python3 .b-sparse/sp/sparse.py run .b-sparse/sp > /tmp/c$i/chk.log 2>&1 &
  done
  A=.b-sparse/sp/art
  python3 .b-sparse/stats.py .b-sparse/pipeline_stats $A/gfa_d128_dense $A/gsparse_25 $A/gsparse_100 $(for t in p pq pu puq q f8 f8d pf8 pf8d; do echo $A/gsparse_25@$t; done) $A/gsparse_100@p $A/gsparse_100@pu > $OUT/stats.txt 2>&1 &
  export LD_LIBRARY_PATH=$PWD/.b-sparse/chk/lib
  for c in nu-s0 nu-s1 nu-s2 nuq-s0 nuq-s1 nuq-s2; do
    timeout $left .b-sparse/chk/ejk-tune-runner .b-sparse/chk/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
  done
  wait
  echo "checks done at $(el)s" >> $L
  cat /tmp/c*/chk.log > $OUT/chk.log
  echo "chk lines $(grep -c '^chk' $OUT/chk.log), ok $(grep '^chk' $OUT/chk.log | grep -c '"ok": true')" >> $L
  for t in pu puq p pq q; do echo "chk @$t: $(grep -E "^chk[a-z0-9_]*@$t " $OUT/chk.log | grep -c '"ok": true') ok of $(grep -cE "^chk[a-z0-9_]*@$t " $OUT/chk.log)" >> $L; done
  grep -E "^chk" $OUT/chk.log | grep -v '"ok": true' | cut -c1-300 >> $L
  grep -E "checks_ok" $OUT/chk.log >> $L
  for t in nu nuq; do
    cat /tmp/chk-$t-s*.log > /tmp/checks-$t.log
    echo "check-sparse-nv $t: $(grep -c '^ejk\.' /tmp/checks-$t.log) tables, $(grep -cE ': ok ' /tmp/checks-$t.log) ok, $(grep -ciE 'wrong' /tmp/checks-$t.log) wrong-lines, $(grep -ciE ': failed' /tmp/checks-$t.log) failed, $(grep -c 'wrote ' /tmp/checks-$t.log) shards done" >> $L
  done
  cat /tmp/checks-nu.log /tmp/checks-nuq.log > $OUT/checks.log
fi
cat $L
