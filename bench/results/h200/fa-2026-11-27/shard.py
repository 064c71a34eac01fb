"""Splits check.sh's check-nv and check-nv-bf16 plans into 4 shards each
(DIR/{nv,bf}-s{0..3}/plan.json, paths into the original directories), so
that 8 ejk-tune-runner processes check them in parallel on the GPU machine
(one runner took about 0.9 s a candidate, mostly pipeline creation).
    python3 shard.py DIR        # DIR as given to bench/vulkan/check.sh
The same as `python3 bench/vulkan/check_shards.py DIR 4 check-nv=nv
check-nv-bf16=bf` (the general form, used since)."""
import os
import subprocess
import sys

tool = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    "../../../vulkan/check_shards.py")
subprocess.run([sys.executable, tool, sys.argv[1], "4", "check-nv=nv",
                "check-nv-bf16=bf"], check=True)
