#!/bin/sh
# Device call 1 (issue 19, helper "sparse", session 19, H100): the timing
# first, one process, 3 rounds: ejk dense (main's), the tree's gsparse and
# the variants of prep.sh (@p, @p2, @ps, @psq, @q, @l2; profile @e, @f8,
# @f8n, @no, @psqf8), FlexAttention at 25 %; then in parallel: sparse.py's
# chk cases @psq (two processes), @p and @q (a subset), and
# check-sparse-nv @psq (3 shards). From the repository root with carry
# [".gl", ".b-sparse/sp", ".b-sparse/chk", ".b-sparse/dev1.sh"]:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; sh .b-sparse/dev1.sh
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
L=$OUT/all.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/smi.txt
T='gsparse_(10|25|50|100)(@(ps|psq))?|gsparse_25@(p|p2|q|l2|e|f8|f8n|no|psqf8)|gsparse_25_(bf16|causal)(@psq)?'
SPARSE_ROUNDS=3 SPARSE_F32=0 SPARSE_WARM=1,0.5 SPARSE_FLEX='gsparse_25' SPARSE_CASES="$T" timeout 135 python3 .b-sparse/sp/sparse.py run .b-sparse/sp > $OUT/sparse.log 2>&1
echo "sparse rc $? at $(el)s" >> $L
grep -E "^bar" $OUT/sparse.log | cut -c1-400 >> $L
grep -E "^round" $OUT/sparse.log | cut -c1-4000 >> $L
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
left=$(( 205 - $(el) ))
echo "checks get ${left}s" >> $L
if [ $left -gt 15 ]; then
  mkdir -p /tmp/c1 /tmp/c2 /tmp/c3
  S='chk_job_groups_256|chk_density_0|chk_density_25_d128|chk_cfg_two_buffers_d128|chk_partial_blocks|chk_density_100|chk_many_jobs|chk_bf16_density_25_d128'
  OUT=/tmp/c1 SPARSE_CASES='chk_(job_groups_256|job_groups|many_jobs|density_.*|partial_blocks|causal|causal_bottom_right|local|gqa_4_1|gqa_dv)@psq' timeout $left python3 .b-sparse/sp/sparse.py run .b-sparse/sp > /tmp/c1/chk.log 2>&1 &
  OUT=/tmp/c2 SPARSE_CASES='chk_(causal_local_blocks|chunked_causal|data_options|cfg_.*|stage_.*|bf16_.*|causal_d64_128)@psq' timeout $left python3 .b-sparse/sp/sparse.py run .b-sparse/sp > /tmp/c2/chk.log 2>&1 &
  OUT=/tmp/c3 SPARSE_CASES="($S)@(p|q)" timeout $left python3 .b-sparse/sp/sparse.py run .b-sparse/sp > /tmp/c3/chk.log 2>&1 &
  export LD_LIBRARY_PATH=$PWD/.b-sparse/chk/lib
  for c in np-s0 np-s1 np-s2; do
    timeout $left .b-sparse/chk/ejk-tune-runner .b-sparse/chk/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
  done
  wait
  echo "checks done at $(el)s" >> $L
  cat /tmp/c1/chk.log /tmp/c2/chk.log /tmp/c3/chk.log > $OUT/chk.log
  echo "chk lines $(grep -c '^chk' $OUT/chk.log), ok $(grep '^chk' $OUT/chk.log | grep -c '"ok": true')" >> $L
  grep -E "^chk" $OUT/chk.log | grep -v '"ok": true' | cut -c1-300 >> $L
  grep -E "checks_ok" $OUT/chk.log >> $L
  cat /tmp/chk-np-s*.log > $OUT/checks.log
  echo "check-sparse-nv@psq: $(grep -c '^ejk\.' $OUT/checks.log) tables, $(grep -cE ': ok ' $OUT/checks.log) ok, $(grep -ciE 'wrong' $OUT/checks.log) wrong-lines, $(grep -ciE ': failed' $OUT/checks.log) failed, $(grep -c 'wrote ' $OUT/checks.log) shards done" >> $L
fi
cat $L
