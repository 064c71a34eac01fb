#!/bin/bash
# vmm helper, session 21: the Vulkan memory model on every cooperative-matrix
# kernel, checked and timed on the H100 (one call, ~200 s).
#   here:  prep (see README.md in bench/results/h100/vmm-2026-11-28-s21/)
#   there: carry [".gl", ".b-vmm/dev", ".b-vmm/call.sh"]; bash .b-vmm/call.sh
# Timing first (old vs new in one process), then the dense attention checks,
# then each family's chk cases (cooperative kernels only, cases.json pruned),
# every step bounded so that the whole ends by ~200 s.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1 BENCH_PEER=0
D=.b-vmm/dev
START=$(date +%s)
LOG=$OUT/vmm.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/smi.txt
step() {  # step NAME MAX_SECONDS COMMAND...
  local name=$1 max=$2; shift 2
  local left=$((200 - ($(date +%s) - START)))
  [ $left -lt $max ] && max=$left
  if [ $max -lt 5 ]; then echo "== $name SKIPPED (no time left)" >> $LOG; return; fi
  echo "== $name (max ${max}s) at $(( $(date +%s) - START ))s" >> $LOG
  timeout $max "$@" >> $LOG 2>&1
  echo "== $name rc $? at $(( $(date +%s) - START ))s" >> $LOG
}
step timing 50 python3 $D/vmm_device.py timing $D
step attn 25 python3 $D/vmm_device.py attn $D
unset OUT_SAVE; OUTDIR=$OUT
run_family() {  # run_family FAMILY MAX [ENV=VALUE...]
  local fam=$1 max=$2; shift 2
  step $fam $max env -u OUT "$@" python3 $D/$fam/$fam.py run $D/$fam
}
run_family sparse 25 SPARSE_CASES='^chk'
run_family linear 25 LINEAR_ONLY='^chk'
run_family delta 20 DELTA_ONLY='^chk'
run_family ssm 15 SSM_ONLY='^chk'
run_family nsa 15 NSA_ONLY='^chk'
run_family mla 15 MLA_ONLY='^chk'
run_family moe 15 MOE_ONLY='^chk'
run_family attention_grad 15 ONLY=chk
run_family ragged 15
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
tar czf $OUT/families.tar.gz $D/*/*.json 2>/dev/null
echo "== done at $(( $(date +%s) - START ))s" >> $LOG
grep -E "^== |old .* new|attn |ERROR|wrong|FAIL|mismatch" $LOG | tail -60
