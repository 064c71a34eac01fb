#!/usr/bin/env bash
# The sanitizer build and the bounded fuzz runs (docs/reliability.md).
#
# Builds ejk with clang-22, ASan + UBSan and the libFuzzer targets in
# build-asan (or $EJK_ASAN_BUILD_DIR), runs the whole ctest suite (GoogleTest,
# lit, fuzz replays) there, then fuzzes each target for $EJK_FUZZ_SECONDS
# (default 60). Fails on any sanitizer report, failed test or fuzz finding
# that is not a known, pending one (test/Fuzz/pending/known.txt).
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
ninja -C "$BUILD" -j "$JOBS"
echo "reliability: sanitizer build took $((SECONDS - start)) s"

# Every sanitizer finding is fatal (the build also has
# -fno-sanitize-recover=all); stacks are symbolized with Debian's
# llvm-symbolizer.
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

if [ "${EJK_RELIABILITY_SKIP_TESTS:-0}" != 1 ]; then
  start=$SECONDS
  ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS"
  echo "reliability: tests under ASan + UBSan took $((SECONDS - start)) s"
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
  if ! "$binary" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
      -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=4096 \
      -malloc_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
      -dict="$FUZZ_DIR/dict/$target.dict" \
      -artifact_prefix="$findings/$target-" "$work" "${seeds[@]}" \
      > "$findings/$target.log" 2>&1; then
    echo "reliability: ejk-fuzz-$target exited non-zero" >&2
    tail -30 "$findings/$target.log" >&2
    status=1
  fi
  echo "reliability: ejk-fuzz-$target: $(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$findings/$target.log" | grep -Eo '[0-9]+$' | paste -sd+ | bc 2>/dev/null || echo '?') inputs in $((SECONDS - start)) s"
  for artifact in "$findings/$target-"*; do
    [ -e "$artifact" ] || continue
    # Replay it alone for its report, then match the report against the
    # known, pending crashers.
    report="$artifact.report"
    "$binary" -timeout=20 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
      "$artifact" > "$report" 2>&1 || true
    if python3 "$FUZZ_DIR/classify.py" "$known" "ejk-fuzz-$target" "$report"; then
      echo "reliability: known pending: $artifact"
    else
      echo "reliability: NEW FINDING: $artifact (report: $report)" >&2
      grep -E 'ERROR|SUMMARY|runtime error|#[0-9] ' "$report" | head -20 >&2
      status=1
    fi
  done
done
exit $status
