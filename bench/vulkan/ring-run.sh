#!/usr/bin/env bash
# The GPU machine's half of bench/vulkan/ring.sh (copied there as run.sh):
# one call, everything in it, log under $OUT (docs/ops/ring-gpus.md "Several
# GPUs"). In order of what matters, so that a time-out keeps the most:
#   1. for S = 65536 then 32768 (SEQS), non-causal then causal: one GPU
#      running ejk's flash attention over the whole sequence (a ring of one
#      rank: the baseline, its kernel time), its output checked against
#      PyTorch's scaled_dot_product_attention; then 4 ranks, one per GPU
#      (zigzag shards when causal): the default (key/value GPU to GPU
#      through CUDA and the whole-sequence blocks where CUDA is there),
#      then each variant of VARIANTS (default EJK_RING_DEVICE_COPY=0: the
#      shared window's gathered form, from art/<ring>.gather.json; earlier
#      calls also timed EJK_RING_GATHER=0 and EJK_RING_SHARED_WINDOW=0);
#      then the rings of RANKS_MORE ranks (default 2);
#      every ring's gathered output against the baseline's;
#   2. the ring's blocks alone (BLOCKS, default 16384, "" for none: the 4-rank
#      non-causal block of S = 65536): one on GPU 0 alone, then one on every GPU at once, as
#      independent processes (no MPI between them): whether the blocks run
#      slower when all four GPUs work (the previous session's 2-4x);
#   before both, the machine's own host <-> device copy rate (PyTorch,
#   pinned memory): one GPU alone and all four at once (COPY_RATE=0 skips
#   it);
#   nvidia-smi samples every GPU's clock, use and memory all along
#   ($OUT/smi.csv) and which process runs on which GPU during the blocks.
#
# MODE=check1 instead: the one-GPU check of the device copies (every rank on
# GPU 0, CUDA IPC between processes of one GPU): for S in $SEQS, causal
# (zigzag) and not, rings of 2 and 4 ranks with the device copies (default)
# and without (EJK_RING_DEVICE_COPY=0), `--random 7` inputs, each output
# against the ring of one rank's.
set -u
cd "$(dirname "$0")"
HERE=$(pwd)
source ./mpi-debs.sh
mpi_debs_setup "$HERE"
if [ "${MODE:-}" = check1 ]; then
  OUTDIR=${OUT:-$HERE/out}
  mkdir -p "$OUTDIR" "$HERE/npy"
  exec > >(tee "$OUTDIR/ring-check1.log") 2>&1
  nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
  MPIRUN="$MPIROOT/usr/bin/orterun --bind-to none --oversubscribe"
  for s in ${SEQS:-16384}; do
    for mask in full causal; do
      for run in "1 x" "2 x" "4 x" "4 EJK_RING_DEVICE_COPY=0"; do
        set -- $run
        n=$1 env=$2 layout=contiguous
        [ "$mask" = causal ] && [ "$n" -gt 1 ] && layout=zigzag
        echo "== S=$s $mask n=$n $layout $env"
        out=npy/c_s${s}_${mask}_n${n}.npy
        manifest=art/s${s}_${mask}_n$n.json
        [ "$env" = EJK_RING_DEVICE_COPY=0 ] &&
          manifest=art/s${s}_${mask}_n$n.gather.json
        env EJK_X=1 $([ "$env" != x ] && echo "$env") timeout 60 $MPIRUN \
          $([ "$env" != x ] && echo "-x ${env%%=*}") -np "$n" ./ejk-ring-run \
          $manifest --entry s${s}_${mask}_n$n \
          --layout "$layout" --random 7 --warmup-ms 300 --repeat 3 --stats \
          --device vulkan:0 --out "$out" 2>&1 |
          grep -v -E "Perhaps a missing symbol|pmix_mca_base|dlopen error"
        [ "$n" != 1 ] && python3 - npy/c_s${s}_${mask}_n1.npy "$out" <<'PY'
import sys, numpy as np
ref, out = (np.load(p).astype(np.float32) for p in sys.argv[1:3])
err = np.abs(out - ref)
bound = 5e-3 + 5e-3 * np.abs(ref)
print("check against 1 rank: max |diff| %.3g, %d of %d beyond 5e-3 + 5e-3|ref|"
      % (err.max(), int((err > bound).sum()), err.size))
PY
      done
    done
  done
  exit 0
fi
export NCCL_NVLS_ENABLE=0
REPEAT=${REPEAT:-3}
# Untimed ring runs before the timed ones: clocks up, host buffers touched.
WARM_MS=${WARM_MS:-1000}
SEQS=${SEQS:-"65536 32768"}
OUTDIR=${OUT:-$HERE/out}
mkdir -p "$OUTDIR" "$HERE/npy"
exec > >(tee "$OUTDIR/ring-run.log") 2>&1
MPIRUN="$MPIROOT/usr/bin/orterun --bind-to none"
T0=$(date +%s)
stamp() { echo "[t+$(($(date +%s) - T0)) s] $*"; }
nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader
nproc
df -h /dev/shm | tail -1
nvidia-smi topo -m 2>&1 | head -8
nvidia-smi --query-gpu=timestamp,index,clocks.sm,utilization.gpu,memory.used,power.draw \
  --format=csv,noheader -lms 250 > "$OUTDIR/smi.csv" 2>&1 &
SMI=$!
trap 'kill $SMI 2>/dev/null' EXIT

# Inputs (f16 [1, S, 16, 128], one seed), made on GPU 0; every GPU warmed
# for 3 s of matmuls (an idle GPU drops to 345 MHz).
python3 - $SEQS <<'PY'
import sys, time, numpy as np, torch
for s in map(int, sys.argv[1:]):
    g = torch.Generator(device="cuda:0").manual_seed(s)
    for name in "qkv":
        x = torch.randn(1, s, 16, 128, device="cuda:0", generator=g).half()
        np.save(f"npy/s{s}_{name}.npy", x.cpu().numpy())
xs = [torch.randn(8192, 8192, device=f"cuda:{i}", dtype=torch.float16)
      for i in range(torch.cuda.device_count())]
end = time.time() + 3
while time.time() < end:
    for x in xs:
        x @ x
for i in range(len(xs)):
    torch.cuda.synchronize(i)
PY
stamp "inputs written, GPUs warm"

# The machine's host <-> device copy rate (PyTorch, pinned memory, 512 MiB,
# best of 5): GPU 0 alone, then all four GPUs copying at once (what the
# ring's ranks do), per GPU.
[ "${COPY_RATE:-1}" = 1 ] && python3 - <<'PY'
import time, torch
n = 512 << 20
def rate(gpus, to_device):
    hs = [torch.empty(n, dtype=torch.uint8).pin_memory() for _ in gpus]
    ds = [torch.empty(n, dtype=torch.uint8, device=f"cuda:{g}") for g in gpus]
    best = 0
    for _ in range(5):
        t = time.time()
        for h, d, g in zip(hs, ds, gpus):
            with torch.cuda.device(g):
                (d.copy_(h, non_blocking=True) if to_device
                 else h.copy_(d, non_blocking=True))
        for g in gpus:
            torch.cuda.synchronize(g)
        best = max(best, n / (time.time() - t) / 1e9)
    return best
for gpus in ([0], [0, 1, 2, 3]):
    print("copy rate, %d GPU(s) at once: upload %.1f GB/s, download %.1f GB/s"
          " per GPU" % (len(gpus), rate(gpus, True), rate(gpus, False)))
PY
stamp "copy rates"

# GPU to GPU (PyTorch, peer copies): every GPU pulls 384 MiB (3 x 128 MiB,
# a S = 65536 rank's key/value of the other shards) from the other three at
# once, as the ring's gather does; best of 5.
python3 - <<'PY'
import time, torch
g = torch.cuda.device_count()
n = 128 << 20
src = [torch.empty(n, dtype=torch.uint8, device=f"cuda:{i}") for i in range(g)]
dst = [[torch.empty(n, dtype=torch.uint8, device=f"cuda:{i}") for _ in range(g)]
       for i in range(g)]
best = 0
for _ in range(5):
    t = time.time()
    for i in range(g):
        with torch.cuda.device(i):
            for j in range(g):
                if j != i:
                    dst[i][j].copy_(src[j], non_blocking=True)
    for i in range(g):
        torch.cuda.synchronize(i)
    best = max(best, (g - 1) * n / (time.time() - t) / 1e9)
print("peer copy rate, %d GPUs all-gathering 3 x 128 MiB each: %.1f GB/s into "
      "each GPU (%.2f ms)" % (g, best, (g - 1) * n / best / 1e6))
PY
stamp "peer copy rate"

# check REF OUT: the ring's output against the one-GPU output.
check() {
  python3 - "$1" "$2" <<'PY'
import sys, numpy as np
ref, out = (np.load(p).astype(np.float32) for p in sys.argv[1:3])
err = np.abs(out - ref)
bound = 5e-3 + 5e-3 * np.abs(ref)
print("check against 1 GPU: max |diff| %.3g, %d of %d beyond 5e-3 + 5e-3|ref|"
      % (err.max(), int((err > bound).sum()), err.size))
PY
}
# torch_check S MASK OUT: the one-GPU output against PyTorch's SDPA (f16).
torch_check() {
  python3 - "$@" <<'PY'
import sys, numpy as np, torch
s, mask, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
q, k, v = (torch.from_numpy(np.load(f"npy/s{s}_{n}.npy")).cuda().transpose(1, 2)
           for n in "qkv")
ref = torch.nn.functional.scaled_dot_product_attention(
    q, k, v, is_causal=mask == "causal").transpose(1, 2).float().cpu().numpy()
o = np.load(out).astype(np.float32)
err = np.abs(o - ref)
bound = 5e-3 + 5e-3 * np.abs(ref)
print("check against PyTorch SDPA: max |diff| %.3g, %d of %d beyond 5e-3 + 5e-3|ref|"
      % (err.max(), int((err > bound).sum()), err.size))
PY
}
# ring S MASK N [ENV]: one ring (N ranks, one per GPU), best of $REPEAT.
ring() {
  local s=$1 mask=$2 n=$3 env=${4:-}
  local layout=contiguous
  [ "$mask" = causal ] && [ "$n" -gt 1 ] && layout=zigzag
  local entry=s${s}_${mask}_n$n out=npy/out_s${s}_${mask}_n$n.npy
  # The shared window's gathered blocks are in a manifest of their own.
  local manifest=art/$entry.json
  [ "$env" = EJK_RING_DEVICE_COPY=0 ] && manifest=art/$entry.gather.json
  stamp "== S=$s $mask: $n GPU(s), $layout ${env:-default}"
  local dev=vulkan:local
  [ "$n" = 1 ] && dev=vulkan:0
  local pass=()
  [ -n "$env" ] && pass=(-x "${env%%=*}")
  env ${env:-EJK_RING_DEFAULT=1} timeout 90 $MPIRUN \
    "${pass[@]}" -np "$n" ./ejk-ring-run $manifest --entry "$entry" \
    --layout "$layout" --q npy/s${s}_q.npy --k npy/s${s}_k.npy \
    --v npy/s${s}_v.npy --warmup-ms "$WARM_MS" --repeat "$REPEAT" --stats \
    --device "$dev" --out "$out" 2>&1 |
    grep -v -E "Perhaps a missing symbol|pmix_mca_base|dlopen error"
}

for s in $SEQS; do
  for mask in full causal; do
    ring "$s" "$mask" 1
    base=npy/base_s${s}_${mask}.npy
    mv "npy/out_s${s}_${mask}_n1.npy" "$base"
    torch_check "$s" "$mask" "$base"
    # The default (key/value GPU to GPU where CUDA is there), then the
    # variants of $VARIANTS (default: the shared window's gathered form).
    for variant in '""' ${VARIANTS-EJK_RING_DEVICE_COPY=0}; do
      variant=${variant//\"/}
      ring "$s" "$mask" 4 "$variant"
      check "$base" "npy/out_s${s}_${mask}_n4.npy"
    done
    for n in ${RANKS_MORE-2}; do
      ring "$s" "$mask" "$n"
      check "$base" "npy/out_s${s}_${mask}_n$n.npy"
    done
    rm -f npy/out_*.npy
  done
done

# The blocks alone: GPU 0 alone, then every GPU at once (independent
# processes); which GPU each process is on, from nvidia-smi, mid-run.
for b in ${BLOCKS-16384}; do
  stamp "== block ${b}x${b} (non-causal) alone on GPU 0"
  timeout 60 $MPIRUN -np 1 ./ejk-ring-run art/b${b}_full_n1.json --entry b${b}_full_n1 \
    --random 7 --warmup-ms 2000 --repeat 5 --stats --device vulkan:0 2>&1 |
    grep -E "^rank|wall"
  stamp "== block ${b}x${b} on all 4 GPUs at once"
  for g in 0 1 2 3; do
    timeout 60 $MPIRUN -np 1 ./ejk-ring-run art/b${b}_full_n1.json --entry b${b}_full_n1 \
      --random 7 --warmup-ms 2000 --repeat 5 --stats --device vulkan:$g \
      > "$OUTDIR/block${b}_gpu$g.log" 2>&1 &
  done
  sleep 2.5
  nvidia-smi --query-compute-apps=pid,gpu_bus_id,used_memory --format=csv,noheader
  wait $(jobs -p | grep -v "^$SMI$") 2>/dev/null
  for g in 0 1 2 3; do
    echo "gpu $g: $(grep -E '^rank' "$OUTDIR/block${b}_gpu$g.log")"
  done
done
stamp "done"
