#!/bin/sh
# Device call 1: correctness of every candidate, the config sweep, the harness table.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.fa/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/smi.txt
echo "== check-nv"; .fa/ejk-tune-runner .fa/check/check-nv --runs 1 --out $OUT/check-nv.json > $OUT/check-nv.log 2>&1; echo "rc $?"; tail -4 $OUT/check-nv.log
echo "== check-stage"; .fa/ejk-tune-runner .fa/check/check-stage --runs 1 --force --out $OUT/check-stage.json > $OUT/check-stage.log 2>&1; echo "rc $?"; tail -3 $OUT/check-stage.log
grep -il "wrong\|nan" $OUT/check-*.log && grep -i "wrong" $OUT/check-*.log | head -20
echo "== sweep"; sh .fa/sweep.sh .fa/base .fa/base-sweep .fa/new .fa/new-sweep 2>&1 | sed 's|/artifact/attention.json||' | tee $OUT/sweep.log
echo "== harness"; python3 bench/gpu.py run --artifacts .fa/new --runner .fa/ejk-bench-run --workloads gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal --peers torch-flash,torch-cudnn --rounds 2 --runs 20 --warm-s 1.5 --no-docs --out-dir $OUT 2>$OUT/harness.err | tee $OUT/harness.txt
tail -5 $OUT/harness.err
