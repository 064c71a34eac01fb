#!/usr/bin/env bash
# Ring attention over MPI against single-process flash attention, one thread
# per rank (docs/ops/ring.md). Usage:
#   bench/cpu/ring.sh RANKS [SEQ HEADS DIM] [REPEAT]
# Defaults: the bar's B1 S16384 H16 D128 causal fp32 (needs RANKS cores to be
# meaningful). Compiles with ejkc from ./build (or $EJK_BIN), runs the
# baseline with `ejk-run --bench` (EJK_NUM_THREADS=1, the whole sequence),
# the ring with `mpirun -np RANKS ejk-ring-run --layout zigzag --stats`
# (EJK_NUM_THREADS=1 per rank), and prints both times, the speedup, the
# scaling efficiency (speedup / RANKS) and each rank's time split.
#
# For a machine without the compiler (the device machine), two steps:
#   here:   bench/cpu/ring.sh prepare DIR [RANKS [SEQ]] compiles the same
#           entries (HEADS 16, DIM 128) into DIR/art and copies ejk-ring-run,
#           ejk-bench-run, the runtime libraries, Open MPI's Debian packages,
#           ejKernel's wheels (from $WHEELS, if set) and the device-side
#           scripts (bench/cpu/ring-run.sh as DIR/run.sh, xla-ring.py), and
#           bench/paged.py's CPU decode artifacts in DIR/paged (NO_PAGED=1
#           leaves them out; they need $EJK_PYTHON with numpy);
#   there:  bash DIR/run.sh (carrying DIR): topology, the all-core control,
#           baseline, ring and ejKernel's XLA ring (see ring-run.sh).
set -euo pipefail
if [ "${1:-}" = prepare ]; then
  DIR=${2:?DIR}
  RANKS=${3:-8}
  SEQ=${4:-16384}
  HEADS=16 DIM=128
else
  RANKS=${1:?ranks}
  SEQ=${2:-16384}
  HEADS=${3:-16}
  DIM=${4:-128}
  REPEAT=${5:-3}
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN=${EJK_BIN:-$ROOT/build/bin}
PY=${EJK_PYTHON:-/usr/bin/python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
LOCAL=$((SEQ / RANKS))
t() { echo "tensor<1x$1x${HEADS}x${DIM}xf32>"; }
l() { echo "tensor<1x${HEADS}x$1xf32>"; }
cat > "$WORK/ringbench.mlir" <<MLIR
func.func @full(%q: $(t $SEQ), %k: $(t $SEQ), %v: $(t $SEQ)) -> ($(t $SEQ), $(l $SEQ)) {
  %o, %l = ejk.flash_attention %q, %k, %v {causal} : $(t $SEQ), $(t $SEQ), $(t $SEQ) -> $(t $SEQ), $(l $SEQ)
  return %o, %l : $(t $SEQ), $(l $SEQ)
}
func.func @ring(%q: $(t $LOCAL), %k: $(t $LOCAL), %v: $(t $LOCAL)) -> ($(t $LOCAL), $(l $LOCAL)) {
  %o, %l = ejk.ring_attention %q, %k, %v {ring_size = $RANKS : i64, causal} : $(t $LOCAL), $(t $LOCAL), $(t $LOCAL) -> $(t $LOCAL), $(l $LOCAL)
  return %o, %l : $(t $LOCAL), $(l $LOCAL)
}
MLIR
if [ "${1:-}" = prepare ]; then
  mkdir -p "$DIR"
  rm -rf "$DIR/art"
  "$BIN/ejkc" "$WORK/ringbench.mlir" -o "$DIR/art" > /dev/null
  echo "$SEQ" > "$DIR/seq"
  LIB=$(dirname "$BIN")/lib/Runtime
  cp "$BIN/ejk-ring-run" "$BIN/ejk-bench-run" "$DIR/"
  cp -L "$LIB/libejk_runtime.so.1" "$LIB/Mpi/libejk_runtime_mpi.so.1" "$DIR/"
  cp "$ROOT/bench/cpu/ring-run.sh" "$DIR/run.sh"
  cp "$ROOT/bench/cpu/xla-ring.py" "$DIR/"
  if [ -n "${WHEELS:-}" ]; then
    mkdir -p "$DIR/whl" && cp "$WHEELS"/*.whl "$DIR/whl/"
  fi
  source "$ROOT/bench/mpi-debs.sh"
  mpi_debs_download "$DIR"
  cp "$ROOT/bench/mpi-debs.sh" "$DIR/"
  # CPU decode (issue 17) rides along: bench/paged.py's artifacts.
  if [ -z "${NO_PAGED:-}" ]; then
    rm -rf "$DIR/paged"
    "$PY" "$ROOT/bench/paged.py" --build "$(dirname "$BIN")" --prepare "$DIR/paged" \
      --workloads "${PAGED_WORKLOADS:-decode-paged,decode-paged-f16,decode-paged-token-major,decode-paged-b8,decode-paged-b32,decode-gqa,decode-gqa-f16}" > /dev/null
  fi
  du -sh "$DIR"
  exit 0
fi
"$PY" - "$WORK" "$SEQ" "$HEADS" "$DIM" <<'PY'
import sys, numpy as np
work, s, h, d = sys.argv[1], *map(int, sys.argv[2:])
rng = np.random.default_rng(0)
for name in "qkv":
    np.save(f"{work}/{name}.npy", rng.standard_normal((1, s, h, d), dtype=np.float32))
PY
"$BIN/ejkc" "$WORK/ringbench.mlir" -o "$WORK/art" > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader EJK_NUM_THREADS=1
echo "== 1 rank x 1 thread, flash_attention B1 S$SEQ H$HEADS D$DIM causal f32"
"$BIN/ejk-run" "$WORK/ringbench.mlir" --entry full --input "$WORK/q.npy" \
  --input "$WORK/k.npy" --input "$WORK/v.npy" --bench "$REPEAT" | tee "$WORK/base.txt"
echo "== $RANKS ranks x 1 thread, ring_attention (zigzag), shards of $LOCAL"
mpirun --oversubscribe --bind-to core -np "$RANKS" "$BIN/ejk-ring-run" \
  "$WORK/art/ringbench.json" --entry ring --layout zigzag --q "$WORK/q.npy" \
  --k "$WORK/k.npy" --v "$WORK/v.npy" --repeat "$REPEAT" --stats | tee "$WORK/ring.txt"
"$PY" - "$WORK/base.txt" "$WORK/ring.txt" "$RANKS" <<'PY'
import re, sys
base = open(sys.argv[1]).read()
ring = open(sys.argv[2]).read()
n = int(sys.argv[3])
b = re.findall(r"([0-9.]+) ms", base)
r = re.search(r"ring wall \(slowest rank, best of \d+\): ([0-9.]+) ms", ring)
if not b or not r:
    sys.exit("could not read the times")
tb = min(float(x) for x in b)
tr = float(r.group(1))
print(f"baseline {tb:.1f} ms, ring {tr:.1f} ms, speedup {tb / tr:.2f}x, "
      f"scaling efficiency {tb / tr / n * 100:.0f}% of ideal ({n} ranks)")
PY
