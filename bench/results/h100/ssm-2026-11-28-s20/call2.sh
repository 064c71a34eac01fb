#!/bin/bash
# Prepared by the ssm helper (session 20), NOT RUN (its call limit was
# reached): the channel-lanes scan with `fetch_ahead` (delta and u several
# groups ahead) and `carry_pass` (a dispatch joins the splits)
# beside the time-lanes heuristic and the best config of
# call 1, the copy rate in the same process, every output against
# PyTorch's f32 recurrence, then the chk cases. ~70 s on a warm H100.
# Prepare here: python3 bench/results/h100/ssm-2026-11-28-s20/prep2.py .b-ssm/run2
# Run from the repository root with carry [".gl", ".b-ssm/run2", ".b-ssm/call2.sh"].
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-ssm/run2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/smi.txt
timeout 200 python3 $D/ssm.py run $D > $OUT/ssm.log 2>&1
echo "rc $?" >> $OUT/ssm.log
cp $D/ssm.json $OUT/ssm-run.json 2>/dev/null
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
tail -30 $OUT/ssm.log
