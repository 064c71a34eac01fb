// Eight processes compiling one new kernel into one cache compile it once:
// the first holds the key's lock while it compiles, the others wait and
// take its entry. All succeed with identical artifacts.
// RUN: rm -rf %t && mkdir -p %t
// RUN: bash -c 'for i in 1 2 3 4 5 6 7 8; do (env EJK_CACHE_DIR=%t/cache ejkc %s -o %t/out$i --name k > %t/log$i 2>&1; echo "rc $?" >> %t/rc) & done; wait'
// RUN: cat %t/rc | sort | uniq -c | FileCheck %s --check-prefix=RC
// RUN: cat %t/log1 %t/log2 %t/log3 %t/log4 %t/log5 %t/log6 %t/log7 %t/log8 | grep -c 'cache miss' | FileCheck %s --check-prefix=ONE-MISS
// RUN: cat %t/log1 %t/log2 %t/log3 %t/log4 %t/log5 %t/log6 %t/log7 %t/log8 | grep -c 'cache hit' | FileCheck %s --check-prefix=SEVEN-HITS
// RUN: bash -c 'for i in 2 3 4 5 6 7 8; do cmp %t/out1/k.so %t/out$i/k.so && cmp %t/out1/k.json %t/out$i/k.json || exit 1; done'
// RUN: env EJK_CACHE_DIR=%t/cache ejkc --cache-stats | FileCheck %s --check-prefix=STATS
// RC: 8 rc 0
// ONE-MISS: {{^1$}}
// SEVEN-HITS: {{^7$}}
// STATS: entries: 1

func.func @k(%q: tensor<1x48x2x64xf32>, %k: tensor<1x48x2x64xf32>, %v: tensor<1x48x2x64xf32>) -> tensor<1x48x2x64xf32> {
  %o = ejk.flash_attention %q, %k, %v {causal}
      : tensor<1x48x2x64xf32>, tensor<1x48x2x64xf32>, tensor<1x48x2x64xf32> -> tensor<1x48x2x64xf32>
  return %o : tensor<1x48x2x64xf32>
}
