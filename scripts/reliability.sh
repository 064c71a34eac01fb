#!/usr/bin/env bash
# The sanitizer build and the bounded fuzz runs (docs/reliability.md).
#
# Builds ejk with clang-22, ASan + UBSan and the libFuzzer targets in
# build-asan (or $EJK_ASAN_BUILD_DIR), runs the whole ctest suite (GoogleTest,
# lit, fuzz replays) there, checks that its ejk-opt prints the same IR as the
# GCC build's (scripts/check-host-determinism.py), then fuzzes each target
# for $EJK_FUZZ_SECONDS (default 60). Fails on any sanitizer report, failed
# test, output that depends on the host compiler, or fuzz finding that is not
# a known, pending one (test/Fuzz/pending/known.txt).
#
#   EJK_FUZZ_SECONDS=600 bash scripts/reliability.sh   # fuzz longer
#   EJK_RELIABILITY_SKIP_TESTS=1 ...                    # fuzz only
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${EJK_ASAN_BUILD_DIR:-$ROOT/build-asan}"
JOBS="${EJK_JOBS:-$(nproc)}"
FUZZ_SECONDS="${EJK_FUZZ_SECONDS:-60}"
FUZZ_DIR="$ROOT/test/Fuzz"

export CCACHE_BASEDIR="$ROOT"
export CCACHE_NOHASHDIR=1
LAUNCHER=()
if command -v ccache > /dev/null; then
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

start=$SECONDS
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DEJK_SANITIZE=address,undefined -DEJK_FUZZ=ON \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "${LAUNCHER[@]}"
fi
if [ "${EJK_RELIABILITY_SKIP_TESTS:-0}" = 1 ]; then
  ninja -C "$BUILD" -j "$JOBS" ejk-fuzz-mlir ejk-fuzz-npy ejk-fuzz-manifest
else
  ninja -C "$BUILD" -j "$JOBS"
fi
echo "reliability: sanitizer build took $((SECONDS - start)) s"

# Every sanitizer finding is fatal (the build also has
# -fno-sanitize-recover=all); stacks are symbolized with Debian's
# llvm-symbolizer. Two departures from ASan's defaults, both forced by what
# ASan cannot know:
# - allow_user_poisoning=0: LLVM's BumpPtrAllocator (MLIR's attribute and
#   type storage) poisons its slabs by hand when the code inlining it is
#   built with ASan. ejk's code is, Debian's libMLIR.so / libLLVM.so are not,
#   and they share the allocators: a slab poisoned by ejk's inlined copy and
#   carved up by libMLIR's stays poisoned, and ejk reading an attribute
#   there reads as use-after-poison. Heap overflows, use-after-free and
#   leaks are still caught.
# - allocator_may_return_null=1: the runtime answers a buffer too large to
#   allocate with EJK_ERROR_OUT_OF_MEMORY, and its tests ask for one; ASan
#   would abort in the allocator instead of returning null as malloc does.
#   (The fuzzers' -malloc_limit_mb still reports any allocation over 2 GiB.)
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1:allow_user_poisoning=0:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# Leaks that are not ejk's: the Vulkan loader's and Mesa's (scripts/lsan.supp).
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$ROOT/scripts/lsan.supp}"

# Tests left out of the sanitizer run (a ctest regex):
# install-example never runs here: it links a plain C program against the
# installed, instrumented libejk_runtime.so, which only a sanitizer-linked
# program can load (the normal build runs it).
PENDING_TESTS='^install-example$'

if [ "${EJK_RELIABILITY_SKIP_TESTS:-0}" != 1 ]; then
  # GoogleTest suites and fuzz replays, leak checking on.
  start=$SECONDS
  ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" \
    -E "^lit\$|Vulkan|$PENDING_TESTS"
  echo "reliability: GoogleTest + fuzz replays under ASan + UBSan took" \
    "$((SECONDS - start)) s (not run: $PENDING_TESTS)"
  # Without leak checking, memory errors and undefined behaviour still
  # fatal:
  # - the Vulkan runtime tests: the loader unloads its drivers and layers
  #   (uninstrumented, third-party) when the last instance goes, so what
  #   they keep for the process's life is reported from "<unknown module>",
  #   which no suppression can name (preloading them instead breaks the
  #   layers' symbol interposition);
  # - the lit suite: one-shot tool processes that leave
  #   LLVM's and MLIR's process-wide registries and the drivers to the OS.
  # ejk's own code is leak-checked by the suites above and by the fuzzers.
  start=$SECONDS
  # The integration and conformance suites are left out here: their work is
  # in generated kernels (not instrumented) and, for conformance, Python;
  # the tool and runtime paths they take are the ones the other lit tests
  # take. They cost most of the sanitizer lit time (18 min of it on two
  # cores) and CI has 60 minutes.
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
  LIT_FILTER_OUT='^EJK :: (Integration|Conformance)/' \
    ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" \
      -R "^lit\$|Vulkan" -E "$PENDING_TESTS"
  echo "reliability: Vulkan tests and lit under ASan + UBSan took" \
    "$((SECONDS - start)) s"

  # ejk's output must not depend on the compiler that built it: the GCC
  # build's ejk-opt and this clang-22 one must print the same IR for every
  # lit RUN line, except those on the allow-list (docs/determinism.md).
  GCC_OPT="${EJK_BUILD_DIR:-$ROOT/build}/bin/ejk-opt"
  if [ -x "$GCC_OPT" ]; then
    start=$SECONDS
    python3 "$ROOT/scripts/check-host-determinism.py" --jobs "$JOBS" \
      "$GCC_OPT" "$BUILD/bin/ejk-opt"
    echo "reliability: host-compiler determinism check took" \
      "$((SECONDS - start)) s"
  else
    echo "reliability: no GCC build at $GCC_OPT: the host-compiler" \
      "determinism check did not run" >&2
  fi
fi

# Fuzzing: each target from its seeds (and the corpus an earlier run in this
# build directory grew), in fork mode so that a known, pending crash does not
# stop the run; every finding is then replayed and classified.
known="$FUZZ_DIR/pending/known.txt"
findings="$BUILD/fuzz-findings"
rm -rf "$findings"
mkdir -p "$findings"
status=0
for target in mlir npy manifest; do
  binary="$BUILD/bin/ejk-fuzz-$target"
  work="$BUILD/fuzz-corpus/$target"
  mkdir -p "$work"
  case $target in
    mlir) seeds=("$BUILD/test/Fuzz/corpus/mlir") ;;
    *) seeds=("$FUZZ_DIR/corpus/$target") ;;
  esac
  if [ -d "$FUZZ_DIR/regressions/ejk-fuzz-$target" ]; then
    seeds+=("$FUZZ_DIR/regressions/ejk-fuzz-$target")
  fi
  start=$SECONDS
  # -timeout: seconds one input may take (a hang is a finding);
  # -rss_limit_mb / -malloc_limit_mb: memory one input may take (ditto).
  # Fork mode keeps only a one-line summary of a job's crash: log_path keeps
  # every sanitizer report whole.
  rc=0
  ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$findings/$target-sanitizer" \
  UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$findings/$target-sanitizer" \
    "$binary" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=4096 \
      -malloc_limit_mb=2048 -max_len=16384 \
      -dict="$FUZZ_DIR/dict/$target.dict" \
      -artifact_prefix="$findings/$target-" "$work" "${seeds[@]}" \
      > "$findings/$target.log" 2>&1 || rc=$?
  # With -ignore_crashes the exit status is the last crash's; the findings
  # are judged below. Without any, a non-zero status is the fuzzer failing.
  if [ $rc -ne 0 ] && ! compgen -G "$findings/$target-*-*" > /dev/null; then
    echo "reliability: ejk-fuzz-$target failed (status $rc):" >&2
    tail -30 "$findings/$target.log" >&2
    status=1
  fi
  # Fork mode's last status line: "#<inputs run>: cov: ... time: <s>s ...".
  last=$(grep -E '^#[0-9]+: cov:' "$findings/$target.log" | tail -1 || true)
  execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<< "${last:-#0:}")
  elapsed=$((SECONDS - start))
  echo "reliability: ejk-fuzz-$target: $execs inputs in ${elapsed} s" \
    "($((execs / (elapsed > 0 ? elapsed : 1))) exec/s)," \
    "corpus $(ls "$work" | wc -l) files"
  for artifact in "$findings/$target-"{crash,timeout,oom,leak}-*; do
    [ -e "$artifact" ] || continue
    case $artifact in *.report) continue ;; esac
    # Replay it alone for its report, then match the report against the
    # known, pending crashers.
    report="$artifact.report"
    "$binary" -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
      "$artifact" > "$report" 2>&1 || true
    if python3 "$FUZZ_DIR/classify.py" "$known" "ejk-fuzz-$target" "$report"; then
      echo "reliability: known pending: $artifact"
    else
      echo "reliability: NEW FINDING: $artifact (replayed: $report;" \
        "the fuzzing run's sanitizer reports: $findings/$target-sanitizer.*)" >&2
      grep -E 'ERROR|SUMMARY|runtime error|#[0-9] ' "$report" | head -20 >&2
      status=1
    fi
  done
done
exit $status
