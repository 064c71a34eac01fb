#!/usr/bin/env bash
# Ring attention's backward over MPI, one thread per rank, against the same
# ring on one rank (docs/ops/ring.md, "Backward"). Usage:
#   bench/cpu/ring-backward.sh "RANKS..." [SEQ HEADS DIM] [REPEAT]
# e.g. bench/cpu/ring-backward.sh "1 2 4" 4096 8 64. Defaults: B1 S4096 H8
# D64 causal fp32, zigzag shards. A ring of one rank runs one causal
# flash_attention_grad block over the whole sequence: the single-process
# backward, plus the ring's host copies. Compiles with ejkc from ./build
# (or $EJK_BIN); each run is `mpirun -np N ejk-ring-run --backward --random 7
# --stats` (EJK_NUM_THREADS=1 per rank): the forward once, then the timed
# backward (best of REPEAT), each rank's time split.
set -euo pipefail
RANKS=${1:?ranks}
SEQ=${2:-4096}
HEADS=${3:-8}
DIM=${4:-64}
REPEAT=${5:-3}
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN=${EJK_BIN:-$ROOT/build/bin}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
t() { echo "tensor<1x$1x${HEADS}x${DIM}xf32>"; }
l() { echo "tensor<1x${HEADS}x$1xf32>"; }
for n in $RANKS; do
  s=$((SEQ / n))
  cat >> "$WORK/ringbwd.mlir" <<MLIR
func.func @ring$n(%q: $(t $s), %k: $(t $s), %v: $(t $s)) -> ($(t $s), $(l $s)) {
  %o, %l = ejk.ring_attention %q, %k, %v {ring_size = $n : i64, causal} : $(t $s), $(t $s), $(t $s) -> $(t $s), $(l $s)
  return %o, %l : $(t $s), $(l $s)
}
MLIR
done
"$BIN/ejkc" "$WORK/ringbwd.mlir" -o "$WORK/art" > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader EJK_NUM_THREADS=1
for n in $RANKS; do
  layout=zigzag
  [ "$n" = 1 ] && layout=contiguous
  echo "== $n rank(s) x 1 thread, ring backward B1 S$SEQ H$HEADS D$DIM causal f32 ($layout, shards of $((SEQ / n)))"
  mpirun --oversubscribe -np "$n" "$BIN/ejk-ring-run" "$WORK/art/ringbwd.json" \
    --entry "ring$n" --layout "$layout" --random 7 --backward \
    --repeat "$REPEAT" --stats
done
