#!/bin/sh
# Private ejkc / ejk-tune: the tree's objects with .b-sparse/src's copy of
# lib/Ops/Attention (temporary switches, never in the checkout).
set -eu
cd /work/main
D=/work/main/.b-sparse; SRC=${SRC:-$D/src}; O=${O:-$D/obj}; B=${B:-$D/bin}
mkdir -p $O $B
CXX="ccache /usr/bin/c++ -D_GLIBCXX_USE_CXX11_ABI=1 -D__STDC_CONSTANT_MACROS -D__STDC_FORMAT_MACROS -D__STDC_LIMIT_MACROS -I$SRC/lib/Ops -I/work/main/include -I/work/main/build/include -I/work/main/dialects/ejk/include -I/work/main/build/dialects/ejk/include -I/work/main/lib/Reference/../../include -I/work/main/lib/Support/../../include -I/work/main/lib/Ops -isystem /usr/lib/llvm-22/include -fPIC -fno-semantic-interposition -fvisibility-inlines-hidden -Wall -Wextra -Wno-unused-parameter -Wno-comment -ffunction-sections -fdata-sections -O3 -DNDEBUG -fno-exceptions -funwind-tables -std=gnu++17"
for f in Vulkan/CoopKernel Vulkan/CoopSoftmax; do
  o=$O/Attention_$(echo $f | tr / _).cpp.o
  flock build/.build.lock $CXX -c $SRC/lib/Ops/Attention/$f.cpp -o $o
done
cp build/lib/libEJKOps.a $O/libEJKOps.a
cd $O
ar t libEJKOps.a | grep -E "CoopKernel|CoopSoftmax"
cp Attention_Vulkan_CoopKernel.cpp.o CoopKernel.cpp.o
cp Attention_Vulkan_CoopSoftmax.cpp.o CoopSoftmax.cpp.o
ar r libEJKOps.a CoopKernel.cpp.o CoopSoftmax.cpp.o
cd /work/main/build
for t in ${TARGETS:-ejkc ejk-tune}; do
  cmd=$(ninja -t commands bin/$t | tail -1 | sed "s| lib/libEJKOps.a | $O/libEJKOps.a |; s|-o bin/$t |-o $B/$t |")
  flock .build.lock sh -c "$cmd"
done
ls -la $B
