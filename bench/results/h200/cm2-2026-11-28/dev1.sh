#!/bin/sh
# Device call 1 (issue 21, cm2): coopmat2 features/properties, 28 prototype
# kernels (bench/vulkan/cm2_fa.py) timed and checked, FA2 before and after.
set -u
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/smi.txt
timeout 220 python3 bench/vulkan/cm2_run.py --bench .b-cm2/dev/cm2_bench --kernels .b-cm2/dev/k --out $OUT/cm2-call1.json 2>&1 | tee $OUT/cm2-call1.log
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv | tee -a $OUT/smi.txt
