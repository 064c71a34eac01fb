// Every error of the tuning flags and files is clear and exits non-zero.

// RUN: rm -rf %t && mkdir -p %t

// ejk-select-configs options.
// RUN: not ejk-opt %s -ejk-select-configs="config-overlay=%t/missing.json" 2>&1 | FileCheck %s --check-prefix=CHECK-NO-OVERLAY
// CHECK-NO-OVERLAY: error: ejk-select-configs: cannot read config overlay '{{.*}}missing.json'
// RUN: echo '{"configs": {"ejk.flash_attention": {"block_q": -1}}}' > %t/bad-overlay.json
// RUN: not ejk-opt %s -ejk-select-configs="config-overlay=%t/bad-overlay.json" 2>&1 | FileCheck %s --check-prefix=CHECK-BAD-OVERLAY
// CHECK-BAD-OVERLAY: error: ejk-select-configs: config overlay '{{.*}}bad-overlay.json': config of 'ejk.flash_attention': entry 'block_q' is not a positive integer
// RUN: not ejk-opt %s -ejk-select-configs="fingerprint=%t/missing.txt" 2>&1 | FileCheck %s --check-prefix=CHECK-NO-FP
// CHECK-NO-FP: error: ejk-select-configs: cannot read fingerprint file '{{.*}}missing.txt'
// RUN: echo "cores=2" > %t/bad-fp.txt
// RUN: not ejk-opt %s -ejk-select-configs="fingerprint=%t/bad-fp.txt" 2>&1 | FileCheck %s --check-prefix=CHECK-BAD-FP
// CHECK-BAD-FP: error: ejk-select-configs: fingerprint file '{{.*}}bad-fp.txt': fingerprint has no kind=cpu or kind=vulkan line
// RUN: not ejk-opt %s -ejk-select-configs="target=vulkan fingerprint=%S/Inputs/test-fingerprint.txt" 2>&1 | FileCheck %s --check-prefix=CHECK-KIND
// CHECK-KIND: error: ejk-select-configs: the fingerprint is of a cpu device but the target is 'vulkan'
// RUN: printf 'kind=cpu\nl2_cache=big\n' > %t/bad-l2.txt
// RUN: not ejk-opt %s -ejk-select-configs="fingerprint=%t/bad-l2.txt" 2>&1 | FileCheck %s --check-prefix=CHECK-BAD-FIELD
// CHECK-BAD-FIELD: error: ejk-select-configs: fingerprint field 'l2_cache' has an invalid value 'big'
// RUN: not ejk-opt %s -ejk-select-configs="policy=sometimes" 2>&1 | FileCheck %s --check-prefix=CHECK-POLICY
// CHECK-POLICY: error: ejk-select-configs: invalid autotune policy 'sometimes' (expected 'autotune' or 'heuristics')
// RUN: not ejk-opt %s -ejk-select-configs="policy=autotune fingerprint=host" 2>&1 | FileCheck %s --check-prefix=CHECK-NO-TUNER
// CHECK-NO-TUNER: error: ejk-select-configs: the autotune policy needs a tuner: tune with ejk-tune, or compile with ejkc or ejk-run
// RUN: not ejk-opt %s -ejk-select-configs="record=true" 2>&1 | FileCheck %s --check-prefix=CHECK-RECORD
// CHECK-RECORD: error: ejk-select-configs: 'record' needs a device: give 'fingerprint=host' or a fingerprint file
// RUN: env EJK_LOG_AUTOTUNE=maybe not ejk-opt %s -ejk-select-configs 2>&1 | FileCheck %s --check-prefix=CHECK-LOG
// CHECK-LOG: error: ejk-select-configs: EJK_LOG_AUTOTUNE: invalid value 'maybe' (expected 1, true, 0 or false)

// The compiling tools.
// RUN: env EJK_AUTOTUNE_POLICY=always not ejkc %s -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-EJKC-POLICY
// CHECK-EJKC-POLICY: ejkc: error: EJK_AUTOTUNE_POLICY: invalid autotune policy 'always' (expected 'autotune' or 'heuristics')
// RUN: env EJK_AUTOTUNE_POLICY=always not ejk-run %s --entry attention --random-inputs 1 2>&1 | FileCheck %s --check-prefix=CHECK-RUN-POLICY
// CHECK-RUN-POLICY: ejk-run: error: EJK_AUTOTUNE_POLICY: invalid autotune policy 'always'
// RUN: not ejkc %s --config-overlay %t/missing.json -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-EJKC-OVERLAY
// CHECK-EJKC-OVERLAY: ejkc: error: cannot read config overlay '{{.*}}missing.json'
// RUN: not ejk-run %s 2>&1 | FileCheck %s --check-prefix=CHECK-RUN-ENTRY
// CHECK-RUN-ENTRY: ejk-run: error: give an input file and --entry NAME

// ejk-tune.
// RUN: not ejk-tune %s --space huge 2>&1 | FileCheck %s --check-prefix=CHECK-SPACE
// CHECK-SPACE: ejk-tune: error: unknown --space 'huge' (expected small or full)
// RUN: not ejk-tune %s --target tpu 2>&1 | FileCheck %s --check-prefix=CHECK-TARGET
// CHECK-TARGET: ejk-tune: error: unknown target 'tpu' (expected cpu or vulkan)
// RUN: not ejk-tune %s --target vulkan --fingerprint %S/Inputs/test-fingerprint.txt 2>&1 | FileCheck %s --check-prefix=CHECK-TARGET-KIND
// CHECK-TARGET-KIND: ejk-tune: error: fingerprint file '{{.*}}test-fingerprint.txt' is of a cpu device, not vulkan
// RUN: not ejk-tune 2>&1 | FileCheck %s --check-prefix=CHECK-NOTHING
// CHECK-NOTHING: ejk-tune: error: nothing to tune: give an input file or --recorded
// RUN: env EJK_AUTOTUNE_POLICY=x not ejk-tune %s 2>&1 | FileCheck %s --check-prefix=CHECK-TUNE-POLICY
// CHECK-TUNE-POLICY: ejk-tune: error: EJK_AUTOTUNE_POLICY: invalid autotune policy 'x'
// RUN: not ejk-tune %s --fingerprint %S/Inputs/test-fingerprint.txt --cache-dir %t/c 2>&1 | FileCheck %s --check-prefix=CHECK-FOREIGN
// CHECK-FOREIGN: ejk-tune: error: the fingerprint is not of a device on this machine: tune another device with --emit-candidates DIR and ejk-tune-runner there
// RUN: printf 'kind=cpu\nisa=none\nvector_bits=128\n' > %t/other-isa.txt
// RUN: not ejk-tune %s --emit-candidates %t/cand --fingerprint %t/other-isa.txt 2>&1 | FileCheck %s --check-prefix=CHECK-ISA
// CHECK-ISA: ejk-tune: error: the fingerprint's 'isa' (none) differs from this machine's ({{.*}}): CPU candidates can only be compiled for this machine's ISA
// RUN: echo '{}' > %t/results.json
// RUN: not ejk-tune --import-results %t/results.json 2>&1 | FileCheck %s --check-prefix=CHECK-RESULTS
// CHECK-RESULTS: ejk-tune: error: '{{.*}}results.json': not ejk tuning results ("format": "ejk-tuning-results")
// RUN: not ejk-tune --import-db %t/results.json 2>&1 | FileCheck %s --check-prefix=CHECK-IMPORTDB
// CHECK-IMPORTDB: ejk-tune: error: '{{.*}}results.json': not an ejk tuning database (no "format": "ejk-tuning-db")

// ejk-tune-runner.
// RUN: not ejk-tune-runner 2>&1 | FileCheck %s --check-prefix=CHECK-RUNNER-NODIR
// CHECK-RUNNER-NODIR: ejk-tune-runner: error: no candidate directory given
// RUN: not ejk-tune-runner %t 2>&1 | FileCheck %s --check-prefix=CHECK-RUNNER-PLAN
// CHECK-RUNNER-PLAN: ejk-tune-runner: error: '{{.*}}plan.json': cannot read it (is this a candidate directory?)
// RUN: not ejk-tune-runner %t --runs 0 2>&1 | FileCheck %s --check-prefix=CHECK-RUNNER-RUNS
// CHECK-RUNNER-RUNS: ejk-tune-runner: error: --runs needs a positive integer
// RUN: ejk-run --fingerprint-out %t/here.txt
// RUN: sed 's/^cores=.*/cores=999/' %t/here.txt > %t/elsewhere.txt
// RUN: ejk-tune %s --emit-candidates %t/cand2 --fingerprint %t/elsewhere.txt > /dev/null
// RUN: not ejk-tune-runner %t/cand2 2>&1 | FileCheck %s --check-prefix=CHECK-RUNNER-DEVICE
// CHECK-RUNNER-DEVICE: ejk-tune-runner: error: this cpu device ({{.+}}, fingerprint {{[0-9a-f]+}}) is not the device the candidates were compiled for ({{[0-9a-f]+}})

// A candidate whose outputs differ from the reference (here: the reference
// replaced by an input) fails the run with status 2 after the results are
// written; --allow-wrong exits 0.
// RUN: ejk-tune %s --emit-candidates %t/cand3 --fingerprint %t/here.txt > /dev/null
// RUN: cp %t/cand3/p0/input0.npy %t/cand3/p0/expected0.npy
// RUN: ejk-tune-runner %t/cand3 --runs 1 --warmup 0 > %t/wrong.out 2> %t/wrong.err; test $? -eq 2
// RUN: FileCheck %s --check-prefix=CHECK-WRONG-OUT < %t/wrong.out
// CHECK-WRONG-OUT: wrong
// CHECK-WRONG-OUT: wrote {{.*}}cand3/results.json
// RUN: FileCheck %s --check-prefix=CHECK-WRONG < %t/wrong.err
// CHECK-WRONG: ejk-tune-runner: error: wrong outputs in problem ejk.flash_attention;q=1x16x1x16xf32
// CHECK-WRONG-NEXT: block_k={{[0-9]+}},block_q={{[0-9]+}}: output 0:
// CHECK-WRONG: ejk-tune-runner: error: {{[0-9]+}} candidates of 1 problem gave wrong outputs (--allow-wrong exits 0 anyway)
// RUN: ejk-tune-runner %t/cand3 --runs 1 --warmup 0 --allow-wrong 2>&1 | FileCheck %s --check-prefix=CHECK-WRONG-ALLOWED
// CHECK-WRONG-ALLOWED: gave wrong outputs

func.func @attention(%q: tensor<1x16x1x16xf32>, %k: tensor<1x16x1x16xf32>, %v: tensor<1x16x1x16xf32>) -> tensor<1x16x1x16xf32> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x16x1x16xf32>, tensor<1x16x1x16xf32>, tensor<1x16x1x16xf32> -> tensor<1x16x1x16xf32>
  return %o : tensor<1x16x1x16xf32>
}
