# The two device calls of this directory (session 23, ssm helper; one NVIDIA
# H200, kind nvidia-h200, carry [".gl", ".b-ssm/s23"], run from the
# repository root). Built here first, in .b-ssm/s23 (a copy of this
# directory's scripts):
#   python3 prep_ejk.py                 # ejkc's heuristic -> ejk/ (H200 fingerprint)
#   python3 gen23.py                    # call 1's artifacts -> art/
#   CALL2=1 POUT=art2 python3 gen23.py  # call 2's -> art2/
#   cp ../s21/pipeline_stats .          # c++ -O1 -std=c++17 bench/vulkan/pipeline_stats.cpp -lvulkan
# Checked here on lavapipe first:
#   PL=256 PD=64 POUT=chk python3 gen_check23.py && python3 check_local.py chk
#   PL=2048 PD=256 python3 check_streams.py
# Call 1 (art/, 54 modules; call1/):
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv; cd .b-ssm/s23 && timeout 230 python3 run23.py > $OUT/probe.log 2>&1; echo rc $?; grep -v "^chk" $OUT/probe.log | tail -75; grep -c "^chk.* ok" $OUT/probe.log; grep "FAIL\|ERROR" $OUT/probe.log; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
# Call 2 (art2/, 31 modules; call2/):
# for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cd .b-ssm/s23 && PROBE_ART=art2 timeout 230 python3 run23.py > $OUT/probe.log 2>&1; echo rc $?; grep -v "^chk" $OUT/probe.log | tail -45; grep -c "^chk.* ok" $OUT/probe.log; grep "FAIL\|ERROR" $OUT/probe.log; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
# Call 3, PREPARED FOR THE LEAD, NOT MADE by the ssm helper (its two calls
# were made): the full one-pass kernel's compute path without DRAM reads
# (`_fixt`), with its reduce-scatter (`red_`) or exp (`exp_`) dropped, and
# with the batches unrolled so that each batch's reduce-scatter follows the
# next batch's state steps (`_unb`; checked on lavapipe with 2 and 4 states
# a lane). Build: cd .b-ssm/s23 && CALL3=1 POUT=art3 python3 gen23.py
# (14 modules, ~25 s on a warm H200; carry [".gl", ".b-ssm/s23"], kind nvidia-h200):
# for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv; cd .b-ssm/s23 && PROBE_ART=art3 timeout 200 python3 run23.py > $OUT/probe.log 2>&1; echo rc $?; grep -v "^chk" $OUT/probe.log | tail -25; grep "^chk" $OUT/probe.log
