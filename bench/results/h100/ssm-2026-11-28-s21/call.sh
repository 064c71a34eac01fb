# The device calls of this directory (run from the repository root on the
# GPU machine, with .gl and .b-ssm/s21 carried; artifacts built here by
#   cd .b-ssm/s21 && python3 gen.py && python3 gen2.py
#   (and ejk/: ejk_runtime.prepare of ssm.py's mamba1, mamba1_cl_s128_bd32_c4_p0,
#    _c4_a4, _c2_a8; c++ -O1 -std=c++17 bench/vulkan/pipeline_stats.cpp -lvulkan -o pipeline_stats)
# Call 1 (art/):
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; cd .b-ssm/s21 && timeout 220 python3 run.py 2>&1 | tee $OUT/probe.log
# Call 2 (art2/):
# for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; cd .b-ssm/s21 && PROBE_ART=art2 timeout 220 python3 run.py 2>&1 | tee $OUT/probe.log
# Call 3, PREPARED FOR THE LEAD, NOT MADE by the ssm helper (its two calls
# were spent): the one-pass prototypes with y staged in shared memory and
# stored in rows (art3/, `python3 gen3.py` in .b-ssm/s21; ~15 modules,
# ~30 s on a warm H100; carry [".gl", ".b-ssm/s21"], kind nvidia-h100-x1):
# for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; cd .b-ssm/s21 && PROBE_ART=art3 timeout 200 python3 run.py 2>&1 | tee $OUT/probe.log | grep -v "^chk" | tail -40
