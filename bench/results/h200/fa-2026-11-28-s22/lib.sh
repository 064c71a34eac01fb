# Shell functions (sourced from the repository root), after session 21's:
# P OUT WORKLOADS [VAR=VALUE ...]: bench/gpu.py prepare with a fresh cache;
# K OUT SEQK [VAR=VALUE ...]: gfa-d128's grid (B4 Sq2048 H16 D128) at seq_k SEQK.
FP=bench/results/h200/device.fingerprint
D=.b-fa/s22
P() { # OUT WORKLOADS [VAR=VALUE ...]
  out=$1; wl=$2; shift 2
  env EJK_CACHE_DIR=$(mktemp -d) "$@" /usr/bin/python3 bench/gpu.py prepare --build $D/bb-${BB:-var} --out $D/$out --workloads $wl --fingerprint $FP >/dev/null 2>$D/err.log || { echo "FAILED $out"; cat $D/err.log; }
}
K() { # OUT SEQK [VAR=VALUE ...]  (needs $D/$BASE/gfa-d128/attention.mlir)
  out=$1; k=$2; shift 2
  d=$D/$out/gfa-d128-k$k; mkdir -p $d
  sed "s/%k: tensor<4x2048x16x128xf16>, %v: tensor<4x2048x16x128xf16>/%k: tensor<4x${k}x16x128xf16>, %v: tensor<4x${k}x16x128xf16>/; s/, tensor<4x2048x16x128xf16>, tensor<4x2048x16x128xf16> ->/, tensor<4x${k}x16x128xf16>, tensor<4x${k}x16x128xf16> ->/" $D/${BASE:-v/base}/gfa-d128/attention.mlir > $d/attention.mlir
  env "$@" $D/bb-${BB:-var}/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint $FP --no-cache >/dev/null 2>$d/err || echo "$out k$k: $(grep -m1 error $d/err)"
}
