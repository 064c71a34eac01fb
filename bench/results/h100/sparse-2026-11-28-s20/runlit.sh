#!/bin/sh
# Runs a lit test's RUN lines with a private ejk-opt: runlit.sh BIN FILE
BIN=$1; F=$2
cd /work/main
grep -E "^// RUN:" $F | sed 's|^// RUN: ||' | while read -r line; do
  cmd=$(echo "$line" | sed "s|%s|$F|g; s|^ejk-opt|$BIN/ejk-opt|; s/| FileCheck/| \/usr\/lib\/llvm-22\/bin\/FileCheck/; s/| not FileCheck/| not \/usr\/lib\/llvm-22\/bin\/FileCheck/")
  if sh -c "$cmd" > /tmp/runlit.out 2>&1; then echo "PASS: $(echo $line | cut -c1-100)"; else echo "FAIL: $(echo $line | cut -c1-100)"; head -12 /tmp/runlit.out; fi
done
