// Paths that are not regular files never hang a tool or get replaced by a
// file, and a cache entry whose files are not regular is not used.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mkfifo %t/in.npy %t/out.npy
//
// A FIFO as an --input is refused at once (it used to block forever).
// RUN: not timeout 120 ejk-run %s --entry attn --input %t/in.npy --input %t/in.npy --input %t/in.npy 2>&1 | FileCheck %s --check-prefix=FIFO-IN
// FIFO-IN: ejk-run: error: argument 0: '{{.*}}in.npy' is a FIFO, not a regular file
//
// A FIFO as an --output without a reader is an error and stays a FIFO (it
// used to be replaced by a regular file); /dev/null is written through.
// RUN: not timeout 120 ejk-run %s --entry attn --random-inputs 1 --output %t/out.npy 2>&1 | FileCheck %s --check-prefix=FIFO-OUT
// RUN: test -p %t/out.npy
// RUN: timeout 120 ejk-run %s --entry attn --random-inputs 1 --output /dev/null
// RUN: test -c /dev/null
// FIFO-OUT: ejk-run: error: result 0: '{{.*}}out.npy': cannot open for writing: no process reads the FIFO
//
// Two --output flags naming one file: an error, not the last one winning.
// RUN: not ejk-run %s --entry attn --random-inputs 1 --output %t/o.npy --output %t/./o.npy 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not test -e %t/o.npy
// TWICE: ejk-run: error: --output 0 and --output 1 name the same file '{{.*}}/./o.npy'
//
// llvm::cl's messages name `ejk-run`, the program the user ran.
// RUN: not ejk-run %s --entry attn --bench=lots 2>&1 | FileCheck %s --check-prefix=NAME
// NAME-NOT: ejk-run-compile
// NAME: ejk-run: for the --bench option: 'lots' value invalid
//
// A FIFO in place of an entry's kernel.so or entry.json: the entry is not
// used (never a hang) and is rebuilt, by ejkc and by ejk-run's front.
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %s --entry attn --random-inputs 1 --output %t/a.npy
// RUN: bash -c 'for d in %t/cache/artifacts/[0-9a-f]*; do rm $d/kernel.so && mkfifo -m 600 $d/kernel.so; done'
// RUN: env EJK_CACHE_DIR=%t/cache timeout 120 ejkc %s -o %t/out 2>&1 | FileCheck %s --check-prefix=CACHE-FIFO
// CACHE-FIFO: ejkc: warning: cache entry '{{.*}}' not used: '{{.*}}/kernel.so' is a FIFO, not a regular file; recompiling
// CACHE-FIFO: ejkc: cache miss
// RUN: bash -c 'for d in %t/cache/artifacts/[0-9a-f]*; do rm $d/entry.json && mkfifo -m 600 $d/entry.json; done'
// RUN: env EJK_CACHE_DIR=%t/cache timeout 120 ejk-run %s --entry attn --random-inputs 1 --output %t/b.npy --verbose 2>&1 | FileCheck %s --check-prefix=RUN-FIFO
// RUN: cmp %t/a.npy %t/b.npy
// RUN-FIFO: ejk-run: source index miss {{[0-9a-f]+}}: cache entry '{{.*}}' not used: '{{.*}}/entry.json' is a FIFO, not a regular file
// RUN-FIFO: ejk-run: cache miss

func.func @attn(%q: tensor<1x16x1x32xf32>, %k: tensor<1x16x1x32xf32>, %v: tensor<1x16x1x32xf32>) -> tensor<1x16x1x32xf32> {
  %o = ejk.flash_attention %q, %k, %v
      : tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32> -> tensor<1x16x1x32xf32>
  return %o : tensor<1x16x1x32xf32>
}
