#!/bin/bash
# Issue 19 MLA, session 20 device call (helper "mla"): pipeline statistics,
# then the timings (pass 1: the heuristic and the register-softmax kernel
# with PyTorch and the copy rate, same process; pass 2: the other variants
# ejk-only, with the heuristic and the main variant again), then every chk
# case (f32 PyTorch reference). Partial results land in $OUT as it goes.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-mla/p; L=$OUT/run.log
echo "== stats $SECONDS" >> $L
python3 -c "import sys,json; sys.path.insert(0,'$D'); import moe; print(json.dumps(moe.pipeline_stats('$D', ['mla-deepseek-v3','mla-deepseek-v3-reg','mla-deepseek-v3-reg-h16','mla-deepseek-v3-reg-k16','mla-deepseek-v3-reg-nopf','mla-deepseek-v3-reg-h16-nopf','mla-deepseek-v3-f16-reg','mla-dense-f16-reg']), indent=1))" > $OUT/stats.json 2>&1
echo "== pass 1 $SECONDS" >> $L
MLA_NAME=t1 MLA_ONLY='^mla-(deepseek-v3|deepseek-v3-reg|deepseek-v3-f16|deepseek-v3-f16-reg|dense-f16|dense-f16-reg|16h-f16|16h-f16-reg|b4-f16|b4-f16-reg)$' timeout 95 python3 $D/mla.py run $D >> $L 2>&1
echo "== pass 2 $SECONDS" >> $L
MLA_NAME=t2 MLA_PEER=0 MLA_ONLY='^mla-(deepseek-v3-reg-.*|deepseek-v3|deepseek-v3-reg)$' timeout 60 python3 $D/mla.py run $D >> $L 2>&1
echo "== chk $SECONDS" >> $L
MLA_NAME=chk MLA_ONLY='^chk' timeout 50 python3 $D/mla.py run $D >> $L 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
echo "== end $SECONDS" >> $L
