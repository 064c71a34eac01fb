# Shell functions (sourced from the repository root), after fa's s22 lib.sh:
# P OUT WORKLOADS FP [VAR=VALUE ...]: bench/gpu.py prepare with a fresh cache
# and the ejkc of $D/bb-${BB:-var}.
FP132=bench/results/h200/device.fingerprint
FP0=.b-fa2/h200-no-sm.fingerprint
D=.b-fa2
P() { # OUT WORKLOADS FP [VAR=VALUE ...]
  out=$1; wl=$2; fp=$3; shift 3
  env EJK_CACHE_DIR=$(mktemp -d) "$@" /usr/bin/python3 bench/gpu.py prepare --build $D/bb-${BB:-var} --out $D/$out --workloads $wl --fingerprint $fp >/dev/null 2>$D/err.log || { echo "FAILED $out"; cat $D/err.log; }
}
