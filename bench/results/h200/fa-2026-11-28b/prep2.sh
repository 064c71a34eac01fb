#!/bin/sh
# Session 19 (issue 21, helper fa), call 2, here: the committed heuristic's
# artifacts (fin: gfa-d128 / gfa-long on the cm2 kernel since f211b82, the
# rest KHR: d64 with the lazy rescale, causal as before), and the KHR kernel
# with the lazy rescale at 128 x 64 x 8 (khr: byte-identical to call 1's
# timed `lazy`) and 128 x 32 x 8 (two K/V buffers) for gfa-d128 / gfa-long.
set -eu
. .b-fa/s19/lib.sh
W6=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
rm -rf $D/v2; mkdir -p $D/v2
BB=head P v2/fin $W6
BB=head X v2/x "gfa-d128:128,64,8 gfa-long:128,64,8 gfa-d128:128,32,8 gfa-long:128,32,8"
mkdir -p $D/v2/khr
python3 - <<'PY'
import json, shutil
D = ".b-fa/s19/v2"
a = json.load(open(f"{D}/fin/artifacts.json"))
a["workloads"] = {w: a["workloads"][w] for w in ["gfa-d128", "gfa-long"]}
for w in a["workloads"]:
    shutil.copytree(f"{D}/x/{w}/128-64-8", f"{D}/khr/{w}")
json.dump(a, open(f"{D}/khr/artifacts.json", "w"), indent=1)
PY
cp .b-fa/s19/dev2.sh $D/v2/dev2.sh
for w in gfa-d128 gfa-long; do cmp $D/v2/x/$w/128-64-8/artifact/attention_attention_dispatch_0.spv $D/v/lazy/$w/artifact/attention_attention_dispatch_0.spv && echo "$w khr = call 1 lazy"; done
for w in gfa-d64; do cmp $D/v2/fin/$w/artifact/attention_attention_dispatch_0.spv $D/v/lazy/$w/artifact/attention_attention_dispatch_0.spv && echo "$w fin = call 1 lazy"; done
for w in gfa-d128-causal gfa-d64-causal gfa-long-causal; do cmp $D/v2/fin/$w/artifact/attention_attention_dispatch_0.spv $D/v/base/$w/artifact/attention_attention_dispatch_0.spv && echo "$w fin = call 1 base"; done
du -sh $D/v2
