#!/bin/bash
# ssm helper, session 20, device call 1 (issue 21, mamba1): the
# channel-lanes scan's variants beside the heuristic (time lanes) and the
# old split, the copy rate in the same process, every output against
# PyTorch's f32 recurrence, then the chk cases, then phase-drop variants
# (compiled with the temporary switch of drop.patch; outputs wrong by
# design). Artifacts: python3 .b-ssm/prep.py .b-ssm/run main; ... drop.
# From the repository root with carry [".gl", ".b-ssm/run"].
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-ssm/run
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/smi.txt
SSM_ONLY='^(mamba1|mamba1_split|mamba1_tl16s2_c128_bd16|mamba1_cl_.*|mamba1_f16|mamba1_f16_cl_.*|drop_.*|chk_.*)$' \
  timeout 200 python3 $D/ssm.py run $D > $OUT/ssm.log 2>&1
echo "rc $?" >> $OUT/ssm.log
cp $D/ssm.json $OUT/ssm-run.json 2>/dev/null
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
tail -45 $OUT/ssm.log
