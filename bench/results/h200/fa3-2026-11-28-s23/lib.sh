# Shell functions (sourced from the repository root), after fa2's s22 lib.sh:
# P OUT WORKLOADS [VAR=VALUE ...]: bench/gpu.py prepare with a fresh cache,
# the H200 fingerprint (sm_count=132) and the ejkc of $D/bb (switches EJK_TMP_*),
# an overlay through OV=file (bb-ov's wrapper).
FP132=bench/results/h200/device.fingerprint
D=.b-fa3
P() { # OUT WORKLOADS [VAR=VALUE ...]
  out=$1; wl=$2; shift 2
  env EJK_CACHE_DIR=$(mktemp -d) "$@" /usr/bin/python3 bench/gpu.py prepare --build $D/bb${BBS:-} --out $D/$out --workloads $wl --fingerprint $FP132 >/dev/null 2>$D/err-$$.log || { echo "FAILED $out"; cat $D/err-$$.log; }
}
