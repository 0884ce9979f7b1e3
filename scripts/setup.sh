#!/usr/bin/env bash
# Installs what aotune needs (Debian/Ubuntu packages, only the missing ones), then configures and
# builds into ${BUILD_DIR:-build}. Safe to re-run: an up-to-date build does nothing.
#   CUDA_ARCHS=90 bash scripts/setup.sh      # one architecture only, faster
#   BUILD_TYPE=Debug bash scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-Release}
# Tools are looked up as commands (they may come from elsewhere than apt), libraries as packages.
declare -A TOOLS=([cmake]=cmake [ninja]=ninja-build [g++]=g++)
LIBRARIES=(nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev)

missing=()
for t in "${!TOOLS[@]}"; do command -v "$t" >/dev/null || missing+=("${TOOLS[$t]}"); done
for p in "${LIBRARIES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing missing packages: ${missing[*]}"
  if ! command -v apt-get >/dev/null; then
    echo "setup: apt-get not found; install these by hand: ${missing[*]}" >&2
    exit 1
  fi
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The CUDA toolkit: nvcc on PATH, or the usual install folder.
if ! command -v nvcc >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; break; fi
  done
fi
if ! command -v nvcc >/dev/null; then
  echo "setup: nvcc not found. Install the CUDA Toolkit (https://developer.nvidia.com/cuda-downloads" >&2
  echo "       or Debian's nvidia-cuda-toolkit) and put its bin/ on PATH." >&2
  exit 1
fi

# The benchmarks too (bench/): their smoke run is one of the tests.
cmake_args=(-S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DAOTUNE_BUILD_BENCH=ON)
[ -n "${CUDA_ARCHS:-}" ] && cmake_args+=(-DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHS")
cmake "${cmake_args[@]}" >/dev/null
jobs=${JOBS:-$(nproc)}
echo "setup: building in $BUILD_DIR with $jobs jobs (nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
# TARGETS (space-separated) builds only those, e.g. TARGETS=aot-runner in a tree whose generated
# headers were removed after a kernel change (the tests include them; `aot-runner emit` writes them).
read -r -a targets <<< "${TARGETS:-}"
cmake --build "$BUILD_DIR" -j "$jobs" ${targets[@]+--target "${targets[@]}"}
