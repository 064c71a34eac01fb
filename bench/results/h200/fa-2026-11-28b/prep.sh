#!/bin/sh
# Session 19 (issue 21, helper fa), here: the variants behind the temporary
# switches (EJK_TMP_LAZY: the row max kept until it grows by more than 8 in
# log2 units, O's rescale skipped, subgroup-uniform; EJK_TMP_QSTAGE: two row
# tiles with head_dim > 64 read Q's fragments from the stage (Q kept beside
# the K/V buffer); EJK_TMP_NOPIPE: no pipelined P V; EJK_TMP_NOKLOAD /
# EJK_TMP_NOVLOAD: profile, K^T / V fragment loads mostly removed), the
# device checks (A: lazy; B: lazy + qStaged, only the candidates that differ
# from A, sharing A's inputs).
set -eu
. .b-fa/s19/lib.sh
W6=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
rm -rf $D/v; mkdir -p $D/v
BB=base P v/base $W6
P v/lazy $W6 EJK_TMP_LAZY=1
P v/prof/nokl gfa-d128,gfa-long EJK_TMP_NOKLOAD=1
P v/prof/novl gfa-d128,gfa-long EJK_TMP_NOVLOAD=1
P v/prof/nokv gfa-d128,gfa-long EJK_TMP_NOKLOAD=1 EJK_TMP_NOVLOAD=1
X v/qs "gfa-d128:64,32,2 gfa-long:64,32,2" EJK_TMP_QSTAGE=1
X v/qsl "gfa-d128:64,32,2 gfa-d128:128,16,4 gfa-d128:64,16,2 gfa-long:64,32,2 gfa-d128-causal:64,32,2 gfa-long-causal:64,32,2" EJK_TMP_QSTAGE=1 EJK_TMP_LAZY=1
X v/qsln "gfa-d128:64,32,2 gfa-long:64,32,2" EJK_TMP_QSTAGE=1 EJK_TMP_LAZY=1 EJK_TMP_NOPIPE=1
X v/qreg "gfa-d128:64,32,2"
# harness variant q2l: d128 / long (causal and not) on qsl 64 x 32 x 2, d64 lazy
mkdir -p $D/v/q2l
python3 - <<'PY'
import json, os, shutil
D = ".b-fa/s19/v"
a = json.load(open(f"{D}/lazy/artifacts.json"))
for w in list(a["workloads"]):
    src = f"{D}/qsl/{w}/64-32-2" if os.path.isdir(f"{D}/qsl/{w}/64-32-2") else f"{D}/lazy/{w}"
    shutil.copytree(src, f"{D}/q2l/{w}", dirs_exist_ok=True)
json.dump(a, open(f"{D}/q2l/artifacts.json", "w"), indent=1)
PY
# bf16 gfa-d128 (the harness is f16 only)
for v in "base" "lazy EJK_TMP_LAZY=1"; do
  set -- $v; n=$1; shift
  d=$D/v/bf16/$n; mkdir -p $d
  sed 's/xf16>/xbf16>/g' $D/v/base/gfa-d128/attention.mlir > $d/attention.mlir
  env "$@" $D/bb-new/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint $FP --no-cache >/dev/null 2>$d/err || echo "bf16 $n: $(grep -m1 error $d/err)"
done
d=$D/v/bf16/qsl; mkdir -p $d
sed 's/xf16>/xbf16>/g; s/ejk.flash_attention %q, %k, %v /ejk.flash_attention %q, %k, %v {config = #ejk.config<block_q = 64, block_k = 32, num_subgroups = 2>} /' $D/v/base/gfa-d128/attention.mlir > $d/attention.mlir
EJK_TMP_QSTAGE=1 EJK_TMP_LAZY=1 $D/bb-new/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint $FP --no-cache >/dev/null 2>$d/err || echo "bf16 qsl: $(grep -m1 error $d/err)"
# device checks
rm -rf $D/ca $D/cb $D/chk; mkdir -p $D/chk
ENVV="EJK_TMP_LAZY=1" sh $D/cands.sh ca
ENVV="EJK_TMP_LAZY=1 EJK_TMP_QSTAGE=1" sh $D/cands.sh cb
python3 - <<'PY'
import json, os, shutil, filecmp
D = ".b-fa/s19"
out = f"{D}/chk"
keep = {}
for s in ["nv", "nb", "sn", "rows", "rows-bf"]:
    shutil.copytree(f"{D}/ca/{s}", f"{out}/a-{s}")
    plan = json.load(open(f"{D}/cb/{s}/plan.json"))
    newp = dict(plan, problems=[])
    n = 0
    for pr in plan["problems"]:
        cands = []
        for c in pr["candidates"]:
            m = c["manifest"]; cdir = os.path.dirname(m)
            sa = [f for f in os.listdir(f"{D}/ca/{s}/{cdir}") if f.endswith(".spv")]
            same = all(filecmp.cmp(f"{D}/ca/{s}/{cdir}/{f}", f"{D}/cb/{s}/{cdir}/{f}", shallow=False) for f in sa)
            if not same:
                shutil.copytree(f"{D}/cb/{s}/{cdir}", f"{out}/b-{s}/{cdir}")
                cands.append(c)
        if cands:
            pr = json.loads(json.dumps(pr))
            pr["candidates"] = cands
            pr["inputs"] = ["../a-" + s + "/" + x for x in pr["inputs"]]
            pr["expected"] = ["../a-" + s + "/" + x for x in pr["expected"]]
            newp["problems"].append(pr)
            n += len(cands)
    if n:
        os.makedirs(f"{out}/b-{s}", exist_ok=True)
        json.dump(newp, open(f"{out}/b-{s}/plan.json", "w"), indent=1)
    print(s, "B candidates differing from A:", n)
PY
python3 bench/vulkan/check_shards.py $D/chk 4 a-nv=an a-nb=ab
python3 bench/vulkan/check_shards.py $D/chk 2 a-sn=as
cp $D/ejk-tune-runner $D/chk/
du -sh $D/v $D/chk
