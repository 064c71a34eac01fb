#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and checks that a user can
# build and run docs/examples/run_attention.c against the INSTALLED runtime,
# both with find_package(ejk) and with pkg-config, on an artifact made by the
# installed ejkc.
#   install-example.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/ejk-install-XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in lib/libejk_runtime.so lib/libejk_runtime.so.1 include/ejk/runtime.h \
         include/ejk/Runtime/ejk_runtime.h include/ejk/Runtime/Runtime.hpp \
         lib/cmake/ejk/ejkConfig.cmake lib/cmake/ejk/ejkTargets.cmake \
         lib/pkgconfig/ejk-runtime.pc bin/ejkc bin/ejk-run bin/ejk-run-compile; do
  test -e "$prefix/$f" || { echo "missing from the install tree: $f"; exit 1; }
done
# The runtime must not drag the compiler in.
# (ldd's output is captured first: with pipefail, `grep -q` closing the pipe
# early would fail the pipeline.)
deps=$(ldd "$prefix/lib/libejk_runtime.so")
if grep -Eq 'libMLIR|libLLVM' <<< "$deps"; then
  echo "libejk_runtime.so links MLIR/LLVM"; exit 1
fi

# Nor does ejk-run's front; a miss execs the installed ejk-run-compile and
# the second run hits without it.
deps=$(ldd "$prefix/bin/ejk-run")
if grep -Eq 'libMLIR|libLLVM' <<< "$deps"; then
  echo "bin/ejk-run links MLIR/LLVM"; exit 1
fi
for run in miss hit; do
  EJK_CACHE_DIR=$work/cache "$prefix/bin/ejk-run" \
    "$source/docs/examples/run_attention.mlir" --entry attention \
    --random-inputs 1 --load-only --verbose 2> "$work/run-$run.log"
done
grep -q "ejk-run: cache miss" "$work/run-miss.log" \
  || { echo "installed ejk-run did not compile:"; cat "$work/run-miss.log"; exit 1; }
grep -q "through the source index" "$work/run-hit.log" \
  || { echo "installed ejk-run did not hit:"; cat "$work/run-hit.log"; exit 1; }

# An artifact from the installed compiler, with a cache of its own.
EJK_CACHE_DIR=$work/cache "$prefix/bin/ejkc" \
  "$source/docs/examples/run_attention.mlir" -o "$work/artifact"
manifest=$work/artifact/run_attention.json

# 1. find_package(ejk) from a separate CMake project.
cmake -S "$source/docs/examples" -B "$work/with-cmake" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > "$work/cmake.log"
cmake --build "$work/with-cmake" > "$work/cmake-build.log"
echo "find_package build:"
"$work/with-cmake/run_attention" "$manifest"
deps=$(ldd "$work/with-cmake/run_attention")
grep -q "$prefix/lib/libejk_runtime.so" <<< "$deps" \
  || { echo "the find_package build does not use the installed runtime"; exit 1; }

# 2. pkg-config.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs ejk-runtime)
cc -std=c99 -O2 -Wall -Wextra -Werror "$source/docs/examples/run_attention.c" \
  $flags -Wl,-rpath,"$prefix/lib" -lm -o "$work/with-pkg-config"
echo "pkg-config build ($flags):"
"$work/with-pkg-config" "$manifest"
deps=$(ldd "$work/with-pkg-config")
grep -q "$prefix/lib/libejk_runtime.so" <<< "$deps" \
  || { echo "the pkg-config build does not use the installed runtime"; exit 1; }

# A bad manifest is a clean error, not a crash.
echo '{' > "$work/bad.json"
if "$work/with-pkg-config" "$work/bad.json" 2> "$work/bad.log"; then
  echo "a bad manifest was accepted"; exit 1
fi
grep -q "EJK_ERROR_FORMAT" "$work/bad.log" || { cat "$work/bad.log"; exit 1; }
echo "install example: ok"
