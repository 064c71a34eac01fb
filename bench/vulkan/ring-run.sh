#!/usr/bin/env bash
# The GPU machine's half of bench/vulkan/ring.sh (copied there as run.sh).
# For every compiled S and mask: a ring of 1 rank on GPU 0 (ejk's flash
# attention over the whole sequence: the baseline), then rings of 2 and 4
# ranks with one rank per GPU (`--device vulkan:local`; zigzag shards when
# causal), each the best of $REPEAT runs with per-rank, per-step stats;
# then each ring's gathered output against the baseline's, and the scaling:
# speedup = baseline kernel time / ring wall time, efficiency = speedup / n.
set -u
cd "$(dirname "$0")"
HERE=$(pwd)
source ./mpi-debs.sh
mpi_debs_setup "$HERE"
REPEAT=${REPEAT:-3}
# Untimed ring runs before the timed ones: clocks up, host buffers touched.
WARM_MS=${WARM_MS:-1500}
# AB_ENV=NAME=VALUE: the 4-GPU rings again with that variable set, e.g.
# EJK_VULKAN_COPY_QUEUE=0 (no copy lane) or EJK_RING_REGISTER_HOST=0 (K/V and
# block outputs staged instead of copied from registered host memory).
AB_ENV=${AB_ENV:-}
OUTDIR=${OUT:-$HERE/out}
mkdir -p "$OUTDIR" "$HERE/npy"
# Everything printed also goes to OUTDIR/ring-run.log (the device tool keeps
# only the last lines of the console).
exec > >(tee "$OUTDIR/ring-run.log") 2>&1
MPIRUN="$MPIROOT/usr/bin/orterun --bind-to none"
clocks() {
  nvidia-smi --query-gpu=index,clocks.sm,clocks.max.sm,clocks_throttle_reasons.active \
    --format=csv,noheader | tr '\n' ';'
  echo
}
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
nproc
entries=$(grep -o '"s[0-9]*_[a-z]*_n[0-9]*__ring__' art/ringgpu.json | \
  sed 's/"\(.*\)__ring__/\1/' | sort -u)
# Warm every GPU for a fixed time (clocks drop when idle).
python3 - <<'PY'
import time, torch
xs = [torch.randn(8192, 8192, device=f"cuda:{i}", dtype=torch.float16)
      for i in range(torch.cuda.device_count())]
end = time.time() + 3
while time.time() < end:
    for x in xs:
        x @ x
for i in range(len(xs)):
    torch.cuda.synchronize(i)
PY
for base in $(echo "$entries" | grep '_n1$'); do
  stem=${base%_n1}
  mask=$(echo "$stem" | cut -d_ -f2)
  echo "== $stem: 1 GPU (flash attention over the whole sequence)"
  echo "clocks before: $(clocks)"
  timeout 300 $MPIRUN -np 1 ./ejk-ring-run art/ringgpu.json --entry "$base" \
    --random 7 --warmup-ms "$WARM_MS" --repeat "$REPEAT" --stats --device vulkan:0 \
    --out "npy/${base}.npy" 2>&1 | tail -4
  for n in 2 4; do
    entry=${stem}_n$n
    echo "$entries" | grep -qx "$entry" || continue
    layouts=contiguous
    [ "$mask" = causal ] && layouts="zigzag contiguous"
    for layout in $layouts; do
      echo "== $stem: $n GPUs, $layout"
      echo "clocks before: $(clocks)"
      timeout 300 $MPIRUN -np "$n" ./ejk-ring-run art/ringgpu.json \
        --entry "$entry" --layout "$layout" --random 7 --warmup-ms "$WARM_MS" \
        --repeat "$REPEAT" --stats --device vulkan:local --out "npy/${entry}_$layout.npy" 2>&1 |
        tail -$((n * (n + 1) + 1))
      if [ -n "$AB_ENV" ] && [ "$n" = 4 ] &&
        [ "$layout" != contiguous -o "$mask" = full ]; then
        echo "== $stem: $n GPUs, $layout, $AB_ENV"
        env "$AB_ENV" timeout 300 $MPIRUN -x "${AB_ENV%%=*}" \
          -np "$n" ./ejk-ring-run art/ringgpu.json --entry "$entry" \
          --layout "$layout" --random 7 --warmup-ms "$WARM_MS" \
          --repeat "$REPEAT" --stats --device vulkan:local 2>&1 |
          grep -v '^  step'
      fi
      python3 - "npy/${base}.npy" "npy/${entry}_$layout.npy" <<'PY'
import sys, numpy as np
ref, out = (np.load(p).astype(np.float32) for p in sys.argv[1:3])
err = np.abs(out - ref)
bound = 5e-3 + 5e-3 * np.abs(ref)
print("check against 1 GPU: max |diff| %.3g, %d of %d beyond 5e-3 + 5e-3|ref|"
      % (err.max(), int((err > bound).sum()), err.size))
PY
      rm -f "npy/${entry}_$layout.npy"
    done
  done
  rm -f "npy/${base}.npy"
done
