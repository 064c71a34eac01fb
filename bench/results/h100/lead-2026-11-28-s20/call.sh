#!/bin/bash
# Lead, session 20, H100: (1) the ssm helper's prepared call 2 (mamba1
# channel lanes with fetch_ahead / carry_pass beside the time-lanes
# heuristic, the copy rate in the same process, chk cases) while fla's
# chunk_gla kernels compile in the background; (2) gla bf16 (B4 T4096 H16
# K=V=128) against fla's chunk_gla, 3 rounds, same process (issue 18's bar on
# the H100, not measured there before). From the repository root with carry
# [".gl", ".whl", ".b-ssm/run2", ".b-lead/s20"].
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
export PYTHONUNBUFFERED=1
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
(python3 bench/vulkan/fla_warm.py --shards 12 gla > /tmp/warm.log 2>&1; echo "warm done $(el) s" >> /tmp/warm.log) &
W=$!
D=.b-ssm/run2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/smi.txt
timeout 110 python3 $D/ssm.py run $D > $OUT/ssm.log 2>&1
echo "ssm rc $? at $(el)" | tee -a $OUT/all.log
cp $D/ssm.json $OUT/ssm-run.json 2>/dev/null
wait $W; cat /tmp/warm.log | tail -3 >> $OUT/all.log
echo "warm waited $(el)" | tee -a $OUT/all.log
L=.b-lead/s20/lin
LINEAR_GROUPS=1 LINEAR_ROUNDS=3 LINEAR_ONLY='^ggla_bf16$' timeout $(( 300 - $(el) )) python3 $L/linear.py run $L > $OUT/gla.log 2>&1
echo "gla rc $? at $(el)" | tee -a $OUT/all.log
cp $L/linear.json $OUT/gla.json 2>/dev/null
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
grep -E "mamba1|copy|GB/s|rc " $OUT/ssm.log | cut -c1-300 | tail -40
grep -vE "^\s*$" $OUT/gla.log | cut -c1-400 | tail -15
