#!/usr/bin/env bash
# Sets up and builds (scripts/setup.sh), then runs every test through ctest. CPU tests always run;
# GPU tests are reported as skipped on a machine without a usable CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
