#!/usr/bin/env bash
# The device machine's half of `bench/cpu/ring.sh prepare DIR` (copied there
# as DIR/run.sh; docs/ops/ring.md "Measurements"). On the machine's CPU, one
# thread per process (EJK_NUM_THREADS=1), B1 S$SEQ H16 D128 causal f32:
#
#  1. the CPU's topology (lscpu): which logical CPUs share a physical core;
#  2. control: one ring block (zzkv, a zigzag step's block) timed by
#     ejk-bench-run alone on one core, then in 8 (= RANKS) independent
#     processes at once, one per physical core, no MPI: the machine's
#     all-core effects (clock, memory bandwidth, L3) without the ring;
#  3. the baseline: ejk's flash attention over the whole sequence, one
#     thread (ejk-bench-run on the `full` entry), best of 2;
#  4. the ring on RANKS ranks (zigzag, --bind-to core), best of $REPEAT, with
#     per-step stats, in $RING_VARIANTS (environment settings, space
#     separated; `default` is none): by default the direct path with the
#     default wait (polls 100 us to 1 ms apart), polling every 100 us, and
#     EJK_RING_DIRECT=0 (the blocks' operands and outputs copied through
#     host buffers, as before); CONTROL=0 skips step 2;
#  5. ejKernel's XLA ring_attention under shard_map on RANKS JAX host
#     devices (xla-ring.py), same shape, if its wheels are in DIR/whl;
#  6. if DIR/paged exists (ring.sh prepare puts it there): CPU paged and
#     dense decode against the read rate, pinned to 1, 2 and 8 CPUs
#     (bench/paged.py --artifacts; docs/ops/paged.md), once per setting of
#     $PAGED_VARIANTS (default: `default`, no setting).
set -u
cd "$(dirname "$0")"
HERE=$(pwd)
source ./mpi-debs.sh
mpi_debs_setup "$HERE"
export EJK_NUM_THREADS=1
RANKS=${RANKS:-8}
REPEAT=${REPEAT:-2}
SEQ=$(cat seq)
OUTDIR=${OUT:-$HERE/out}
mkdir -p "$OUTDIR"
exec > >(tee "$OUTDIR/ring-cpu.log") 2>&1
TMP=$(mktemp -d)
echo "== CPU"
lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|NUMA node|L2|L3|CPU max MHz)'
lscpu -p=CPU,CORE,SOCKET | grep -v '^#' > "$TMP/topology.csv"
# One logical CPU per physical core, in core order.
CORES=$(awk -F, '!seen[$2 "," $3]++ {print $1}' "$TMP/topology.csv" | head -"$RANKS" | tr '\n' ' ')
echo "one CPU per physical core: $CORES"
grep -m1 MHz /proc/cpuinfo
# Whether Open MPI's shared-memory transport moves a large message in one
# copy (CMA) or through its FIFO in fragments (each needs a progress call).
ompi_info --param btl vader --level 9 2>/dev/null | grep -i single_copy_mechanism | head -2

zz=$(grep -o '"ring__ring__n[0-9]*__c1__wn__zzkv"' art/ringbench.json | head -1 | tr -d '"')
bench() { # CPU ENTRY RUNS
  taskset -c "$1" ./ejk-bench-run art/ringbench.json --device cpu \
    --entry "$2" --runs "$3" --warmup 1 --dispatch-times
}
summary() { # FILE: the bench line and the dispatch line on one line
  echo "$(grep '^bench:' "$1"); $(grep dispatches "$1")"
}
if [ "${CONTROL:-1}" != 0 ]; then
echo "== control: $zz alone on each of CPUs $CORES in turn"
for c in $CORES; do
  bench "$c" "$zz" 2 > "$TMP/alone-$c.txt" 2>&1
  echo "cpu $c alone: $(summary "$TMP/alone-$c.txt")"
done
echo "== control: $zz in $RANKS processes at once, one per CPU (no MPI)"
pids=()
for c in $CORES; do
  bench "$c" "$zz" 5 > "$TMP/control-$c.txt" 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
for c in $CORES; do
  echo "cpu $c, all busy: $(summary "$TMP/control-$c.txt")"
done
# The other roles of a zigzag rank's steps, alone: the per-rank sum of its
# blocks (diag + r zzkv + (RANKS-1-r) zzq) against baseline / RANKS.
for role in diag zzq; do
  bench "${CORES%% *}" "${zz%zzkv}$role" 3 > "$TMP/$role.txt" 2>&1
  echo "$role alone (cpu ${CORES%% *}): $(summary "$TMP/$role.txt")"
done
fi # CONTROL

echo "== baseline: flash attention B1 S$SEQ H16 D128 causal f32, 1 thread (CPU ${CORES%% *})"
taskset -c "${CORES%% *}" ./ejk-bench-run art/ringbench.json --device cpu \
  --entry full --runs 2 --warmup 0 --dispatch-times

for variant in ${RING_VARIANTS:-default EJK_RING_POLL_US=100 EJK_RING_DIRECT=0}; do
  echo "== ring: $RANKS ranks x 1 thread, zigzag, --bind-to core, $variant"
  env=()
  [ "$variant" != default ] && env=(-x "$variant")
  timeout 120 mpirun --bind-to core \
    --report-bindings "${env[@]}" -x EJK_NUM_THREADS -np "$RANKS" \
    ./ejk-ring-run art/ringbench.json --entry ring --layout zigzag --random 7 \
    --repeat "$REPEAT" --stats 2>&1 |
    grep -v -e '^$' -e pmix -e 'dlopen error' -e 'Perhaps a missing'
done

if [ -d whl ] && ls whl/*.whl > /dev/null 2>&1; then
  echo "== ejKernel XLA ring_attention, $RANKS host devices"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --upgrade --target /tmp/site whl/*.whl && export PYTHONPATH=/tmp/site
  PYTHONUNBUFFERED=1 timeout 110 python3 xla-ring.py "$RANKS" "$SEQ" 16 128
fi

if [ -d paged ]; then
  for variant in ${PAGED_VARIANTS:-default}; do
    echo "== CPU decode (issue 17): paged and dense decode against the read rate, $variant"
    [ "$variant" = default ] && variant=EJK_NOTHING=1
    env "$variant" PYTHONUNBUFFERED=1 timeout 150 python3 paged/paged.py \
      --artifacts paged --threads ${PAGED_THREADS:-1,2,8} --runs ${PAGED_RUNS:-30}
  done
fi
