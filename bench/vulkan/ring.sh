#!/usr/bin/env bash
# Ring attention on several GPUs (issue 23, docs/ops/ring-gpus.md "Several GPUs"):
# one MPI rank per GPU, each on its own Vulkan device, against one GPU
# running ejk's flash attention over the whole sequence. Two steps, because
# the GPU machine has no MLIR:
#
#   here:   bash bench/vulkan/ring.sh prepare DIR [FINGERPRINT]
#           compiles, for S in $SEQS (default 32768 65536), B1 H16 D128 f16,
#           causal and not, ring entries of 1, 2 and 4 ranks with
#           `ejkc --target vulkan --fingerprint FINGERPRINT` (default
#           bench/vulkan/h100.fingerprint) into DIR/art, and copies
#           ejk-ring-run, the runtime libraries, Open MPI's Debian packages
#           and the device-side script (bench/vulkan/ring-run.sh) into DIR.
#   there:  bash DIR/run.sh
#           (carry DIR and .gl; see ring-run.sh for what it prints).
#
# A ring of 1 rank runs exactly one flash-attention block over the whole
# sequence (the causal `diag` block, or `full`): the single-GPU baseline,
# whose output the multi-GPU outputs are compared with.
set -euo pipefail
[ "${1:-}" = prepare ] || { echo "usage: $0 prepare DIR [FINGERPRINT]" >&2; exit 2; }
DIR=${2:?DIR}
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FINGERPRINT=${3:-$ROOT/bench/vulkan/h100.fingerprint}
BUILD=${EJK_BUILD:-$ROOT/build}
SEQS=${SEQS:-"32768 65536"}
RANKS=${RANKS:-"1 2 4"}
H=16 D=128
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
mlir="$DIR/ringgpu.mlir"
: > "$mlir"
t() { echo "tensor<1x$1x${H}x${D}xf16>"; }
l() { echo "tensor<1x${H}x$1xf32>"; }
for s in $SEQS; do
  for mask in causal full; do
    attrs=$([ $mask = causal ] && echo ", causal" || true)
    for n in $RANKS; do
      local_s=$((s / n))
      cat >> "$mlir" <<MLIR
func.func @s${s}_${mask}_n${n}(%q: $(t $local_s), %k: $(t $local_s), %v: $(t $local_s)) -> ($(t $local_s), $(l $local_s)) {
  %o, %l = ejk.ring_attention %q, %k, %v {ring_size = $n : i64$attrs} : $(t $local_s), $(t $local_s), $(t $local_s) -> $(t $local_s), $(l $local_s)
  return %o, %l : $(t $local_s), $(l $local_s)
}
MLIR
    done
  done
done
# The ring's blocks on their own (BLOCK_SEQS, default 16384 8192: the
# non-causal 4-rank blocks of S = 65536 and 32768), as rings of one rank:
# run.sh times each alone on one GPU and on every GPU at once.
for s in ${BLOCK_SEQS-16384 8192}; do
  cat >> "$mlir" <<MLIR
func.func @b${s}_full_n1(%q: $(t $s), %k: $(t $s), %v: $(t $s)) -> ($(t $s), $(l $s)) {
  %o, %l = ejk.ring_attention %q, %k, %v {ring_size = 1 : i64} : $(t $s), $(t $s), $(t $s) -> $(t $s), $(l $s)
  return %o, %l : $(t $s), $(l $s)
}
MLIR
done
rm -rf "$DIR/art"
"$BUILD/bin/ejkc" "$mlir" --target vulkan --fingerprint "$FINGERPRINT" \
  -o "$DIR/art" > /dev/null
# Two manifests per ring, forward blocks only: a process builds every
# pipeline of the manifest it loads, and the driver took about two minutes
# for all 104 entries (backward blocks included) on the first load of the
# 2026-11-27 4-GPU call. art/<stem>.json has the step blocks and the
# whole-sequence blocks of the device copies (gall, gclo<r>, gchi<r>);
# art/<stem>.gather.json the step blocks and the shared window's gathered
# blocks (gfull, gzlo<r>, gzhi<r>), for EJK_RING_DEVICE_COPY=0.
python3 - "$DIR/art/ringgpu.json" <<'PY'
import json, os, re, sys
path = sys.argv[1]
whole = json.load(open(path))
stems = sorted({e["name"].split("__ring__")[0] for e in whole["entries"]})
for stem in stems:
    for suffix, leave in ((".json", r"__(gfull|gzlo\d+|gzhi\d+)$"),
                          (".gather.json", r"__(gall|gclo\d+|gchi\d+)$")):
        part = dict(whole)
        part["entries"] = [e for e in whole["entries"]
                           if e["name"].startswith(stem + "__ring__")
                           and "__grad_" not in e["name"]
                           and not re.search(leave, e["name"])]
        with open(os.path.join(os.path.dirname(path), stem + suffix),
                  "w") as f:
            json.dump(part, f)
PY
cp "$BUILD/bin/ejk-ring-run" "$DIR/"
cp -L "$BUILD/lib/Runtime/libejk_runtime.so.1" "$DIR/"
cp -L "$BUILD/lib/Runtime/Mpi/libejk_runtime_mpi.so.1" "$DIR/"
cp "$ROOT/bench/vulkan/ring-run.sh" "$DIR/run.sh"
# Open MPI for the GPU machine (nothing can be installed there): Debian's
# packages, unpacked there by run.sh.
source "$ROOT/bench/mpi-debs.sh"
mpi_debs_download "$DIR"
cp "$ROOT/bench/mpi-debs.sh" "$DIR/"
du -sh "$DIR"
