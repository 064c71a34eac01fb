#!/bin/sh
# Session 18 (issue 21, helper fa), call 1, here: the variants behind the
# temporary switches (EJK_TMP_EARLY: first key block's loads before Q's;
# EJK_TMP_OSTAGE: output through the stage in 16-byte words; EJK_TMP_ROWS=R:
# R query blocks a workgroup, the next one's Q and first key block loaded
# under the current one's end; EJK_TMP_NOOUT / EJK_TMP_NOQ: profile
# removals), the seq_k sweep at gfa-d128's grid, bf16, the device checks.
set -eu
. .b-fa/lib.sh
S=$D/s18
W6=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
W4=gfa-d128,gfa-d128-causal,gfa-long,gfa-long-causal
rm -rf $D/v; mkdir -p $D/v
Pv() { n=$1; shift; P v/$n "$@"; }
Pv base $W6
Pv early $W4 EJK_TMP_EARLY=1
Pv ost $W6 EJK_TMP_OSTAGE=1
Pv eo $W6 EJK_TMP_EARLY=1 EJK_TMP_OSTAGE=1
Pv r2 gfa-d128,gfa-d128-causal EJK_TMP_ROWS=2
Pv r2o $W6 EJK_TMP_ROWS=2 EJK_TMP_OSTAGE=1
Pv r4o $W4 EJK_TMP_ROWS=4 EJK_TMP_OSTAGE=1
Pv r8o $W4 EJK_TMP_ROWS=8 EJK_TMP_OSTAGE=1
Pv noout gfa-d128 EJK_TMP_NOOUT=1
Pv noq gfa-d128 EJK_TMP_NOQ=1
Pv noqo gfa-d128 EJK_TMP_NOQ=1 EJK_TMP_NOOUT=1
# seq_k sweep at gfa-d128's grid (B4 Sq2048 H16 D128, 1024 workgroups)
for sk in 512 1024 4096 8192; do
  d=$D/v/sweep/k$sk; mkdir -p $d
  q=tensor\<4x2048x16x128xf16\>; kv=tensor\<4x${sk}x16x128xf16\>
  printf 'func.func @attention(%%q: %s, %%k: %s, %%v: %s) -> %s {\n  %%o = ejk.flash_attention %%q, %%k, %%v : %s, %s, %s -> %s\n  return %%o : %s\n}\n' $q $kv $kv $q $q $kv $kv $q $q > $d/attention.mlir
  build/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint $FP --no-cache >/dev/null 2>$d/err || echo "sweep $sk: $(grep -m1 error $d/err)"
done
# bf16 gfa-d128 (the harness is f16 only)
for v in "base" "eo EJK_TMP_EARLY=1 EJK_TMP_OSTAGE=1" "r2o EJK_TMP_ROWS=2 EJK_TMP_OSTAGE=1" "r4o EJK_TMP_ROWS=4 EJK_TMP_OSTAGE=1"; do
  set -- $v; n=$1; shift
  d=$D/v/bf16/$n; mkdir -p $d
  sed 's/xf16>/xbf16>/g' $D/v/base/gfa-d128/attention.mlir > $d/attention.mlir
  env "$@" build/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint $FP --no-cache >/dev/null 2>$d/err || echo "bf16 $n: $(grep -m1 error $d/err)"
done
cp build/bin/ejk-bench-run $D/
cp build/lib/Runtime/libejk_runtime.so.1 $D/lib/
# device checks: A = early + staged output + 2 blocks a workgroup (f16,
# bf16, and the extra problems), B = staged output + 4 blocks (f16, extra)
rm -rf $D/chk3; mkdir -p $D/chk3
ck() { # OUT FILE [bf16] VAR=VALUE...
  out=$1; file=$2; shift 2
  env EJK_CACHE_DIR=$(mktemp -d) "$@" build/bin/ejk-tune $file --space small --emit-candidates $D/chk3/$out --fingerprint $FP > $D/chk3/$out.log 2>&1 || echo "check $out failed"
}
bf=$(mktemp --suffix=.mlir); sed 's/xf16>/xbf16>/g' bench/vulkan/check-coop.mlir > $bf
bfr=$(mktemp --suffix=.mlir); sed 's/xf16>/xbf16>/g' $S/check-rows.mlir > $bfr
A="EJK_TMP_EARLY=1 EJK_TMP_OSTAGE=1 EJK_TMP_ROWS=2"
B="EJK_TMP_OSTAGE=1 EJK_TMP_ROWS=4"
ck a-nv bench/vulkan/check-coop.mlir $A
ck a-nb $bf $A
ck a-rows $S/check-rows.mlir $A
ck a-rows-bf $bfr $A
ck b-nv bench/vulkan/check-coop.mlir $B
ck b-rows $S/check-rows.mlir $B
rm -f $bf $bfr
cp build/bin/ejk-tune-runner $D/chk3/
/usr/bin/python3 bench/vulkan/check_shards.py $D/chk3 4 a-nv=an a-nb=ab
/usr/bin/python3 bench/vulkan/check_shards.py $D/chk3 3 b-nv=bn
ls $D/chk3
grep -h "wrote" $D/chk3/*.log
du -sh $D/v $D/chk3 $D
