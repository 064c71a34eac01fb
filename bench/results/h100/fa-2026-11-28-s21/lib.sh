# Shell functions (sourced from the repository root), after
# bench/results/h200/sparse-2026-11-27c/lib.sh:
# P OUT WORKLOADS [VAR=VALUE ...]: bench/gpu.py prepare with a fresh cache;
# X OUT "wl:bq,bk,sg ..." [VAR=VALUE ...]: ejkc at explicit configs.
FP=bench/vulkan/h100.fingerprint
D=.b-fa/s21
P() { # OUT WORKLOADS [VAR=VALUE ...]
  out=$1; wl=$2; shift 2
  env EJK_CACHE_DIR=$(mktemp -d) "$@" /usr/bin/python3 bench/gpu.py prepare --build $D/bb-${BB:-new} --out $D/$out --workloads $wl --fingerprint $FP >/dev/null 2>$D/err.log || { echo "FAILED $out"; cat $D/err.log; }
}
X() { # OUT "wl:bq,bk,sg ..." [VAR=VALUE ...]
  out=$1; list=$2; shift 2
  for item in $list; do
    wl=${item%%:*}; cfg=${item#*:}
    bq=$(echo $cfg | cut -d, -f1); bk=$(echo $cfg | cut -d, -f2); sg=$(echo $cfg | cut -d, -f3)
    d=$D/$out/$wl/$bq-$bk-$sg; mkdir -p $d
    c="config = #ejk.config<block_q = $bq, block_k = $bk, num_subgroups = $sg>"
    if grep -q "{causal}" $D/base/$wl/attention.mlir; then
      sed "s/{causal}/{causal, $c}/" $D/base/$wl/attention.mlir
    else
      sed "s/ejk.flash_attention %q, %k, %v /ejk.flash_attention %q, %k, %v {$c} /" $D/base/$wl/attention.mlir
    fi > $d/attention.mlir
    env "$@" $D/bb-${BB:-new}/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint $FP --no-cache >/dev/null 2>$d/err || echo "$out $wl $cfg: $(grep -m1 error $d/err)"
  done
}
