#!/bin/sh
# there: times every artifact under the given dirs with ejk-bench-run
# (GPU timestamps, median of 20 after 600 ms of warm-up).
for d in "$@"; do
  for m in $(find $d -name attention.json -path '*artifact*' | sort); do
    r=$(LD_LIBRARY_PATH=.fa/lib .fa/ejk-bench-run $m --entry attention --runs 20 --warmup 1 --warmup-ms 600 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' ')
    echo "$m: $r"
  done
done
