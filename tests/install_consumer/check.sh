#!/usr/bin/env bash
# Installs the build into a fresh prefix and uses it from outside as a user would: a CMake project
# with find_package(aotune), a C file built with pkg-config's flags (as strict C99), and the
# installed aot-runner. No GPU needed: the consumer's calls are invalid and must fail on the host.
#   bash tests/install_consumer/check.sh BUILD_DIR WORK_DIR [CMAKE_GENERATOR]
set -euo pipefail
build=$1 work=$2 generator=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in lib/libaotune.so include/aotune/aotune_c.h bin/aot-runner lib/cmake/aotune/aotuneConfig.cmake \
         lib/cmake/aotune/aotuneConfigVersion.cmake lib/pkgconfig/aotune.pc; do
  [ -e "$prefix/$f" ] || { echo "check: $f is not installed (see $work/install.log)" >&2; exit 1; }
done

echo "check: find_package(aotune) from a CMake project"
gen=(); [ -n "$generator" ] && gen=(-G "$generator")
cmake -S "$here" -B "$work/cmake-build" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" >"$work/cmake.log"
cmake --build "$work/cmake-build" >>"$work/cmake.log"
"$work/cmake-build/consumer"

echo "check: an older minor version is not accepted (the ABI may change before 1.0)"
if cmake -S "$here" -B "$work/cmake-old" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
     -DAOTUNE_CONSUMER_VERSION=0.0 >"$work/cmake-old.log" 2>&1; then
  echo "check: find_package(aotune 0.0) accepted version $(grep -o 'PACKAGE_VERSION "[^"]*"' \
    "$prefix/lib/cmake/aotune/aotuneConfigVersion.cmake" | head -1)" >&2
  exit 1
fi

if command -v pkg-config >/dev/null; then
  echo "check: pkg-config --cflags --libs aotune, strict C99"
  flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs aotune)
  cc -std=c99 -Wall -Wextra -pedantic -Werror "$here/main.c" $flags -o "$work/consumer-pc"
  LD_LIBRARY_PATH="$prefix/lib" "$work/consumer-pc"
else
  echo "check: pkg-config not found; the pkg-config consumer is left out"
fi

echo "check: the installed aot-runner"
"$prefix/bin/aot-runner" list >/dev/null
echo "check: ok"
